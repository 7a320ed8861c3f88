"""CVXPY formulations: WHAT is optimized (one module per model).

A formulation builds its ``cvxpy.Problem`` once (DPP where possible) and never
calls a solver; :func:`krein.solvers.solve` does that.  The problems of krein's own
solvers are data (:mod:`krein.formulations.problems`, and
:class:`~krein.formulations.indefinite.ProxyKernelProblem`);
:func:`krein.solvers.solve_problem` dispatches any of them to a solver by name.
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
from .problems import (CLCProblem, DCProblem, HullProblem, KernelCorrectionProblem,
                       KSVMFactorProblem, KSVMProblem, LinearSVMProblem, NearestPSDProblem, SparseBayesProblem, SVMDualProblem,
                       SVRDualProblem)
from .svm import SVMDual, SVMPrimal, optimal_intercept, preferred_form, psd_factor

__all__ = ["Formulation", "SVMDual", "SVMPrimal", "LPSVM", "optimal_intercept",
           "preferred_form", "psd_factor", "ProxyKernelProblem", "proxy_kernel",
           "ProxyKernelProjection", "IndefiniteSVMSDP", "ExchangeQCLP",
           "ExchangeLevelProjection", "AnalyticCenter", "PerturbSVM", "KSVMLeastSquares",
           "KSVMLeastSquaresFactor", "ConvexHullDual", "hull_convexity", "svm_to_hull",
           "hull_to_svm", "ModSVM",
           "ConformalLinearCombinationQP", "clc_closed_form", "NearestPSDSDP",
           "nearest_psd_certificate", "SVMDualProblem", "SVRDualProblem", "LinearSVMProblem",
           "KSVMProblem", "KSVMFactorProblem", "HullProblem", "SparseBayesProblem",
           "KernelCorrectionProblem", "NearestPSDProblem", "CLCProblem", "DCProblem"]
