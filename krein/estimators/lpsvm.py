"""The 1-norm LP-SVM classifier (Mangasarian 1999; loosli §6.1.2)."""

from __future__ import annotations

import threading
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import HasMethods, Interval

from .._fitting import fit_wrapper
from ..formulations.base import reusable_formulation
from ..formulations.lpsvm import LPSVM
from ..solvers import SolverName, resolve_solver, solve
from ..solvers.lp_chunking import CHUNK_INITIAL_ROWS, solve_lp_machine_chunked
from .base import BinaryModel, KernelClassifierBase, kernel_unit, positive_weight_rows, warn_gap
from .reduced import LandmarkExpansionMixin

__all__ = ["LPSVC", "solve_margin", "REUSE_MAX_N", "CHUNKING_MIN_ENTRIES"]

#: Largest block side ``max(n, m)`` solved through a compiled problem kept per shape
#: (:func:`solve_margin`); larger blocks build their own (measured crossover:
#: benchmarks/many_classes.py ``--reuse``).
REUSE_MAX_N = 150

#: Smallest landmark-columns LP (``n m`` entries of the block) solved by row chunking
#: (:func:`krein.solvers.lp_chunking.solve_lp_machine_chunked`) instead of one solve of
#: the whole LP by the ``solver``: on a block of the large-data benchmark at n = 2000,
#: m = 1000 HiGHS takes 9.7 s of CPU, the interior-point method and its crossover 0.8 s,
#: both to the same vertex (decision values within 1e-12).
CHUNKING_MIN_ENTRIES = 2_000_000

#: Held around a CVXPY solve of a binary problem: on the landmark path the problems run
#: on threads (:func:`~krein.estimators.base.fit_pairs`), the row-chunked ones
#: concurrently (NumPy and LAPACK), the CVXPY ones one at a time.
_CVXPY_LOCK = threading.Lock()


def solve_margin(formulation, K, y, C, solver, options):
    """Solve a margin formulation (LP-SVM, Mod SVM) on one block, compiled once per shape.

    For ``max(n, m) <= REUSE_MAX_N`` the formulation is built with ``reusable=True``
    and kept per ``(class, n, m, per-sample C)``
    (:func:`krein.formulations.base.reusable_formulation`): every later block of the
    same shape (the one-vs-one pairs, the inner folds, every ``C`` of a grid) sets
    its data and ``C`` and is re-solved without CVXPY compiling the problem again.
    The solver sees the same problem data either way.

    Parameters
    ----------
    formulation : type
        :class:`~krein.formulations.LPSVM` or :class:`~krein.formulations.ModSVM`.
    K : ndarray of shape (n, m)
        Kernel block (in the unit the problem is solved in).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float > 0 or ndarray of shape (n,)
        Slack weight(s), in the same unit.
    solver : str
        A resolved CVXPY solver name.
    options : dict
        Passed to the solver.

    Returns
    -------
    krein.solvers.Solution
        With copies of the variable and dual values (``primal``, ``dual``) and the
        formulation's certificate (``relative_gap``).

    Raises
    ------
    ValueError, krein.solvers.SolverError
        As :func:`krein.solvers.solve`.
    """
    n, m = K.shape
    if max(n, m) > REUSE_MAX_N:
        return solve(formulation(K, y, C=C), solver, certificate_kind="relative_gap", **options)
    key = (formulation.__module__, formulation.__qualname__, n, m, bool(np.ndim(C) > 0))
    with reusable_formulation(key, lambda: formulation(K, y, C=C, reusable=True)) as f:
        f.set_data(K, y).set(C=C)
        return solve(f, solver, certificate_kind="relative_gap", **options)


