"""Significance of a comparison: paired tests per data set, ranks across data sets.

Part of :mod:`krein.experiment`.  Every distribution comes from
:mod:`scipy.stats`; this module only arranges the numbers.

Per data set (the methods of one comparison ran on the same splits, so they
are compared *paired*):

* repeated k-fold or shuffle splits: the corrected resampled t-test of Nadeau
  & Bengio (Machine Learning 52:239-281, 2003, eq. 17 / "corrected resampled
  t"), :func:`corrected_resampled_ttest`.  The J = repeats x folds paired
  differences are not independent (the training sets overlap), so the
  variance of their mean is ``(1/J + n_test/n_train) var(d)`` instead of
  ``var(d)/J``; df = J - 1;
* one predefined train/test split: the exact McNemar test on the discordant
  test objects (:func:`mcnemar_test`, a binomial test with p = 1/2);
* :func:`significance_groups` tests every method against the best (highest
  mean accuracy), *one-sided* ("is it worse than the best?"), and adjusts the
  p-values by Holm's step-down procedure over the m - 1 comparisons with the
  best, as Demšar (2006, §3.2.2) recommends for comparisons with a control:
  without it, among 15 methods about one would be called "significantly
  worse" by chance at alpha = 0.05 on every data set.  Holm controls the
  family-wise error and is uniformly more powerful than Bonferroni.

What the t-test can detect.  With 5-fold CV
(n_test/n_train = 1/4) and R repeats, the smallest mean accuracy difference
to the best that is significant (one-sided, alpha 0.05, before Holm) is
``t_{0.95, 5R-1} sqrt(1/(5R) + 1/4) sd(d)`` (:func:`detectable_difference`):
with a per-fold standard deviation of the paired difference of 4 points,
5.7 points for R = 1 (4 df), 4.3 for R = 2, 4.0 for R = 3, 3.7 for R = 5,
and never less than 1.645 x 0.5 x 4 = 3.3 however many repeats: the
correction term n_test/n_train does not shrink with J.  So one repeat
already gives a usable test; the second repeat gains the most (-24 %), the
third little more (-9 %).  Holm over 14 comparisons makes the first step
stricter (alpha/14): 13.6 / 8.2 / 7.1 points for R = 1 / 2 / 3 (the later
steps are milder).

Across data sets (Demšar, JMLR 7:1-30, 2006): :func:`average_ranks`,
:func:`friedman_nemenyi` (Friedman's chi-square, the Iman-Davenport F and the
Nemenyi critical difference) and :func:`cd_diagram`.

Ties are decided by the data, not by round-off.  An accuracy is a ratio of
counts (correct predictions over test objects), so every comparison of
accuracies here is exact: a split's accuracy is read as the fraction
``correct / n_test`` (:func:`exact_accuracy`), a mean over splits is the
exact mean of those fractions (:func:`exact_mean`), and ranks and "the best
method" compare these fractions, so two methods with the same mean tie
whatever the order of the splits or of the summation.  A score that is not
a ratio of counts over a known denominator (a ROC AUC, a mean of such
scores) is compared as a float, and two such scores tie when they differ
by at most :data:`TIE_RTOL` times the larger magnitude (:func:`tie_codes`).
The t-statistics sum with :func:`math.fsum` (correctly rounded, hence the
same for any order of the splits).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["corrected_resampled_ttest", "mcnemar_test", "holm", "significance_groups", "SCORES",
           "detectable_difference", "edge_of_grid", "grid_extensions", "average_ranks",
           "friedman_nemenyi",
           "nemenyi_q", "cd_diagram", "exact_accuracy", "exact_mean", "tie_codes",
           "tie_break_key", "GROUPS", "TIE_RTOL"]

#: Relative tolerance under which two float scores that are not ratios of counts
#: (ROC AUCs, scores without a known denominator) count as tied (:func:`tie_codes`).
TIE_RTOL = 1e-9

#: Values of the ``group`` column: the best method, the methods not significantly
#: worse than it, the methods significantly worse ("" for a method not tested).
GROUPS = ("best", "not worse", "worse")

_ALTERNATIVES = ("two-sided", "greater", "less")


def _pvalue(dist, stat, alternative):
    if alternative == "greater":
        return float(dist.sf(stat))
    if alternative == "less":
        return float(dist.cdf(stat))
    return float(min(1.0, 2.0 * dist.sf(abs(stat))))


def corrected_resampled_ttest(a, b, n_train, n_test, alternative="two-sided"):
    """Nadeau & Bengio's corrected resampled t-test of paired per-split scores.

    ``t = mean(d) / sqrt((1/J + n_test/n_train) var(d))`` with ``d = a - b``
    over the J splits and ``var`` the sample variance (ddof 1); Student's t
    with J - 1 degrees of freedom (Nadeau & Bengio, Machine Learning
    52:239-281, 2003, §5; Bouckaert & Frank, PAKDD 2004).  With
    ``n_test/n_train -> 0`` it is the plain paired t-test
    (:func:`scipy.stats.ttest_rel`).

    Parameters
    ----------
    a, b : array-like of shape (J,)
        Scores of two methods on the same J splits (e.g. accuracies of
        repeats x folds), paired by position.
    n_train, n_test : int or array-like of shape (J,)
        Training and test sizes of the splits (arrays: the mean ratio
        ``n_test/n_train`` is used).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater": the mean of ``a - b`` is positive (a better than b).

    Returns
    -------
    t : float
        The statistic (+-inf when every difference is the same nonzero
        value, NaN when every difference is zero: both up to 1e-12 times the
        largest |score|, round-off).
    p : float
        Its p-value (1.0 when every difference is zero).

    Raises
    ------
    ValueError
        Fewer than two splits, shapes that differ, non-finite scores,
        non-positive sizes or an unknown ``alternative``.
    """
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape or a.size < 2:
        raise ValueError(f"a and b must hold the same number (>= 2) of paired scores; got "
                         f"{a.size} and {b.size}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("a and b must be finite")
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}; got {alternative!r}")
    n_train = np.broadcast_to(np.asarray(n_train, dtype=float), a.shape)
    n_test = np.broadcast_to(np.asarray(n_test, dtype=float), a.shape)
    if (n_train <= 0).any() or (n_test < 0).any():
        raise ValueError("n_train must be positive and n_test non-negative")
    d = a - b
    J = d.size
    # correctly rounded sums: the statistic does not depend on the order of the splits
    mean = math.fsum(d) / J
    var = math.fsum((d - mean) ** 2) / (J - 1)
    se = np.sqrt((1.0 / J + math.fsum(n_test / n_train) / J) * var)
    tiny = 1e-12 * max(1.0, float(np.abs(a).max()), float(np.abs(b).max()))
    if np.sqrt(var) <= tiny:  # equal differences up to round-off
        if abs(mean) <= tiny:
            return float("nan"), 1.0
        t = float(np.copysign(np.inf, mean))
    else:
        t = float(mean / se)
    return t, _pvalue(stats.t(J - 1), t, alternative)


def mcnemar_test(correct_a, correct_b, alternative="two-sided"):
    """Exact McNemar test of two classifiers on the same test objects.

    Of the discordant objects (one method right, the other wrong), ``n_ab``
    are right only for a and ``n_ba`` only for b; under the null hypothesis
    ``n_ab ~ Binomial(n_ab + n_ba, 1/2)`` (:func:`scipy.stats.binomtest`;
    McNemar 1947, Dietterich 1998 §3.2 for a single test split).

    Parameters
    ----------
    correct_a, correct_b : array-like of bool or 0/1, or str of '0'/'1'
        Per test object, whether each method classified it correctly (the
        ``test_correct`` of a fold row), in the same object order.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater": a is right more often than b on the discordant objects.

    Returns
    -------
    n_ab, n_ba : int
        The discordant counts.
    p : float
        Exact p-value (1.0 without discordant objects).

    Raises
    ------
    ValueError
        Lengths that differ, values other than 0/1, or an unknown ``alternative``.
    """
    ca, cb = _as_correct(correct_a), _as_correct(correct_b)
    if ca.shape != cb.shape:
        raise ValueError(f"correct_a and correct_b must have one entry per test object; got "
                         f"{ca.size} and {cb.size}")
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}; got {alternative!r}")
    n_ab, n_ba = int((ca & ~cb).sum()), int((~ca & cb).sum())
    if n_ab + n_ba == 0:
        return n_ab, n_ba, 1.0
    return n_ab, n_ba, float(stats.binomtest(n_ab, n_ab + n_ba, 0.5,
                                             alternative=alternative).pvalue)


def _as_correct(v):
    if isinstance(v, str):
        if set(v) - {"0", "1"}:
            raise ValueError(f"a test_correct string holds only '0' and '1'; got {v[:20]!r}")
        return np.frombuffer(v.encode(), dtype=np.uint8) == ord("1")
    arr = np.asarray(v).ravel()
    if not np.isin(arr, (0, 1)).all():
        raise ValueError("per-object correctness must be 0/1 or boolean")
    return arr.astype(bool)


def exact_accuracy(accuracy, n_test):
    """A split's accuracy as the exact fraction ``correct / n_test``.

    Parameters
    ----------
    accuracy : float
        The accuracy as stored (a float; a results file may round it, e.g. to
        six digits).
    n_test : int or float
        The number of test objects of the split.

    Returns
    -------
    fractions.Fraction or float
        ``Fraction(round(accuracy * n_test), n_test)`` when ``accuracy *
        n_test`` lies within ``1e-6 n_test`` (the rounding of a stored
        accuracy) of an integer between 0 and ``n_test``; else ``accuracy``
        itself (not a ratio of counts over ``n_test``, e.g. a weighted score),
        and also when ``n_test`` is missing or not a positive integer.
    """
    a = float(accuracy)
    try:
        n = float(n_test)
    except (TypeError, ValueError):
        return a
    if not (math.isfinite(a) and math.isfinite(n)) or n <= 0 or n != round(n):
        return a
    n = int(n)
    c = round(a * n)
    if 0 <= c <= n and abs(a * n - c) <= 1e-6 * n:
        return Fraction(c, n)
    return a


def exact_mean(values):
    """The mean of scores, exact when every score is a :class:`~fractions.Fraction`.

    Parameters
    ----------
    values : iterable of Fraction or float
        Per-split scores (:func:`exact_accuracy`).

    Returns
    -------
    fractions.Fraction or float
        The exact mean when every value is a Fraction; else the correctly
        rounded mean (:func:`math.fsum`) of their float values; NaN for none.
    """
    values = list(values)
    if not values:
        return float("nan")
    if all(isinstance(v, Fraction) for v in values):
        return sum(values, Fraction(0)) / len(values)
    return math.fsum(float(v) for v in values) / len(values)


def tie_codes(values, rtol=None):
    """Integer codes of scores that preserve their order, with exact ties.

    Equal :class:`~fractions.Fraction` values share a code; floats (and a
    mix) share a code when, sorted, consecutive values differ by at most
    ``rtol`` times the larger magnitude (chained: a run of such steps is one
    tie).  Ranks computed from the codes (:func:`scipy.stats.rankdata`) are
    the ranks of the scores with their ties, independent of any summation
    order that produced them.

    Parameters
    ----------
    values : array-like of shape (k,)
        Scores of Fractions or floats, all finite.
    rtol : float, optional
        The float tolerance; default :data:`TIE_RTOL`.  Between two
        Fractions the comparison is exact.

    Returns
    -------
    ndarray of int of shape (k,)
        0 for the smallest score, increasing by one from one tie class to the
        next.
    """
    rtol = TIE_RTOL if rtol is None else rtol
    vals = list(values)
    order = sorted(range(len(vals)), key=lambda i: vals[i])
    codes = np.zeros(len(vals), dtype=int)
    code = 0
    for prev, cur in zip(order, order[1:]):
        a, b = vals[prev], vals[cur]
        if isinstance(a, Fraction) and isinstance(b, Fraction):
            tied = a == b
        else:
            fa, fb = float(a), float(b)
            tied = abs(fb - fa) <= rtol * max(abs(fa), abs(fb))
        if not tied:
            code += 1
        codes[cur] = code
    return codes


def tie_break_key(method):
    """The documented order among methods whose scores tie exactly.

    Registered methods come in the registry's order (``krein methods``,
    :func:`krein.registry.list_methods`), any other name after them,
    alphabetically.  The key depends on the name only, so a tie is broken
    the same way whatever the order of the methods in a table.

    Parameters
    ----------
    method : str
        A method name.

    Returns
    -------
    tuple
        A sort key: smaller comes first.
    """
    from ..registry import list_methods

    names = list(list_methods())
    return (names.index(method), "") if method in names else (len(names), str(method))


def _score_table(table):
    """The rows of a table of scores (Fractions or floats) as lists, checked finite."""
    values = np.asarray(table, dtype=object)
    ok = values.ndim == 2
    if ok:
        try:
            ok = bool(np.isfinite(values.astype(float)).all())
        except (TypeError, ValueError):
            ok = False
    if not ok:
        raise ValueError("table must be a 2-D table of finite scores (rows data sets, columns "
                         "methods); drop the data sets where a method has no result")
    return values


def _row_codes(values):
    """Per row, :func:`tie_codes` of the scores (rank-preserving integers with exact ties)."""
    return np.vstack([tie_codes(row) for row in values])


def holm(p):
    """Holm's step-down adjusted p-values (Holm, Scand. J. Statist. 6:65-70, 1979).

    Parameters
    ----------
    p : array-like of shape (m,)
        Unadjusted p-values of m tests.

    Returns
    -------
    ndarray of shape (m,)
        ``max_{j <= i} min(1, (m - j + 1) p_(j))`` in the original order;
        rejecting where it is below alpha controls the family-wise error at alpha.
    """
    p = np.asarray(p, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adjusted
    return out


def detectable_difference(sd, n_splits, test_fraction, alpha=0.05):
    """Smallest mean paired difference the one-sided corrected t-test calls significant.

    Parameters
    ----------
    sd : float
        Standard deviation of the per-split difference of the two scores.
    n_splits : int
        J, the number of splits (repeats x folds), >= 2.
    test_fraction : float
        ``n_test / n_train`` (1/(k-1) for k-fold CV, 0.25 for 80/20 splits).
    alpha : float, default 0.05
        Significance level.

    Returns
    -------
    float
        ``t_{1-alpha, J-1} sqrt(1/J + test_fraction) sd``.
    """
    return float(stats.t.ppf(1 - alpha, n_splits - 1)
                 * np.sqrt(1.0 / n_splits + test_fraction) * sd)


def _test_name(predefined, n_splits, alpha, m):
    name = ("exact McNemar test on the test objects" if predefined else
            f"corrected resampled t-test of Nadeau & Bengio 2003 over {n_splits} paired "
            f"splits ({n_splits - 1} df)")
    holm_text = f", Holm-adjusted over {m} comparisons" if m > 1 else ""
    return f"{name}, one-sided vs the best{holm_text}, alpha {alpha:g}"


#: Scores :func:`significance_groups` compares: the column of the fold table and whether
#: a higher value is better (a regression's RMSE: lower is better).
SCORES = {"accuracy": True, "auc": True, "rmse": False}


def significance_groups(fold_table, alpha=0.05, *, outer_split=None, score="accuracy"):
    """The best method of a comparison and the group not significantly worse than it.

    The best method has the highest mean accuracy over its splits, compared
    exactly as a mean of fractions ``correct / n_test`` (:func:`exact_accuracy`,
    :func:`exact_mean`); among equal means the first by :func:`tie_break_key`
    (the registry's order), so that neither the order of the splits nor that
    of the methods can change it.  Every other method is tested against
    it, paired on the same (repeat, fold) splits, one-sided (H1: worse than
    the best), with :func:`corrected_resampled_ttest` over the J splits, or,
    for a single predefined split, :func:`mcnemar_test` on the per-object
    ``test_correct`` strings.  The m - 1 p-values are adjusted by
    :func:`holm`.  With one repeat of 5-fold CV the t-test has 4 df and
    detects mean differences of about 1.4 sd(d) and more (module docstring).

    Parameters
    ----------
    fold_table : pandas.DataFrame
        A comparison's fold table (:func:`krein.experiment.comparison_result.fold_table`,
        ``folds.csv``): ``method``, ``repeat``, ``fold``,
        ``accuracy``, ``n_train``, ``n_test``, ``error`` and, for a
        predefined split, ``test_correct``.
    alpha : float, default 0.05
        Significance level of the adjusted p-values.
    outer_split : {"kfold", "shuffle", "predefined"} or None, default None
        The outer scheme; None: "predefined" when every method has one split
        and ``test_correct`` strings, else a resampling scheme (the t-test).
    score : {"accuracy", "auc", "rmse"}, default "accuracy"
        The per-split score compared (:data:`SCORES`).  Other than the
        accuracy it is compared as a float (:func:`tie_codes`), the best has
        the lowest mean RMSE, and the t-test is on the paired differences of
        the score, one-sided in the direction "worse" (a larger RMSE); a single
        split has no per-object test for it (no test).  The output column
        ``accuracy_mean`` then holds that score's mean.

    Returns
    -------
    pandas.DataFrame
        One row per method in the table's order, columns ``method``,
        ``accuracy_mean`` (the float of the exact mean), ``p_raw`` (one-sided, unadjusted), ``p_value``
        (Holm-adjusted; NaN for the best and untested methods), ``group``
        (one of :data:`GROUPS`, ``""`` when not tested) and ``reason`` (why
        a method was not tested: a failed split, or the test impossible).
        ``attrs``: ``test`` (a sentence naming the test and alpha), ``alpha``,
        ``best`` (None when no method can be tested).

    Raises
    ------
    ValueError
        For alpha outside (0, 1) or an unknown ``outer_split``.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}")
    if score not in SCORES:
        raise ValueError(f"score must be one of {tuple(SCORES)}; got {score!r}")
    sign = 1.0 if SCORES[score] else -1.0      # higher is better after the sign
    if outer_split not in (None, "kfold", "shuffle", "predefined"):
        raise ValueError(f"outer_split must be 'kfold', 'shuffle', 'predefined' or None; got "
                         f"{outer_split!r}")
    folds = fold_table
    methods = list(dict.fromkeys(folds["method"]))
    out = pd.DataFrame({"method": methods, "accuracy_mean": np.nan, "p_raw": np.nan,
                        "p_value": np.nan, "group": "", "reason": ""})
    out.attrs.update(alpha=alpha, best=None, test="")
    if not methods:
        return out
    has_correct = "test_correct" in folds.columns
    table, correct, sizes, exact = {}, {}, {}, {}
    for i, m in enumerate(methods):
        f = folds[folds["method"] == m]
        failed = (f["error"].fillna("").astype(str) != "") | ~np.isfinite(
            f[score].to_numpy(dtype=float))
        if failed.any():
            out.loc[i, "reason"] = (f"{int(failed.sum())} of {len(f)} splits failed: "
                                    "not paired on every split")
            continue
        keys = list(zip(f["repeat"].astype(int), f["fold"].astype(int)))
        values = sign * f[score].to_numpy(dtype=float)
        table[m] = pd.Series(values, index=keys).sort_index()
        if score == "accuracy":
            exact[m] = exact_mean(exact_accuracy(a, n) for a, n in zip(
                values, f["n_test"].to_numpy(dtype=float)))
        else:
            exact[m] = exact_mean(float(v) for v in values)
        out.loc[i, "accuracy_mean"] = sign * float(exact[m])
        sizes[m] = (f["n_train"].to_numpy(dtype=float), f["n_test"].to_numpy(dtype=float))
        if has_correct and score == "accuracy":
            correct[m] = dict(zip(keys, f["test_correct"].fillna("").astype(str)))
    if not table:
        return out
    n_splits = max(len(s) for s in table.values())
    predefined = (outer_split == "predefined" if outer_split is not None else
                  n_splits == 1 and bool(correct) and all(
                      all(v for v in c.values()) for c in correct.values()))
    # the highest exact mean (tie_codes); among equal means the first by tie_break_key
    ran = list(table)
    codes = tie_codes([exact[m] for m in ran])
    best = min((m for m, c in zip(ran, codes) if c == codes.max()), key=tie_break_key)
    out.attrs["best"] = best
    tested = []
    for i, m in enumerate(methods):
        if m == best:
            out.loc[i, "group"] = "best"
        elif m in table:
            p, why = _one_test(table, correct, sizes, best, m, predefined)
            if why:
                out.loc[i, "reason"] = why
            else:
                out.loc[i, "p_raw"] = p
                tested.append(i)
    if tested:
        adjusted = holm(out.loc[tested, "p_raw"].to_numpy(dtype=float))
        out.loc[tested, "p_value"] = adjusted
        out.loc[tested, "group"] = np.where(adjusted < alpha, "worse", "not worse")
    out.attrs["test"] = _test_name(predefined, n_splits, alpha, len(tested))
    return out


