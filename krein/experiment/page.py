"""The report page of a comparison, made from its files alone.

A ``krein compare`` run writes a directory of plain files, each defined in
:mod:`krein.experiment.comparison_files` (names, columns, types; read back
by its :func:`~krein.experiment.comparison_files.read_comparison`);
:func:`write_report` turns such a directory into one static, self-contained
``report.html`` (no server, no JavaScript; the figures are embedded as base64
PNG data URIs and the CSS is inline) and writes the figures of
:mod:`krein.experiment.page_figures` next to it as ``spectrum.png``,
``accuracy.png`` and, for 2-D feature data, ``boundaries.png``.  Nothing but
the directory's files is read, so the page can be rebuilt at any time
(``krein report DIR``) and the figures are the same wherever it is rebuilt.
Every text from the files is HTML-escaped on the page and ``$`` is escaped in
the figures (no mathtext from user labels).

Missing keys of ``run.json`` are shown as "not recorded".
"""

from __future__ import annotations

import base64
import os
import textwrap

import numpy as np

from .._io import atomic_write_bytes, save_png
from .comparison_files import (BOUNDARIES_FILE, COMPARISON_COLUMNS, FIGURE_FILES, FOLDS_FILE,
                               POINTS_FILE, REPORT_FILE, REQUIRED_COLUMNS, RUN_FILE,
                               SPECTRUM_FILE, STATUSES, SUMMARY_FILE, SavedComparison,
                               read_comparison, status_text)
from .page_diagnosis import diagnosis_section
from .page_protocol import _e, _fact, _missing, _protocol_section
from .page_figures import (_CLASS_COLORS, _approximation, _best_rows, _created, _duration,
                           _json_object, _kernel_label, _num, _params, _percent, _seconds,
                           _group_mark, _significance, _significance_text, _value,
                           accuracy_figure, boundary_figure, spectrum_figure)

__all__ = ["SavedComparison", "read_comparison", "spectrum_figure", "accuracy_figure",
           "boundary_figure", "write_report", "COMPARISON_COLUMNS", "REQUIRED_COLUMNS",
           "STATUSES", "RUN_FILE", "SUMMARY_FILE", "FOLDS_FILE", "SPECTRUM_FILE",
           "POINTS_FILE", "BOUNDARIES_FILE", "REPORT_FILE", "FIGURE_FILES"]


