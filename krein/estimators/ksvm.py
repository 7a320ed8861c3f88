"""KSVC: the Krein-space SVM of Loosli, Ong & Canu (2013, "loosli") §5, Algorithm 2."""

from __future__ import annotations

import inspect
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import HasMethods, Interval

from ..formulations.ksvm import KSVMLeastSquares, KSVMLeastSquaresFactor, ksvm_kkt_residual
from ..solvers import SolverName, resolve_solver, solve
from ..solvers.ksvm import ksvm_active_set, ksvm_intercept, ksvm_intercept_from_scores
from ..solvers.ksvm_ipm import ksvm_interior_point
from .approximate import ApproximationMixin
from .base import BinaryModel, KernelClassifierBase

__all__ = ["KSVC"]

#: With a CVXPY (interior-point) solver, ``alpha_i <= rtol * C_i`` is set to 0 (sparse
#: support) and ``alpha_i >= (1 - rtol) * C_i`` counts as at the bound for the intercept.
_CVXPY_BOUND_RTOL = 1e-6

#: The solver ``solver="auto"`` runs with an approximation: the low-rank interior point
#: (:func:`krein.solvers.ksvm_ipm.ksvm_interior_point`) on the problem of
#: :class:`~krein.formulations.ksvm.KSVMLeastSquaresFactor` (the registry's approximate path).
APPROXIMATE_KSVM_SOLVER = "interior-point"

#: The estimator's own solver names.
_OWN_SOLVERS = ("auto", "active-set", "interior-point")

#: Options of :func:`ksvm_active_set` the estimator sets itself.
_RESERVED = ("K", "y", "C", "tol", "max_iter", "check_input")

#: Options of :func:`ksvm_interior_point` the estimator sets itself.
_RESERVED_IPM = ("Psi", "signs", "y", "C")


