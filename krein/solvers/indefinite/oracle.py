"""The O(n^2) oracle of the IndefiniteSVM objective (Luss & d'Aspremont, eq. 7).

With ``u = y * alpha`` (or ``u = alpha`` for SVR / one-class) and
``X(u) = K0 + u u' / (4 rho)``, the inner minimum of luss eq. (4) is attained at
the proxy kernel ``K* = X_+`` (Theorem 1, eq. 5) and equals::

    g(u) = min_{K >= 0} -1/2 u'K u + rho ||K - K0||_F^2
         = -u'K0 u / 2 - |u|^4 / (16 rho) + rho * sum_i min(0, lam_i(X))^2,

which is concave and, ``K*`` being unique, differentiable with
``grad g(u) = -K* u``.  In the eigenbasis ``K0 = Q diag(lam) Q'`` (computed once)
``X = Q (diag(lam) + z z' / (4 rho)) Q'`` with ``z = Q'u``, so one evaluation needs
the *negative* roots of a secular equation (:mod:`krein.solvers.secular`) and
their eigenvectors ``(diag(lam) - mu)^-1 z`` only through the vector
``X_- z``: two matrix-vector products with ``Q`` plus O(n k) work per iteration of
the secular solver for the ``k`` roots on the smaller side of the spectrum (all
roots solved together, :func:`krein.solvers.secular.secular_apply`; the
eigenvectors never formed).  No ``n x n`` eigensolve and no matrix product per
iteration (the MATLAB original spends an eigen-update plus an ``n x n`` product).

Componentwise penalties (luss §4.4, Theorem 3): with ``H = rho h h'`` the
penalty ``sum_ij H_ij (K_ij - K0_ij)^2`` becomes ``rho ||K' - K0'||_F^2`` in the
variables ``K' = W^1/2 K W^1/2``, ``K0' = W^1/2 K0 W^1/2``, ``u' = W^-1/2 u``
(``W = diag(h)``), so the same oracle applies to ``(K0', u')`` and
``K* = W^-1/2 (K0' + u'u''/(4 rho))_+ W^-1/2`` (eq. 24).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import null_space

from ..._cache import shared_eigh
from ..._validation import check_positive, check_square_kernel
from ..secular import rank_one_eig, secular_apply, secular_roots, shifted_poles

__all__ = ["ProxyKernelOracle", "ProxyEval"]

SECULAR_METHODS = ("vectorized", "lapack")


def _negative(mu):
    return np.minimum(mu, 0.0)


def _positive(mu):
    return np.maximum(mu, 0.0)


@dataclass
class ProxyEval:
    """One oracle evaluation at ``u``.

    The fields are the constructor's parameters and the attributes.

    Parameters
    ----------
    value : float
        ``g(u)`` (inner minimum of luss eq. 4 for this ``u``).
    grad : ndarray of shape (n,)
        ``grad g(u) = -K* u``.
    Ku : ndarray of shape (n,)
        ``K* u``.
    uKu : float
        ``u'K* u``.
    dist2 : float
        ``||K* - K0||_F^2`` (weighted by ``h h'`` when weights are used).
    n_negative : int
        Number of negative eigenvalues of ``X(u)`` (clipped by the projection).
    """

    value: float
    grad: np.ndarray
    Ku: np.ndarray
    uKu: float
    dist2: float
    n_negative: int


class ProxyKernelOracle:
    """Value and gradient of ``g(u)`` from one eigendecomposition of ``K0``.

    Parameters
    ----------
    K0 : array of shape (n, n)
        Symmetric (possibly indefinite) kernel.
    rho : float > 0
        Penalty on ``||K - K0||_F^2`` (luss eq. 3).
    weights : array of shape (n,), optional
        ``h > 0`` of a rank-one componentwise penalty ``H = rho h h'`` (luss
        Theorem 3); default all ones (Theorem 1).
    check : bool
        Validate ``K0`` (square, symmetric, finite).
    secular : {"vectorized", "lapack"}
        Root finder of the secular equation (:func:`krein.solvers.secular.secular_apply`):
        ``"vectorized"`` (default) solves every root at once in NumPy and forms the
        eigenvector products block by block; ``"lapack"`` calls ``dlasd4`` per root and
        forms the dense ``(k, m)`` reciprocals (the reference, slower when ``X(u)`` has
        hundreds of eigenvalues on its smaller side).

    Attributes
    ----------
    eigenvalues : ndarray of shape (n,)
        Ascending eigenvalues of ``K0'`` (``K0`` itself without weights).
    eigenvectors : ndarray of shape (n, n)
    rho : float
    n : int
    secular : str
        The root finder in use (may be switched between calls, e.g. to time both).
    n_evals : int
        Evaluations asked of :meth:`evaluate` so far: the oracle counts its own
        work (:meth:`constant_term` is not counted).

    Raises
    ------
    ValueError
        For a bad ``K0``, ``rho <= 0``, non-positive weights or an unknown ``secular``.

    References
    ----------
    Luss & d'Aspremont (2009), eqs. (5), (7), (11), §3.1, Theorem 3 (eq. 24).
    """

    def __init__(self, K0, rho, weights=None, check=True, secular="vectorized"):
        if secular not in SECULAR_METHODS:
            raise ValueError(f"secular must be one of {SECULAR_METHODS}; got {secular!r}")
        self.secular = secular
        if check:
            K0 = check_square_kernel(K0, "K0")
        K0 = np.asarray(K0, dtype=float)
        self.rho = check_positive(rho, "rho")
        self.n = K0.shape[0]
        if weights is None:
            self._sqrt_h = None
            Kt = K0
        else:
            h = np.asarray(weights, dtype=float).ravel()
            if h.shape != (self.n,) or not np.all(np.isfinite(h)) or np.any(h <= 0):
                raise ValueError(f"weights must be a positive finite array of shape ({self.n},)")
            self._sqrt_h = np.sqrt(h)
            Kt = K0 * np.outer(self._sqrt_h, self._sqrt_h)
        self.K0 = K0
        lam, Q = shared_eigh(Kt)   # one eigh per kernel and fold when shared (krein._cache)
        self.eigenvalues = lam
        self.eigenvectors = Q
        self.sigma = 1.0 / (4.0 * self.rho)
        self.n_evals = 0
        self._g0 = None

    # ------------------------------------------------------------------ helpers
    def _to_z(self, u):
        u = np.asarray(u, dtype=float)
        if u.shape != (self.n,):
            raise ValueError(f"u must have shape ({self.n},); got {u.shape}")
        ut = u if self._sqrt_h is None else u / self._sqrt_h
        return self.eigenvectors.T @ ut

    def _from_z(self, v):
        out = self.eigenvectors @ v
        return out if self._sqrt_h is None else out / self._sqrt_h

    def _negative_part_z(self, z):
        """``X_- z`` in eigen coordinates, ``||X_-||_F^2`` and the count of negatives.

        Only one side of the spectrum is solved for: the negative roots of the
        secular equation when they are fewer than the non-negative ones, else the
        positive roots with ``X_- = X - X_+`` and
        ``sum(mu_-^2) = ||X||_F^2 - sum(mu_+^2)`` (trace identities of the
        reduced matrix), so an evaluation costs ``min(k_-, k_+)`` roots.
        """
        lam = self.eigenvalues
        eig = rank_one_eig(lam, z, self.sigma)
        out = np.zeros_like(z)
        tiny = eig.group < 0
        out[tiny] = np.minimum(lam[tiny], 0.0) * z[tiny]
        dv = eig.deflated_values
        neg2 = float(np.sum(np.minimum(dv, 0.0) ** 2))
        n_neg = int(np.sum(dv < 0))
        p = eig.poles
        m = p.size
        if m == 0:
            return out, neg2, n_neg
        k = int(np.searchsorted(p, 0.0, side="left"))  # only roots i < k can be negative
        if k == 0:
            return out, neg2, n_neg
        live = ~tiny
        gl = eig.group[live]
        negative_side = k <= m - k + 1
        which = np.arange(k) if negative_side else np.arange(k - 1, m)
        # s_j = sum_i g(mu_i) / (N2_i (p_j - mu_i)) over the roots of the solved side, with
        # g(mu) = mu on that side of 0 and 0 on the other (only root k - 1 can be either)
        side = _negative if negative_side else _positive
        mu, s = secular_apply(eig, which, side, method=self.secular)
        sel = (mu < 0) if negative_side else (mu >= 0)
        mu_s = mu[sel]
        side_z = -(z[live] / eig.rr) * s[gl]        # X_- z or X_+ z on the live part
        if negative_side:
            out[live] = side_z
            neg2 += float(np.sum(mu_s * mu_s))
            n_neg += int(mu_s.size)
        else:
            zl = z[live]
            out[live] = lam[live] * zl + (self.sigma * float(z @ z)) * zl - side_z
            zeta = eig.zeta
            all2 = float(np.sum(p * p) + 2.0 * eig.rr * np.sum(zeta * zeta * p) + eig.rr ** 2)
            neg2 += max(all2 - float(np.sum(mu_s * mu_s)), 0.0)
            n_neg += int(m - mu_s.size)
        return out, neg2, n_neg

    # ------------------------------------------------------------------ oracle
    def evaluate(self, u):
        """Value and gradient of ``g`` at ``u`` in O(n^2) (luss eq. 7 and §3.1).

        Parameters
        ----------
        u : array of shape (n,)
            The point of luss eq. (4) (``y * alpha`` for svc).

        Returns
        -------
        ProxyEval
            ``g(u)``, its gradient and the quantities of the proxy kernel ``K*(u)``.
        """
        self.n_evals += 1
        return self._evaluate(u)

    def constant_term(self):
        """``g(0) = rho ||(K0)_-||_F^2``: the constant part of the objective (7).

        The value of :meth:`evaluate` at ``u = 0``, computed once and cached; not
        counted in :attr:`n_evals` (it is the reference of the relative gap, not an
        iterate of an algorithm).

        Returns
        -------
        float
            ``g(0)``.
        """
        if self._g0 is None:
            self._g0 = float(self._evaluate(np.zeros(self.n)).value)
        return self._g0

    def _evaluate(self, u):
        """:meth:`evaluate` without counting it."""
        z = self._to_z(u)
        lam = self.eigenvalues
        Xm_z, neg2, n_neg = self._negative_part_z(z)
        zz = float(z @ z)
        zLz = float(z @ (lam * z))
        zXz = float(z @ Xm_z)
        s = self.sigma
        Kz = lam * z + (s * zz) * z - Xm_z
        Ku = self._from_z(Kz)
        value = -0.5 * zLz - zz * zz / (16.0 * self.rho) + self.rho * neg2
        uKu = zLz + s * zz * zz - zXz
        dist2 = max(s * s * zz * zz - 2.0 * s * zXz + neg2, 0.0)
        return ProxyEval(value, -Ku, Ku, uKu, dist2, n_neg)

    def eigendecomposition(self, u):
        """Full eigendecomposition of ``X(u)`` in the eigenbasis of ``K0'``.

        All roots of the secular equation, with the weights recomputed by the
        Loewner formula (Gu & Eisenstat 1994) so that the eigenvectors
        ``(P - mu_j)^-1 zhat`` are orthogonal to working precision.

        Parameters
        ----------
        u : array of shape (n,)
            The point of luss eq. (4) (``y * alpha`` for svc).

        Returns
        -------
        mu : ndarray of shape (n,)
            Eigenvalues of ``X(u)`` (unsorted).
        W : ndarray of shape (n, n)
            Orthonormal eigenvectors in eigen coordinates: ``X' = Q W diag(mu) W' Q'``.
        """
        z = self._to_z(u)
        lam = self.eigenvalues
        n = self.n
        eig = rank_one_eig(lam, z, self.sigma)
        cols, vals = [], []
        tiny = np.flatnonzero(eig.group < 0)
        for i in tiny:
            e = np.zeros(n)
            e[i] = 1.0
            cols.append(e)
            vals.append(lam[i])
        m = eig.keep.size
        if m:
            nz = np.linalg.norm(z)
            zf = z / nz
            # merged groups: complement of the group direction keeps the pole
            for g in range(m):
                members = np.flatnonzero(eig.group == g)
                if members.size > 1:
                    B = null_space(zf[members][None, :])
                    for c in range(B.shape[1]):
                        e = np.zeros(n)
                        e[members] = B[:, c]
                        cols.append(e)
                        vals.append(eig.poles[g])
            mu, delta = secular_roots(eig, np.arange(m), method=self.secular)
            # delta[j, l] = p_l - mu_j
            p = eig.poles
            # Loewner: zhat_l^2 = prod_j (mu_j - p_l) / (rr prod_{k != l} (p_k - p_l)), as sums
            # of logs accumulated over row blocks (no m x m temporaries); the pole differences
            # are those of the poles the roots were solved on: p itself (dlaed3), or, for
            # dlasd4, its rounded D_k^2 - D_l^2 = (D_k - D_l)(D_k + D_l)
            D = shifted_poles(p) if self.secular == "lapack" else None
            logabs = np.zeros(m)
            step = max(1, 2**18 // max(m, 1))
            with np.errstate(divide="ignore", invalid="ignore"):
                for a in range(0, m, step):
                    blk = slice(a, min(a + step, m))
                    logabs += np.sum(np.log(np.abs(delta[blk])), axis=0)
                    if D is None:
                        dd = p[None, :] - p[blk, None]
                    else:
                        dd = (D[None, :] - D[blk, None]) * (D[None, :] + D[blk, None])
                    dd[np.arange(dd.shape[0]), np.arange(a, blk.stop)] = 1.0
                    logabs[blk] -= np.sum(np.log(np.abs(dd)), axis=1)
            zhat = np.sqrt(np.exp(logabs) / eig.rr) * np.sign(eig.zeta)
            # eigenvector j of the reduced matrix: zhat / (p - mu_j), normalized (in place)
            np.divide(zhat[None, :], delta, out=delta)
            # scaled by the largest entry first: 1/delta overflows the squares of the norm
            # when a root sits within 1e-154 of its pole (z ~ 1e-92, found by Hypothesis)
            delta /= np.max(np.abs(delta), axis=1)[:, None]
            delta /= np.linalg.norm(delta, axis=1)[:, None]
            Wr = delta.T                                   # (m, m) view: column j
            live = np.flatnonzero(eig.group >= 0)
            gl = eig.group[live]
            W = np.zeros((n, m + len(cols)))
            if live.size == m:       # no merged groups: one row per pole, up to the sign of z
                delta *= np.sign(z[live])[None, :]        # row l of Wr = column l of delta
                W[live, :m] = Wr
            else:                    # expand each group's component along the group direction
                gnorm = np.sqrt(np.bincount(gl, weights=z[live] ** 2, minlength=m))[gl]
                W[live, :m] = Wr[gl] * (z[live] / gnorm)[:, None]
            del delta, Wr
            for c, col in enumerate(cols):
                W[:, m + c] = col
            vals = np.concatenate([mu, np.asarray(vals, dtype=float)])
        else:
            W = np.column_stack(cols) if cols else np.zeros((n, 0))
            vals = np.asarray(vals, dtype=float)
        return vals, W

    def proxy_factor(self, u, tol=0.0):
        """Factor ``L`` with ``K* = L L'`` (columns for eigenvalues above ``tol``).

        Parameters
        ----------
        u : array of shape (n,)
            The point of luss eq. (4) (``y * alpha`` for svc).
        tol : float
            Eigenvalues of ``X(u)`` at or below ``tol`` are dropped.

        Returns
        -------
        L : ndarray of shape (n, r)
            Factor of the proxy kernel, ``K*(u) = L L'`` (``r`` kept eigenvalues).
        """
        mu, W = self.eigendecomposition(u)
        pos = mu > tol
        B = W[:, pos]
        del W
        B *= np.sqrt(mu[pos])
        L = self.eigenvectors @ B
        del B
        if self._sqrt_h is not None:
            L /= self._sqrt_h[:, None]
        return L

    def proxy_kernel(self, u):
        """The proxy kernel ``K* = X(u)_+`` (luss Theorem 1, eq. 5; eq. 24 with weights).

        Parameters
        ----------
        u : array of shape (n,)
            The point of luss eq. (4) (``y * alpha`` for svc).

        Returns
        -------
        ndarray of shape (n, n)
            ``L L'`` for the factor of :meth:`proxy_factor`: PSD and symmetric up to
            round-off (not re-symmetrized, to avoid another ``n x n`` temporary).
        """
        L = self.proxy_factor(u)
        return L @ L.T