# --------------------------------------------------------------------------- the page
_CSS = """
:root { --fg:#1f2328; --muted:#59636e; --line:#d8dee4; --soft:#f6f8fa; --accent:#0b5cad;
        --best:#e7f5ec; --bad:#b42318; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: #fff; color: var(--fg);
       font: 15px/1.55 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue",
             Arial, "Noto Sans", "DejaVu Sans", sans-serif; }
main { max-width: 1060px; margin: 0 auto; padding: 36px 32px 28px; }
header { border-bottom: 3px solid var(--accent); padding-bottom: 16px; }
.eyebrow { text-transform: uppercase; letter-spacing: .08em; font-size: 12px; color: var(--accent);
           font-weight: 600; margin: 0 0 4px; }
h1 { font-size: 30px; line-height: 1.2; margin: 0 0 6px; letter-spacing: -.01em; }
.subtitle { color: var(--muted); margin: 0; }
.headline { margin: 14px 0 0; font-size: 16px; }
.headline strong { color: #116329; }
section { margin-top: 38px; }
h2 { font-size: 20px; margin: 0 0 14px; padding-bottom: 6px;
     border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 20px 0 8px; }
dl.facts { display: grid; grid-template-columns: 11em 1fr; gap: 7px 20px; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
ul.notes { margin: 0; padding-left: 1.2em; }
.classes { display: flex; flex-wrap: wrap; gap: 6px 16px; }
.class { white-space: nowrap; }
.swatch { display: inline-block; width: .8em; height: .8em; border-radius: 2px;
          margin-right: .35em; vertical-align: -.05em; border: 1px solid rgba(0,0,0,.25); }
.classbar { display: flex; height: 7px; border-radius: 4px; overflow: hidden; max-width: 420px;
            margin-top: 6px; }
.tiles { display: flex; flex-wrap: wrap; gap: 10px; margin: 0 0 6px; }
.tile { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px;
        background: var(--soft); min-width: 118px; }
.tile .label { font-size: 12px; color: var(--muted); }
.tile .value { font-size: 19px; font-weight: 600; font-variant-numeric: tabular-nums; }
.tile.neg .value { color: var(--bad); }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { padding: 7px 10px; border-bottom: 1px solid var(--line); text-align: left;
         vertical-align: top; }
th { background: var(--soft); font-weight: 600; font-size: 12.5px; color: #3d444d;
     white-space: nowrap; border-bottom: 1px solid #c4ccd4; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.method { font-weight: 600; white-space: nowrap; }
td.params, td.cert { font-size: 13px; }
code, pre, td.params, td.cert { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas,
                                  "DejaVu Sans Mono", monospace; }
td.params, td.cert { font-size: 12.5px; color: #3d444d; }
tbody tr:hover td { background: #f3f6f9; }
tr.best td { background: var(--best); }
tr.best td.acc { font-weight: 700; color: #116329; }
tr.group td { background: #f4fbf6; }
tr.muted td, tr.muted td.params, tr.muted td.cert { color: #8c959f; }
tr.muted td.method { font-weight: 500; }
.pm { color: var(--muted); font-weight: 400; }
.badge { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px;
         font-weight: 600; font-family: inherit; }
.badge.ok { background: #dafbe1; color: #116329; }
.badge.partial, .badge.warning { background: #fff1c2; color: #7a4d00; }
.badge.failed { background: #ffe2e0; color: var(--bad); }
.badge.skipped { background: #eaeef2; color: #57606a; }
.note { font-size: 12.5px; color: var(--muted); margin-top: 3px; max-width: 290px;
        overflow-wrap: anywhere; white-space: normal; }
tr.failed .note { color: var(--bad); }
.caption, figcaption { color: var(--muted); font-size: 13px; margin-top: 8px; }
figure { margin: 20px 0 0; }
figure img { display: block; max-width: 100%; height: auto; margin: 0 auto; }
pre.command { background: var(--soft); border: 1px solid var(--line); border-radius: 6px;
              padding: 8px 12px; margin: 14px 0 0; white-space: pre-wrap; overflow-wrap: anywhere;
              font-size: 12.5px; }
details { margin-top: 16px; border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
details summary { cursor: pointer; font-weight: 600; font-size: 14px; }
table.grids th, table.grids td { padding: 4px 10px; }
details table { margin-top: 10px; font-size: 12.5px; }
details th, details td { padding: 4px 8px; border-bottom: 1px solid #eef1f4; }
details td.params, details td.method { white-space: nowrap; }
details tr.first td { border-top: 1px solid #c4ccd4; }
td.msg { font-size: 12px; color: var(--bad); max-width: 360px; overflow-wrap: anywhere; }
.missing { color: var(--muted); font-style: italic; }
footer { margin-top: 44px; padding-top: 12px; border-top: 1px solid var(--line);
         color: var(--muted); font-size: 13px; }
@media print { main { max-width: none; padding: 0; } details { display: none; } }
"""


def _img(png, alt):
    data = base64.b64encode(png).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{_e(alt)}">'


