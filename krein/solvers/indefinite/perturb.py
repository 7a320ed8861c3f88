"""PerturbSVM (luss §4.3, eq. 22) by a CVXPY solver, certified as the IndefiniteSVM loops.

For a PSD ``K0`` the proxy kernel is the rank-one update ``K0 + u u'/(4 rho)`` and
problem (4) is the convex eq. (22) (:class:`~krein.formulations.PerturbSVM`).
:func:`perturb_svm_cvxpy` solves it with any installed CVXPY solver and returns the
complete :class:`~krein.solvers.Solution` of the IndefiniteSVM loops at the
returned point: the point projected onto the feasible set, its certified gap (the
Frank-Wolfe bound of :class:`~.certifier.Certifier`), the intercept and the raw
test coefficients (luss §4.3: "only the support vectors are perturbed").
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ...formulations.base import kernel_unit
from ...formulations.indefinite import PerturbSVM, ProxyKernelProblem
from ...projections import project_box_hyperplane
from ..core import solve
from .certifier import STATUS_OPTIMAL, Certifier

__all__ = ["perturb_svm_cvxpy", "STATUS_INACCURATE"]

#: Status of a CVXPY point whose certified gap misses the tolerance.
STATUS_INACCURATE = "inaccurate"


def perturb_svm_cvxpy(problem, solver="CLARABEL", *, oracle=None, tol=1e-3, atol=1e-8,
                      psd_tol=1e-8, solver_options=None):
    """Solve PerturbSVM (luss eq. 22) with a CVXPY solver; the complete, certified Solution.

    The problem is solved in the unit of ``K0`` (a power of two): eq. (22) on
    ``(K0 / unit, C * unit, rho * unit^3)`` has the maximizer ``unit * alpha``, so
    the interior-point solver's absolute tolerances meet a problem of unit scale
    (at ``K * 1e-8`` it was "unbounded", at ``K * 1e8`` its point had a relative
    gap of 8).  The point is projected onto ``{y'alpha = 0, 0 <= alpha <= C}``
    and certified by the Frank-Wolfe bound of (7).

    Parameters
    ----------
    problem : ProxyKernelProblem
        Model ``"svc"`` on a PSD ``K0`` (labels, ``C`` or per-sample ``C_i``, ``rho``).
    solver : str
        An installed CVXPY solver name.
    oracle : ProxyKernelOracle, optional
        The eigendecomposition of ``K0`` (built if not given).
    tol, atol : float
        The point is ``"optimal"`` when its certified gap is at most
        ``max(atol * unit, tol * scale)`` (:meth:`Certifier.converged
        <krein.solvers.indefinite.Certifier.converged>`), ``"inaccurate"`` otherwise.
    psd_tol : float
        Relative tolerance of the PSD check of ``K0`` (at least ``1e-12`` is used).
    solver_options : dict, optional
        Passed to :func:`~krein.solvers.solve`.

    Returns
    -------
    Solution
        ``solver = "perturb-cvxpy"``; ``status`` ``"optimal"`` or ``"inaccurate"``;
        ``primal`` holds ``beta``, ``alpha``, ``u``; the certificate of the
        IndefiniteSVM loops (``certificate_kind = "relative_gap"``); ``intercept``
        and ``coef`` (the raw map: ``coef = u``).

    Raises
    ------
    TypeError
        When ``problem`` is not a :class:`ProxyKernelProblem`.
    ValueError
        For a model other than ``"svc"``, a kernel that is not PSD, or an unknown
        or missing solver.

    Warns
    -----
    ConvergenceWarning
        When the certified gap misses the tolerance.
    """
    if not isinstance(problem, ProxyKernelProblem):
        raise TypeError("problem must be a krein.formulations.indefinite.ProxyKernelProblem")
    if problem.model != "svc":
        raise ValueError(f"PerturbSVM is a classifier (model 'svc'); got {problem.model!r}")
    P = problem
    K = P.K0
    unit = kernel_unit(K)
    C = P.C_per_sample if P.per_sample else P.C
    f = PerturbSVM(K / unit, P.y, C=C * unit, rho=P.rho * unit ** 3,
                   psd_tol=max(psd_tol, 1e-12))
    sol = solve(f, solver, **(solver_options or {}))
    alpha = project_box_hyperplane(f.values()["alpha"] / unit, P.a, P.b0, P.upper)
    cert = Certifier(P, oracle, out_of_sample="raw")
    fval, grad, _ = cert.evaluate(alpha)
    cert.frank_wolfe(alpha, fval, grad)
    certified = cert.gap <= max(cert.unit * atol, tol * cert.scale)
    if not certified:
        warnings.warn(f"PerturbSVC: solver {sol.solver} returned a point with certified "
                      f"relative gap {cert.relative_gap:.3g} > tol={tol:g}: not converged",
                      ConvergenceWarning, stacklevel=2)
    return cert.solution("perturb-cvxpy", STATUS_OPTIMAL if certified else STATUS_INACCURATE,
                         sol.iterations or 0, [], sol.setup_time, sol.solve_time)
