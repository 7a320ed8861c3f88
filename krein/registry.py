"""Registry of methods by name: ``make_method(name, **params)`` and ``list_methods()``.

Each entry builds a fresh scikit-learn estimator.  Later modules add entries with
:func:`register_method`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["make_method", "list_methods", "register_method", "default_grid",
           "method_requirements", "TASKS", "C_GRID", "RHO_GRID", "MU_GRID", "REQUIREMENTS"]


#: Kinds of estimator in the registry.
TASKS = ("classifier", "regressor", "outlier")

#: Default inner-CV grid of ``C`` (box bound / slack weight) of every method that has one:
#: three decades around libsvm's default ``C = 1`` (``krein compare`` tunes over it).
C_GRID = (0.1, 1.0, 10.0)

#: Default inner-CV grid of ``rho`` (IndefiniteSVM's penalty on ``||K - K0||_F^2``,
#: Luss & d'Aspremont 2009 eq. 3), crossed with :data:`C_GRID`.
RHO_GRID = (0.1, 1.0, 10.0)

#: Default inner-CV grid of ``mu`` (reduction bound of the class hulls, Haasdonk 2005
#: Prop. 7; ``mu >= 1``: the whole hulls).  A value below ``1 / (size of the smaller
#: class)`` of an inner training split cannot be fitted and drops out of the selection.
MU_GRID = (0.03, 0.1, 0.3, 1.0)

#: Inputs a method may need besides the kernel matrix, and what provides them.
REQUIREMENTS = {
    "base_kernels": "needs base kernels besides K (a pick-out kernel: --kernel "
                    "pick-out-linear, pick-out-gaussian or pick-out-munoz-ionosphere on "
                    "feature vectors)",
}


@dataclass(frozen=True)
class _Entry:
    factory: Callable
    description: str
    task: str = "classifier"
    compare: bool = True
    grid: tuple | None = None
    requires: tuple = ()


_REGISTRY: dict[str, _Entry] = {}


def register_method(name, factory, description, task="classifier", compare=True, grid=None,
                    requires=()):
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
    grid : dict, optional
        The method's default inner-CV grid, ``{parameter: list of values}``
        (estimator parameters): what ``krein compare`` tunes unless told
        otherwise (:func:`default_grid`).  None: ``{"C": C_GRID}`` when the
        estimator has a ``C``, else ``{}`` (nothing to tune).
    requires : tuple of str
        Inputs the method needs besides the kernel matrix, keys of
        :data:`REQUIREMENTS` (``"base_kernels"``: stacked base kernels);
        ``krein compare`` lists the method as skipped, with the reason, on data
        that do not provide them.

    Raises
    ------
    ValueError
        If the name is taken, the task or a requirement unknown, or the grid
        not a dict of non-empty lists.
    """
    if name in _REGISTRY:
        raise ValueError(f"method {name!r} is already registered")
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}; got {task!r}")
    bad = [r for r in requires if r not in REQUIREMENTS]
    if bad:
        raise ValueError(f"requires: unknown requirement(s) {bad}; accepted: {list(REQUIREMENTS)}")
    if grid is not None:
        if not isinstance(grid, dict) or not all(
                isinstance(v, (list, tuple)) and len(v) > 0 for v in grid.values()):
            raise ValueError(f"grid must be a dict of non-empty lists of values; got {grid!r}")
        grid = tuple((k, tuple(v)) for k, v in grid.items())
    _REGISTRY[name] = _Entry(factory, description, task, bool(compare), grid,
                             tuple(requires))


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


def _entry(name):
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown method {name!r}; registered methods: {list(_REGISTRY)}") from None


def default_grid(name):
    """The default inner-CV grid of a registered method (what ``krein compare`` tunes).

    Parameters
    ----------
    name : str
        A name from :func:`list_methods`.

    Returns
    -------
    dict
        ``{parameter: list of values}``: the grid given to
        :func:`register_method`, else ``{"C": list(C_GRID)}`` for an estimator
        with a ``C`` parameter, else ``{}`` (nothing to tune, e.g. the RVM).
        A fresh dict: changing it changes nothing in the registry.

    Raises
    ------
    ValueError
        For an unknown name.
    """
    entry = _entry(name)
    if entry.grid is not None:
        return {k: list(v) for k, v in entry.grid}
    if "C" in entry.factory().get_params(deep=False):
        return {"C": list(C_GRID)}
    return {}


