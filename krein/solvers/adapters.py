"""Thin adapters: each of krein's own solvers as ``adapter(problem, **options) -> Solution``.

The one dispatch, :func:`krein.solvers.solve_problem`, calls an entry of the solver
table (:data:`krein.solvers.SOLVERS`) through its adapter: the adapter passes the
problem's data (:mod:`krein.formulations.problems`) to the solver's function in that
function's own signature, with the options, and returns the :class:`Solution` the
function made, untouched.  Where a function returns more than the Solution
(liblinear's ``w, b``, libsvm SVR's ``u, b``, the multistart's table of local optima),
the adapter returns the Solution only; a caller that needs the rest calls the function
itself.  CLC's closed form returns weights: its adapter certifies them (objective and
Frank-Wolfe gap, munoz eqs. 15-16), as a solver would.
"""

from __future__ import annotations

import time

import numpy as np

from ..formulations.clc import clc_closed_form, clc_objective, simplex_optimality_gap
from ..formulations.problems import SVRDualProblem
from .alternating import alternating_projections
from .bending import bending as _bending
from .conformal import conformal_fit, conformal_lbfgs, conformal_search
from .core import Solution
from .dca import dca as _dca
from .hull import hull_multistart, hull_nu_svm
from .ksvm import ksvm_active_set
from .ksvm_ipm import ksvm_interior_point
from .liblinear import liblinear_solve
from .libsvm import libsvm_dual, libsvm_svr
from .linear import linear_svm
from .psd_newton import nearest_psd_newton
from .rvm import sparse_bayes as _sparse_bayes

__all__ = ["libsvm", "liblinear", "ipm", "active_set", "nu_svm", "multistart", "sparse_bayes",
           "bending", "conformal_optimize", "conformal_search_fit", "conformal_lbfgs_fit",
           "nearest_psd_alternating", "nearest_psd_newton_fit", "closed_form", "dca"]


def libsvm(problem, **options):
    """LIBSVM on an :class:`SVMDualProblem` (SVC) or an :class:`SVRDualProblem` (SVR).

    Parameters
    ----------
    problem : SVMDualProblem or SVRDualProblem
        The dual on a precomputed kernel.
    **options
        ``tol``, ``max_iter``, ``cache_size`` of
        :func:`~krein.solvers.libsvm.libsvm_dual` / :func:`~krein.solvers.libsvm.libsvm_svr`.

    Returns
    -------
    Solution
        The one the libsvm function made (certified by krein).
    """
    if isinstance(problem, SVRDualProblem):
        return libsvm_svr(problem.K, problem.y, problem.C, problem.epsilon, **options)[2]
    return libsvm_dual(problem.K, problem.y, problem.C, **options)


def liblinear(problem, **options):
    """LIBLINEAR on a :class:`LinearSVMProblem` (:func:`~krein.solvers.liblinear.liblinear_solve`).

    Parameters
    ----------
    problem : LinearSVMProblem
        Features, labels and ``C``.
    **options
        ``tol``, ``max_iter``.

    Returns
    -------
    Solution
        ``primal["w"]`` the weight; the intercept is the function's second value.
    """
    return liblinear_solve(problem.Phi, problem.y, problem.C, **options)[2]


def ipm(problem, **options):
    """The interior-point method on a :class:`LinearSVMProblem`
    (:func:`~krein.solvers.linear.linear_svm` with ``solver="ipm"``).

    Parameters
    ----------
    problem : LinearSVMProblem
        Features, labels and ``C``.
    **options
        ``tol``, ``max_iter``.

    Returns
    -------
    Solution
        ``primal["w"]``, ``primal["alpha"]``, the intercept; certified by the duality gap.
    """
    return linear_svm(problem.Phi, problem.y, problem.C, **{"solver": "ipm", **options})[2]


