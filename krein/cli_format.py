"""What the ``krein`` commands print: the lines of each report, from the library's results.

Only formatting: every number comes from the library (:mod:`krein.compare`,
:mod:`krein.diagnosis`, :mod:`krein.solvers`, ...); :mod:`krein.cli` prints
these lines.
"""

from __future__ import annotations

import os

__all__ = ["text_table", "data_lines", "comparison_lines", "diagnosis_lines", "names_lines",
           "solvers_lines"]


def _fmt_num(v, digits=4):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}g}"
    return str(v)


def _params_text(params):
    return ", ".join(f"{k}={_fmt_num(v)}" for k, v in params.items()) or "(none)"


def data_lines(data, task="classification"):
    """The data set, classes and kernel of a run, line by line (``compare``, ``diagnose``).

    Parameters
    ----------
    data : krein.kernel_data.KernelData
        The data and kernel.
    task : {"classification", "regression"}, default "classification"
        A regression shows ``targets:`` (count, range, mean, standard
        deviation) in place of ``classes:``.

    Returns
    -------
    list of str
        ``dataset:``, ``source:`` and ``note:`` when known, ``classes:`` and
        ``kernel:`` (with the default sigmoid parameters explained).
    """
    if task == "regression":
        import numpy as np

        y = np.asarray(data.y).astype(float)
        cls = (f"targets: {y.size} real values in [{y.min():.4g}, {y.max():.4g}], mean "
               f"{y.mean():.4g}, std {y.std():.4g}")
    else:
        labels, counts = data.classes
        cls = "classes: " + ", ".join(f"{lab}: {c}" for lab, c in zip(labels.tolist(),
                                                                      counts.tolist()))
    if getattr(data, "landmark_block", None) is not None:
        shape = f"{data.n_samples} objects x {data.landmark_block.shape[0]} landmark columns"
    elif data.X is not None:
        shape = f"{data.n_samples} x {data.n_features} features"
    elif data.kind == "kernel":
        shape = f"{data.n_samples} x {data.n_samples} kernel matrix"
    else:
        shape = f"{data.n_samples} x {data.n_samples} dissimilarities"
    lines = [f"dataset: {data.dataset} ({data.kind}, {shape}; {data.description})"]
    if getattr(data, "source", ""):
        lines.append(f"source:  {data.source}")
    lines += [f"note:    {n}" for n in getattr(data, "notes", ())]
    lines += [
             cls,
             f"kernel:  {data.kernel}  {_params_text(data.kernel_params)}"]
    if data.kernel in ("sigmoid", "tanh") and data.X is not None:
        from .kernel_data import SIGMOID_A_TIMES_D, SIGMOID_R, default_kernel_params

        if data.kernel_params == default_kernel_params(data.kernel, data.n_features):
            note = "; chosen to be clearly indefinite on Sonar" if data.dataset == "sonar" else ""
            lines[-1] += (f"  [default: a = {SIGMOID_A_TIMES_D:g}/n_features, r = {SIGMOID_R:g}"
                          f"{note}]")
    return lines


def _spectrum_line(spec, note="", approximation=None):
    s = spec.summary()
    what = f"the full kernel ({s['n']} x {s['n']}{note})"
    if approximation is not None:
        name = ("Nyström approximation from the landmark columns" if approximation == "landmarks"
                else f"{approximation} approximation")
        what = (f"the {name} of the kernel (rank {s['p'] + s['q']} of "
                f"{s['n']} x {s['n']}, no n x n array formed)")
    return (f"spectrum of {what}: signature p/q/z = "
            f"{s['p']}/{s['q']}/{s['z']} (|lambda| <= {s['tol']:.2g} counts as zero), "
            f"least eigenvalue {s['min_eigenvalue']:.4g}, largest {s['max_eigenvalue']:.4g}, "
            f"r_mm = {s['r_mm']:.3g} %, r_neg = {s['r_neg']:.3g} %")


