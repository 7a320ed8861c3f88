"""The protocol section of the report page (and the page's small HTML helpers).

What was compared and how, from ``run.json``'s ``protocol``: the evaluation (k-fold
cross-validation x repeats, or a predefined train/test split), the model selection, the
seed, solver and approximation, the scale the default grids are relative to, and the
grids searched per method.  Every text is HTML-escaped.
"""

from __future__ import annotations

import html

from .page_figures import _num, _value

__all__ = []


def _e(text):
    return html.escape(str(text), quote=True)


def _missing(text="not recorded"):
    return f'<span class="missing">{_e(text)}</span>'


def _fact(label, value_html):
    return f"<dt>{_e(label)}</dt><dd>{value_html}</dd>"


def _grid_text(grid):
    if grid is None:
        return _missing()
    if not isinstance(grid, dict):
        return _e(_value(grid))
    if not grid:
        return _missing("nothing tuned")
    parts = []
    for k, v in grid.items():
        values = ", ".join(_value(u) for u in v) if isinstance(v, (list, tuple)) else _value(v)
        parts.append(f"<code>{_e(k)} ∈ {{{_e(values)}}}</code>")
    return "; ".join(parts)


def _protocol_section(c):
    p = c.protocol
    facts = []
    cv, repeats = p.get("cv"), p.get("repeats")
    if cv == 1 and len(c.folds):  # a predefined split: one fold (krein.compare)
        n_train, n_test = (_num(c.folds[k].iloc[0]) for k in ("n_train", "n_test"))
        how = "tuned by CV on" if p.get("tuned") else "fitted on"
        facts.append(_fact("Evaluation", f"the data's own train/test split: {how} the "
                           f"training part ({_e(n_train)}), scored once on the test part "
                           f"({_e(n_test)}); every method sees the same split"))
    elif cv is not None:
        total = f" ({_num(cv * repeats)} test folds per method)" if isinstance(cv, int) \
            and isinstance(repeats, int) else ""
        facts.append(_fact("Evaluation", f"stratified {_e(_num(cv))}-fold cross-validation × "
                           f"{_e(_num(repeats if repeats is not None else 1))} "
                           f"repeat{'s' if repeats != 1 else ''}{_e(total)}; every method "
                           "sees the same folds"))
    else:
        facts.append(_fact("Evaluation", _missing()))
    tuned = p.get("tuned")
    if tuned:
        inner = p.get("inner_folds")
        scoring = p.get("scoring") or "accuracy"
        facts.append(_fact("Model selection",
                           f"tuned: inner {_e(_num(inner))}-fold cross-validation on each outer "
                           f"training part (scoring: {_e(scoring)}), then a refit on the whole "
                           "training part with the best parameters"))
    elif tuned is None:
        facts.append(_fact("Model selection", _missing()))
    else:
        facts.append(_fact("Model selection", "none: every method at fixed parameters"))
    facts.append(_fact("Seed", _e(_num(p["seed"])) if p.get("seed") is not None
                       else _missing()))
    facts.append(_fact("Solver", _e(p["solver"]) if p.get("solver")
                       else "each method's default"))
    if p.get("approximation"):
        facts.append(_fact("Approximation",
                           f"{_e(p['approximation'])}: every method fitted on signed Nyström "
                           "features of the kernel (no n x n kernel formed); methods without an "
                           "approximate path skipped"))
    if isinstance(p.get("kernel_scale"), (int, float)):
        facts.append(_fact("Grid scale", f"default grids relative to the training kernel's "
                           f"scale s = {_e(p.get('kernel_scale_measure') or '?')} = "
                           f"{p['kernel_scale']:.3g} (e.g. C / s, rho / s^3: K and c K choose "
                           "the same models); values given with --grid or --C are absolute"))
    kernel_grid = p.get("kernel_grid")
    if kernel_grid:
        facts.append(_fact("Kernel grid", _grid_text(kernel_grid)))
    elif tuned:
        facts.append(_fact("Kernel grid", "none (kernel parameters fixed)"))
    out = ['<section id="protocol"><h2>Protocol</h2><dl class="facts">', *facts, "</dl>"]
    grids, fixed = p.get("grids") or {}, p.get("fixed") or {}
    methods = list(c.summary["method"])
    methods += [m for m in list(grids) + list(fixed) if m not in methods]
    if grids or fixed:
        out.append('<h3>Parameters per method</h3><table class="grids"><thead><tr>'
                   "<th>method</th><th>searched grid</th><th>fixed</th></tr></thead><tbody>")
        skipped = set(c.summary.loc[c.summary["status"] == "skipped", "method"])
        for m in methods:
            g, f = grids.get(m), fixed.get(m)
            if g is None and f is None and m in skipped:
                continue
            fx = (", ".join(f"<code>{_e(k)} = {_e(_value(v))}</code>" for k, v in f.items())
                  if isinstance(f, dict) and f else '<span class="missing">–</span>')
            cls = ' class="muted"' if m in skipped else ""
            out.append(f'<tr{cls}><td class="method">{_e(m)}</td><td>{_grid_text(g)}</td>'
                       f"<td>{fx}</td></tr>")
        out.append("</tbody></table>")
    out.append("</section>")
    return "".join(out)