def active_set(problem, **options):
    """KSVM's active set on a :class:`KSVMProblem` (:func:`~krein.solvers.ksvm.ksvm_active_set`).

    Parameters
    ----------
    problem : KSVMProblem
        Kernel, labels and ``C``.
    **options
        Keyword options of :func:`~krein.solvers.ksvm.ksvm_active_set`.

    Returns
    -------
    Solution
        As the function returns it.
    """
    return ksvm_active_set(problem.K, problem.y, problem.C, **options)


def interior_point(problem, **options):
    """KSVM's low-rank interior point on a :class:`KSVMFactorProblem`
    (:func:`~krein.solvers.ksvm_ipm.ksvm_interior_point`).

    Parameters
    ----------
    problem : KSVMFactorProblem
        Features, signs, labels and ``C``.
    **options
        ``max_iter``, ``tol``.

    Returns
    -------
    Solution
        As the function returns it.
    """
    return ksvm_interior_point(problem.Psi, problem.signs, problem.y, problem.C, **options)


def nu_svm(problem, **options):
    """LIBSVM's nu-SVM then the polish on a :class:`HullProblem` (:func:`~krein.solvers.hull.hull_nu_svm`).

    Parameters
    ----------
    problem : HullProblem
        Kernel, labels and ``mu``.
    **options
        Keyword options of :func:`~krein.solvers.hull.hull_nu_svm`.

    Returns
    -------
    Solution
        As the function returns it.
    """
    return hull_nu_svm(problem.K, problem.y, problem.mu, **options)


def multistart(problem, **options):
    """The multi-start projected gradient on a :class:`HullProblem`.

    Parameters
    ----------
    problem : HullProblem
        Kernel, labels and ``mu``.
    **options
        Keyword options of :func:`~krein.solvers.hull.hull_multistart`.

    Returns
    -------
    Solution
        The best stationary point (the table of local optima: call
        :func:`~krein.solvers.hull.hull_multistart`).
    """
    return hull_multistart(problem.K, problem.y, problem.mu, **options)[0]


def sparse_bayes(problem, **options):
    """Sparse Bayesian learning on a :class:`SparseBayesProblem` (:func:`~krein.solvers.rvm.sparse_bayes`).

    Parameters
    ----------
    problem : SparseBayesProblem
        Design matrix and targets.
    **options
        Keyword options of :func:`~krein.solvers.rvm.sparse_bayes` (``likelihood``...).

    Returns
    -------
    Solution
        As the function returns it.
    """
    return _sparse_bayes(problem.Phi, problem.t, **options)


def bending(problem, **options):
    """Eigenvalue bending on a :class:`KernelCorrectionProblem` (:func:`~krein.solvers.bending.bending`).

    Parameters
    ----------
    problem : KernelCorrectionProblem
        The kernel and bending's ``weights``.
    **options
        Keyword options of :func:`~krein.solvers.bending.bending`.

    Returns
    -------
    Solution
        As the function returns it.
    """
    return _bending(problem.K, problem.weights, **options)


def _base_kernel(problem):
    if problem.A is None:
        raise ValueError("a conformal transformation needs the base kernel A of the "
                         "KernelCorrectionProblem (munoz eq. 13)")
    return problem.A


def conformal_optimize(problem, **options):
    """The conformal fit (L-BFGS-B then the search) on a :class:`KernelCorrectionProblem`.

    Parameters
    ----------
    problem : KernelCorrectionProblem
        The kernel and the base kernel ``A``.
    **options
        Keyword options of :func:`~krein.solvers.conformal.conformal_fit`.

    Returns
    -------
    Solution
        As the function returns it.

    Raises
    ------
    ValueError
        When the problem has no base kernel ``A``.
    """
    return conformal_fit(problem.K, _base_kernel(problem), **options)


def conformal_search_fit(problem, **options):
    """Munoz's gradient search on a :class:`KernelCorrectionProblem` (eq. 13).

    Parameters
    ----------
    problem : KernelCorrectionProblem
        The kernel and the base kernel ``A``.
    **options
        Keyword options of :func:`~krein.solvers.conformal.conformal_search`.

    Returns
    -------
    Solution
        As the function returns it.

    Raises
    ------
    ValueError
        When the problem has no base kernel ``A``.
    """
    return conformal_search(problem.K, _base_kernel(problem), **options)


