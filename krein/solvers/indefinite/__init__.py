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
:mod:`~krein.solvers.indefinite.oracle`.  :mod:`~krein.solvers.indefinite.perturb`
solves PerturbSVM (luss eq. 22) with a CVXPY solver and certifies the point the
same way.

:data:`INDEFINITE_SOLVERS` is the table of the algorithms by name
(:func:`solve_indefinite` and the estimators dispatch on it).
"""

from __future__ import annotations

import inspect

from .accpm import accpm
from .apg import accelerated_gradient
from .certifier import (LIBSVM_SHARE, OUT_OF_SAMPLE_MAPS, Certifier, libsvm_point,
                        out_of_sample_coef, svm_dual_value)
from .exchange import exchange, exchange_bound
from .oracle import ProxyEval, ProxyKernelOracle
from .perturb import perturb_svm_cvxpy
from .pg import STEP_RULES, lipschitz_bound, projected_gradient

__all__ = ["Certifier", "ProxyKernelOracle", "ProxyEval", "projected_gradient",
           "accelerated_gradient", "accpm", "exchange", "exchange_bound", "perturb_svm_cvxpy",
           "solve_indefinite", "indefinite_options", "INDEFINITE_SOLVERS",
           "INDEFINITE_ALGORITHMS", "STEP_RULES", "lipschitz_bound", "libsvm_point",
           "svm_dual_value", "out_of_sample_coef", "OUT_OF_SAMPLE_MAPS", "LIBSVM_SHARE"]

#: The algorithms for the IndefiniteSVM problem (luss Algorithms 1-3 and FISTA), by name:
#: the one table that :func:`solve_indefinite` and the estimators of
#: :mod:`krein.estimators.indefinite` validate and dispatch on.
INDEFINITE_SOLVERS = {"pg": projected_gradient, "apg": accelerated_gradient, "accpm": accpm,
                      "exchange": exchange}

#: Names of :data:`INDEFINITE_SOLVERS`, in order.
INDEFINITE_ALGORITHMS = tuple(INDEFINITE_SOLVERS)


def indefinite_options(algorithm):
    """Keyword options accepted by an IndefiniteSVM algorithm (its signature, less ``problem``).

    Parameters
    ----------
    algorithm : {"pg", "apg", "accpm", "exchange"}
        A key of :data:`INDEFINITE_SOLVERS`.

    Returns
    -------
    list of str
        The names of the keyword options, in signature order.

    Raises
    ------
    ValueError
        For an unknown algorithm.
    """
    if algorithm not in INDEFINITE_SOLVERS:
        raise ValueError(f"algorithm must be one of {INDEFINITE_ALGORITHMS}; got {algorithm!r}")
    return [k for k in inspect.signature(INDEFINITE_SOLVERS[algorithm]).parameters if k != "problem"]


def solve_indefinite(problem, algorithm="pg", **options):
    """Solve a :class:`~krein.formulations.indefinite.ProxyKernelProblem` by name.

    Parameters
    ----------
    problem : ProxyKernelProblem
        The IndefiniteSVM problem (luss eq. 7): kernel ``K0``, labels, model,
        ``C`` and ``rho``.
    algorithm : {"pg", "apg", "accpm", "exchange"}
        A key of :data:`INDEFINITE_SOLVERS`: projected gradient (luss Algorithm 1),
        accelerated projected gradient (FISTA), ACCPM (Algorithm 2) or the
        exchange method (Algorithm 3).
    **options
        Passed to the algorithm (``tol``, ``atol``, ``max_iter``, ``gap_every``,
        ``oracle``, ``out_of_sample``, ...).

    Returns
    -------
    Solution
        Complete: status ``"optimal"`` or ``"max_iter"``, the certified gap
        (``certificate_kind = "relative_gap"``), the intercept (and, given
        ``out_of_sample``, the test coefficients) of the decision function at the
        returned point.

    Raises
    ------
    ValueError
        For an unknown algorithm or option.
    """
    accepted = indefinite_options(algorithm)
    bad = sorted(set(options) - set(accepted))
    if bad:
        raise ValueError(f"unknown option(s) {bad} for algorithm {algorithm!r}; accepted: {accepted}")
    return INDEFINITE_SOLVERS[algorithm](problem, **options)