def _one_test(table, correct, sizes, best, m, predefined):
    """One-sided p-value of "m is worse than best", or (nan, why not)."""
    a, b = table[best], table[m]
    if not a.index.equals(b.index):
        return np.nan, "not run on the same splits as the best"
    if predefined:
        ca, cb = correct.get(best, {}), correct.get(m, {})
        key = a.index[0]
        if not ca.get(key) or not cb.get(key) or len(ca[key]) != len(cb[key]):
            return np.nan, "no per-object test_correct to pair with the best"
        return mcnemar_test(ca[key], cb[key], alternative="greater")[2], ""
    if len(a) < 2:
        return np.nan, "one split and no per-object results: no paired test"
    n_train, n_test = sizes[m]
    return corrected_resampled_ttest(a.to_numpy(), b.to_numpy(), n_train, n_test,
                                     alternative="greater")[1], ""


def edge_of_grid(fold_table, grids, kernel_grid=None):
    """Tuned parameters chosen at the smallest or largest value of their grid.

    A parameter is flagged when, in more than half of a method's successful
    folds, the value chosen by the inner CV is the smallest or the largest of
    the method's own grid as recorded (``ComparisonResult.grids`` /
    ``kernel_grid``, scaled or not); a grid of one value has no edge.  Folds
    searched adaptively (a ``grid_search`` column with a JSON object,
    :mod:`krein.experiment.tuning`) flag a parameter only when, in more than
    half of them, its chosen value is at a *limit* of the search: an end that
    could not be extended (the extensions allowed per side, a feasible bound,
    a grid given and searched as given); the text names the limit.

    Parameters
    ----------
    fold_table : pandas.DataFrame
        The fold table (``method``, ``best_params`` as JSON text, ``error``).
    grids : dict
        Method -> ``{parameter: list of values}``.
    kernel_grid : dict, optional
        ``{parameter: list of values}`` of the kernel, tuned for every method
        (chosen values recorded as ``kernel_<parameter>``).

    Returns
    -------
    dict
        Method -> text such as ``"C at top of grid (4 of 5 folds)"``; ``"; "``
        joins several parameters; methods without a flag are left out.
    """
    import json

    out = {}
    for m, f in fold_table.groupby("method", sort=False):
        ok = f[f["error"].fillna("").astype(str) == ""]
        searches = _grid_searches(ok)
        if searches is not None:
            text = _limit_text(searches)
            if text:
                out[m] = text
            continue
        chosen = [json.loads(b) if isinstance(b, str) and b else {} for b in ok["best_params"]]
        # a kernel parameter is recorded in best_params as ``kernel_<name>``
        grid = {**{f"kernel_{k}": v for k, v in (kernel_grid or {}).items()},
                **(grids.get(m) or {})}
        texts = []
        for name, values in grid.items():
            try:
                values = np.asarray(values, dtype=float)
            except (TypeError, ValueError):
                continue
            if values.size < 2 or not np.isfinite(values).all():
                continue
            vals = [c.get(name) for c in chosen]
            vals = np.array([v if isinstance(v, (int, float)) and not isinstance(v, bool)
                             else np.nan for v in vals], dtype=float)
            for where, edge in (("bottom", values.min()), ("top", values.max())):
                n = int(np.isclose(vals, edge, rtol=1e-9, atol=0).sum())
                if n > len(ok) / 2:
                    texts.append(f"{name} at {where} of grid ({n} of {len(ok)} folds)")
        if texts:
            out[m] = "; ".join(texts)
    return out