def _data_section(c):
    d = c.data
    facts = [_fact("Data set", f"<strong>{_e(d['name'])}</strong>" if d.get("name")
                   else _missing())]
    facts.append(_fact("Source", _e(d["source"]) if d.get("source") else _missing()))
    facts.append(_fact("Kind", _e(d["kind"]) if d.get("kind") else _missing()))
    n, p = d.get("n_samples"), d.get("n_features")
    if n is not None:
        size = f"{_e(_num(n))} objects" + (f" × {_e(_num(p))} features" if p is not None else "")
    else:
        size = _missing()
    facts.append(_fact("Size", size))
    if d.get("description"):
        facts.append(_fact("Preprocessing", _e(d["description"])))
    classes = c.classes
    if classes:
        total = sum(k for _, k in classes if k is not None) or 0
        chips, bar = [], []
        for i, (name, count) in enumerate(classes):
            color = _CLASS_COLORS[i % len(_CLASS_COLORS)]
            share = f" ({100 * count / total:.1f}%)" if total and count is not None else ""
            chips.append(f'<span class="class"><span class="swatch" style="background:{color}">'
                         f'</span><strong>{_e(name)}</strong> {_e(_num(count))}{share}</span>')
            if total and count:
                bar.append(f'<span style="background:{color};width:{100 * count / total:.3f}%">'
                           "</span>")
        value = f'<div class="classes">{"".join(chips)}</div>'
        if bar:
            value += f'<div class="classbar" aria-hidden="true">{"".join(bar)}</div>'
        facts.append(_fact(f"Classes ({len(classes)})", value))
    else:
        facts.append(_fact("Classes", _missing()))
    kernel = _e(d["kernel"]) if d.get("kernel") else _missing()
    params = d.get("kernel_params") or {}
    if params and d.get("kernel"):
        kernel = (f"<strong>{kernel}</strong> with "
                  + ", ".join(f"<code>{_e(k)} = {_e(_value(v))}</code>"
                              for k, v in params.items()))
    elif d.get("kernel"):
        kernel = f"<strong>{kernel}</strong>"
    facts.append(_fact("Kernel", kernel))
    notes = d.get("notes") or []
    if isinstance(notes, str):
        notes = [notes]
    if notes:
        facts.append(_fact("Notes", '<ul class="notes">'
                           + "".join(f"<li>{_e(x)}</li>" for x in notes) + "</ul>"))
    return ('<section id="data"><h2>Data</h2><dl class="facts">' + "".join(facts)
            + "</dl></section>")


def _spectrum_section(c, png):
    s = c.spectrum
    approx = _approximation(c)
    tiles = [("objects n", _num(s["n"]), ""),
             ("signature (p, q, z)", f"({s['p']}, {s['q']}, {s['z']})", ""),
             ("least eigenvalue", _num(s["min_eigenvalue"]),
              "neg" if np.isfinite(s["min_eigenvalue"]) and s["min_eigenvalue"] < 0 else ""),
             ("largest eigenvalue", _num(s["max_eigenvalue"]), ""),
             ("r_mm", f"{_num(s['r_mm'])}%", ""),
             ("r_neg", f"{_num(s['r_neg'])}%", "")]
    html_tiles = "".join(f'<div class="tile {cls}"><div class="label">{_e(label)}</div>'
                         f'<div class="value">{_e(value)}</div></div>'
                         for label, value, cls in tiles)
    indefinite = ("The kernel is indefinite" if s["q"] else
                  "The kernel is positive semi-definite")
    line = (f"{indefinite}. Signature: the numbers of positive, negative and zero eigenvalues "
            "(|λ| ≤ n · eps · max|λ| counts as zero); r_mm = 100 |λ_min| / λ_max; r_neg = the "
            "share of Σ|λ| carried by the negative eigenvalues, in percent (Munoz & de Diego "
            "2006, eq. 2).")
    what = f"Eigenvalues of the kernel on all {_num(s['n'])} objects"
    title = "Kernel spectrum"
    if approx:  # no n x n kernel was formed: the approximation's eigenvalues
        line += (f" Approximated run: no n x n kernel was formed; these are the nonzero "
                 f"eigenvalues of the {approx} approximation of the kernel (the other "
                 f"eigenvalues count as zero), not the kernel's own.")
        what = (f"Nonzero eigenvalues of the {approx} approximation of the kernel on all "
                f"{_num(s['n'])} objects")
        title = f"Kernel spectrum ({approx} approximation)"
    line = _e(line)
    return (f'<section id="spectrum"><h2>{_e(title)}</h2><div class="tiles">{html_tiles}'
            f'</div><p class="caption">{line}</p><figure>{_img(png, "kernel spectrum")}'
            f'<figcaption>{_e(what)} '
            f"({_e(FIGURE_FILES['spectrum'])}).</figcaption></figure></section>")


