"""The results section of the report page: the table, the significance, every fold.

One row per method of ``summary.csv`` (its order): the mean accuracy ± std over the
test folds (a regression: RMSE, MAE and R^2, each mean ± std) (the best highlighted, the methods not significantly worse than it lightly),
the AUC of a binary problem, the parameters chosen most often, the "vs best" mark of
the paired test (:func:`krein.experiment.page_findings.significance`), fit time,
support vectors, certificate and status; under it the paragraph that states the test,
the accuracy figure (:func:`krein.experiment.page_figures.accuracy_figure`) and,
folded, a table of every fold.  Every text is HTML-escaped.
"""

from __future__ import annotations

import textwrap

import numpy as np

from .comparison_files import FIGURE_FILES, status_text
from .page_findings import best_rows, score_view, significance
from .page_format import escape, json_object, number, param_list, percent, png_image, seconds

__all__ = ["results_section"]


def _significance_text(sig, score="accuracy"):
    """The paragraph under the results table that states the test, "" without a best method.

    ``score``: the per-fold score compared (``"accuracy"``, ``"auc"`` or ``"rmse"``,
    :data:`krein.experiment.statistics.SCORES`); only the accuracy has a per-object test
    on a single predefined split (McNemar's)."""
    if sig.attrs.get("best") is None:
        return ""
    name = {"accuracy": "accuracy", "auc": "AUC", "rmse": "RMSE"}.get(score, score)
    single = ("on one predefined test split by the exact McNemar test on the objects the "
              "two methods classify differently" if score == "accuracy" else
              f"a single predefined test split has no paired test of the {name}")
    return (f"“=”: not significantly worse than the best method ({sig.attrs['best']}), "
            f"“<”: significantly worse; {sig.attrs['test']}; p is the adjusted p-value. The "
            f"methods ran on the same splits, so each is compared paired with the best on the "
            f"{name} of each split: over resampled splits by the corrected resampled t-test "
            "(Nadeau & Bengio 2003), whose variance term (1/J + n_test/n_train) accounts for "
            f"the overlap of the training sets; {single}. Few splits detect only large "
            "differences (one repeat of 5-fold CV: 4 degrees of freedom); “=” is not a proof "
            "of equality.")


def _group_mark(sig, method):
    """``(group, HTML of the "vs best" cell)`` of a method (:func:`significance`)."""
    if method not in sig.index:
        return "", "–"
    g, p, why = sig.loc[method, ["group", "p_value", "reason"]]
    mark = {"best": "best", "not worse": "=", "worse": "&lt;"}.get(
        g, f'<span title="{escape(why)}">–</span>' if why else "–")
    return g, mark + (f' <span class="pm">p {p:.2g}</span>' if np.isfinite(p) else "")


def _mean_std(mean, std, n_folds, fmt):
    """``mean ± std`` (the std in a muted span; alone for one fold), "–" without a mean."""
    if not np.isfinite(mean):
        return "–"
    if n_folds == 1 or not np.isfinite(std):
        return fmt(mean)
    return f'{fmt(mean)} <span class="pm">± {fmt(std)}</span>'


def _regression_number(v):
    return f"{float(v):.4g}" if np.isfinite(float(v)) else "–"


#: A regression's columns in the results table: (summary prefix, header).
_REGRESSION_COLUMNS = (("rmse", "RMSE"), ("mae", "MAE"), ("r2", "R²"))

#: The caption of a regression's results table.
_REGRESSION_CAPTION = (
    "RMSE (root mean squared error) and MAE (mean absolute error), in the unit of the "
    "targets, and R² (1 - SSE/SST on each test fold; 0: predicting the fold's mean, "
    "negative: worse): mean ± standard deviation over the test folds. Predicting the "
    "training mean scores an RMSE of about the targets' standard deviation{spread}. "
    "Parameters: the value chosen most often over the folds (by the inner RMSE). Fit time "
    "and #SV: means over the folds. The lowest mean RMSE is highlighted, the methods not "
    "significantly worse than it (paired test on the folds' RMSE) lightly. A parameter "
    "chosen at an end of its grid in most folds is named in the status column.")


def _params_cell(text):
    params = json_object(text)
    if params is None:
        return escape(text)
    if not params:
        return '<span class="missing">–</span>'
    return escape(param_list(params))


def _has_auc(frame, column):
    """Whether a table shows AUC: a binary problem (some value; multiclass leaves it empty)."""
    return column in frame.columns and bool(
        np.isfinite(np.asarray(frame[column], dtype=float)).any())


def _auc(mean, std=None, n_folds=1):
    """An AUC (or mean ± std over the folds) in three decimals; "–" where there is none."""
    if not np.isfinite(mean):
        return "–"
    if std is None or n_folds == 1 or not np.isfinite(std):
        return f"{mean:.3f}"
    return f'{mean:.3f} <span class="pm">± {std:.3f}</span>'


