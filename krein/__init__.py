"""krein: learning with indefinite kernels.

Estimators (scikit-learn compatible):

* :class:`ESVC` — SVM in a Krein space by eigendecomposition (ESVM, ESVM-L).
* :class:`SpectrumSVC` — SVM on a clipped/flipped/shifted/... kernel.
* :class:`DirectSVC` — libsvm directly on the indefinite kernel.
* :class:`LPSVC` — 1-norm LP-SVM.
* :class:`IndefiniteSVC`, :class:`IndefiniteSVR`, :class:`IndefiniteOneClassSVM` —
  IndefiniteSVM with a learned proxy kernel (Luss & d'Aspremont 2009).
* :class:`PerturbSVC` — PerturbSVM for PSD kernels (Luss & d'Aspremont 2009, eq. 22).
* :class:`KSVC` — KSVM, the Krein-space SVM by an active-set method (Loosli et al. 2013, Alg. 2).
* :class:`ConvexHullClassifier` — Haasdonk's convex-hull classifier (CH-DU) in
  pseudo-Euclidean space, convex (CVXPY) or local (nu-SVM, multi-start) solvers.
* :class:`ModSVC` — Lin & Lin's convexified SVM (Luss & d'Aspremont 2009, §5.1).
* :class:`RVC` — Tipping's relevance vector classifier (fast marginal-likelihood updates).
* :class:`CorrectedKernelSVC` — libsvm after any kernel-correction transformer:
  :class:`Bending`, :class:`NearestPSD`, :class:`ConformalTransformation`,
  :class:`ConformalLinearCombination` (Munoz & de Diego 2006), :class:`SpectrumCorrection`.

Tools: :class:`Spectrum` and :class:`SpectrumCorrection` (spectrum corrections),
:mod:`krein.kernels`, :mod:`krein.geometry`, :mod:`krein.formulations` with
:func:`solve`, :mod:`krein.datasets`, and the method registry
(:func:`make_method`, :func:`list_methods`).
"""

from .estimators import (ESVC, KSVC, LPSVC, RVC, Bending, ConformalLinearCombination,
                         ConformalTransformation, ConvexHullClassifier, CorrectedKernelSVC,
                         DirectSVC, IndefiniteOneClassSVM, IndefiniteSVC, IndefiniteSVR, ModSVC,
                         NearestPSD, PerturbSVC, SpectrumSVC)
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
    "KSVC",
    "ConvexHullClassifier",
    "ModSVC",
    "RVC",
    "CorrectedKernelSVC",
    "Bending",
    "ConformalTransformation",
    "ConformalLinearCombination",
    "NearestPSD",
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