def _fold_deviation_line(folds, approximation=None):
    """r_mm and r_neg (Munoz & de Diego eq. 2) of the training blocks, mean ± s.d. over folds."""
    per_fold = folds.drop_duplicates(["repeat", "fold"])
    parts = []
    for col in ("r_mm", "r_neg"):
        v = per_fold[col].to_numpy(dtype=float)
        sd = float(v.std(ddof=1)) if v.size > 1 else 0.0
        parts.append(f"{col} = {v.mean():.3g} ± {sd:.2g} %")
    blocks = ("the approximations of the training blocks" if approximation is not None
              else "the training blocks")
    return (f"deviation from Euclidean of {blocks} (Munoz & de Diego eq. 2; mean ± "
            f"s.d. over {len(per_fold)} folds): {', '.join(parts)}")


def text_table(rows, left=("method",)):
    """Plain-text table: columns from the first row, ``left`` columns left-aligned.

    Parameters
    ----------
    rows : list of dict
        The rows (at least one), all with the keys of the first.
    left : tuple of str, default=("method",)
        The columns aligned left; the others are aligned right.

    Returns
    -------
    str
        The header and the rows, columns separated by two spaces.
    """
    cols = list(rows[0])
    cells = [[str(r[c]) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]

    def line(values):
        return "  ".join(v.ljust(w) if c in left else v.rjust(w)
                         for v, w, c in zip(values, widths, cols)).rstrip()

    return "\n".join([line(cols)] + [line(row) for row in cells])


def _chosen_text(best_params):
    import json

    try:
        best = json.loads(best_params) if isinstance(best_params, str) and best_params else {}
    except ValueError:
        best = {}
    return " ".join(f"{k}={_fmt_num(v, 3)}" for k, v in best.items()) or "-"


#: The mark of each significance group in the terminal table (``group`` of summary.csv).
GROUP_MARKS = {"best": "best", "not worse": "=", "worse": "<"}


def _group_mark(r):
    """``best``, ``= p 0.41`` or ``< p 0.003`` (Holm-adjusted p), ``-`` when not tested."""
    group = r.get("group", "")
    if not isinstance(group, str) or group not in GROUP_MARKS:
        return "-"
    p = r.get("p_value")
    if group == "best" or p is None or p != p:
        return GROUP_MARKS[group]
    return f"{GROUP_MARKS[group]} p {p:.2g}"


def _significance_lines(result):
    """The legend of the ``vs best`` column, the group line and the edge-of-grid flags."""
    from .experiment.statistics import significance_groups

    summary = result.summary
    if "group" not in summary.columns:
        return []
    s = summary[summary["status"] != "skipped"]
    score = {"regression": "rmse", "novelty": "auc"}.get(result.task, "accuracy")
    sig = significance_groups(result.folds[result.folds["method"].isin(s["method"])],
                              score=score)
    test, alpha = summary.attrs.get("test") or sig.attrs["test"], sig.attrs["alpha"]
    lines = []
    if test:
        lines.append(f"vs best: '=' not significantly worse than the best, '<' significantly "
                     f"worse; p adjusted ({test})")
    group = list(s.loc[s["group"] == "best", "method"]) + \
        list(s.loc[s["group"] == "not worse", "method"])
    if group:
        lines.append(f"Not significantly worse than the best ({test.split(',')[0]}, alpha "
                     f"{alpha:g}): " + ", ".join(f"{m} (best)" if i == 0 else m
                                                for i, m in enumerate(group)))
    untested = s[(s["group"] == "") & s[f"{score}_mean"].notna()]
    if len(untested):
        lines.append("not tested against the best: " + "; ".join(
            f"{m} ({why})" for m, why in zip(untested["method"], untested["method"].map(
                sig.set_index("method")["reason"]))))
    edges = _edges(result)
    adaptive = result.tuned and result.grid_extension["steps"] > 0
    extended = _extended(result) if adaptive else {}
    if extended:
        lines.append(f"grids extended by the inner CV (one step beyond a winning end, at most "
                     f"{result.grid_extension['steps']} per side; largest extension, folds):")
        lines += [f"  {m}: {e}" for m, e in extended.items()]
    if edges and adaptive:
        lines.append("[edge]: chosen at a limit of its search in most folds (an end the "
                     "extension could not pass; the limit is named):")
        lines += [f"  {m}: {e}" for m, e in edges.items()]
    elif edges:
        lines.append("[edge]: chosen at an end of its grid in most folds (the best value may "
                     "lie outside it; widen it with --grid):")
        lines += [f"  {m}: {e}" for m, e in edges.items()]
    return lines


def _extended(result):
    """Method -> how far the adaptive search extended its grids (summary.csv's ``extended``)."""
    s = result.summary
    if "extended" not in s.columns:
        return {}
    return {m: e for m, e in zip(s["method"], s["extended"].fillna("").astype(str)) if e}


def _edges(result):
    """Method -> edge-of-grid text: summary.csv's ``edge``, else from the grids as run."""
    from .experiment.statistics import edge_of_grid

    s = result.summary
    if "edge" in s.columns and (s["edge"].fillna("") != "").any():
        return {m: e for m, e in zip(s["method"], s["edge"].fillna("")) if e}
    if not result.tuned:
        return {}
    return edge_of_grid(result.folds, result.grids, result.kernel_grid)


def _regression_cells(r):
    """The RMSE, MAE and R^2 cells of a regression's summary row (mean ± std)."""
    import pandas as pd

    if pd.isna(r["rmse_mean"]):
        return {"RMSE": "failed", "MAE": "-", "R^2": "-"}
    return {name: f"{r[f'{k}_mean']:.4g}" + ("" if r["n_folds"] == 1 else
                                             f" ± {r[f'{k}_std']:.2g}")
            for k, name in (("rmse", "RMSE"), ("mae", "MAE"), ("r2", "R^2"))}


def _display_table(summary, tuned=True, edges=None, task="classification"):
    import pandas as pd

    from .experiment.comparison_files import status_text

    # AUC beside the accuracy for a binary problem (summary.csv's auc_mean; empty: multiclass)
    show_auc = "auc_mean" in summary.columns and task != "regression" and \
        pd.to_numeric(summary["auc_mean"], errors="coerce").notna().any()
    rows = []
    for _, r in summary.iterrows():
        if r["status"] == "skipped":
            continue
        if task == "regression":
            row = {"method": r["method"], **_regression_cells(r), "vs best": _group_mark(r)}
        elif pd.isna(r["accuracy_mean"]):
            row = {"method": r["method"], "accuracy %": "failed", "vs best": _group_mark(r)}
        else:
            acc = f"{100 * r['accuracy_mean']:.1f}" + (  # one test split: no spread to show
                "" if r["n_folds"] == 1 else f" ± {100 * r['accuracy_std']:.1f}")
            row = {"method": r["method"], "accuracy %": acc, "vs best": _group_mark(r)}
        if show_auc:  # after the mark of the accuracy it belongs to
            auc = pd.to_numeric(pd.Series([r["auc_mean"], r["auc_std"]]), errors="coerce")
            row["AUC"] = "-" if pd.isna(auc[0]) else f"{auc[0]:.3f}" + (
                "" if r["n_folds"] == 1 or pd.isna(auc[1]) else f" ± {auc[1]:.3f}")
        if tuned:
            row["chosen (most often)"] = _chosen_text(r["best_params"]) + (
                " [edge]" if r["method"] in (edges or {}) else "")
        row.update({
            "fit s": "-" if pd.isna(r["fit_seconds_mean"]) else f"{r['fit_seconds_mean']:.3f}",
            "#SV": "-" if pd.isna(r["n_support_mean"]) else f"{r['n_support_mean']:.1f}",
            "certificate": r["certificate"] or "-",
            "errors": int(r["n_errors"]),
            "status": status_text(r),
        })
        rows.append(row)
    return text_table(rows, left=("method", "chosen (most often)", "certificate", "status"))


def _protocol_line(result):
    solver = f"solver = {result.solver or 'each method default'}"
    fixed = f"fixed parameters (C = {result.C if result.C is not None else 1:g})"
    strat = "" if result.task == "regression" else " stratified"
    inner = (f"{result.inner_folds}-fold{strat} CV" if result.inner_folds != 1 else
             f"one{strat} validation split ({result.validation_fraction:.0%})")
    if getattr(result.comparison, "outer_split", "kfold") == "predefined":
        how = (f"tuned by {inner} on the training part "
               f"({result.data.n_samples})" if result.tuned else f"{fixed}, fitted on the "
               f"training part ({result.data.n_samples})")
        return (f"protocol: predefined split: {how}, scored once on the test part "
                f"({result.data.n_test}); seed {result.random_state}; {solver}")
    tuned = (f"parameters chosen by inner {inner} on each training fold" if result.tuned
             else fixed)
    if result.task == "novelty":
        from .compare import NOVELTY_NU

        tuned = (f"every method fitted on the inliers (label 1) of each training fold, nothing "
                 f"tuned (nu = {NOVELTY_NU:g}), scored by the ROC AUC of its decision values "
                 "on the whole test fold")
    if result.task == "regression" and result.tuned:
        tuned += (f" by the lowest RMSE; C, epsilon, rho, radius_squared relative to the "
                  f"targets' std t = {result.target_scale:.3g} too")
    return (f"protocol: {result.outer_folds}-fold{strat} CV x {result.repeats} repeat(s) (seed "
            f"{result.random_state}), same folds for every method; {tuned}; {solver}")


def _approximation_line(result):
    if result.approximation is None:
        return None
    block = getattr(result.data, "landmark_block", None)
    if block is not None:
        return (f"approximation: landmark columns to {block.shape[0]} given landmarks (every fit "
                "on the columns' signed Nyström features or, for the reduced-set forms, the "
                "columns themselves; a landmark in a test fold is only a column, its label never "
                "used; no n x n kernel formed; methods without an approximate path skipped)")
    return (f"approximation: {result.approximation} (signed Nyström features or, for the "
            "reduced-set forms, the kernel columns to the landmarks, drawn per fold; no n x n "
            "kernel formed; methods without an approximate path skipped)")


def _relative_grid_line(result):
    """``grids relative to s = mean |K_ii| = 3.2e+07: C in {0.1, 1, 10} / s (svm, ...); ...``:
    the default grids as multiples of the kernel scale (user ``--grid`` values are absolute)."""
    from .registry import default_grid, scale_exponents

    over = getattr(result.comparison, "grid", None) or {}
    groups = {}
    for m, g in result.grids.items():
        base, exps = default_grid(m), scale_exponents(m)
        parts = []
        for k in g:
            e = exps.get(k, 0)
            if k in over or not e or k not in base:
                continue
            power = "" if abs(e) == 1 else f"^{abs(e)}"
            parts.append(f"{k} in {{{', '.join(_fmt_num(v, 3) for v in base[k])}}} "
                         f"{'/' if e < 0 else 'x'} s{power}")
        if parts:
            groups.setdefault("; ".join(parts), []).append(m)
    scale = getattr(result, "kernel_scale", 1.0)
    head = (f"grids relative to s = {getattr(result, 'kernel_scale_measure', '1')} = "
            f"{scale:.3g}")
    if getattr(result, "target_scale", None) is not None:   # a regression: y's spread too
        head += (f" and t = std(y) = {result.target_scale:.3g} (C and epsilon x t, rho and "
                 "radius_squared x t^2; epsilon in {0.01, 0.1, 0.3} x t)")
    if not groups:
        return head + " (no default grid scaled)"
    return head + ": " + "; ".join(f"{t} ({', '.join(ms)})" for t, ms in groups.items())


def _grid_lines(result):
    if not result.tuned:
        return []
    groups = {}
    for m, g in result.grids.items():
        text = ", ".join(f"{k} in {{{', '.join(_fmt_num(v, 3) for v in vals)}}}"
                         for k, vals in g.items()) or "nothing to tune"
        groups.setdefault(text, []).append(m)
    ext = result.grid_extension
    start = "grids searched (absolute values)" if not ext["steps"] else (
        "grids the search starts from (absolute values)")
    lines = [_relative_grid_line(result),
             f"{start}: " + "; ".join(f"{text} ({', '.join(ms)})" for text, ms in groups.items())]
    if ext["steps"]:
        feasible = ("" if result.task == "regression" else
                    "values placed in the range the inner training parts make feasible (mu >= "
                    "1 / smallest class, k <= smallest class); ")
        lines.append(f"adaptive search: {feasible}a value "
                     f"chosen at an end extended by one step of its grid, at most "
                     f"{ext['steps']} per side" + (" (--grid values searched as given)"
                                                   if ext["fixed"] else ""))
    if result.kernel_grid:
        lines.append("kernel grid: " + ", ".join(
            f"{k} in {{{', '.join(_fmt_num(v, 3) for v in vals)}}}"
            for k, vals in result.kernel_grid.items()))
    if result.C is not None:
        lines.append(f"C fixed at {result.C:g}")
    return lines


def comparison_lines(result):
    """The report of ``krein compare`` on stdout, line by line.

    Parameters
    ----------
    result : krein.compare.ComparisonResult
        The finished comparison.

    Returns
    -------
    list of str
        From ``krein compare`` (the data, kernel, spectrum, protocol and grids,
        the table, skipped methods, notes and errors) to the files written.
    """
    data = result.data
    if data.label_dependent:
        note = ("; pick-out with all labels, the folds use the training labels only and "
                "label-free test rows")
    elif data.per_fold_kernel:
        note = "; centered on all objects, the folds use training centering"
    else:
        note = ""
    lines = ["krein compare"] + data_lines(data, result.task)
    if _approximation_line(result):
        lines.append(_approximation_line(result))
    lines.append(_spectrum_line(data.spectrum(), note, result.approximation))
    lines.append(_fold_deviation_line(result.folds, result.approximation))
    lines.append(_protocol_line(result))
    lines += _grid_lines(result)
    lines += ["", _display_table(result.summary, result.tuned, _edges(result), result.task)]
    lines += _significance_lines(result) + [""]
    suspect = result.summary[result.summary["status"] == "suspect"]
    if len(suspect):
        lines.append(f"suspect: {', '.join(suspect['method'])}: "
                     f"{suspect['note'].iloc[0].split(';')[0]}")
    lines += [f"skipped {name}: {why}" for name, why in result.skipped.items()]
    lines += [f"note on {name}: {why}" for name, why in result.notes.items()]
    failed = result.folds[result.folds["error"] != ""]
    for name, group in failed.groupby("method", sort=False):
        lines.append(f"errors in {name} ({len(group)} of {result.outer_folds * result.repeats} fits), "
                     f"first: {group['error'].iloc[0][:300]}")
    warned = result.folds[(result.folds["error"] == "") & (result.folds["warnings"] != "")]
    for name, group in warned.groupby("method", sort=False):
        lines.append(f"warnings in {name} ({len(group)} of {result.outer_folds * result.repeats} "
                     f"fits), first: {group['warnings'].iloc[0][:300]}")
    folds = result.folds
    lost = folds[folds["inner_error"].fillna("").astype(str) != ""] \
        if "inner_error" in folds else folds.iloc[:0]
    for name, group in lost.groupby("method", sort=False):
        n_lost = int(group["n_inner_failures"].astype(float).fillna(0).sum())
        lines.append(f"inner fits failed in {name} ({n_lost}, in {len(group)} of "
                     f"{result.outer_folds * result.repeats} folds), first: "
                     f"{group['inner_error'].iloc[0][:300]}")
    boundary = getattr(result, "boundary_seconds", float("nan"))
    lines.append(f"time: {result.seconds:.0f} s"
                 + ("" if boundary != boundary else f" (boundaries {boundary:.0f} s)"))
    if result.files:
        report = [f for f in result.files if f.endswith("report.html")]
        lines.append(f"files written to {result.directory}/: "
                     f"{', '.join(os.path.basename(f) for f in result.files)}")
        if report:
            lines.append(f"report: {report[0]}")
    else:
        lines.append("no files written (--no-save)")
    return lines


def diagnosis_lines(data, diagnosis):
    """The report of ``krein diagnose`` after the data lines, line by line.

    Parameters
    ----------
    data : krein.kernel_data.KernelData
        The data and kernel diagnosed.
    diagnosis : krein.diagnosis.KernelDiagnosis
        Its diagnosis (:func:`krein.diagnosis.diagnose`).

    Returns
    -------
    list of str
        The spectrum (signature, extreme eigenvalues, r_mm, r_neg), the DCM and
        Haasdonk's suitability criteria as tables.
    """
    d = diagnosis
    lines = []
    if data.label_dependent:
        lines.append("(pick-out kernel with all labels; compare builds it per fold from "
                     "training labels)")
    elif data.per_fold_kernel:
        lines.append("(kernel -1/2 J D^2 J centered on all objects)")
    p, q, z = d.signature
    lines += [
        f"n: {d.n}",
        f"signature (p, q, z): ({p}, {q}, {z})  zero tolerance |lambda| <= "
        f"{d.tol:.3g} (n * eps * max|lambda|)",
        f"least eigenvalue: {d.min_eigenvalue:.6g}   (next: "
        f"{', '.join(f'{v:.4g}' for v in d.next_eigenvalues)})",
        f"largest eigenvalue: {d.max_eigenvalue:.6g}",
        f"r_mm  = 100 |lambda_min| / lambda_max      = {d.r_mm:.4g} %  "
        "(Munoz & de Diego eq. 2)",
        f"r_neg = 100 sum|lambda_neg| / sum|lambda|  = {d.r_neg:.4g} %"]
    if d.dcm is not None:
        note = ("negative: the optimal CH/SVM solution has w'Mw < 0 (Haasdonk 2005 §7.3)"
                if d.dcm < 0 else "non-negative")
        lines.append(f"DCM (squared pE distance of the class means, c'Kc) = {d.dcm:.6g}  "
                     f"({note})")
    else:
        lines.append(f"DCM: not defined for {d.n_classes} classes (use --binary)")
    lines.append("")
    for i, (title, rows) in enumerate(d.suitability):
        lines += ([] if i == 0 else [""]) + title.split("\n")
        if rows:
            lines.append(text_table(rows, left=("criterion", "value", "meaning")))
    return lines


def names_lines(table):
    """A ``{name: description}`` table in two aligned columns (``krein methods``, ``datasets``).

    Parameters
    ----------
    table : dict
        Descriptions by name.

    Returns
    -------
    list of str
        One line per name: the name padded to the longest, two spaces, the description.
    """
    width = max(len(n) for n in table)
    return [f"{name:<{width}}  {desc}" for name, desc in table.items()]


def solvers_lines(rows):
    """The report of ``krein solvers``, line by line.

    Parameters
    ----------
    rows : list of dict
        :func:`krein.solvers.solver_capabilities`: a row per solver with its
        name, the problem classes it accepts and notes.

    Returns
    -------
    list of str
        A title, the table of solvers and problem classes, the notes, a hint.
    """
    lines = ["CVXPY solvers installed here (problem classes accepted), and the libsvm "
             "pseudo-solver:",
             text_table([{k: v for k, v in r.items() if k != "notes"} for r in rows],
                        left=("name",))]
    lines += [f"{r['name']}: {r['notes']}" for r in rows if r["notes"]]
    lines.append("Pass one with --solver NAME (krein compare) or solver=NAME (estimators).")
    return lines