def _params_cell(text):
    params = _json_object(text)
    if params is None:
        return _e(text)
    if not params:
        return '<span class="missing">–</span>'
    return _e(_params(params))


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


def _results_section(c, png):
    s = c.summary.reset_index(drop=True)
    show_auc = _has_auc(s, "auc_mean")
    best = _best_rows(s)
    sig, edges = _significance(c)
    rows = []
    for i, r in s.iterrows():
        status = r["status"]
        classes = [status]
        g, mark = _group_mark(sig, r["method"], _e)
        if i in best:
            classes.append("best")
        elif g == "not worse":
            classes.append("group")
        if status in ("skipped", "failed"):
            classes.append("muted")
        ran = status in ("ok", "warning", "partial") and np.isfinite(r["accuracy_mean"])
        spread = ("" if r["n_folds"] == 1 else  # one test split: no spread to show
                  f' <span class="pm">± {_percent(r["accuracy_std"])}</span>')
        acc = f'{_percent(r["accuracy_mean"])}{spread}' if ran else "–"
        badge = f'<span class="badge {_e(status)}">{_e(status)}</span>'
        detail = status_text(r)[len(status):].strip(" ()")
        if detail:  # e.g. "5/5 not converged", "2/5 failed; 3 inner fits failed"
            badge += f' <span class="pm">{_e(detail)}</span>'
        for note in (str(r["note"]).strip(), edges.get(r["method"], "")):
            if note:
                badge += f'<div class="note">{_e(note)}</div>'
        sv = _num(r["n_support_mean"], 3) if np.isfinite(r["n_support_mean"]) else "–"
        if np.isfinite(r["n_support_mean"]) and r["n_support_mean"] >= 10:
            sv = f"{r['n_support_mean']:.0f}"
        rows.append(
            f'<tr class="{" ".join(classes)}" data-method="{_e(r["method"])}">'
            f'<td class="num rank">{i + 1}</td><td class="method">{_e(r["method"])}</td>'
            f'<td class="num acc">{acc}</td>'
            + ('<td class="num auc">'
               f'{_auc(r["auc_mean"], r["auc_std"], r["n_folds"]) if ran else "–"}</td>'
               if show_auc else "")
            + f'<td class="params">{_params_cell(r["best_params"])}'
            f'</td><td class="mark">{mark}</td>'
            f'<td class="num">{_e(_seconds(r["fit_seconds_mean"]))}</td>'
            f'<td class="num">{_e(sv)}</td><td class="cert">{_e(r["certificate"]) or "–"}</td>'
            f"<td>{badge}</td></tr>")
    majority = c.majority_rate
    caption = ("Accuracy: mean ± standard deviation over the test folds, in percent"
               + (f"; always predicting the largest class scores {100 * majority:.1f}%"
                  if np.isfinite(majority) else "")
               + ". Parameters: the value chosen most often over the folds. Fit time and "
               "#SV: means over the folds. The best mean accuracy is highlighted, the methods "
               "not significantly worse than it lightly. A parameter chosen at an end of its "
               "grid in most folds is named in the status column (the best value may lie "
               "outside the grid)."
               + (" AUC: the area under the ROC curve of each method's decision values on the "
                  "test folds (mean ± standard deviation over the folds; 0.5 is chance)."
                  if show_auc else ""))
    out = ['<section id="results"><h2>Results</h2><table id="results-table"><thead><tr>'
           '<th class="num">#</th><th>method</th><th class="num">accuracy (%)</th>'
           + ('<th class="num">AUC</th>' if show_auc else "") +
           '<th>chosen parameters</th><th>vs best</th><th class="num">fit time</th>'
           '<th class="num">#SV</th><th>certificate</th><th>status</th></tr></thead><tbody>',
           *rows, f'</tbody></table><p class="caption">{_e(caption)}</p>',
           f'<p class="caption" id="significance">{_e(_significance_text(sig))}</p>',
           f'<figure>{_img(png, "accuracy per method")}<figcaption>Test accuracy per method: '
           "diamonds with bars are the mean ± std over the folds, dots the single folds, the "
           f"dashed line the majority class ({_e(FIGURE_FILES['accuracy'])}).</figcaption>"
           "</figure>"]
    out.append(_folds_details(c))
    out.append("</section>")
    return "".join(out)