def _grid_searches(ok):
    """The ``grid_search`` objects of a method's successful folds, or None when its folds
    were not searched adaptively (no column, or an empty one)."""
    import json

    if "grid_search" not in ok.columns or not len(ok):
        return None
    texts = [v for v in ok["grid_search"].astype(object)
             if isinstance(v, str) and v.startswith("{")]
    if len(texts) != len(ok):
        return None
    return [json.loads(t) for t in texts]


def _limit_text(searches):
    """The edge text of adaptively searched folds: the parameters at a limit in most."""
    names = list(dict.fromkeys(k for s in searches for k in s))
    texts = []
    for name in names:
        limits = [s.get(name, {}).get("limit", "") for s in searches]
        for where in ("bottom", "top"):
            hit = [t for t in limits if t.startswith(where)]
            if len(hit) > len(searches) / 2:
                why = max(set(hit), key=hit.count).split(": ", 1)[-1]
                texts.append(f"{name} at {where} limit ({len(hit)} of {len(searches)} folds: "
                             f"{why})")
    return "; ".join(texts)


def grid_extensions(fold_table):
    """How far the adaptive search extended each method's grids, in words.

    Parameters
    ----------
    fold_table : pandas.DataFrame
        The fold table (``method``, ``error``, ``grid_search``).

    Returns
    -------
    dict
        Method -> text such as ``"C down 2 (3 of 5 folds), up 1 (1 of 5)"``
        (the largest extension at each side and in how many folds the grid was
        extended there; ``"; "`` joins parameters); methods whose grids were
        not extended (or not searched adaptively) are left out.
    """
    out = {}
    for m, f in fold_table.groupby("method", sort=False):
        searches = _grid_searches(f[f["error"].fillna("").astype(str) == ""])
        if not searches:
            continue
        parts = []
        for name in dict.fromkeys(k for s in searches for k in s):
            sides = []
            for side in ("down", "up"):
                steps = [int(s.get(name, {}).get(side, 0)) for s in searches]
                n = sum(v > 0 for v in steps)
                if n:
                    sides.append(f"{side} {max(steps)} ({n} of {len(searches)} folds)")
            if sides:
                parts.append(f"{name} " + ", ".join(sides))
        if parts:
            out[m] = "; ".join(parts)
    return out