class LPSVC(LandmarkExpansionMixin, KernelClassifierBase):
    """Linear-programming SVM: ``min ||c||_1 + C sum(xi)`` with ``f(x) = k(x, X) c + b``.

    The kernel only enters linear constraints, so it may be indefinite; the LP
    (:class:`krein.formulations.LPSVM`) is solved by any LP-capable CVXPY solver.

    With ``approximation`` the expansion points are the ``m`` landmarks:
    ``f(x) = k(x, L) c + b`` and the LP is the same one on the rectangular block of
    landmark columns ``C = K(X, L)`` (``n x m``), ``min ||c||_1 + C sum(xi)``
    s.t. ``y_i (C_i c + b) >= 1 - xi_i``: the LP machine on a rectangular proximity
    matrix of Graepel, Herbrich, Schölkopf, Smola & Obermayer (1999, §3, the
    1-norm "LP machine" whose columns are any set of prototypes) and the reduced
    expansion of Lee & Mangasarian (2001, RSVM, the rectangular kernel
    ``K(A, Abar')``).  The landmarks' labels are not used (every binary model
    expands on all of them; :mod:`krein.estimators.reduced`).  The LP has ``n``
    rows and ``m + n + 1`` variables with ``n m`` dense coefficients.  A block with
    fewer than :data:`CHUNKING_MIN_ENTRIES` entries is solved whole by ``solver``;
    a larger one by :func:`krein.solvers.lp_chunking.solve_lp_machine_chunked`
    (``solver`` and ``solver_options`` are not used there): a primal-dual
    interior-point method on the LP's dual whose normal matrix keeps only the rows
    whose multipliers have not settled on a bound, a crossover to the vertex where
    the identified basis is square, and the row chunking of Bradley & Mangasarian
    (2000) when the first working set is a sample of the rows
    (:data:`krein.solvers.lp_chunking.CHUNK_INITIAL_ROWS`); its certificate is
    computed on all ``n`` rows and ``m`` columns.  Solved whole, HiGHS took 10 s of
    CPU at n = 2000, m = 1000 and 56 s at n = 5000 (the dense basis of ``m + 1`` rows
    costs ~7 ms a pivot).

    Sample weights
    --------------
    ``fit(X, y, sample_weight=w)`` weighs the slacks: ``min ||c||_1 + sum_i C_i w_i
    xi_i`` (``C_i = C * class_weight[y_i]``): the LP of
    :class:`krein.formulations.LPSVM` with per-sample slack weights ``C_i w_i``.  An
    integer weight ``k`` is the sample repeated ``k`` times: the ``k`` copies of row
    ``i`` have the same margin, so their slacks cost ``C_i k xi_i``; the ``k`` copies
    of column ``i`` enter ``f`` only through the sum ``c_i`` of their coefficients,
    and ``sum_r |c_i^(r)| >= |c_i|`` with equality when they share a sign, so the
    repeated LP's optimal value and decision function are those of the weighted LP
    with one column ``i`` at the same 1-norm.  A weight of 0 removes the sample's row
    and column.

    Parameters
    ----------
    C : float > 0
        Weight of the slacks.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"`` (``fit`` takes the square ``(n, n)`` Gram matrix,
        ``predict``/``decision_function`` an ``(m, n)`` matrix against the
        training points), a name of :data:`krein.kernels.KERNELS` or a callable
        ``kernel(X, Z, **kernel_params)``.
    kernel_params : dict, optional
        Parameters of a named or callable kernel (e.g. ``{"a": 0.5, "r": -1.0}``
        for the sigmoid).
    class_weight : None, "balanced" or dict, default=None
        Per-class slack weights ``C_i = C * weight[y_i]`` (scikit-learn SVC's
        meaning; in the LP dual they are the box bounds ``0 <= alpha_i <= C_i``).
    solver : str
        Installed CVXPY solver ("CLARABEL" default; "SCS", "ECOS", "HIGHS"...;
        case-insensitive).
    solver_options : dict, optional
        Passed to the solver.
    sv_tol : float in [0, 1)
        Coefficients with ``|c_j| <= sv_tol * max(1, max|c|)`` are set to zero
        (interior-point solvers return tiny non-zeros instead of exact zeros),
        ``c`` taken in the unit of the kernel (``c * unit``, see ``solutions_``).
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation, so that
        ``predict_proba`` / ``predict_log_proba`` exist (as scikit-learn's
        ``SVC(probability=True)``; :class:`krein.estimators.base.ProbabilityMixin`).
    approximation : transformer or None, default=None
        A low-rank front end (:class:`krein.approximation.IndefiniteNystroem`)
        whose landmarks are the expansion points (above); ``fit`` then takes its
        input (feature vectors, or the landmark columns ``K(X, L)`` of shape
        ``(n, m)`` with ``kernel="precomputed"``), as do ``predict`` and
        ``decision_function`` for new points.  None: the exact path.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_pairs, n_SV)
        Expansion coefficients ``c`` on ``support_`` (the "expansion vectors"; with
        an approximation ``support_`` indexes the landmarks).
    approximation_ : IndefiniteNystroem
        The fitted front end (with an approximation).
    support_, intercept_, classes_, n_iter_, class_weight_ :
        See the base class.
    solutions_ : list of krein.solvers.Solution
        One per binary problem, with the LP duality gap and ``relative_gap``
        (a ``ConvergenceWarning`` above ``1e-6``).  The LP is solved on
        ``K / unit`` with ``C * unit`` (``unit``: a power of two near ``max|K|``,
        :func:`~krein.estimators.base.kernel_unit`), so the solution's values are
        those of that problem (``c`` times ``unit``; objective and gap divided by
        ``unit``): the solver's absolute tolerances then mean the same at any
        scale of ``K``.

    References
    ----------
    O. L. Mangasarian (1999), "Generalized support vector machines";
    Loosli, Ong & Canu (2013) §6.1.2 ("LP SVM");
    T. Graepel, R. Herbrich, B. Schölkopf, A. Smola & K. Obermayer (1999),
    "Classification on proximity data with LP-machines", ICANN;
    Y.-J. Lee & O. L. Mangasarian (2001), "RSVM: reduced support vector machines", SDM;
    P. S. Bradley & O. L. Mangasarian (2000), "Massive data discrimination via linear
    support vector machines", Optimization Methods and Software 13.

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein import LPSVC
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = LPSVC(kernel="sigmoid", kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        "solver": [SolverName()],
        "solver_options": [dict, None],
        "sv_tol": [Interval(Real, 0, 1, closed="left")],
        "approximation": [HasMethods(["fit_transform", "transform"]), None],
    }

    def __init__(self, *, C=1.0, kernel="gaussian", kernel_params=None, class_weight=None,
                 solver="CLARABEL", solver_options=None, sv_tol=1e-8, probability=False,
                 approximation=None):
        self.C = C
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.solver = solver
        self.solver_options = solver_options
        self.sv_tol = sv_tol
        self.probability = probability
        self.approximation = approximation

    def _check_params(self):
        self._check_approximation()
        self._solver = resolve_solver(self.solver)

    @fit_wrapper
    def fit(self, X, y, sample_weight=None):
        """Fit the classifier, with optional per-sample weights.

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            Training feature vectors, or the square training kernel matrix (with an
            approximation: the front end's input, e.g. the landmark columns).
        y : array of shape (n,)
            Class labels (at least two classes).
        sample_weight : array of shape (n,), optional
            Non-negative weights: sample ``i``'s slack weight is ``C * class_weight[y_i]
            * sample_weight[i]`` (the box bound of its LP-dual multiplier); a sample of
            weight 0 leaves the problem (its row and its expansion column).  An integer
            weight ``k`` fits the model of the sample repeated ``k`` times (row and
            column of the kernel repeated; class docstring, "Sample weights").  With an
            approximation the weights weigh the rows only (the landmarks are the
            expansion points).  With ``probability=True`` they also weigh Platt's
            sigmoid.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            As :meth:`KernelClassifierBase.fit`, and for a negative weight, a
            ``sample_weight`` of the wrong length, or a class whose weights are all 0.
        """
        return self._fit_and_diagnose(X, y, sample_weight)

    def _fit_binary(self, K, y, idx, C):
        keep = positive_weight_rows(C, y)
        if keep is None:
            c, b, info = self._solve_lp(K, y, C)
            return BinaryModel(idx, c, b, info)
        # weight 0: the sample repeated 0 times, its row and its expansion column removed
        c_keep, b, info = self._solve_lp(K[np.ix_(keep, keep)], y[keep], C[keep])
        c = np.zeros(y.size)
        c[keep] = c_keep
        return BinaryModel(idx, c, b, info)

    @property
    def _parallel_pairs(self):
        """The binary problems of the landmark path run on threads
        (:func:`~krein.estimators.base.fit_pairs`): the row-chunked interior point reads its
        arguments only; a CVXPY solve holds :data:`_CVXPY_LOCK`."""
        return self._approximate()

    def _fit_landmarks(self, C_rows, W, y, C_box):
        # the same LP on the rectangular block of landmark columns; a large block by
        # the interior-point method of lp_chunking (the same LP, certified on all rows
        # and columns)
        if C_rows.size >= CHUNKING_MIN_ENTRIES:
            return self._solve_lp(C_rows, y, C_box, chunked=True)
        with _CVXPY_LOCK:
            return self._solve_lp(C_rows, y, C_box)

    def _solve_lp(self, K, y, C, chunked=False):
        """The LP on a kernel block ``K`` (n, m): coefficients (m,), intercept, info."""
        # solved in the unit of K (exact power of two): the LP on (K / unit, C * unit)
        # has the minimizers (unit * c, b), so the solver's absolute tolerances meet a
        # problem of unit scale whatever the scale of K
        unit = kernel_unit(K)
        if chunked:
            sol = solve_lp_machine_chunked(K / unit, y, C * unit,
                                           initial_rows=CHUNK_INITIAL_ROWS)
        else:
            sol = solve_margin(LPSVM, K / unit, y, C * unit, self._solver,
                               self.solver_options or {})
        warn_gap(sol, "LPSVC")
        c = np.asarray(sol.primal["c"], dtype=float).copy()
        # sv_tol in the unit of K (an absolute max(1, .) on c itself zeroed every
        # coefficient of a kernel scaled by 1e8)
        c[np.abs(c) <= self.sv_tol * max(1.0, np.abs(c).max())] = 0.0
        c /= unit
        b = float(sol.primal["b"])
        return c, b, {"n_iter": sol.iterations or 0, "solution": sol}

