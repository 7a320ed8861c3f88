"""Scores of a classification cell and the versions of the solvers it used.

:func:`classification_metrics` (accuracy, recall, their average, sensitivity,
specificity) and :func:`solver_version` (the installed version of the package
behind a solver name), the per-cell measurements of
:func:`krein.experiment.classification.classification_cell`, which re-exports
both; on their own so that the protocol module stays one responsibility.
"""

from __future__ import annotations

import numpy as np

__all__ = ["classification_metrics", "solver_version"]


def classification_metrics(y_true, y_pred, classes=None):
    """Accuracy, recall, their average (luss §5.1), sensitivity and specificity (munoz §4).

    Parameters
    ----------
    y_true, y_pred : array of shape (m,)
        True and predicted labels.
    classes : array of shape (n_classes,), optional
        All class labels (sorted); default ``np.unique(y_true)``.  With two
        classes the positive class is ``classes[1]`` (+1 for labels -1/+1).

    Returns
    -------
    dict
        ``accuracy = (TP + TN) / m``; ``recall = TP / (TP + FN)`` (two classes;
        the mean per-class recall for more); ``average = (accuracy + recall) /
        2`` (Luss & d'Aspremont 2009 §5.1); ``sensitivity = TP / (TP + FN)``
        ("true + recovered / total true +") and ``specificity = TN / (TN + FP)``
        (Munoz & de Diego 2006 §4), NaN for more than two classes or when the
        test set lacks the class.

    Raises
    ------
    ValueError
        If the label arrays differ in length or are empty.
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if y_true.shape != y_pred.shape or y_true.ndim != 1 or y_true.size == 0:
        raise ValueError(f"y_true and y_pred must be non-empty 1-D arrays of one length; got "
                         f"shapes {y_true.shape} and {y_pred.shape}")
    classes = np.unique(y_true) if classes is None else np.asarray(classes)
    acc = float(np.mean(y_pred == y_true))

    def rate(c):
        mask = y_true == c
        return float(np.mean(y_pred[mask] == c)) if mask.any() else float("nan")

    if classes.size == 2:
        sens, spec = rate(classes[1]), rate(classes[0])
        recall = sens
    else:
        rates = [rate(c) for c in classes]
        recall = float(np.nanmean(rates)) if np.isfinite(rates).any() else float("nan")
        sens = spec = float("nan")
    return {"accuracy": acc, "recall": recall, "average": 0.5 * (acc + recall),
            "sensitivity": sens, "specificity": spec}


#: Distribution that provides each CVXPY solver (for :func:`solver_version`).
_SOLVER_DISTRIBUTIONS = {
    "CLARABEL": "clarabel", "SCS": "scs", "ECOS": "ecos", "ECOS_BB": "ecos", "OSQP": "osqp",
    "HIGHS": "highspy", "SCIPY": "scipy", "CVXOPT": "cvxopt", "GLPK": "cvxopt",
    "GLPK_MI": "cvxopt", "PIQP": "piqp", "PROXQP": "proxsuite", "DAQP": "daqp",
    "QOCO": "qoco", "MOSEK": "mosek", "GUROBI": "gurobipy", "CPLEX": "cplex",
    "XPRESS": "xpress", "COPT": "coptpy", "SCIP": "pyscipopt", "CBC": "cylp",
    "SDPA": "sdpa-python", "NAG": "naginterfaces", "CUCLARABEL": "cuclarabel",
    "LIBSVM": "scikit-learn", "KNITRO": "knitro",
}


def solver_version(solver):
    """Version of the package that provides a solver.

    Parameters
    ----------
    solver : str or None
        A CVXPY solver name (any case) or ``"libsvm"`` (scikit-learn's).

    Returns
    -------
    str
        The installed version, ``""`` for None/empty, ``"unknown"`` when the
        distribution is not found.
    """
    if not solver:
        return ""
    from importlib import metadata

    dist = _SOLVER_DISTRIBUTIONS.get(str(solver).upper(), str(solver).lower())
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "unknown"