def method_requirements(name):
    """Inputs a registered method needs besides the kernel matrix.

    Parameters
    ----------
    name : str
        A name from :func:`list_methods`.

    Returns
    -------
    tuple of str
        Keys of :data:`REQUIREMENTS` (empty for most methods).

    Raises
    ------
    ValueError
        For an unknown name.
    """
    return _entry(name).requires


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
    est = _entry(name).factory()
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
    register_method("flip", lambda: SpectrumSVC(correction="flip", out_of_sample="raw"),
                    "SVM on the flipped kernel V|lambda|V' ('Abs'), raw test kernel as Loosli Table 2")
    register_method("clip", lambda: SpectrumSVC(correction="clip", out_of_sample="raw"),
                    "SVM on the clipped kernel ('Trunc'/'denoise'), raw test kernel as Loosli Table 2")
    register_method("shift", lambda: SpectrumSVC(correction="shift", out_of_sample="raw"),
                    "SVM on the shifted kernel K - lambda_min I ('Shift'), raw test kernel")
    register_method("clip-mds", lambda: SpectrumSVC(correction="clip", out_of_sample="spectral"),
                    "SVM on the clipped kernel, test rows by Munoz & de Diego eq. (3)")
    register_method("square", lambda: SpectrumSVC(correction="square", out_of_sample="spectral"),
                    "SVM on K^2, test rows k(x,X) K (Munoz & de Diego eq. 7)")
    register_method("lp-svm", LPSVC, "1-norm LP-SVM on the raw kernel (Mangasarian 1999), CVXPY")
    from .estimators.indefinite import (IndefiniteOneClassSVM, IndefiniteSVC, IndefiniteSVR,
                                        PerturbSVC)

    register_method("indefinite-svm", IndefiniteSVC,
                    "IndefiniteSVM: SVM with a learned PSD proxy kernel, projected gradient "
                    "(Luss & d'Aspremont 2009, eq. 7)",
                    grid={"C": list(C_GRID), "rho": list(RHO_GRID)})
    register_method("perturb-svm", PerturbSVC,
                    "PerturbSVM: SVM with perturbed support vectors, PSD kernels only "
                    "(Luss & d'Aspremont 2009, eq. 22)", compare=False,
                    grid={"C": list(C_GRID), "rho": list(RHO_GRID)})
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
                    "CVXPY when convex, else multi-start projected gradient (Haasdonk 2005)",
                    grid={"mu": list(MU_GRID)})
    register_method("mod-svm", ModSVC, "Mod SVM: kernel only in the separation constraints, "
                    "identity regularizer (Lin & Lin 2003; Luss & d'Aspremont 2009 §5.1), CVXPY")
    register_method("rvm", RVC, "RVM: relevance vector classifier, Laplace approximation and "
                    "fast marginal-likelihood updates (Tipping 2001; Tipping & Faul 2003)")
    from .estimators import (Bending, ConformalLinearCombination, ConformalTransformation,
                             CorrectedKernelSVC, NearestPSD)

    register_method("bending", lambda: CorrectedKernelSVC(correction=Bending(weights="support-vectors")),
                    "SVM on the bent kernel, weights from the support vectors of an MDS fit, "
                    "test rows by eq. (8) (Munoz & de Diego 2006, Alg. 1)")
    register_method("nearest-psd",
                    lambda: CorrectedKernelSVC(correction=NearestPSD(diagonal=1.0, weights="support-vectors")),
                    "SVM on the nearest PSD matrix with unit diagonal (as Munoz & de Diego's AP on "
                    "Ionosphere), weights from the support vectors of an MDS fit, solved by the "
                    "semismooth Newton method of Qi & Sun 2006 (the problem of Munoz & de Diego "
                    "2006, eqs. 9-12; Higham 2002)")
    register_method("conformal", lambda: CorrectedKernelSVC(correction=ConformalTransformation()),
                    "SVM on the conformal transformation W A W of the flipped kernel closest to K, "
                    "test rows by eq. (14) (Munoz & de Diego 2006, eqs. 13-14)")
    register_method("clc", lambda: CorrectedKernelSVC(correction=ConformalLinearCombination()),
                    "SVM on the convex combination of base kernels closest to K (CLC, Munoz & "
                    "de Diego 2006, eqs. 15-16); needs stacked base kernels (pick-out data sets)",
                    requires=("base_kernels",))
    register_method("akm",
                    lambda: CorrectedKernelSVC(correction=ConformalLinearCombination(combination="average")),
                    "SVM on the average of the base kernels (AKM baseline of Munoz & de Diego "
                    "2006); needs stacked base kernels (pick-out data sets)",
                    requires=("base_kernels",))


_register_builtin()
