"""Conformal linear combination of kernels (CLC) and the average of kernels (AKM) as transformers.

Source: Munoz & de Diego (2006, "munoz") §3.5, eqs. (15)-(16), and the AKM
baseline of its §4 (Moguerza, Munoz & Martin de Diego 2004).

Input: stacked kernels
----------------------
CLC needs, besides the (indefinite) kernel ``K`` to be corrected, the PSD base
kernels ``K_1..K_M`` on the same points, at fit time (training blocks) and at
transform time (rows of new points).  Both are passed as ONE array, the stacked
kernel of :mod:`krein.combinations`: ``(n, n, 1 + M)`` in ``fit`` (slice 0 is
``K``, slices ``1..M`` the ``K_m``) and ``(m, n, 1 + M)`` in ``transform``.  A
stacked array slices like a kernel matrix along its first two axes, so
``make_pipeline(ConformalLinearCombination(), SVC(kernel="precomputed"))``
works in ``cross_val_score`` on a precomputed stacked kernel (the transformer
has the ``pairwise`` tag: every fold gets ``X[np.ix_(train, train)]`` and
``X[np.ix_(test, train)]`` of every kernel).  Build it with
:func:`krein.combinations.stack_kernels`.  A plain 2-D kernel raises a
``ValueError`` that explains this.

From feature vectors, :class:`krein.estimators.corrected.CorrectedKernelSVC`
with ``base_kernels=[...]`` computes the stack itself.

Out-of-sample map
-----------------
The corrected kernel is the kernel function ``k*(x, z) = sum_m beta_m k_m(x, z)``
(munoz: "a linear combination of kernels"), so new rows are
``sum_m beta_m K_m(x, X)``: exact, and on the training rows it reproduces the
fitted block.  The target's rows (slice 0) are not used by ``transform``.

Parameters: model vs algorithm
------------------------------
``combination`` picks the MODEL: ``"nearest"`` fits ``beta`` by eq. (15) (CLC),
``"average"`` fixes ``beta_m = 1/M`` (AKM; ``K`` is not used).  They are different
kernels, compared side by side in munoz Tables 1-2, so this is not a solver choice.
``solver`` picks the ALGORITHM for eq. (15), as everywhere in krein: ``"closed-form"``
(munoz eq. 16, two base kernels), any installed CVXPY solver name (upper case,
``"CLARABEL"``, ``"OSQP"``, ...: the QP), or ``"auto"`` (the closed form for two base
kernels, else the QP with CLARABEL).  The two lower-case names are no CVXPY solver's
(CVXPY's are case-insensitive upper-case names), so the values stay distinguishable.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..combinations import check_stacked_kernel, check_stacked_rows
from ..formulations.clc import (ConformalLinearCombinationQP, clc_closed_form, clc_objective,
                                kernel_inner_products, simplex_optimality_gap)
from ..solvers import resolve_solver, solve
from .._cache import shared_computations_active
from .._fitting import fit_wrapper
from ..spectrum import Spectrum, input_precision

__all__ = ["ConformalLinearCombination", "CLC_COMBINATIONS", "CLC_SOLVERS"]

#: Models of ``ConformalLinearCombination(combination=...)``: CLC (eq. 15) and AKM.
CLC_COMBINATIONS = ("nearest", "average")
#: Non-CVXPY values of ``ConformalLinearCombination(solver=...)``.
CLC_SOLVERS = ("auto", "closed-form")
#: The CVXPY solver of ``solver="auto"`` when the QP is needed (``M > 2``).
CLC_DEFAULT_QP_SOLVER = "CLARABEL"


class ConformalLinearCombination(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """The convex combination of PSD kernels closest to an indefinite kernel (munoz eq. 15).

    ``fit`` solves::

        minimize_beta  || K - sum_m beta_m K_m ||_F^2   s.t.  beta on the simplex   (15)

    through the Gram matrix ``<K_m, K_l>_F`` (a QP in ``M`` variables, see
    :mod:`krein.formulations.clc`), and the corrected kernel is
    ``K* = sum_m beta_m K_m``, PSD because the ``K_m`` are (checked) and
    ``beta >= 0``.

    Its output columns are the training objects (``get_feature_names_out``: ``x0``,
    ``x1``, ...), so ``set_output(transform="pandas")`` returns the combined kernel's
    rows as DataFrames.

    Parameters
    ----------
    combination : {"nearest", "average"}
        The model (module docstring).  ``"nearest"``: ``beta`` minimizes eq. (15)
        (CLC).  ``"average"``: the AKM baseline ``beta_m = 1/M`` (ignores ``K``
        and ``solver``; munoz §4, CLC_AKM's companion rows of Tables 1-2).
    solver : {"auto", "closed-form"} or str
        The algorithm for eq. (15).  ``"closed-form"``: munoz eq. (16), two base
        kernels only, clipped to the simplex
        (:func:`~krein.formulations.clc.clc_closed_form`).  A CVXPY solver name
        that takes QPs ("CLARABEL", "OSQP", "SCS", "ECOS", ...; case-insensitive):
        the QP :class:`~krein.formulations.ConformalLinearCombinationQP`.
        ``"auto"``: the closed form for ``M = 2``, the QP with CLARABEL otherwise.
    solver_options : dict, optional
        Passed to the CVXPY solver.
    polish : bool
        After the QP, solve the equality-constrained least-squares problem on the
        solver's support exactly (the KKT linear system of (15) with the zero
        weights fixed, dropping weights that come out negative) and keep it when
        it is feasible and its Frank-Wolfe gap is not larger.  Interior-point and
        first-order solvers stop at an objective accuracy ``tol``, which fixes the
        weights only to about ``sqrt(tol / lambda_min(G))`` (e.g. 2e-4 with
        CLARABEL's defaults on an exactly recoverable combination of four
        Gaussian/linear kernels); the polished weights are exact to round-off
        whenever the support is right.
    check_psd : bool
        Check that every base kernel is PSD (least eigenvalue
        ``>= -max(psd_rtol, n * eps) * max(1, largest |eigenvalue|)``, ``eps`` the
        machine precision of the input's dtype, so float32 kernels are judged at
        float32 round-off), which is what makes the combination PSD;
        ``ValueError`` otherwise.
    psd_rtol : float in [0, 1)
        Relative tolerance of that check (never below the input's precision
        ``n * eps``).

    Attributes
    ----------
    weights_ : ndarray of shape (M,)
        ``beta`` (on the simplex).
    kernel_ : ndarray of shape (n, n)
        The corrected training kernel ``sum_m beta_m K_m``.
    objective_ : float
        ``||K - kernel_||_F^2``.
    relative_error_ : float
        ``||K - kernel_||_F / ||K||_F`` (NaN when ``K = 0``).
    gap_ : float
        Frank-Wolfe optimality gap of ``weights_`` (0 at the optimum; see
        :func:`~krein.formulations.clc.simplex_optimality_gap`), relative to
        ``max(1, max_m ||K_m||_F^2)``; NaN for ``combination="average"``.
    gram_ : ndarray of shape (M, M)
        ``<K_m, K_l>_F``.
    min_eigenvalue_ : float
        Least eigenvalue of the input ``K``.
    base_min_eigenvalues_ : ndarray of shape (M,)
        Least eigenvalue of each base kernel (NaN when ``check_psd=False``).
    solution_ : krein.solvers.Solution or None
        The QP's solution (None for the closed form and the average).
    solver_ : str or None
        The algorithm actually used (``"auto"`` resolved): ``"closed-form"`` or
        the upper-case CVXPY solver name; None for ``combination="average"``.
    n_kernels_ : int
        ``M``.
    n_features_in_ : int
        Number of training points ``n``.

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        In ``fit`` (a ``ValueError``): a parameter outside the values above.
    ValueError
        In ``fit``: a non-stacked input, a base kernel that is not PSD,
        ``solver="closed-form"`` with ``M != 2``, a solver that is neither
        ``"auto"``, ``"closed-form"`` nor an installed CVXPY solver.
    krein.solvers.SolverError
        If the QP solver fails (the transformer is then left unfitted).

    Examples
    --------
    >>> import numpy as np
    >>> from krein.combinations import pick_out, projection_kernels, stack_kernels
    >>> from krein.datasets import make_munoz_artificial
    >>> X, y = make_munoz_artificial(100, random_state=0)
    >>> B = projection_kernels(X)                 # two PSD kernels, (100, 100, 2)
    >>> S = stack_kernels(pick_out(B, y), B)      # (100, 100, 3)
    >>> Kc = ConformalLinearCombination().fit_transform(S)
    >>> bool(np.linalg.eigvalsh(Kc).min() > -1e-8)
    True

    References
    ----------
    A. Munoz, I. Martin de Diego (2006), "From indefinite to positive
    semi-definite matrices", §3.5, eqs. (15)-(16), §4 (AKM, CLC_AKM rows of
    Tables 1-2).
    """

    #: Takes stacked (n, n, 1 + M) kernels (krein.combinations).
    accepts_stacked_kernels = True

    _parameter_constraints: dict = {
        "combination": [StrOptions(set(CLC_COMBINATIONS))],
        # "auto", "closed-form" or a CVXPY name (case-insensitive): checked in fit against the
        # installed solvers (a StrOptions beside str would not be disjoint from it)
        "solver": [str],
        "solver_options": [dict, None],
        "polish": ["boolean"],
        "check_psd": ["boolean"],
        "psd_rtol": [Interval(numbers.Real, 0, 1, closed="left")],
    }

    def __init__(self, *, combination="nearest", solver="auto", solver_options=None, polish=True,
                 check_psd=True, psd_rtol=1e-8):
        self.combination = combination
        self.solver = solver
        self.solver_options = solver_options
        self.polish = polish
        self.check_psd = check_psd
        self.psd_rtol = psd_rtol

    # ------------------------------------------------------------------ checks
    def _resolve_solver(self, M):
        """The algorithm for ``M`` base kernels (None for the average); cross-parameter checks."""
        if self.combination == "average":
            return None
        try:
            solver = resolve_solver(self.solver, CLC_SOLVERS)
        except ValueError as exc:
            raise ValueError(f"solver must be one of {list(CLC_SOLVERS)} or an installed CVXPY "
                             f"solver name: {exc}") from exc
        if solver == "auto":
            solver = "closed-form" if M == 2 else CLC_DEFAULT_QP_SOLVER
        if solver == "closed-form" and M != 2:
            raise ValueError(f"solver='closed-form' (munoz eq. 16) needs exactly two base "
                             f"kernels; got {M}: use solver='auto' or a CVXPY solver name")
        return solver

    def _check_base_psd(self, base, eps):
        M, n = base.shape[2], base.shape[0]
        mins = np.full(M, np.nan)
        if not self.check_psd:
            return mins
        rtol = max(float(self.psd_rtol), n * eps)  # never below the input's round-off
        for m in range(M):
            lam = np.linalg.eigvalsh(base[:, :, m])
            mins[m] = lam[0]
            if lam[0] < -rtol * max(1.0, float(np.max(np.abs(lam)))):
                raise ValueError(
                    f"base kernel {m + 1} (slice {m + 1} of X) is not PSD: least eigenvalue "
                    f"{lam[0]:.4g}; the combination of munoz eq. (15) is PSD only for PSD base "
                    "kernels (or pass check_psd=False)")
        return mins

    # ------------------------------------------------------------------ fit
    @fit_wrapper
    def fit(self, X, y=None):
        """Find the weights ``beta`` of munoz eq. (15) (or (16), or the AKM average).

        Parameters
        ----------
        X : array of shape (n, n, 1 + M)
            Stacked training kernels: ``X[:, :, 0]`` the (indefinite) kernel
            ``K``, ``X[:, :, 1:]`` the PSD base kernels (a list
            ``[K, K_1, ..., K_M]`` is accepted too).
        y : None
            Ignored; present for scikit-learn pipeline compatibility.

        Returns
        -------
        self : ConformalLinearCombination
            The fitted transformer (``weights_``, ``kernel_`` set).
        """
        eps = input_precision(X)
        K, base = check_stacked_kernel(X, "X")
        M = base.shape[2]
        solver = self._resolve_solver(M)
        base_mins = self._check_base_psd(base, eps)
        G, c, k2 = kernel_inner_products(K, base)
        solution = None
        scale = max(1.0, float(np.max(np.diag(G))))
        if solver is None:  # combination="average"
            beta = np.full(M, 1.0 / M)
            gap = float("nan")
        elif solver == "closed-form":
            beta = clc_closed_form(G, c)
            gap = simplex_optimality_gap(G / scale, c / scale, beta)
        else:
            form = ConformalLinearCombinationQP(G, c, k2)
            solution = solve(form, solver, **(self.solver_options or {}))
            beta = form.weights()
            gap = simplex_optimality_gap(G / scale, c / scale, beta)
            if self.polish:
                polished = _polish(G / scale, c / scale, beta)
                if polished is not None:
                    pgap = simplex_optimality_gap(G / scale, c / scale, polished)
                    if pgap <= gap:
                        beta, gap = polished, pgap
        Kc = np.tensordot(base, beta, axes=([2], [0]))
        Kc = 0.5 * (Kc + Kc.T)
        obj = clc_objective(G, c, k2, beta)
        self.weights_ = beta
        self.kernel_ = Kc
        self.objective_ = obj
        self.relative_error_ = float(np.sqrt(obj / k2)) if k2 > 0 else float("nan")
        self.gap_ = gap
        self.gram_ = G
        if shared_computations_active():   # the fold's shared spectrum of K (krein._cache)
            self.min_eigenvalue_ = Spectrum.from_kernel(K, check=False).min_eigenvalue
        else:
            self.min_eigenvalue_ = float(np.linalg.eigvalsh(K)[0])
        self.base_min_eigenvalues_ = base_mins
        self.solution_ = solution
        self.solver_ = solver
        self.n_kernels_ = M
        self.n_features_in_ = K.shape[0]
        return self

    def fit_transform(self, X, y=None):
        """Fit and return the corrected training kernel ``sum_m beta_m K_m``.

        Parameters
        ----------
        X : array of shape (n, n, 1 + M)
            Stacked training kernels, as in :meth:`fit`.
        y : None
            Ignored; present for scikit-learn pipeline compatibility.

        Returns
        -------
        ndarray of shape (n, n)
            A copy of ``kernel_``, the combination of the base kernels with the
            fitted weights ``weights_``.
        """
        return self.fit(X, y).kernel_.copy()

    def transform(self, X):
        """Combined kernel rows ``sum_m beta_m K_m(x, X_train)`` of new points.

        Parameters
        ----------
        X : array of shape (m, n, 1 + M)
            Stacked rows against the training points, as in ``fit`` (slice 0,
            the target's rows, is not used).

        Returns
        -------
        ndarray of shape (m, n)
            The base kernel rows combined with ``weights_``.

        Raises
        ------
        ValueError
            On a wrong shape or NaN/inf.
        """
        check_is_fitted(self, "weights_")
        _, base = check_stacked_rows(X, self.n_features_in_, self.n_kernels_ + 1, "X")
        return np.tensordot(base, self.weights_, axes=([2], [0]))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        tags.input_tags.three_d_array = True
        tags.input_tags.two_d_array = False
        return tags


def _polish(G, c, beta, drop=1e-7):
    """Exact minimizer of (15) on the support of ``beta``; None when it fails.

    Solves ``min b'Gb - 2c'b  s.t. 1'b = 1`` over the coordinates with
    ``beta_m > drop`` (the KKT system ``[2 G_SS, 1; 1', 0] [b; nu] = [2 c_S; 1]``,
    least squares if singular), dropping coordinates that come out negative and
    repeating (at most ``M`` times).  The caller compares Frank-Wolfe gaps.
    """
    M = beta.size
    support = np.flatnonzero(beta > drop)
    for _ in range(M):
        if support.size == 0:
            return None
        k = support.size
        A = np.zeros((k + 1, k + 1))
        A[:k, :k] = 2.0 * G[np.ix_(support, support)]
        A[:k, k] = A[k, :k] = 1.0
        rhs = np.concatenate([2.0 * c[support], [1.0]])
        sol = np.linalg.lstsq(A, rhs, rcond=None)[0]
        b = sol[:k]
        if not np.all(np.isfinite(b)):
            return None
        if np.all(b >= 0):
            out = np.zeros(M)
            out[support] = b
            return out / out.sum()
        support = support[b > 0]
    return None
