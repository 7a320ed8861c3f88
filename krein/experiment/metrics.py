"""Scores of a classification or regression cell and the versions of the solvers it used.

:func:`classification_metrics` (accuracy, recall, their average, sensitivity,
specificity), :func:`regression_metrics` (RMSE, MAE, R^2), :func:`fold_auc` (ROC AUC of a fitted model's scores) and
:func:`solver_version` (the installed version of the package behind a solver
name), the per-cell measurements of
:func:`krein.experiment.classification.classification_cell`, which re-exports
them; on their own so that the protocol module stays one responsibility.
"""

from __future__ import annotations

import numpy as np

__all__ = ["classification_metrics", "regression_metrics", "regression_predictions", "fold_auc",
           "solver_version"]


def regression_metrics(y_true, y_pred):
    """Scores of real-valued predictions: RMSE, MAE, R^2 and the inner score ``neg_rmse``.

    Parameters
    ----------
    y_true, y_pred : array of shape (n,)
        True and predicted targets.

    Returns
    -------
    dict
        ``rmse`` (root mean squared error, in the targets' unit), ``mae``
        (mean absolute error, same unit), ``r2`` (the coefficient of
        determination ``1 - SSE / SST`` about the mean of ``y_true``:
        :func:`sklearn.metrics.r2_score`, NaN for fewer than two objects) and
        ``neg_rmse`` (``-rmse``: the higher-is-better score of the inner CV).
    """
    from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score

    y_true = np.asarray(y_true, dtype=float)
    y_pred = np.asarray(y_pred, dtype=float)
    rmse = float(np.sqrt(mean_squared_error(y_true, y_pred)))
    r2 = float(r2_score(y_true, y_pred)) if y_true.size >= 2 else float("nan")
    return {"rmse": rmse, "mae": float(mean_absolute_error(y_true, y_pred)), "r2": r2,
            "neg_rmse": -rmse}


def regression_predictions(pred):
    """Per-object predictions of a regression fold as compact JSON text (``test_predictions``).

    Parameters
    ----------
    pred : array of shape (m,)
        The predicted targets, in test-index order.

    Returns
    -------
    str
        A JSON object ``{"value": [...]}``, values to 12 significant digits.
    """
    import json

    return json.dumps({"value": [float(f"{v:.12g}") for v in np.asarray(pred, dtype=float)]},
                      separators=(",", ":"))


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


def fold_auc(estimator, X_test, y_test, classes, score=None):
    """ROC AUC of a fitted binary classifier's scores on a test split (NaN when undefined).

    The score of a test point is the decision value (``decision_function``), or
    the probability of ``classes[1]`` (``predict_proba``) for a method without a
    decision function; the AUC is scikit-learn's ``roc_auc_score`` with
    ``classes[1]`` positive (the probability that a random positive scores above
    a random negative, ties counting one half).

    Parameters
    ----------
    estimator : fitted classifier
        With ``decision_function`` or ``predict_proba``.
    X_test : array of shape (m, ...)
        Its test input (kernel rows, or feature rows).
    y_test : array of shape (m,)
        True labels of the test points.
    classes : array of shape (n_classes,)
        All class labels of the problem (sorted).
    score : array of shape (m,), optional
        The decision values, when already computed (:func:`decision_values`).

    Returns
    -------
    float
        The AUC in [0, 1]; NaN for more than two classes (no AUC is reported for
        multiclass problems), when the test split holds one class only (e.g. a
        leave-one-out fold) or when the model has neither method.
    """
    from sklearn.metrics import roc_auc_score

    classes = np.asarray(classes)
    y_test = np.asarray(y_test)
    if classes.size != 2 or np.unique(y_test).size != 2:
        return float("nan")
    if score is not None:
        score = np.asarray(score, dtype=float)
    elif hasattr(estimator, "decision_function"):
        score = np.asarray(estimator.decision_function(X_test), dtype=float)
    elif hasattr(estimator, "predict_proba"):
        score = np.asarray(estimator.predict_proba(X_test), dtype=float)[:, 1]
    else:
        return float("nan")
    return float(roc_auc_score(y_test == classes[1], score))


def decision_values(estimator, X_test, classes):
    """The decision values of a binary classifier on its test rows, else None.

    Parameters
    ----------
    estimator : fitted classifier
    X_test : array of shape (m, ...)
    classes : array of shape (n_classes,)

    Returns
    -------
    ndarray of shape (m,) or None
        ``decision_function(X_test)`` (positive for ``classes[1]``) for two
        classes and a model with a decision function; None otherwise.
    """
    if np.asarray(classes).size != 2 or not hasattr(estimator, "decision_function"):
        return None
    dec = np.asarray(estimator.decision_function(X_test), dtype=float)
    return dec.ravel() if dec.ndim == 1 or dec.shape[1:] == (1,) else None


def fold_predictions(estimator, X_test, pred, classes, decision=None):
    """Per-object predictions of a fold as compact JSON text (the cell's ``test_predictions``).

    Parameters
    ----------
    estimator : fitted classifier
        The refitted model.
    X_test : array of shape (m, ...)
        Its test input.
    pred : array of shape (m,)
        Its predicted labels, in test-index order.
    classes : array of shape (n_classes,)
        All class labels of the problem (sorted).
    decision : array of shape (m,), optional
        The decision values (:func:`decision_values`), when already computed.

    Returns
    -------
    str
        A JSON object: ``pred`` (the index into ``classes`` of each
        prediction), ``decision`` (binary problems: the decision value of
        ``classes[1]``; else absent) and ``probability`` (the estimated
        probability of the predicted class, for a model fitted with
        ``probability=True``; else absent: a second pass over the test rows
        is not spent on it); values to 8 significant digits.
    """
    import json

    classes = np.asarray(classes)
    index = np.searchsorted(classes, np.asarray(pred))
    out = {"pred": index.tolist()}
    if decision is None:
        decision = decision_values(estimator, X_test, classes)
    if decision is not None and np.shape(decision) == index.shape:
        out["decision"] = [float(f"{v:.8g}") for v in decision]
    params = estimator.get_params(deep=False) if hasattr(estimator, "get_params") else {}
    if params.get("probability") is True and hasattr(estimator, "predict_proba"):
        try:
            proba = np.asarray(estimator.predict_proba(X_test), dtype=float)
        except (AttributeError, ValueError, NotImplementedError):
            proba = None
        if proba is not None and proba.shape == (index.size, classes.size):
            out["probability"] = [float(f"{v:.8g}") for v in proba[np.arange(index.size), index]]
    return json.dumps(out, separators=(",", ":"))


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
