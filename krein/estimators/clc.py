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
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..combinations import check_stacked_kernel, check_stacked_rows
from ..formulations.clc import (ConformalLinearCombinationQP, clc_closed_form, clc_objective,
                                kernel_inner_products, simplex_optimality_gap)
from ..solvers import solve
from ..solvers.core import check_solver

__all__ = ["ConformalLinearCombination", "CLC_METHODS"]

#: Accepted values of ``ConformalLinearCombination(method=...)``.
CLC_METHODS = ("auto", "qp", "closed-form", "average")


class ConformalLinearCombination(TransformerMixin, BaseEstimator):
    """The convex combination of PSD kernels closest to an indefinite kernel (munoz eq. 15).

    ``fit`` solves::

        minimize_beta  || K - sum_m beta_m K_m ||_F^2   s.t.  beta on the simplex   (15)

    through the Gram matrix ``<K_m, K_l>_F`` (a QP in ``M`` variables, see
    :mod:`krein.formulations.clc`), and the corrected kernel is
    ``K* = sum_m beta_m K_m``, PSD because the ``K_m`` are (checked) and
    ``beta >= 0``.

    Parameters
    ----------
    method : {"auto", "qp", "closed-form", "average"}
        ``"qp"``: the CVXPY QP (:class:`~krein.formulations.ConformalLinearCombinationQP`)
        with ``solver``.  ``"closed-form"``: munoz eq. (16), two kernels only,
        clipped to the simplex (:func:`~krein.formulations.clc.clc_closed_form`).
        ``"auto"``: the closed form for ``M = 2``, the QP otherwise.
        ``"average"``: the AKM baseline ``beta_m = 1/M`` (ignores ``K``).
    solver : str
        Any installed CVXPY solver that takes QPs ("CLARABEL", "OSQP", "SCS",
        "ECOS", ...), for the QP.
    solver_options : dict, optional
        Passed to the solver.
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
        ``>= -psd_rtol * max(1, largest |eigenvalue|)``), which is what makes
        the combination PSD; ``ValueError`` otherwise.
    psd_rtol : float
        Relative tolerance of that check.

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
        ``max(1, max_m ||K_m||_F^2)``; NaN for ``"average"``.
    gram_ : ndarray of shape (M, M)
        ``<K_m, K_l>_F``.
    min_eigenvalue_ : float
        Least eigenvalue of the input ``K``.
    base_min_eigenvalues_ : ndarray of shape (M,)
        Least eigenvalue of each base kernel (NaN when ``check_psd=False``).
    solution_ : krein.solvers.Solution or None
        The QP's solution (None for the closed form and the average).
    method_ : str
        The method actually used (``"auto"`` resolved).
    n_kernels_ : int
        ``M``.
    n_features_in_ : int
        Number of training points ``n``.

    Raises
    ------
    ValueError
        In ``fit``: a non-stacked input, bad parameters, a base kernel that is
        not PSD, ``"closed-form"`` with ``M != 2``, an unknown solver.
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

    def __init__(self, method="auto", solver="CLARABEL", solver_options=None, polish=True,
                 check_psd=True, psd_rtol=1e-8):
        self.method = method
        self.solver = solver
        self.solver_options = solver_options
        self.polish = polish
        self.check_psd = check_psd
        self.psd_rtol = psd_rtol

    # ------------------------------------------------------------------ checks
    def _check_params(self, M):
        if self.method not in CLC_METHODS:
            raise ValueError(f"method must be one of {list(CLC_METHODS)}; got {self.method!r}")
        method = self.method
        if method == "auto":
            method = "closed-form" if M == 2 else "qp"
        if method == "closed-form" and M != 2:
            raise ValueError(f"method='closed-form' (munoz eq. 16) needs exactly two base "
                             f"kernels; got {M}: use method='qp'")
        if method == "qp":
            check_solver(self.solver)
        if self.solver_options is not None and not isinstance(self.solver_options, dict):
            raise ValueError(f"solver_options must be a dict or None; got {self.solver_options!r}")
        ok = isinstance(self.psd_rtol, numbers.Real) and not isinstance(self.psd_rtol, bool)
        if not ok or not (0 <= self.psd_rtol < 1):
            raise ValueError(f"psd_rtol must be a number in [0, 1); got {self.psd_rtol!r}")
        return method

    def _check_base_psd(self, base):
        M = base.shape[2]
        mins = np.full(M, np.nan)
        if not self.check_psd:
            return mins
        for m in range(M):
            lam = np.linalg.eigvalsh(base[:, :, m])
            mins[m] = lam[0]
            if lam[0] < -self.psd_rtol * max(1.0, float(np.max(np.abs(lam)))):
                raise ValueError(
                    f"base kernel {m + 1} (slice {m + 1} of X) is not PSD: least eigenvalue "
                    f"{lam[0]:.4g}; the combination of munoz eq. (15) is PSD only for PSD base "
                    "kernels (or pass check_psd=False)")
        return mins

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None):
        """Find the weights ``beta`` of munoz eq. (15) (or (16), or the AKM average).

        Parameters
        ----------
        X : array of shape (n, n, 1 + M)
            Stacked training kernels: ``X[:, :, 0]`` the (indefinite) kernel
            ``K``, ``X[:, :, 1:]`` the PSD base kernels (a list
            ``[K, K_1, ..., K_M]`` is accepted too).
        y : ignored

        Returns
        -------
        self
        """
        for key in [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]:
            delattr(self, key)
        K, base = check_stacked_kernel(X, "X")
        M = base.shape[2]
        method = self._check_params(M)
        base_mins = self._check_base_psd(base)
        G, c, k2 = kernel_inner_products(K, base)
        solution = None
        scale = max(1.0, float(np.max(np.diag(G))))
        if method == "average":
            beta = np.full(M, 1.0 / M)
            gap = float("nan")
        elif method == "closed-form":
            beta = clc_closed_form(G, c)
            gap = simplex_optimality_gap(G / scale, c / scale, beta)
        else:
            form = ConformalLinearCombinationQP(G, c, k2)
            solution = solve(form, self.solver, **(self.solver_options or {}))
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
        self.min_eigenvalue_ = float(np.linalg.eigvalsh(K)[0])
        self.base_min_eigenvalues_ = base_mins
        self.solution_ = solution
        self.method_ = method
        self.n_kernels_ = M
        self.n_features_in_ = K.shape[0]
        return self

    def fit_transform(self, X, y=None):
        """Fit and return the corrected training kernel ``sum_m beta_m K_m``, shape (n, n)."""
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
