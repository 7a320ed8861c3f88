"""krein: learning with indefinite kernels.

Estimators (scikit-learn compatible):

* :class:`ESVC` — SVM in a Krein space by eigendecomposition (ESVM, ESVM-L).
* :class:`SpectrumSVC` — SVM on a clipped/flipped/shifted/... kernel.
* :class:`DirectSVC` — libsvm directly on the indefinite kernel.
* :class:`LPSVC` — 1-norm LP-SVM.
* :class:`IndefiniteSVC`, :class:`IndefiniteSVR`, :class:`IndefiniteOneClassSVM` —
  IndefiniteSVM with a learned proxy kernel (Luss & d'Aspremont 2009).
* :class:`PerturbSVC` — PerturbSVM for PSD kernels (Luss & d'Aspremont 2009, eq. 22).

Tools: :class:`Spectrum` and :class:`SpectrumCorrection` (spectrum corrections),
:mod:`krein.kernels`, :mod:`krein.geometry`, :mod:`krein.formulations` with
:func:`solve`, :mod:`krein.datasets`, and the method registry
(:func:`make_method`, :func:`list_methods`).
"""

from .estimators import (ESVC, LPSVC, DirectSVC, IndefiniteOneClassSVM, IndefiniteSVC,
                         IndefiniteSVR, PerturbSVC, SpectrumSVC)
from .registry import list_methods, make_method, register_method
from .solvers import Solution, SolverError, installed_solvers, solve
from .spectrum import Spectrum, SpectrumCorrection

__version__ = "0.1.0"

__all__ = [
    "ESVC",
    "SpectrumSVC",
    "DirectSVC",
    "LPSVC",
    "IndefiniteSVC",
    "IndefiniteSVR",
    "IndefiniteOneClassSVM",
    "PerturbSVC",
    "Spectrum",
    "SpectrumCorrection",
    "solve",
    "Solution",
    "SolverError",
    "installed_solvers",
    "make_method",
    "list_methods",
    "register_method",
]
