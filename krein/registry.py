"""Registry of methods by name: ``make_method(name, **params)`` and ``list_methods()``.

Each entry builds a fresh scikit-learn estimator.  Later modules add entries with
:func:`register_method`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["make_method", "list_methods", "register_method"]


@dataclass(frozen=True)
class _Entry:
    factory: Callable
    description: str


_REGISTRY: dict[str, _Entry] = {}


def register_method(name, factory, description):
    """Add a method to the registry.

    Parameters
    ----------
    name : str
        Registry name (lower case, e.g. "esvm").
    factory : callable
        ``factory() -> estimator`` with default parameters.
    description : str
        One line shown by ``krein.list_methods()`` and ``krein compare --help``.

    Raises
    ------
    ValueError
        If the name is taken.
    """
    if name in _REGISTRY:
        raise ValueError(f"method {name!r} is already registered")
    _REGISTRY[name] = _Entry(factory, description)


def list_methods():
    """Registered methods: ``{name: description}`` in registration order."""
    return {k: v.description for k, v in _REGISTRY.items()}


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


_register_builtin()