def results_section(c, png):
    """The page's results section: the table of the methods, the test, the figure, every fold.

    Parameters
    ----------
    c : SavedComparison
        A comparison read by :func:`krein.experiment.comparison_files.read_comparison`.
    png : bytes
        The accuracy figure (:func:`krein.experiment.page_figures.accuracy_figure`) as
        a PNG file, embedded in the page.

    Returns
    -------
    str
        The HTML of ``<section id="results">``.
    """
    s = c.summary.reset_index(drop=True)
    view = score_view(c)
    regression = view.task == "regression"
    show_auc = _has_auc(s, "auc_mean") and not regression
    best = best_rows(s, view)
    sig, edges = significance(c)
    rows = []
    for i, r in s.iterrows():
        status = r["status"]
        classes = [status]
        g, mark = _group_mark(sig, r["method"])
        if i in best:
            classes.append("best")
        elif g == "not worse":
            classes.append("group")
        if status in ("skipped", "failed"):
            classes.append("muted")
        ran = (status in ("ok", "warning", "suspect", "partial")
               and np.isfinite(r[f"{view.column}_mean"]))
        if regression:
            acc = "</td><td class=\"num\">".join(
                _mean_std(r[f"{k}_mean"], r[f"{k}_std"], r["n_folds"], _regression_number)
                if ran else "–" for k, _ in _REGRESSION_COLUMNS)
        else:
            spread = ("" if r["n_folds"] == 1 else  # one test split: no spread to show
                      f' <span class="pm">± {percent(r["accuracy_std"])}</span>')
            acc = f'{percent(r["accuracy_mean"])}{spread}' if ran else "–"
        badge = f'<span class="badge {escape(status)}">{escape(status)}</span>'
        detail = status_text(r)[len(status):].strip(" ()")
        if detail:  # e.g. "5/5 not converged", "2/5 failed; 3 inner fits failed"
            badge += f' <span class="pm">{escape(detail)}</span>'
        for note in (str(r["note"]).strip(), edges.get(r["method"], "")):
            if note:
                badge += f'<div class="note">{escape(note)}</div>'
        sv = number(r["n_support_mean"], 3) if np.isfinite(r["n_support_mean"]) else "–"
        if np.isfinite(r["n_support_mean"]) and r["n_support_mean"] >= 10:
            sv = f"{r['n_support_mean']:.0f}"
        rows.append(
            f'<tr class="{" ".join(classes)}" data-method="{escape(r["method"])}">'
            f'<td class="num rank">{i + 1}</td><td class="method">{escape(r["method"])}</td>'
            f'<td class="num acc">{acc}</td>'
            + (f'<td class="num auc{" score" if view.task == "novelty" else ""}">'
               f'{_auc(r["auc_mean"], r["auc_std"], r["n_folds"]) if ran else "–"}</td>'
               if show_auc else "")
            + f'<td class="params">{_params_cell(r["best_params"])}'
            f'</td><td class="mark">{mark}</td>'
            f'<td class="num">{escape(seconds(r["fit_seconds_mean"]))}</td>'
            f'<td class="num">{escape(sv)}</td>'
            f'<td class="cert">{escape(r["certificate"]) or "–"}</td>'
            f"<td>{badge}</td></tr>")
    majority = c.majority_rate
    target = c.data.get("target") if isinstance(c.data.get("target"), dict) else {}
    spread = (f" ({_regression_number(target['std'])})"
              if isinstance(target.get("std"), (int, float)) else "")
    novelty = ("Novelty detection: every method fitted on the inliers (label 1) of each "
               "training fold only, scored on the whole test fold (inliers and outliers); "
               "nothing tuned. AUC: area under the ROC curve of the decision values, inliers "
               "against outliers (0.5 is chance), the score the methods are ranked and tested "
               "by; accuracy: of the inlier / outlier calls at each method's own threshold. "
               if view.task == "novelty" else "")
    caption = _REGRESSION_CAPTION.format(spread=spread) if regression else novelty + (
              "Accuracy: mean ± standard deviation over the test folds, in percent"
               + (f"; always predicting the largest class scores {100 * majority:.1f}%"
                  if np.isfinite(majority) else "")
               + ". Parameters: the value chosen most often over the folds. Fit time and "
               "#SV: means over the folds. The best mean accuracy is highlighted, the methods "
               "not significantly worse than it lightly. A parameter chosen at an end of its "
               "grid in most folds is named in the status column (with the adaptive grid "
               "search only an end it could not extend, with the limit that stopped it; "
               "without it the best value may lie outside the grid)."
               + (" AUC: the area under the ROC curve of each method's decision values on the "
                  "test folds (mean ± standard deviation over the folds; 0.5 is chance)."
                  if show_auc and view.task != "novelty" else ""))
    if view.task == "novelty":
        caption = caption.replace("The best mean accuracy", "The best mean AUC")
    score_heads = ("".join(f'<th class="num">{h}</th>' for _, h in _REGRESSION_COLUMNS)
                   if regression else '<th class="num">accuracy (%)</th>')
    figure_text = ("Test RMSE per method: diamonds with bars are the mean ± std over the "
                   "folds, dots the single folds, the dashed line predicting the mean"
                   if regression else
                   "Test AUC per method: diamonds with bars are the mean ± std over the "
                   "folds, dots the single folds, the dashed line chance (0.5)"
                   if view.task == "novelty" else
                   "Test accuracy per method: diamonds with bars are the mean ± std over the "
                   "folds, dots the single folds, the dashed line the majority class")
    by_auc = ' class="by-auc"' if view.task == "novelty" else ""
    out = [f'<section id="results"><h2>Results</h2><table id="results-table"{by_auc}><thead><tr>'
           '<th class="num">#</th><th>method</th>' + score_heads
           + ('<th class="num">AUC</th>' if show_auc else "") +
           '<th>chosen parameters</th><th>vs best</th><th class="num">fit time</th>'
           '<th class="num">#SV</th><th>certificate</th><th>status</th></tr></thead><tbody>',
           *rows, f'</tbody></table><p class="caption">{escape(caption)}</p>',
           f'<p class="caption" id="significance">{escape(_significance_text(sig, view.column))}</p>',
           f'<figure>{png_image(png, view.column + " per method")}<figcaption>{figure_text} '
           f"({escape(FIGURE_FILES['accuracy'])}).</figcaption></figure>"]
    out.append(_folds_details(c, regression))
    out.append("</section>")
    return "".join(out)