def _folds_details(c):
    f = c.folds
    if not len(f):
        return ""
    show_auc = _has_auc(f, "auc")
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
        inner = inner.strip() if isinstance(inner, str) else ""   # NaN: an older run's row
        if inner:   # why the inner model selection lost some fits (e.g. an infeasible mu)
            warn = "; ".join(x for x in (warn, f"{_num(r['n_inner_failures'])} inner fits "
                                               f"failed, the first: {inner}") if x)
        msg = error or warn
        short = textwrap.shorten(msg, 160, placeholder="…")
        msg_cell = f'<td class="msg" title="{_e(msg)}">{_e(short)}</td>' if msg else "<td></td>"
        if warn and not error:
            msg_cell = msg_cell.replace('class="msg"', 'class="msg" style="color:#7a4d00"')
        classes = " ".join(x for x in ("first" if first else "", "failed" if error else "") if x)
        rows.append(
            f'<tr class="{classes}"><td class="method">{_e(r["method"]) if first else ""}</td>'
            f'<td class="num">{_e(_num(r["repeat"]))}</td>'
            f'<td class="num">{_e(_num(r["fold"]))}</td>'
            f'<td class="num">{_e(_percent(r["accuracy"]))}</td>'
            + (f'<td class="num">{_auc(float(r["auc"]))}</td>' if show_auc else "")
            + f'<td class="params">{_params_cell(r["best_params"])}</td>'
            f'<td class="num">{_e(_percent(r["inner_score"]))}</td>'
            f'<td class="num">{_e(_seconds(r["fit_seconds"]))}</td>'
            f'<td class="num">{_e(_num(r["n_support"]))}</td>'
            f'<td>{_e(r["solver_status"])}</td><td class="num">{_e(_num(r["gap"], 2))}</td>'
            f"{msg_cell}</tr>")
    return (f'<details id="folds"><summary>{_e(head)}</summary><table><thead><tr>'
            '<th>method</th><th class="num">repeat</th><th class="num">fold</th>'
            '<th class="num">accuracy (%)</th>' + ('<th class="num">AUC</th>' if show_auc else "")
            + '<th>chosen parameters</th>'
            '<th class="num">inner score (%)</th><th class="num">fit</th>'
            '<th class="num">#SV</th><th>solver status</th><th class="num">gap</th>'
            "<th>error / warnings</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table></details>")


def _boundary_section(c, png):
    return ('<section id="boundaries"><h2>Decision boundaries</h2><figure>'
            f'{_img(png, "decision regions per method")}<figcaption>Predicted class on a grid '
            "for each method trained on all the data; dots are the data coloured by their "
            f"label ({_e(FIGURE_FILES['boundaries'])}).</figcaption></figure></section>")


