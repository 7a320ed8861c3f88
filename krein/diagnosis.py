"""Diagnosis of a kernel on a data set: what ``krein diagnose`` prints, as data.

One eigendecomposition of the kernel (:class:`krein.spectrum.Spectrum`, reused
from the data's cache) gives the signature ``(p, q, z)``, the least and largest
eigenvalues and the two deviations from a Euclidean kernel of Muñoz & de Diego
(2006, eq. 2)::

    r_mm  = 100 |lambda_min| / lambda_max
    r_neg = 100 sum |lambda_neg| / sum |lambda|

For two classes the squared pseudo-Euclidean distance of the class means
(``DCM = c'Kc``, Haasdonk 2005 §7.3, :func:`krein.geometry.class_mean_distance`)
follows, then Haasdonk's suitability criteria before training (§7.3) and after
training a libsvm SVC on the kernel (§7.4, Prop. 2), as
:func:`krein.geometry.suitability_report` tabulates them.

References
----------
B. Haasdonk, "Feature space interpretation of SVMs with indefinite kernels",
IEEE TPAMI 27(4), 2005.  A. Muñoz and I. Martín de Diego, "From indefinite to
positive semi-definite matrices", SSPR/SPR 2006.

Example::

    from krein.compare import load_comparison_data
    from krein.diagnosis import diagnose

    d = diagnose(load_comparison_data("sonar"), C=1.0)
    d.signature, d.r_mm, d.dcm
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

__all__ = ["KernelDiagnosis", "diagnose_kernel", "diagnose", "write_spectrum_plot",
           "DistanceAsKernelWarning", "kernel_suitability", "SUITABILITY_MAX_N"]

#: Largest kernel for which :func:`kernel_suitability` runs Haasdonk's criteria before
#: training (two more eigendecompositions of an ``n x n`` matrix); above it only the
#: look of the matrix (zero diagonal, non-negative) is checked.
SUITABILITY_MAX_N = 2000


class DistanceAsKernelWarning(UserWarning):
    """A matrix given as a kernel looks like a distance matrix (or is unsuitable as a kernel).

    Issued once per run by :func:`krein.compare.run_comparison` when
    :func:`kernel_suitability` finds the matrix distance-like; its message
    names ``--dissimilarity`` (``dissimilarity=True``).
    """


@dataclass(frozen=True)
class KernelDiagnosis:
    """Spectrum, class-mean distance and Haasdonk's criteria of one kernel on its labels.

    Parameters
    ----------
    spectrum : krein.spectrum.Spectrum
        The eigendecomposition of the kernel the numbers below are read from.
    n : int
        Number of objects.
    signature : tuple of int
        ``(p, q, z)``: positive, negative and zero eigenvalues.
    tol : float
        Eigenvalues with ``|lambda| <= tol`` count as zero
        (``n * eps * max|lambda|``).
    min_eigenvalue : float
        Least eigenvalue.
    max_eigenvalue : float
        Largest eigenvalue.
    next_eigenvalues : tuple of float
        The second to fourth least eigenvalues (fewer for a tiny kernel).
    r_mm : float
        ``100 |lambda_min| / lambda_max`` in % (Muñoz & de Diego eq. 2).
    r_neg : float
        ``100 sum|lambda_neg| / sum|lambda|`` in % (Muñoz & de Diego eq. 2).
    n_classes : int
        Number of distinct labels.
    dcm : float or None
        ``c'Kc``, the squared pseudo-Euclidean distance of the two class means
        (Haasdonk §7.3); None unless there are exactly two classes.
    C : float
        Box bound of the SVC fitted for the after-training criteria.
    suitability : list of (str, list of dict)
        Haasdonk's criteria as :func:`krein.geometry.suitability_report`
        returns them: sections ``(title, rows)``, each row with the keys
        ``criterion``, ``value`` (text) and ``meaning``.
    """

    spectrum: object
    n: int
    signature: tuple
    tol: float
    min_eigenvalue: float
    max_eigenvalue: float
    next_eigenvalues: tuple
    r_mm: float
    r_neg: float
    n_classes: int
    dcm: float | None
    C: float
    suitability: list


def diagnose_kernel(K, y, C=1.0, spectrum=None):
    """Diagnose a kernel matrix on its labels (Haasdonk 2005; Muñoz & de Diego 2006).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric, possibly indefinite, kernel matrix.
    y : array-like of shape (n,)
        Labels; the class-mean distance and the after-training criteria need
        exactly two classes.
    C : float, default=1.0
        Box bound (> 0) of the libsvm SVC fitted on ``K`` for Haasdonk's
        after-training criteria (§7.4).
    spectrum : krein.spectrum.Spectrum, optional
        The eigendecomposition of ``K`` when already computed (e.g.
        ``KernelData.spectrum()``); default: computed here.

    Returns
    -------
    KernelDiagnosis
        Signature, extreme eigenvalues, ``r_mm``, ``r_neg``, the DCM and the
        suitability criteria.

    Raises
    ------
    ValueError
        If ``C`` is not a positive finite number.
    """
    from .geometry import class_mean_distance, suitability_report
    from .spectrum import Spectrum

    if not (np.isfinite(C) and C > 0):
        raise ValueError(f"C must be a positive finite number; got {C!r}")
    spec = Spectrum.from_kernel(K) if spectrum is None else spectrum
    s = spec.summary()
    lam = spec.eigenvalues
    n_classes = int(np.unique(y).size)
    dcm = float(class_mean_distance(K, y)) if n_classes == 2 else None
    return KernelDiagnosis(
        spectrum=spec, n=s["n"], signature=(s["p"], s["q"], s["z"]), tol=s["tol"],
        min_eigenvalue=s["min_eigenvalue"], max_eigenvalue=s["max_eigenvalue"],
        next_eigenvalues=tuple(float(v) for v in lam[1:4]), r_mm=s["r_mm"], r_neg=s["r_neg"],
        n_classes=n_classes, dcm=dcm, C=C,
        suitability=suitability_report(K, y, C, svm=_after_training_svm(K, y, C)))


def _after_training_svm(K, y, C):
    """libsvm's SVC on ``K`` for Haasdonk's after-training criteria (two classes), else None."""
    from .solvers.libsvm import libsvm_svc

    classes, y_idx = np.unique(y, return_inverse=True)
    return libsvm_svc(K, y_idx, C) if classes.size == 2 else None


def diagnose(data, C=1.0):
    """Diagnose the kernel of a data set (``krein diagnose``).

    Parameters
    ----------
    data : krein.kernel_data.KernelData
        The data and kernel (e.g. :func:`krein.compare.load_comparison_data`);
        its cached eigendecomposition ``data.spectrum()`` is reused.
    C : float, default=1.0
        Box bound of the SVC fitted for Haasdonk's after-training criteria.

    Returns
    -------
    KernelDiagnosis
        :func:`diagnose_kernel` of ``data.K`` and ``data.y``.
    """
    return diagnose_kernel(data.K, data.y, C, spectrum=data.spectrum())


def kernel_suitability(K, y):
    """Whether a matrix given as a kernel looks like a distance matrix, and Haasdonk's verdict.

    A matrix is *distance-like* when its diagonal is negligible
    (:func:`krein.kernels.kernel_scale_measure`: mean ``|K_ii|`` below
    :data:`krein.kernels.NEGLIGIBLE_DIAGONAL` of the mean ``|K_ij|``) and
    no entry is negative, or when Haasdonk's criteria before training
    (:func:`krein.geometry.suitability_before`, 2005 §7.3: ``-K`` conditionally
    positive definite, or the class means at a squared pE distance ``<= 0``)
    call it unsuitable.  The criteria need two eigendecompositions and run
    for ``n <= SUITABILITY_MAX_N`` only.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The matrix given as a kernel.
    y : array-like of shape (n,)
        Labels; the class-mean distance is used for two classes only.

    Returns
    -------
    dict
        JSON-ready: ``zero_diagonal`` (bool), ``non_negative`` (bool),
        ``verdict`` ("unsuitable", "not ruled out" or "not computed (n > N)"),
        ``negated_cpd`` (bool or None), ``dcm`` (float or None),
        ``negative_share`` (float or None, of ``J K J``), ``distance_like``
        (bool) and ``reason`` (one line, ``""`` when not distance-like).
    """
    from .geometry import suitability_before
    from .kernels import kernel_scale_measure

    K = np.asarray(K, dtype=float)
    zero_diagonal = kernel_scale_measure(K)[1] == "mean |K_ij|"
    non_negative = bool(np.all(K >= 0))
    out = {"zero_diagonal": bool(zero_diagonal), "non_negative": non_negative,
           "verdict": f"not computed (n > {SUITABILITY_MAX_N})", "negated_cpd": None,
           "dcm": None, "negative_share": None}
    if K.shape[0] <= SUITABILITY_MAX_N:
        labels = np.unique(y)
        b = suitability_before(K, np.asarray(y) if labels.size == 2 else None)
        out.update(verdict="unsuitable" if b["unsuitable"] else "not ruled out",
                   negated_cpd=bool(b["negated_cpd"]), negative_share=float(b["negative_share"]),
                   dcm=None if b.get("dcm") is None else float(b["dcm"]))
    reasons = []
    if zero_diagonal and non_negative:
        reasons.append("zero diagonal and no negative entry")
    if out["negated_cpd"]:
        reasons.append("-K conditionally positive definite")
    if out["dcm"] is not None and out["dcm"] <= 0:
        reasons.append(f"class means at squared pE distance {out['dcm']:.3g} <= 0")
    out["distance_like"] = bool(reasons)
    out["reason"] = "; ".join(reasons)
    return out


def write_spectrum_plot(data, path):
    """Draw the spectrum of a data set's kernel to a PNG file (``krein diagnose --plot``).

    Parameters
    ----------
    data : krein.kernel_data.KernelData
        The data and kernel.
    path : str or path-like
        The PNG file; its directory is created when missing.

    Returns
    -------
    str
        ``path``, written atomically (:func:`krein._io.save_png`).
    """
    import pandas as pd

    from ._io import save_png
    from .experiment.comparison_result import kernel_record
    from .experiment.page import SavedComparison, spectrum_figure

    path = os.fspath(path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    eigenvalues = np.asarray(data.spectrum().eigenvalues, dtype=float)
    figure = spectrum_figure(SavedComparison("", kernel_record(data), pd.DataFrame(),
                                             pd.DataFrame(), eigenvalues))
    save_png(figure, path, dpi=120, colors=None)
    return path
