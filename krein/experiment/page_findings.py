"""What the report page and its figures read off a comparison's files beyond their columns.

The page (:mod:`krein.experiment.page`, :mod:`krein.experiment.page_results`)
and its figures (:mod:`krein.experiment.page_figures`) show the same findings:
the low-rank approximation a run was fitted on (:func:`approximation`), the
score the comparison ranks by (:func:`score_view`: the accuracy, a regression's
RMSE), the methods with the best mean score (:func:`best_rows`), and which
methods are not significantly worse than the best with the parameters chosen at
an end of their grid (:func:`significance`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["approximation", "best_rows", "significance", "score_view", "ScoreView"]


@dataclass(frozen=True)
class ScoreView:
    """The score a comparison ranks its methods by, as the page shows it.

    Parameters
    ----------
    column : str
        Its column in ``folds.csv`` (``summary.csv``: ``<column>_mean``, ``_std``).
    label : str
        Its name on the page.
    higher : bool
        Whether a higher value is better.
    factor : float
        The factor of the shown numbers (100 for a percentage).
    task : str
        ``"classification"``, ``"regression"`` or ``"novelty"``.
    """

    column: str
    label: str
    higher: bool
    factor: float
    task: str

    def text(self, value):
        """``value`` as the page shows it.

        Parameters
        ----------
        value : float
            A value of the score (a fraction for the accuracy).

        Returns
        -------
        str
            A percentage to one decimal, else four significant digits; "–" for NaN.
        """
        value = float(value)
        if not np.isfinite(value):
            return "–"
        return f"{self.factor * value:.1f}" if self.factor != 1 else f"{value:.4g}"


#: The score of each task (``run.json``'s ``protocol.task``; classification when absent).
_VIEWS = {"classification": ScoreView("accuracy", "accuracy (%)", True, 100.0, "classification"),
          "regression": ScoreView("rmse", "RMSE", False, 1.0, "regression"),
          "novelty": ScoreView("auc", "AUC", True, 1.0, "novelty")}


def score_view(comparison):
    """The :class:`ScoreView` of a comparison, from its task.

    Parameters
    ----------
    comparison : SavedComparison
        A comparison read by :func:`krein.experiment.comparison_files.read_comparison`.

    Returns
    -------
    ScoreView
        The accuracy (percent, higher is better) of a classification; the RMSE
        (the targets' unit, lower is better) of a regression; the ROC AUC of
        inliers against outliers (higher is better) of a novelty comparison.
    """
    return _VIEWS.get(comparison.protocol.get("task") or "classification",
                      _VIEWS["classification"])


def approximation(comparison):
    """The low-rank front end of an approximated run (``run.json``), else None.

    Parameters
    ----------
    comparison : SavedComparison
        A comparison read by :func:`krein.experiment.comparison_files.read_comparison`.

    Returns
    -------
    str or None
        The approximation as recorded (e.g. ``"nystroem:200"``), or None for a
        run on the whole kernel.
    """
    approx = (comparison.run.get("spectrum") or {}).get("approximation")
    return str(approx) if approx else None


def best_rows(summary, view=None):
    """Indices of the rows with the best mean score among the methods that ran.

    Parameters
    ----------
    summary : pandas.DataFrame
        ``summary.csv`` of a comparison (``status``, ``accuracy_mean``).
    view : ScoreView, optional
        The score (:func:`score_view`); default the accuracy, highest best.

    Returns
    -------
    set
        The index labels of the rows whose status is ok, warning or partial and
        whose mean score equals the best one (up to 1e-12); empty when no
        method ran.
    """
    view = view or _VIEWS["classification"]
    column = f"{view.column}_mean"
    ran = (summary["status"].isin(["ok", "warning", "suspect", "partial"])
           & np.isfinite(summary[column]))
    if not ran.any():
        return set()
    values = summary.loc[ran, column]
    best = values.max() if view.higher else values.min()
    return set(summary.index[ran & np.isclose(summary[column], best, rtol=0, atol=1e-12)])


def significance(comparison):
    """The significance groups and edge-of-grid flags of a comparison, from its files.

    Parameters
    ----------
    comparison : SavedComparison
        A comparison read by :func:`krein.experiment.comparison_files.read_comparison`.

    Returns
    -------
    table : pandas.DataFrame
        :func:`krein.experiment.statistics.significance_groups` of the methods
        that ran, indexed by method (``attrs``: test, alpha, best).
    edges : dict
        Method -> edge text: ``summary.csv``'s ``edge`` column where it names
        any, else :func:`~krein.experiment.statistics.edge_of_grid` on the
        grids of ``run.json``.
    """
    from .statistics import edge_of_grid, significance_groups

    s, folds = comparison.summary, comparison.folds
    ran = s.loc[s["status"] != "skipped", "method"]
    sig = significance_groups(folds[folds["method"].isin(ran)],
                              score=score_view(comparison).column)
    attrs = dict(sig.attrs)
    sig = sig.set_index("method")
    sig.attrs.update(attrs)
    edge = s["edge"].fillna("").astype(str) if "edge" in s.columns else None
    if edge is not None and (edge != "").any():
        edges = {m: e for m, e in zip(s["method"], edge) if e}
    else:
        p = comparison.protocol
        grids = p.get("grids") if isinstance(p.get("grids"), dict) else {}
        kernel_grid = p.get("kernel_grid") if isinstance(p.get("kernel_grid"), dict) else {}
        edges = edge_of_grid(folds[folds["method"].isin(ran)],
                             {m: g for m, g in grids.items() if isinstance(g, dict)}, kernel_grid)
    return sig, edges
