"""Registry of methods by name: ``make_method(name, **params)`` and ``list_methods()``.

Each entry builds a fresh scikit-learn estimator.  Later modules add entries with
:func:`register_method`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["make_method", "list_methods", "register_method", "TASKS"]


#: Kinds of estimator in the registry.
TASKS = ("classifier", "regressor", "outlier")


@dataclass(frozen=True)
class _Entry:
    factory: Callable
    description: str
    task: str = "classifier"
    compare: bool = True


_REGISTRY: dict[str, _Entry] = {}


def register_method(name, factory, description, task="classifier", compare=True):
    """Add a method to the registry.

    Parameters
    ----------
    name : str
        Registry name (lower case, e.g. "esvm").
    factory : callable
        ``factory() -> estimator`` with default parameters.
    description : str
        One line shown by ``krein.list_methods()`` and ``krein compare --help``.
    task : {"classifier", "regressor", "outlier"}
        Kind of estimator.
    compare : bool
        Whether ``krein compare`` runs it by default (classifiers that accept any
        symmetric kernel; e.g. PerturbSVM needs a PSD kernel and is left out).

    Raises
    ------
    ValueError
        If the name is taken or the task unknown.
    """
    if name in _REGISTRY:
        raise ValueError(f"method {name!r} is already registered")
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}; got {task!r}")
    _REGISTRY[name] = _Entry(factory, description, task, bool(compare))


def list_methods(task=None, compare=None):
    """Registered methods: ``{name: description}`` in registration order.

    Parameters
    ----------
    task : {"classifier", "regressor", "outlier"}, optional
        Only methods of this kind.
    compare : bool, optional
        Only methods that ``krein compare`` runs by default (True) or not (False).

    Returns
    -------
    dict[str, str]
        Registry name -> one-line description, in registration order, of the
        methods that pass both filters (all methods when both are None).

    Raises
    ------
    ValueError
        If ``task`` is not None and not one of :data:`TASKS`.
    """
    if task is not None and task not in TASKS:
        raise ValueError(f"task must be one of {TASKS} or None; got {task!r}")
    return {k: v.description for k, v in _REGISTRY.items()
            if (task is None or v.task == task) and (compare is None or v.compare == compare)}


def make_method(name, **params):
    """Build the estimator registered as ``name`` with parameters set.

    Parameters
    ----------
    name : str
        A name from :func:`list_methods`.
    **params
        Estimator parameters (``C``, ``kernel``, ``kernel_params``, ``solver``...).

    Returns
    -------
    estimator
        An unfitted scikit-learn estimator.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the registered ones) or a
        parameter the estimator does not have.
    """
    try:
        entry = _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown method {name!r}; registered methods: {list(_REGISTRY)}") from None
    est = entry.factory()
    if params:
        est.set_params(**params)
    return est


def _register_builtin():
    from .estimators import ESVC, DirectSVC, LPSVC, SpectrumSVC

    register_method("esvm", ESVC, "ESVM: SVM stabilized in a Krein space, full eigendecomposition "
                    "(Loosli et al. 2013, Alg. 1)")
    register_method("esvm-l", lambda: ESVC(energy=0.9),
                    "ESVM-L: ESVM on the eigenpairs carrying 90% of sum|lambda| (Loosli et al. 2013)")
    register_method("svm", DirectSVC, "libsvm C-SVM directly on the indefinite kernel "
                    "(stationary point; Lin & Lin 2003)")
    register_method("flip", lambda: SpectrumSVC("flip", out_of_sample="raw"),
                    "SVM on the flipped kernel V|lambda|V' ('Abs'), raw test kernel as Loosli Table 2")
    register_method("clip", lambda: SpectrumSVC("clip", out_of_sample="raw"),
                    "SVM on the clipped kernel ('Trunc'/'denoise'), raw test kernel as Loosli Table 2")
    register_method("shift", lambda: SpectrumSVC("shift", out_of_sample="raw"),
                    "SVM on the shifted kernel K - lambda_min I ('Shift'), raw test kernel")
    register_method("clip-mds", lambda: SpectrumSVC("clip", out_of_sample="spectral"),
                    "SVM on the clipped kernel, test rows by Munoz & de Diego eq. (3)")
    register_method("square", lambda: SpectrumSVC("square", out_of_sample="spectral"),
                    "SVM on K^2, test rows k(x,X) K (Munoz & de Diego eq. 7)")
    register_method("lp-svm", LPSVC, "1-norm LP-SVM on the raw kernel (Mangasarian 1999), CVXPY")
    from .estimators.indefinite import (IndefiniteOneClassSVM, IndefiniteSVC, IndefiniteSVR,
                                        PerturbSVC)

    register_method("indefinite-svm", IndefiniteSVC,
                    "IndefiniteSVM: SVM with a learned PSD proxy kernel, projected gradient "
                    "(Luss & d'Aspremont 2009, eq. 7)")
    register_method("perturb-svm", PerturbSVC,
                    "PerturbSVM: SVM with perturbed support vectors, PSD kernels only "
                    "(Luss & d'Aspremont 2009, eq. 22)", compare=False)
    register_method("indefinite-svr", IndefiniteSVR,
                    "Indefinite SVR with a learned proxy kernel (Luss & d'Aspremont 2009, eq. 17)",
                    task="regressor", compare=False)
    register_method("indefinite-one-class", IndefiniteOneClassSVM,
                    "Indefinite one-class SVM with a learned proxy kernel "
                    "(Luss & d'Aspremont 2009, eq. 20)", task="outlier", compare=False)
    from .estimators import KSVC, RVC, ConvexHullClassifier, ModSVC

    register_method("ksvm", KSVC, "KSVM: Krein-space SVM, active set on the least-squares "
                    "stabilization problem (Loosli et al. 2013, Alg. 2, eq. 26)")
    register_method("ch", ConvexHullClassifier,
                    "CH-DU: closest points of the reduced class hulls in pseudo-Euclidean space; "
                    "CVXPY when convex, else multi-start projected gradient (Haasdonk 2005)")
    register_method("mod-svm", ModSVC, "Mod SVM: kernel only in the separation constraints, "
                    "identity regularizer (Lin & Lin 2003; Luss & d'Aspremont 2009 §5.1), CVXPY")
    register_method("rvm", RVC, "RVM: relevance vector classifier, Laplace approximation and "
                    "fast marginal-likelihood updates (Tipping 2001; Tipping & Faul 2003)")
    from .estimators import (Bending, ConformalLinearCombination, ConformalTransformation,
                             CorrectedKernelSVC, NearestPSD)

    register_method("bending", lambda: CorrectedKernelSVC(Bending(weights="support-vectors")),
                    "SVM on the bent kernel, weights from the support vectors of an MDS fit, "
                    "test rows by eq. (8) (Munoz & de Diego 2006, Alg. 1)")
    register_method("nearest-psd",
                    lambda: CorrectedKernelSVC(NearestPSD(diagonal=1.0, weights="support-vectors")),
                    "SVM on the nearest PSD matrix with unit diagonal (as Munoz & de Diego's AP on "
                    "Ionosphere), weights from the support vectors of an MDS fit, Dykstra's "
                    "alternating projections (Munoz & de Diego 2006, eqs. 9-12; Higham 2002)")
    register_method("conformal", lambda: CorrectedKernelSVC(ConformalTransformation()),
                    "SVM on the conformal transformation W A W of the flipped kernel closest to K, "
                    "test rows by eq. (14) (Munoz & de Diego 2006, eqs. 13-14)")
    register_method("clc", lambda: CorrectedKernelSVC(ConformalLinearCombination()),
                    "SVM on the convex combination of base kernels closest to K (CLC, Munoz & "
                    "de Diego 2006, eqs. 15-16); needs stacked base kernels (pick-out data sets)",
                    compare=False)
    register_method("akm",
                    lambda: CorrectedKernelSVC(ConformalLinearCombination(combination="average")),
                    "SVM on the average of the base kernels (AKM baseline of Munoz & de Diego "
                    "2006); needs stacked base kernels (pick-out data sets)", compare=False)


_register_builtin()