class KSVC(ApproximationMixin, KernelClassifierBase):
    """Krein-space SVM (KSVM): least-squares stabilization of the SVM dual, loosli §5.

    For each binary problem (labels ``y`` in {-1, +1}, ``G = Y K Y``) solves
    loosli eq. (26),

        ``min ||G alpha - 1||^2``  s.t.  ``y'alpha = 0``, ``0 <= alpha <= C``,

    a convex problem whatever the sign of the kernel, and predicts with the
    ORIGINAL kernel: ``f(x) = sum_i alpha_i y_i k(x, x_i) + b``.  The default solver
    is the active-set method of loosli Algorithm 2
    (:func:`krein.solvers.ksvm.ksvm_active_set`, exact KKT conditions of (26)
    instead of loosli's eq. 27, incremental QR); any installed CVXPY solver can
    solve (26) instead (:class:`krein.formulations.ksvm.KSVMLeastSquares`).  The
    intercept is the least-squares solution of the free-set SVM equations
    ``y_i (f(x_i) + b) = 1`` (:func:`krein.solvers.ksvm.ksvm_intercept`).

    Relation to the SVM.  On a positive definite kernel, let ``alpha*`` solve
    the SVM dual (loosli eq. 21) with bias ``b*``.  If every ``0 < alpha*_i < C``
    then ``G alpha* - 1 = -b* y``, and ``alpha*`` minimizes (26) iff
    ``2 G (G alpha* - 1) + lambda y = -2 b* G y + lambda y = 0`` for some
    ``lambda``: iff ``b* = 0`` or ``G y`` is parallel to ``y`` (``K 1`` constant,
    e.g. points evenly spaced on a circle with a radial kernel).  Then KSVC and
    the SVM coincide (same ``alpha``, same bias, same decisions; ``G`` being
    nonsingular, the minimizer of (26) is unique).  Otherwise, in particular
    when some ``alpha*_i`` is at a bound, they differ: (26) minimizes the squared
    residual of the SVM stationarity without the bias term, a different
    criterion ("the notion of margin is distorted", loosli §5.2).

    Parameters
    ----------
    C : float > 0
        Box bound.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"``: ``fit`` takes the square ``(n, n)`` kernel matrix of the
        training points and ``predict``/``decision_function`` the ``(m, n)`` matrix
        of new points against them. A name of :data:`krein.kernels.KERNELS`:
        ``"gaussian"`` (``exp(-gamma ||x - z||^2)``, parameter ``gamma``),
        ``"sigmoid"`` (``tanh(a <x, z> + r)``, parameters ``a`` and ``r``; indefinite
        for most of them), ``"linear"``, ``"epanechnikov"``, ``"simpson"``,
        ``"tangent-distance"``; the kernel matrices are then computed from feature
        rows ``X``. Or a callable ``kernel(X, Z, **kernel_params)`` returning the
        ``(len(X), len(Z))`` matrix.
    kernel_params : dict, optional
        Keyword arguments of the named or callable kernel, e.g. ``{"gamma": 0.5}``
        for the Gaussian or ``{"a": 0.5, "r": -1.0}`` for the sigmoid; None takes
        the kernel's defaults.
    class_weight : None, "balanced" or dict, default=None
        Per-class box bounds ``0 <= alpha_i <= C_i = C * weight[y_i]`` in (26)
        (scikit-learn SVC's meaning), for both solvers; tolerances are then
        relative to each point's ``C_i``.
    tol : float in (0, 1)
        Active-set stopping tolerance on the KKT residual of (26), relative to the
        scale ``min(C_i, 1 / ||G_(:,i)||)`` of each ``alpha_i``
        (:func:`krein.formulations.ksvm.ksvm_kkt_residual`; invariant to
        ``(K, C) -> (s K, C / s)``).
    max_iter : int >= 1, optional
        Active-set iteration limit (default ``10 n + 100``); a
        ``ConvergenceWarning`` is issued when it is reached.
    solver : "auto", "active-set", "interior-point" or str, default="auto"
        ``"auto"``: ``"active-set"`` on the exact kernel, ``"interior-point"`` with an
        ``approximation`` (the active set needs the n x n kernel); the fitted
        ``solver_`` says which ran.  ``"active-set"``: Algorithm 2 (exact kernel
        only); ``"interior-point"``: the primal-dual interior point on the
        features' low-rank factor, ``O(n r^2)`` per iteration
        (:func:`krein.solvers.ksvm_ipm.ksvm_interior_point`; with an
        approximation only); or the name of an installed CVXPY solver
        ("CLARABEL", "OSQP", "SCS", "ECOS"...; case-insensitive) for problem (26).
    solver_options : dict, optional
        Extra keywords: for "active-set" those of
        :func:`~krein.solvers.ksvm.ksvm_active_set` (``rcond``, ``block``,
        ``verify``, ``verbose``), for "interior-point" those of
        :func:`~krein.solvers.ksvm_ipm.ksvm_interior_point` (``max_iter``,
        ``tol``), otherwise passed to the CVXPY solver.
    approximation : transformer or None, default=None
        A low-rank front end (:class:`krein.approximation.IndefiniteNystroem`),
        cloned and given the estimator's ``kernel`` and ``kernel_params``; None
        keeps the exact path.  With features ``Psi`` and signs ``S``
        (``K_approx = Psi S Psi'``), ``v = Psi' (y alpha)`` turns (26) into the
        problem of :class:`~krein.formulations.ksvm.KSVMLeastSquaresFactor`
        (``r`` residuals, ``n r`` nonzeros; the interior point or a CVXPY
        ``solver``), and the
        decision is ``f(x) = k_approx(x, X) (y alpha) + b = psi(x) S v + b``.
        The intercept comes from the training scores ``Psi S v`` as in the
        exact path.  With every training point a landmark this is the exact
        KSVC.
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation, so that
        ``predict_proba`` / ``predict_log_proba`` exist (as scikit-learn's
        ``SVC(probability=True)``; :class:`krein.estimators.base.ProbabilityMixin`).

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_pairs, n_SV)
        ``y_i alpha_i`` on ``support_`` (as scikit-learn's SVC).
    support_, intercept_, classes_, support_vectors_, class_weight_ :
        As :class:`~krein.estimators.base.KernelClassifierBase`.
    n_iter_ : ndarray of shape (n_pairs,)
        Active-set iterations (or the CVXPY solver's iterations).
    alpha_ : ndarray of shape (n_pairs, n_train)
        The minimizers of (26) (zero off each pair).
    objective_ : ndarray of shape (n_pairs,)
        ``||G alpha - 1||^2`` at ``alpha_``.
    kkt_residual_ : ndarray of shape (n_pairs,)
        KKT residual of (26) at ``alpha_`` (best multiplier), recomputed from scratch;
        relative to the scale of ``alpha`` (not to ``C`` alone, which certified
        ``alpha = 0``, a constant classifier, at ``C = 1e6``).
    trace_ : pandas.DataFrame
        Per-iteration records of the active-set runs (column ``pair``; see
        :func:`~krein.solvers.ksvm.ksvm_active_set`); empty with a CVXPY solver.
    solutions_ : list of krein.solvers.Solution
        One per binary problem.
    solver_ : str
        The solver that ran (``solver`` with ``"auto"`` resolved).

    Raises
    ------
    ValueError
        From ``fit``: bad parameters, NaN/inf, a non-square or asymmetric
        precomputed kernel, fewer than two classes.

    References
    ----------
    Loosli, Ong & Canu (2013), "Learning SVM in Krein spaces", §5, eqs. (21)-(30),
    Table 1, Algorithm 2.

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein import KSVC
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = KSVC(kernel="sigmoid", kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        "tol": [Interval(Real, 0, 1, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "solver": [SolverName(_OWN_SOLVERS)],
        "solver_options": [dict, None],
        "approximation": [HasMethods(["fit_transform", "transform"]), None],
    }

    def __init__(self, *, C=1.0, kernel="gaussian", kernel_params=None, class_weight=None, tol=1e-6,
                 max_iter=None, solver="auto", solver_options=None, approximation=None,
                 probability=False):
        self.C = C
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.tol = tol
        self.max_iter = max_iter
        self.solver = solver
        self.solver_options = solver_options
        self.approximation = approximation
        self.probability = probability

    # ---------------------------------------------------------------- checks
    def _check_params(self):
        self._check_approximation()
        self._solver = resolve_solver(self.solver, _OWN_SOLVERS)
        if self._solver == "auto":
            self._solver = APPROXIMATE_KSVM_SOLVER if self._approximate() else "active-set"
        self.solver_ = self._solver
        if self._approximate() and self._solver == "active-set":
            raise ValueError("solver='active-set' works on the n x n kernel; with an "
                             "approximation use 'interior-point' (the default) or a CVXPY "
                             "solver (e.g. solver='CLARABEL')")
        if not self._approximate() and self._solver == "interior-point":
            raise ValueError("solver='interior-point' works on the low-rank factor of an "
                             "approximation; on the exact kernel use 'active-set' or a CVXPY "
                             "solver")
        opts = self.solver_options
        own = {"active-set": ksvm_active_set, "interior-point": ksvm_interior_point}
        if opts and self._solver in own:
            reserved = _RESERVED if self._solver == "active-set" else _RESERVED_IPM
            accepted = [k for k in inspect.signature(own[self._solver]).parameters
                        if k not in reserved]
            bad = sorted(set(opts) - set(accepted))
            if bad:
                raise ValueError(f"solver_options has unknown key(s) {bad} for "
                                 f"solver={self._solver!r}; accepted: {accepted}")

    # ---------------------------------------------------------------- fit
    def _fit_binary(self, K, y, idx, C):
        opts = dict(self.solver_options or {})
        if self._solver == "active-set":
            # K was checked (square, finite, symmetric) by the base class
            # C: a float, or per-sample bounds C_i (class_weight)
            sol = ksvm_active_set(K, y, C, tol=self.tol, max_iter=self.max_iter,
                                  check_input=False, **opts)
            alpha = sol.primal["alpha"]
            b = sol.primal["b"]
            kkt = sol.certificate["kkt_residual"]
        else:
            f = KSVMLeastSquares(K, y, C=C)
            sol = solve(f, self._solver, certificate_kind="kkt_residual", **opts)
            alpha = np.clip(np.asarray(f.variables["alpha"].value, dtype=float), 0.0, C)
            alpha[alpha <= _CVXPY_BOUND_RTOL * C] = 0.0
            b = ksvm_intercept(K, y, alpha, C, bound_rtol=_CVXPY_BOUND_RTOL)
            kkt = ksvm_kkt_residual(K, y, C, alpha)["residual"]
        objective = float(np.sum((y * (K @ (y * alpha)) - 1.0) ** 2))
        info = {"n_iter": max(int(sol.iterations or 0), 1), "solution": sol, "alpha": alpha,
                "objective": objective, "kkt_residual": kkt}
        return BinaryModel(idx, y * alpha, b, info)

    def _fit_features(self, rep, y, C):
        """The approximate path: (26) on ``K = Psi S Psi'`` by its factored form, with
        ``(Psi, S)`` the signed eigenfeatures of the representation ``rep``: the low-rank
        interior point (``solver="interior-point"``) or a CVXPY solver on
        :class:`~krein.formulations.ksvm.KSVMLeastSquaresFactor`."""
        eig = rep.eigenfeatures()
        Psi, S = eig.features, eig.signs
        opts = dict(self.solver_options or {})
        if self._solver == "interior-point":
            sol = ksvm_interior_point(Psi, S, y, C, **opts)
            alpha = sol.primal["alpha"]
        else:
            f = KSVMLeastSquaresFactor(Psi, S, y, C=C)
            sol = solve(f, self._solver, certificate_kind="kkt_residual", **opts)
            alpha = f.variables["alpha"].value
        alpha = np.clip(np.asarray(alpha, dtype=float), 0.0, C)
        alpha[alpha <= _CVXPY_BOUND_RTOL * C] = 0.0
        v = Psi.T @ (y * alpha)
        f0 = Psi @ (S * v)
        b = ksvm_intercept_from_scores(f0, y, alpha, C, bound_rtol=_CVXPY_BOUND_RTOL)
        objective = float(np.sum((y * f0 - 1.0) ** 2))
        info = {"n_iter": max(int(sol.iterations or 0), 1), "solution": sol, "alpha": alpha,
                "objective": objective, "kkt_residual": sol.certificate.get("kkt_residual",
                                                                            float("nan"))}
        return eig.to_rows(S * v), b, info

    def _after_fit_approximate(self):
        models = self.binary_models_
        self.objective_ = np.array([m.info["objective"] for m in models])
        self.kkt_residual_ = np.array([m.info["kkt_residual"] for m in models])

    def _after_fit(self, K):
        import pandas as pd

        models = self.binary_models_
        n = K.shape[0]
        self.alpha_ = np.zeros((len(models), n))
        frames, pairs = [], []
        for r, m in enumerate(models):
            self.alpha_[r, m.idx] = m.info["alpha"]
            tr = m.info["solution"].trace
            if tr is not None and len(tr):
                frames.append(tr)
                pairs.append(np.full(len(tr), r))
        self.objective_ = np.array([m.info["objective"] for m in models])
        self.kkt_residual_ = np.array([m.info["kkt_residual"] for m in models])
        if frames:
            # one concatenation and one column, not a copy of every pair's trace
            trace = pd.concat(frames, ignore_index=True)
            trace.insert(0, "pair", np.concatenate(pairs))
            self.trace_ = trace
        else:
            self.trace_ = pd.DataFrame()
