"""The report page's section on a matrix given as a kernel.

``krein compare`` records :func:`krein.diagnosis.kernel_suitability` of a
matrix given as a kernel in ``run.json`` (``diagnosis``); the page shows it
here, with the hint to rerun with ``--dissimilarity`` when it looks like a
distance matrix.
"""

from __future__ import annotations

from .page_format import escape, fact

__all__ = ["diagnosis_section"]


def diagnosis_section(d):
    """The page's section on a matrix given as a kernel, ``""`` for other data.

    Parameters
    ----------
    d : dict or None
        The ``diagnosis`` entry of ``run.json``
        (:func:`krein.diagnosis.kernel_suitability`: zero diagonal, non-negative,
        Haasdonk's 2005 §7.3 criteria before training, whether it looks like a
        distance matrix and why).

    Returns
    -------
    str
        The HTML of the section (``""`` when ``d`` is not a dict).
    """
    if not isinstance(d, dict):
        return ""
    dcm = d.get("dcm")
    share = d.get("negative_share")
    facts = [fact("Zero diagonal", "yes" if d.get("zero_diagonal") else "no"),
             fact("No negative entry", "yes" if d.get("non_negative") else "no"),
             fact("-K conditionally PD", {True: "yes", False: "no"}.get(d.get("negated_cpd"),
                                                                       "not computed")),
             fact("Class-mean distance (DCM)", escape(f"{dcm:.4g}") if isinstance(dcm, float)
                  else "not computed (two classes only)"),
             fact("Negative share of J K J", escape(f"{100 * share:.3g} %")
                  if isinstance(share, float) else "not computed"),
             fact("Verdict before training", escape(d.get("verdict") or "?"))]
    warn = (f'<p class="note" style="color:#7a4d00">The matrix looks like a distance matrix '
            f'({escape(d.get("reason") or "")}): if it holds dissimilarities, rerun with '
            "<code>--dissimilarity</code>.</p>" if d.get("distance_like") else "")
    return ('<section id="diagnosis"><h2>Diagnosis of the matrix</h2>'
            '<p class="caption">The matrix was given as a kernel; Haasdonk (2005, §7.3) '
            "criteria before training, as <code>krein diagnose</code> computes them.</p>"
            f'{warn}<dl class="facts">{"".join(facts)}</dl></section>')
