"""CVXPY formulations: WHAT is optimized (one module per model).

A formulation builds its ``cvxpy.Problem`` once (DPP where possible) and never
calls a solver; :func:`krein.solvers.solve` does that.
"""

from .base import Formulation
from .indefinite import (AnalyticCenter, ExchangeLevelProjection, ExchangeQCLP, IndefiniteSVMSDP,
                         PerturbSVM, ProxyKernelProblem, ProxyKernelProjection, proxy_kernel)
from .clc import ConformalLinearCombinationQP, clc_closed_form
from .hull import ConvexHullDual, hull_convexity, hull_to_svm, svm_to_hull
from .ksvm import KSVMLeastSquares, KSVMLeastSquaresFactor
from .lpsvm import LPSVM
from .modsvm import ModSVM
from .nearest_psd import NearestPSDSDP, nearest_psd_certificate
from .svm import SVMDual, SVMPrimal, optimal_intercept, preferred_form, psd_factor

__all__ = ["Formulation", "SVMDual", "SVMPrimal", "LPSVM", "optimal_intercept",
           "preferred_form", "psd_factor", "ProxyKernelProblem", "proxy_kernel",
           "ProxyKernelProjection", "IndefiniteSVMSDP", "ExchangeQCLP",
           "ExchangeLevelProjection", "AnalyticCenter", "PerturbSVM", "KSVMLeastSquares",
           "KSVMLeastSquaresFactor", "ConvexHullDual", "hull_convexity", "svm_to_hull",
           "hull_to_svm", "ModSVM",
           "ConformalLinearCombinationQP", "clc_closed_form", "NearestPSDSDP",
           "nearest_psd_certificate"]