# --------------------------------------------------------------------------- across data sets
def average_ranks(table):
    """Average rank of each method over data sets (rank 1 = best; Demšar 2006, §3.2.2).

    Parameters
    ----------
    table : pandas.DataFrame of shape (N, k)
        Rows data sets, columns methods, higher-is-better scores (accuracy;
        pass ``-error`` for errors), no missing values.

    Returns
    -------
    pandas.Series
        The mean over rows of the per-row ranks (ties share the average rank,
        :func:`scipy.stats.rankdata`), indexed by method, in column order.
        Scores that are :class:`~fractions.Fraction` (exact mean accuracies,
        :func:`exact_mean`) tie when equal; floats tie within
        :data:`TIE_RTOL` (:func:`tie_codes`).

    Raises
    ------
    ValueError
        A missing or non-finite value (a data set where a method did not run
        is left out by the caller, with a note).
    """
    codes = _row_codes(_score_table(table))
    ranks = stats.rankdata(-codes, axis=1)
    # the exact mean of ranks that are multiples of 1/2: order-independent
    mean = [math.fsum(col) / codes.shape[0] for col in ranks.T]
    return pd.Series(mean, index=list(table.columns), name="average rank")


def nemenyi_q(k, alpha=0.05):
    """Critical value q_alpha of the Nemenyi test for k methods (Demšar 2006, Table 5a).

    Parameters
    ----------
    k : int
        Number of methods, >= 2.
    alpha : float, default 0.05
        Significance level of the test.

    Returns
    -------
    float
        ``studentized_range.ppf(1 - alpha, k, inf) / sqrt(2)``.
    """
    return float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2))