def conformal_lbfgs_fit(problem, **options):
    """SciPy's L-BFGS-B on the conformal fit of a :class:`KernelCorrectionProblem` (eq. 13).

    Parameters
    ----------
    problem : KernelCorrectionProblem
        The kernel and the base kernel ``A``.
    **options
        Keyword options of :func:`~krein.solvers.conformal.conformal_lbfgs`.

    Returns
    -------
    Solution
        As the function returns it.

    Raises
    ------
    ValueError
        When the problem has no base kernel ``A``.
    """
    return conformal_lbfgs(problem.K, _base_kernel(problem), **options)


def nearest_psd_alternating(problem, **options):
    """Alternating projections on a :class:`NearestPSDProblem`.

    Parameters
    ----------
    problem : NearestPSDProblem
        The matrix, the diagonal and the weights.
    **options
        Keyword options of :func:`~krein.solvers.alternating.alternating_projections`
        (the table binds ``solver``: ``"dykstra"``, ``"plain"`` or ``"anderson"``).

    Returns
    -------
    Solution
        As the function returns it.
    """
    return alternating_projections(problem.K, problem.diagonal, problem.weights, **options)


def nearest_psd_newton_fit(problem, **options):
    """Semismooth Newton-CG (Qi & Sun 2006) on a :class:`NearestPSDProblem`.

    Parameters
    ----------
    problem : NearestPSDProblem
        The matrix, the diagonal and the weights.
    **options
        Keyword options of :func:`~krein.solvers.psd_newton.nearest_psd_newton`.

    Returns
    -------
    Solution
        As the function returns it.
    """
    return nearest_psd_newton(problem.K, problem.diagonal, problem.weights, **options)


def closed_form(problem):
    """CLC's closed form (munoz eq. 16) on a :class:`CLCProblem`, certified.

    Parameters
    ----------
    problem : CLCProblem
        ``G``, ``c`` (two base kernels) and ``k2``.

    Returns
    -------
    Solution
        ``solver="closed-form"``, status ``"optimal"``, ``primal["beta"]``, ``objective``
        :func:`~krein.formulations.clc.clc_objective` (eq. 15) and ``gap`` the
        Frank-Wolfe gap :func:`~krein.formulations.clc.simplex_optimality_gap`
        (``certificate_kind="fw_gap"``; 0 at the minimizer).

    Raises
    ------
    ValueError
        Unless ``G`` is 2 x 2 and ``c`` of length 2.
    """
    t0 = time.perf_counter()
    G, c = np.asarray(problem.G, dtype=float), np.asarray(problem.c, dtype=float)
    beta = clc_closed_form(G, c)
    wall = time.perf_counter() - t0
    objective = clc_objective(G, c, problem.k2, beta)
    gap = simplex_optimality_gap(G, c, beta)
    primal = max(abs(float(beta.sum()) - 1.0), float(np.max(-beta, initial=0.0)), 0.0)
    return Solution(solver="closed-form", status="optimal", objective=objective,
                    primal={"beta": beta}, dual={}, setup_time=0.0, solve_time=wall,
                    iterations=None, primal_residual=primal, dual_residual=float("nan"),
                    gap=gap, certificate={"objective": objective, "fw_gap": gap},
                    certificate_kind="fw_gap")


def dca(problem, **options):
    """DCA (Xu et al. 2017) on a :class:`DCProblem` (:func:`~krein.solvers.dca.dca`).

    Parameters
    ----------
    problem : DCProblem
        Kernel, labels and ``C``.
    **options
        Keyword options of :func:`~krein.solvers.dca.dca`.

    Returns
    -------
    Solution
        As the function returns it.
    """
    return _dca(problem.K, problem.y, problem.C, **options)