def _page_html(c, images):
    run, d = c.run, c.data
    name = d.get("name") or os.path.basename(os.path.abspath(c.directory))
    kernel = d.get("kernel") or "unknown"
    title = f"{name} · {kernel} kernel"
    s = c.summary
    n_ran = int(s["status"].isin(["ok", "warning", "partial"]).sum())
    p = c.protocol
    bits = [f"{len(s)} method{'s' if len(s) != 1 else ''}"]
    if p.get("cv") == 1:
        bits.append("predefined train/test split")
    elif p.get("cv"):
        bits.append(f"{_num(p['cv'])}-fold CV × {_num(p.get('repeats') or 1)}")
    bits.append(_kernel_label(d))
    bits.append(f"created {_created(run.get('created'))}")
    sig, _ = _significance(c)
    if sig.attrs.get("best") is not None:
        r = s.set_index("method").loc[sig.attrs["best"]]
        headline = (f"Not significantly worse than the best ({_e(sig.attrs['test'])}): "
                    f"<strong>{_e(sig.attrs['best'])}</strong> (best, "
                    f"{_percent(r['accuracy_mean'])}"
                    + ("%)" if r["n_folds"] == 1 else f" ± {_percent(r['accuracy_std'])}%)")
                    + "".join(f", {_e(m)}" for m, g in sig["group"].items() if g == "not worse"))
        if np.isfinite(c.majority_rate):
            headline += f"; the majority class alone scores {100 * c.majority_rate:.1f}%"
        headline += f"; {n_ran} of {len(s)} methods ran"
        not_ran = len(s) - n_ran
        if not_ran:
            headline += f", {not_ran} skipped or failed"
        n_warned = int((s["status"] == "warning").sum())
        if n_warned:
            headline += f", {n_warned} with warnings (status column)"
        headline += "."
    else:
        headline = "No method produced an accuracy."
    command = run.get("command")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="krein">',
        f"<title>{_e('krein compare: ' + title)}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        '<header><p class="eyebrow">krein compare</p>',
        f"<h1>{_e(title)}</h1>",
        f'<p class="subtitle">{_e(" · ".join(bits))}</p>',
        f'<p class="headline">{headline}</p>',
        (f'<pre class="command"><code>{_e(command)}</code></pre>' if command else ""),
        "</header>",
        _data_section(c),
        _spectrum_section(c, images["spectrum"]),
        diagnosis_section(c.run.get("diagnosis"), _fact, _e),
        _protocol_section(c),
        _results_section(c, images["accuracy"]),
    ]
    if "boundaries" in images:
        parts.append(_boundary_section(c, images["boundaries"]))
    skipped = run.get("skipped") or {}
    version = run.get("krein_version") or "unknown version"
    parts.append(
        f"<footer>Made by krein {_e(version)} · run created {_e(_created(run.get('created')))}"
        f" · run time {_e(_duration(run.get('seconds')))}"
        + (f" · {len(skipped)} method{'s' if len(skipped) != 1 else ''} skipped"
           if skipped else "")
        + f" · rebuilt from the files of this directory with <code>krein report "
        f"{_e(os.path.basename(os.path.abspath(c.directory)))}</code></footer>")
    parts.append("</main></body></html>\n")
    return "\n".join(x for x in parts if x)


def write_report(directory):
    """Write ``report.html`` and its figures from the files of a comparison directory.

    Reads the directory (:func:`read_comparison`), writes ``spectrum.png``,
    ``accuracy.png`` and, for 2-D feature data, ``boundaries.png``
    (:func:`krein._io.save_png`, atomically), then the page
    ``report.html`` (atomically): title and headline result, the data, the
    kernel spectrum, the protocol, the results table with the accuracy chart
    and every fold, the decision boundaries when present, and a footer with
    the krein version, the date and the run time.  The page is one static
    file: the figures are embedded as base64 PNG data URIs, the CSS inline,
    no script; every text from the files is HTML-escaped.

    Parameters
    ----------
    directory : str or path-like
        The directory ``krein compare`` wrote; the page and the figures are
        written into it.

    Returns
    -------
    str
        The path of ``report.html``.
    """
    c = read_comparison(directory)
    figures = {"spectrum": spectrum_figure(c), "accuracy": accuracy_figure(c)}
    boundaries = boundary_figure(c)
    if boundaries is not None:
        figures["boundaries"] = boundaries
    images = {}
    for key, fig in figures.items():
        path = save_png(fig, os.path.join(c.directory, FIGURE_FILES[key]), dpi=120)
        with open(path, "rb") as f:
            images[key] = f.read()
    page = _page_html(c, images)
    return atomic_write_bytes(os.path.join(c.directory, REPORT_FILE), page.encode("utf-8"))
