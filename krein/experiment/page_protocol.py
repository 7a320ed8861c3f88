"""The protocol section of the report page.

What was compared and how, from ``run.json``'s ``protocol``: the evaluation (k-fold
cross-validation x repeats, or a predefined train/test split), the model selection
(inner k-fold cross-validation, or one validation split at large n), the seed, solver and approximation, the scale the default grids are relative to, and the
grids searched per method.  Every text is HTML-escaped.
"""

from __future__ import annotations

from .page_format import escape, fact, missing, number, param_value

__all__ = ["protocol_section"]


def _grid_text(grid):
    if grid is None:
        return missing()
    if not isinstance(grid, dict):
        return escape(param_value(grid))
    if not grid:
        return missing("nothing tuned")
    parts = []
    for k, v in grid.items():
        values = (", ".join(param_value(u) for u in v) if isinstance(v, (list, tuple))
                  else param_value(v))
        parts.append(f"<code>{escape(k)} ∈ {{{escape(values)}}}</code>")
    return "; ".join(parts)


def _percent(fraction):
    return f"{100 * fraction:g} %" if isinstance(fraction, (int, float)) else "a share"


def protocol_section(c):
    """The page's protocol section: what was compared and how.

    Parameters
    ----------
    c : SavedComparison
        A comparison read by :func:`krein.experiment.comparison_files.read_comparison`.

    Returns
    -------
    str
        The HTML of ``<section id="protocol">``: the evaluation, the model
        selection, seed, solver, approximation, grid scale and kernel grid from
        ``run.json``'s ``protocol``, and a table of the grid searched and the
        parameters fixed per method.
    """
    p = c.protocol
    facts = []
    regression = p.get("task") == "regression"
    cv, repeats = p.get("cv"), p.get("repeats")
    if cv == 1 and len(c.folds):  # a predefined split: one fold (krein.compare)
        n_train, n_test = (number(c.folds[k].iloc[0]) for k in ("n_train", "n_test"))
        how = "tuned by CV on" if p.get("tuned") else "fitted on"
        facts.append(fact("Evaluation", f"the data's own train/test split: {how} the "
                          f"training part ({escape(n_train)}), scored once on the test part "
                          f"({escape(n_test)}); every method sees the same split"))
    elif cv is not None:
        total = f" ({number(cv * repeats)} test folds per method)" if isinstance(cv, int) \
            and isinstance(repeats, int) else ""
        facts.append(fact("Evaluation", f"{'' if regression else 'stratified '}"
                          f"{escape(number(cv))}-fold "
                          "cross-validation × "
                          f"{escape(number(repeats if repeats is not None else 1))} "
                          f"repeat{'s' if repeats != 1 else ''}{escape(total)}; every method "
                          "sees the same folds"))
    else:
        facts.append(fact("Evaluation", missing()))
    tuned = p.get("tuned")
    if tuned:
        inner = p.get("inner_folds")
        scoring = p.get("scoring") or "accuracy"
        if regression:
            scoring = "RMSE, the lowest mean chosen"
        fraction = p.get("validation_fraction")
        how = (f"inner {escape(number(inner))}-fold cross-validation on each outer training "
               "part (" if inner != 1 else
               f"one {'' if regression else 'stratified '}validation split of each outer "
               "training part "
               f"({escape(_percent(fraction))} of it held out, the same split for every method: "
               "one fit per grid point; ")
        facts.append(fact("Model selection",
                          f"tuned: {how}scoring: {escape(scoring)}), then a refit on "
                          "the whole training part with the best parameters"))
    elif tuned is None:
        facts.append(fact("Model selection", missing()))
    else:
        facts.append(fact("Model selection", "none: every method at fixed parameters"))
    facts.append(fact("Seed", escape(number(p["seed"])) if p.get("seed") is not None
                      else missing()))
    facts.append(fact("Solver", escape(p["solver"]) if p.get("solver")
                      else "each method's default"))
    if p.get("approximation") == "landmarks":
        facts.append(fact("Approximation",
                          "landmark columns given with the data: every method fitted on the "
                          "signed Nyström features of the kernel columns to the landmarks, or on "
                          "the columns themselves (the reduced-set forms; no n x n kernel "
                          "formed); every fold keeps every landmark's column, and a "
                          "landmark in a test fold is only a column: its label is never used for "
                          "training; methods without an approximate path skipped"))
    elif p.get("approximation"):
        facts.append(fact("Approximation",
                          f"{escape(p['approximation'])}: every method fitted on signed Nyström "
                          "features of the kernel, or on its columns to the landmarks (the "
                          "reduced-set forms; no n x n kernel formed); methods without an "
                          "approximate path skipped"))
    if p.get("task") == "novelty":
        facts.append(fact("Novelty", escape(
            "labels 1 (inlier) and -1 (outlier); every method fitted on the inliers of each "
            "training fold only and scored on the whole test fold by the ROC AUC of its "
            "decision values. Nothing tuned: no outlier label may enter training, and a score "
            "on held-out inliers alone cannot compare nu values (it prefers the smallest), so "
            "nu is fixed (the table below) and the kernel and the other parameters keep "
            "their defaults")))
    if regression:
        target = c.data.get("target") if isinstance(c.data.get("target"), dict) else {}
        t = p.get("target_scale")
        facts.append(fact("Targets", escape(
            "real-valued (regression, plain K-fold splits, not stratified)"
            + (f": {number(target.get('n'))} values from {number(target.get('min'))} to "
               f"{number(target.get('max'))}, mean {number(target.get('mean'))}, standard "
               f"deviation {number(target.get('std'))}" if target else "")
            + (f"; the regressors' C, epsilon, rho and radius_squared placed relative to the "
               f"targets' spread t = std(y) = {t:.3g} as well (C t / s, epsilon over "
               "{0.01, 0.1, 0.3} t, rho t^2 / s^3, radius_squared t^2 s: y and c y choose the "
               "same models)" if isinstance(t, (int, float)) else ""))))
    if isinstance(p.get("kernel_scale"), (int, float)):
        facts.append(fact("Grid scale", f"default grids relative to the training kernel's "
                          f"scale s = {escape(p.get('kernel_scale_measure') or '?')} = "
                          f"{p['kernel_scale']:.3g} (e.g. C / s, rho / s^3: K and c K choose "
                          "the same models); values given with --grid or --C are absolute"))
    ext = p.get("grid_extension") if isinstance(p.get("grid_extension"), dict) else {}
    if tuned and ext.get("steps"):
        facts.append(fact("Grid search", escape(
            "adaptive, inside each inner CV: the values placed in the range the inner training "
            "parts make feasible (CH-DU's mu >= 1 / smallest class, a k-NN's k <= smallest "
            "class); a parameter chosen at an end of its grid extended by one step of the "
            "grid's own spacing and the new points scored (points already scored reused), at "
            f"most {number(ext['steps'])} steps per side"
            + ("; the values given with --grid searched as given" if ext.get("fixed") else "")
            + "; a method's row in the table below says how far")))
    elif tuned and "grid_extension" in p:
        facts.append(fact("Grid search", "every grid searched as given (no extension)"))
    kernel_grid = p.get("kernel_grid")
    if kernel_grid:
        facts.append(fact("Kernel grid", _grid_text(kernel_grid)))
    elif tuned:
        facts.append(fact("Kernel grid", "none (kernel parameters fixed)"))
    out = ['<section id="protocol"><h2>Protocol</h2><dl class="facts">', *facts, "</dl>"]
    grids, fixed = p.get("grids") or {}, p.get("fixed") or {}
    methods = list(c.summary["method"])
    methods += [m for m in list(grids) + list(fixed) if m not in methods]
    if grids or fixed:
        extended = (dict(zip(c.summary["method"], c.summary["extended"].fillna("").astype(str)))
                    if "extended" in c.summary.columns else {})
        out.append('<h3>Parameters per method</h3><table class="grids"><thead><tr>'
                   "<th>method</th><th>searched grid</th>"
                   + ("<th>extended (largest, folds)</th>" if ext.get("steps") else "")
                   + "<th>fixed</th></tr></thead><tbody>")
        skipped = set(c.summary.loc[c.summary["status"] == "skipped", "method"])
        for m in methods:
            g, f = grids.get(m), fixed.get(m)
            if g is None and f is None and m in skipped:
                continue
            fx = (", ".join(f"<code>{escape(k)} = {escape(param_value(v))}</code>"
                            for k, v in f.items())
                  if isinstance(f, dict) and f else '<span class="missing">–</span>')
            cls = ' class="muted"' if m in skipped else ""
            grown = (f"<td>{escape(extended.get(m, '')) or '–'}</td>"
                     if ext.get("steps") else "")
            out.append(f'<tr{cls}><td class="method">{escape(m)}</td><td>{_grid_text(g)}</td>'
                       f"{grown}<td>{fx}</td></tr>")
        out.append("</tbody></table>")
    out.append("</section>")
    return "".join(out)
