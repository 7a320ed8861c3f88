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

This module assembles the page (header, the data and spectrum sections, the
decision boundaries, the footer); the protocol, results and diagnosis sections
are :mod:`krein.experiment.page_protocol`, :mod:`krein.experiment.page_results`
and :mod:`krein.experiment.page_diagnosis`, the way values are written
:mod:`krein.experiment.page_format`, and the findings the page and its figures
share (best method, significance) :mod:`krein.experiment.page_findings`.
"""

from __future__ import annotations

import os

import numpy as np

from .._io import atomic_write_bytes, save_png
from .comparison_files import (BOUNDARIES_FILE, COMPARISON_COLUMNS, FIGURE_FILES, FOLDS_FILE,
                               POINTS_FILE, REPORT_FILE, REQUIRED_COLUMNS, RUN_FILE,
                               SPECTRUM_FILE, STATUSES, SUMMARY_FILE, SavedComparison,
                               read_comparison)
from .page_diagnosis import diagnosis_section
from .page_figures import accuracy_figure, boundary_figure, spectrum_figure
from .page_findings import approximation, score_view, significance
from .page_format import (CLASS_COLORS, duration, escape, fact, kernel_label, missing, number,
                          param_value, percent, png_image, timestamp)
from .page_protocol import protocol_section
from .page_results import results_section

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
tr.best td.acc, tr.best td.auc.score { font-weight: 700; color: #116329; }
table.by-auc tr.best td.acc { font-weight: normal; color: inherit; }
tr.group td { background: #f4fbf6; }
tr.muted td, tr.muted td.params, tr.muted td.cert { color: #8c959f; }
tr.muted td.method { font-weight: 500; }
.pm { color: var(--muted); font-weight: 400; }
.badge { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px;
         font-weight: 600; font-family: inherit; }
.badge.ok { background: #dafbe1; color: #116329; }
.badge.partial, .badge.warning, .badge.suspect { background: #fff1c2; color: #7a4d00; }
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


def _data_section(c):
    d = c.data
    facts = [fact("Data set", f"<strong>{escape(d['name'])}</strong>" if d.get("name")
                  else missing())]
    facts.append(fact("Source", escape(d["source"]) if d.get("source") else missing()))
    facts.append(fact("Kind", escape(d["kind"]) if d.get("kind") else missing()))
    n, p = d.get("n_samples"), d.get("n_features")
    if n is not None:
        columns = ("landmark columns" if (c.run.get("protocol") or {}).get("approximation")
                   == "landmarks" else "features")
        size = f"{escape(number(n))} objects" + (f" × {escape(number(p))} {columns}"
                                                 if p is not None else "")
    else:
        size = missing()
    facts.append(fact("Size", size))
    if d.get("description"):
        facts.append(fact("Preprocessing", escape(d["description"])))
    classes = c.classes
    if classes:
        total = sum(k for _, k in classes if k is not None) or 0
        chips, bar = [], []
        for i, (name, count) in enumerate(classes):
            color = CLASS_COLORS[i % len(CLASS_COLORS)]
            share = f" ({100 * count / total:.1f}%)" if total and count is not None else ""
            chips.append(f'<span class="class"><span class="swatch" style="background:{color}">'
                         f'</span><strong>{escape(name)}</strong> '
                         f'{escape(number(count))}{share}</span>')
            if total and count:
                bar.append(f'<span style="background:{color};width:{100 * count / total:.3f}%">'
                           "</span>")
        value = f'<div class="classes">{"".join(chips)}</div>'
        if bar:
            value += f'<div class="classbar" aria-hidden="true">{"".join(bar)}</div>'
        facts.append(fact(f"Classes ({len(classes)})", value))
    elif isinstance(d.get("target"), dict):     # a regression: real targets
        t = d["target"]
        facts.append(fact("Targets", escape(
            f"real-valued, {number(t.get('n'))} values from {number(t.get('min'))} to "
            f"{number(t.get('max'))}; mean {number(t.get('mean'))}, standard deviation "
            f"{number(t.get('std'))}")))
    else:
        facts.append(fact("Classes", missing()))
    kernel = escape(d["kernel"]) if d.get("kernel") else missing()
    params = d.get("kernel_params") or {}
    if params and d.get("kernel"):
        kernel = (f"<strong>{kernel}</strong> with "
                  + ", ".join(f"<code>{escape(k)} = {escape(param_value(v))}</code>"
                              for k, v in params.items()))
    elif d.get("kernel"):
        kernel = f"<strong>{kernel}</strong>"
    facts.append(fact("Kernel", kernel))
    notes = d.get("notes") or []
    if isinstance(notes, str):
        notes = [notes]
    if notes:
        facts.append(fact("Notes", '<ul class="notes">'
                          + "".join(f"<li>{escape(x)}</li>" for x in notes) + "</ul>"))
    return ('<section id="data"><h2>Data</h2><dl class="facts">' + "".join(facts)
            + "</dl></section>")


def _spectrum_section(c, png):
    s = c.spectrum
    approx = approximation(c)
    tiles = [("objects n", number(s["n"]), ""),
             ("signature (p, q, z)", f"({s['p']}, {s['q']}, {s['z']})", ""),
             ("least eigenvalue", number(s["min_eigenvalue"]),
              "neg" if np.isfinite(s["min_eigenvalue"]) and s["min_eigenvalue"] < 0 else ""),
             ("largest eigenvalue", number(s["max_eigenvalue"]), ""),
             ("r_mm", f"{number(s['r_mm'])}%", ""),
             ("r_neg", f"{number(s['r_neg'])}%", "")]
    html_tiles = "".join(f'<div class="tile {cls}"><div class="label">{escape(label)}</div>'
                         f'<div class="value">{escape(value)}</div></div>'
                         for label, value, cls in tiles)
    indefinite = ("The kernel is indefinite" if s["q"] else
                  "The kernel is positive semi-definite")
    line = (f"{indefinite}. Signature: the numbers of positive, negative and zero eigenvalues "
            "(|λ| ≤ n · eps · max|λ| counts as zero); r_mm = 100 |λ_min| / λ_max; r_neg = the "
            "share of Σ|λ| carried by the negative eigenvalues, in percent (Munoz & de Diego "
            "2006, eq. 2).")
    what = f"Eigenvalues of the kernel on all {number(s['n'])} objects"
    title = "Kernel spectrum"
    if approx:  # no n x n kernel was formed: the approximation's eigenvalues
        line += (f" Approximated run: no n x n kernel was formed; these are the nonzero "
                 f"eigenvalues of the {approx} approximation of the kernel (the other "
                 f"eigenvalues count as zero), not the kernel's own.")
        what = (f"Nonzero eigenvalues of the {approx} approximation of the kernel on all "
                f"{number(s['n'])} objects")
        title = f"Kernel spectrum ({approx} approximation)"
    line = escape(line)
    return (f'<section id="spectrum"><h2>{escape(title)}</h2><div class="tiles">{html_tiles}'
            f'</div><p class="caption">{line}</p><figure>{png_image(png, "kernel spectrum")}'
            f'<figcaption>{escape(what)} '
            f"({escape(FIGURE_FILES['spectrum'])}).</figcaption></figure></section>")


def _boundary_section(c, png):
    return ('<section id="boundaries"><h2>Decision boundaries</h2><figure>'
            f'{png_image(png, "decision regions per method")}<figcaption>Predicted class on a '
            "grid for each method trained on all the data; dots are the data coloured by their "
            f"label ({escape(FIGURE_FILES['boundaries'])}).</figcaption></figure></section>")


def _page_html(c, images):
    run, d = c.run, c.data
    name = d.get("name") or os.path.basename(os.path.abspath(c.directory))
    kernel = d.get("kernel") or "unknown"
    title = f"{name} · {kernel} kernel"
    s = c.summary
    n_ran = int(s["status"].isin(["ok", "warning", "suspect", "partial"]).sum())
    p = c.protocol
    bits = [f"{len(s)} method{'s' if len(s) != 1 else ''}"]
    if p.get("cv") == 1:
        bits.append("predefined train/test split")
    elif p.get("cv"):
        bits.append(f"{number(p['cv'])}-fold CV × {number(p.get('repeats') or 1)}")
    bits.append(kernel_label(d))
    bits.append(f"created {timestamp(run.get('created'))}")
    sig, _ = significance(c)
    view = score_view(c)
    if sig.attrs.get("best") is not None:
        r = s.set_index("method").loc[sig.attrs["best"]]
        if view.task in ("regression", "novelty"):
            name = view.column.upper()
            score = (f"{name} {view.text(r[view.column + '_mean'])}"
                     + (")" if r["n_folds"] == 1 else
                        f" ± {view.text(r[view.column + '_std'])})"))
        else:
            score = (f"{percent(r['accuracy_mean'])}"
                     + ("%)" if r["n_folds"] == 1 else f" ± {percent(r['accuracy_std'])}%)"))
        headline = (f"Not significantly worse than the best ({escape(sig.attrs['test'])}): "
                    f"<strong>{escape(sig.attrs['best'])}</strong> (best, {score}"
                    + "".join(f", {escape(m)}" for m, g in sig["group"].items()
                              if g == "not worse"))
        if np.isfinite(c.majority_rate) and view.task == "classification":
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
        headline = ("No method produced an RMSE." if view.task == "regression" else
                    "No method produced an accuracy.")
    command = run.get("command")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="krein">',
        f"<title>{escape('krein compare: ' + title)}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        '<header><p class="eyebrow">krein compare</p>',
        f"<h1>{escape(title)}</h1>",
        f'<p class="subtitle">{escape(" · ".join(bits))}</p>',
        f'<p class="headline">{headline}</p>',
        (f'<pre class="command"><code>{escape(command)}</code></pre>' if command else ""),
        "</header>",
        _data_section(c),
        _spectrum_section(c, images["spectrum"]),
        diagnosis_section(c.run.get("diagnosis")),
        protocol_section(c),
        results_section(c, images["accuracy"]),
    ]
    if "boundaries" in images:
        parts.append(_boundary_section(c, images["boundaries"]))
    skipped = run.get("skipped") or {}
    version = run.get("krein_version") or "unknown version"
    parts.append(
        f"<footer>Made by krein {escape(version)} · run created "
        f"{escape(timestamp(run.get('created')))}"
        f" · run time {escape(duration(run.get('seconds')))}"
        + (f" · {len(skipped)} method{'s' if len(skipped) != 1 else ''} skipped"
           if skipped else "")
        + f" · rebuilt from the files of this directory with <code>krein report "
        f"{escape(os.path.basename(os.path.abspath(c.directory)))}</code></footer>")
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