def friedman_nemenyi(table, alpha=0.05):
    """Friedman test, Iman-Davenport F and the Nemenyi critical difference (Demšar 2006).

    Parameters
    ----------
    table : pandas.DataFrame of shape (N, k)
        Rows data sets, columns methods, higher-is-better scores (Fractions
        or floats, tied as in :func:`average_ranks`).
    alpha : float, default 0.05
        Significance level of the Nemenyi critical difference.

    Returns
    -------
    dict
        ``ranks`` (:func:`average_ranks`), ``chi2`` and ``p`` of
        :func:`scipy.stats.friedmanchisquare` (with its tie correction; needs
        k >= 3, else NaN), ``F`` and ``p_F`` of Iman & Davenport,
        ``F = (N-1) chi2 / (N(k-1) - chi2)`` on (k-1, (k-1)(N-1)) df (Demšar
        eq. after (2)), ``q`` (:func:`nemenyi_q`), ``cd`` =
        ``q sqrt(k(k+1)/(6N))``, ``N``, ``k``, ``alpha``.

    Raises
    ------
    ValueError
        As :func:`average_ranks`; fewer than two methods or data sets.
    """
    ranks = average_ranks(table)
    codes = _row_codes(_score_table(table))
    n, k = codes.shape
    if n < 2 or k < 2:
        raise ValueError(f"need at least 2 data sets and 2 methods; got {n} x {k}")
    chi2 = p = F = p_F = float("nan")
    if k >= 3:
        # the test ranks within rows: the integer codes carry the exact ties
        res = stats.friedmanchisquare(*codes.T.astype(float))
        chi2, p = float(res.statistic), float(res.pvalue)
        denom = n * (k - 1) - chi2
        if denom > 0:
            F = (n - 1) * chi2 / denom
            p_F = float(stats.f.sf(F, k - 1, (k - 1) * (n - 1)))
        else:
            F, p_F = float("inf"), 0.0
    q = nemenyi_q(k, alpha)
    return {"ranks": ranks, "chi2": chi2, "p": p, "F": F, "p_F": p_F, "q": q,
            "cd": q * np.sqrt(k * (k + 1) / (6.0 * n)), "N": n, "k": k, "alpha": alpha}