def _folds_details(c, regression=False):
    f = c.folds
    if not len(f):
        return ""
    show_auc = _has_auc(f, "auc") and not regression
    failed = int((f["error"].str.strip() != "").sum())
    head = (f"All folds ({len(f)} rows"
            + (f", {failed} failed" if failed else "") + ")")
    rows = []
    previous = None
    for _, r in f.iterrows():
        first = r["method"] != previous
        previous = r["method"]
        error = str(r["error"]).strip()
        warn = str(r["warnings"]).strip()
        inner = r.get("inner_error", "")
        inner = inner.strip() if isinstance(inner, str) else ""   # NaN: an empty cell of the column
        if inner:   # why the inner model selection lost some fits (e.g. an infeasible mu)
            warn = "; ".join(x for x in (warn, f"{number(r['n_inner_failures'])} inner fits "
                                               f"failed, the first: {inner}") if x)
        msg = error or warn
        short = textwrap.shorten(msg, 160, placeholder="…")
        msg_cell = (f'<td class="msg" title="{escape(msg)}">{escape(short)}</td>' if msg
                    else "<td></td>")
        if warn and not error:
            msg_cell = msg_cell.replace('class="msg"', 'class="msg" style="color:#7a4d00"')
        classes = " ".join(x for x in ("first" if first else "", "failed" if error else "") if x)
        rows.append(
            f'<tr class="{classes}"><td class="method">{escape(r["method"]) if first else ""}</td>'
            f'<td class="num">{escape(number(r["repeat"]))}</td>'
            f'<td class="num">{escape(number(r["fold"]))}</td>'
            + ("".join(f'<td class="num">{_regression_number(r[k])}</td>'
                       for k, _ in _REGRESSION_COLUMNS) if regression else
               f'<td class="num">{escape(percent(r["accuracy"]))}</td>')
            + (f'<td class="num">{_auc(float(r["auc"]))}</td>' if show_auc else "")
            + f'<td class="params">{_params_cell(r["best_params"])}</td>'
            + (f'<td class="num">{_regression_number(-float(r["inner_score"]))}</td>'
               if regression else f'<td class="num">{escape(percent(r["inner_score"]))}</td>')
            + f'<td class="num">{escape(seconds(r["fit_seconds"]))}</td>'
            f'<td class="num">{escape(number(r["n_support"]))}</td>'
            f'<td>{escape(r["solver_status"])}</td>'
            f'<td class="num">{escape(number(r["gap"], 2))}</td>'
            f"{msg_cell}</tr>")
    return (f'<details id="folds"><summary>{escape(head)}</summary><table><thead><tr>'
            '<th>method</th><th class="num">repeat</th><th class="num">fold</th>'
            + ("".join(f'<th class="num">{h}</th>' for _, h in _REGRESSION_COLUMNS)
               if regression else '<th class="num">accuracy (%)</th>')
            + ('<th class="num">AUC</th>' if show_auc else "")
            + '<th>chosen parameters</th>'
            + ('<th class="num">inner RMSE</th>' if regression else
               '<th class="num">inner score (%)</th>')
            + '<th class="num">fit</th>'
            '<th class="num">#SV</th><th>solver status</th><th class="num">gap</th>'
            "<th>error / warnings</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table></details>")
