"""The IndefiniteSVM family (Luss & d'Aspremont 2009, "luss"): one algorithm per file.

All algorithms maximize the concave objective (7) of a
:class:`~krein.formulations.indefinite.ProxyKernelProblem` and stop on a certified
duality gap:

* :mod:`~krein.solvers.indefinite.pg` -- projected gradient (luss Algorithm 1);
* :mod:`~krein.solvers.indefinite.apg` -- accelerated projected gradient (FISTA);
* :mod:`~krein.solvers.indefinite.accpm` -- the analytic center cutting plane
  method (Algorithm 2), its centers from :mod:`~krein.solvers.indefinite.analytic_center`;
* :mod:`~krein.solvers.indefinite.exchange` -- the exchange method (Algorithm 3);

each supplies only its step to the one iteration driver
(:mod:`~krein.solvers.indefinite.driver`: gap checks, stopping test, trace,
status, the complete :class:`~krein.solvers.Solution`), with the bounds and the
certified gap of :mod:`~krein.solvers.indefinite.certifier` on the O(n^2) oracle of
:mod:`~krein.solvers.indefinite.oracle`, or, for a low-rank ``K0`` (a
:class:`~krein.representation.SignedFeatures` in the problem: the ``approximation=``
path), on the O(n r) oracle of :mod:`~krein.solvers.indefinite.lowrank` ("pg" and
"apg"; its gap checks are linear SVMs on the factor of the proxy kernel).  :mod:`~krein.solvers.indefinite.perturb`
solves PerturbSVM (luss eq. 22) with a CVXPY solver and certifies the point the
same way.

:data:`krein.solvers.INDEFINITE_SOLVERS` (the ``"proxy-kernel"`` entries of the one
solver table, :mod:`krein.solvers.table`) names them; :func:`krein.solvers.solve_indefinite`
dispatches on it.
"""

from __future__ import annotations


from .accpm import accpm
from .apg import accelerated_gradient
from .certifier import (LIBSVM_SHARE, OUT_OF_SAMPLE_MAPS, Certifier, libsvm_point,
                        out_of_sample_coef, svm_dual_value)
from .exchange import exchange, exchange_bound
from .lowrank import LOW_RANK_SOLVERS, LowRankProxyOracle, linear_svm_bound
from .oracle import ProxyEval, ProxyKernelOracle
from .perturb import perturb_svm_cvxpy
from .pg import STEP_RULES, lipschitz_bound, projected_gradient

__all__ = ["Certifier", "ProxyKernelOracle", "LowRankProxyOracle", "linear_svm_bound",
           "LOW_RANK_SOLVERS", "ProxyEval", "projected_gradient",
           "accelerated_gradient", "accpm", "exchange", "exchange_bound", "perturb_svm_cvxpy",
           "STEP_RULES", "lipschitz_bound", "libsvm_point",
           "svm_dual_value", "out_of_sample_coef", "OUT_OF_SAMPLE_MAPS", "LIBSVM_SHARE"]