def _cliques(r, cd):
    """Maximal runs of methods (sorted by rank) whose ranks differ by less than cd."""
    out, last = [], -1
    for i in range(len(r)):
        j = i
        while j + 1 < len(r) and r[j + 1] - r[i] < cd:
            j += 1
        if j > i and j > last:
            out.append((i, j))
            last = j
    return out


def cd_diagram(ranks, cd, ax=None):
    """The critical-difference diagram of Demšar (2006, Fig. 1-2).

    Methods sit on an axis of average rank (1, the best, on the left; equal
    ranks in the order of :func:`tie_break_key`), half labelled on each side; a bar of length ``cd`` is drawn above the axis
    and thick lines join the groups of methods whose average ranks differ by
    less than ``cd`` (not significantly different by the Nemenyi test).

    Parameters
    ----------
    ranks : pandas.Series or dict
        Average rank per method (:func:`average_ranks`).
    cd : float
        The critical difference (:func:`friedman_nemenyi`).
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure (:func:`krein._io.new_figure`).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on; ``ax.krein_groups`` lists the joined groups
        (tuples of method names).
    """
    ranks = pd.Series(ranks, dtype=float)
    names = sorted(ranks.index, key=lambda m: (ranks[m], tie_break_key(m)))
    ranks = ranks[names]
    r = ranks.to_numpy()
    k = len(r)
    if ax is None:
        from .._io import new_figure

        ax = new_figure((7.0, 1.2 + 0.3 * k)).add_subplot(1, 1, 1)
    lo, hi = 1, max(k, int(np.ceil(r.max())))
    ax.set_xlim(lo - 0.3, hi + 0.3)
    half = (k + 1) // 2
    ax.set_ylim(-(max(half, k - half) + 1.5) * 0.5, 1.0)
    ax.axhline(0, xmin=0, xmax=1, color="black", lw=1)
    for t in range(lo, hi + 1):
        ax.plot([t, t], [0, 0.08], color="black", lw=1)
        ax.text(t, 0.14, str(t), ha="center", va="bottom", fontsize=8)
    ax.plot([lo, lo + cd], [0.7, 0.7], color="black", lw=1.5)
    ax.text(lo + cd / 2, 0.75, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=8)
    for i, (name, x) in enumerate(zip(names, r)):
        left = i < half
        row = i if left else k - 1 - i
        y = -(row + 1) * 0.5
        edge = lo - 0.25 if left else hi + 0.25
        ax.plot([x, x, edge], [0, y, y], color="0.3", lw=0.8)
        ax.text(edge, y, f"{name} ({x:.2f})".replace("$", r"\$"), ha="left" if not left
                else "right", va="center", fontsize=8)
    groups = _cliques(r, cd)
    for g, (i, j) in enumerate(groups):
        y = -0.12 - 0.1 * g
        ax.plot([r[i] - 0.03, r[j] + 0.03], [y, y], color="black", lw=3,
                solid_capstyle="round")
    ax.set_axis_off()
    ax.krein_groups = [tuple(names[i:j + 1]) for i, j in groups]
    return ax
