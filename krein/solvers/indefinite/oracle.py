"""The O(n^2) oracle of the IndefiniteSVM objective (Luss & d'Aspremont, eq. 7).

With ``u = y * alpha`` (or ``u = alpha`` for SVR / one-class) and
``X(u) = K0 + u u' / (4 rho)``, the inner minimum of luss eq. (4) is attained at
the proxy kernel ``K* = X_+`` (Theorem 1, eq. 5) and equals::

    g(u) = min_{K >= 0} -1/2 u'K u + rho ||K - K0||_F^2
         = -u'K0 u / 2 - |u|^4 / (16 rho) + rho * sum_i min(0, lam_i(X))^2,

which is concave and, ``K*`` being unique, differentiable with
``grad g(u) = -K* u``.  In the eigenbasis ``K0 = Q diag(lam) Q'`` (computed once)
``X = Q (diag(lam) + z z' / (4 rho)) Q'`` with ``z = Q'u``, so one evaluation needs
two matrix-vector products with ``Q`` and two spectral functions of the
diagonal-plus-rank-one matrix ``A = diag(lam) + r z z'``: the vector ``A_- z`` and
the number ``||A_-||_F^2``.  Two ways to get them, one answer:

* ``secular="rational"`` (default): no eigenvalue of ``A`` is computed.  With
  ``A_- = (A - A sign(A)) / 2`` and the integral
  ``sign(x) = (2/pi) int_0^inf x t / (x^2 + t^2) dt/t``, the trapezoidal rule in
  ``log t`` (step :data:`SIGN_STEP`) gives ``sign(x) = sum_j c_j t_j x / (x^2 + t_j^2)``
  to ~1e-17 for ``|x|`` in ``[1e-17, 1e17] max|lam|`` (the integrand is a ``sech``
  of ``log t - log|x|``, analytic in a strip of half-width pi/2: the rule's error is
  ``~2 exp(-pi^2 / h)``, Trefethen & Weideman 2014, SIAM Review 56(3), Thm. 5.1).
  Each node needs one shifted resolvent ``(A - i t_j)^-1 z``, which for a
  diagonal-plus-rank-one matrix is Sherman-Morrison,
  ``(D - i t)^-1 z / beta(i t)`` with ``beta(s) = 1 + r z'(D - s)^-1 z``, and the
  trace ``tr(A^2 sign A) = sum mu |mu|`` follows from the rank-one trace identity
  ``tr f(A) - tr f(D) = (1/2 pi i) oint f(s) (log beta)'(s) ds`` by residues at
  ``s = +-i t_j``.  The matrices ``1 / (lam_i^2 + t_j^2)`` depend only on ``K0`` and
  are cached, so an evaluation costs the two products with ``Q`` plus three passes
  over a cached ``(N, n)`` array (``N`` ~ 480 nodes): the same on every spectrum
  (clustered, numerically zero or half negative eigenvalues) and for every scale.
* ``secular="vectorized"`` / ``"lapack"``: the *negative* roots of the secular
  equation (:mod:`krein.solvers.secular`) and their eigenvectors
  ``(diag(lam) - mu)^-1 z`` through ``X_- z``: O(n k) work per iteration of the
  secular solver for the ``k`` roots on the smaller side of the spectrum
  (:func:`krein.solvers.secular.secular_apply`); the reference of the rational path,
  and the path of :meth:`ProxyKernelOracle.eigendecomposition` (the libsvm gap checks)
  above :data:`DENSE_EIGH_MAX_N`; at or below it (the one-vs-one pairs of many
  classes) one dense ``eigh`` of ``diag(lam) + z z'/(4 rho)`` gives
  the same eigenpairs in a fraction of the secular solver's fixed cost.

No ``n x n`` eigensolve and no matrix product per iteration (the MATLAB original
spends an eigen-update plus an ``n x n`` product).

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

__all__ = ["ProxyKernelOracle", "ProxyEval", "DENSE_EIGH_MAX_N"]

SECULAR_METHODS = ("rational", "vectorized", "lapack")

#: Step ``h`` of the trapezoidal rule in ``log t`` of the sign function (module
#: docstring): its error ``~2 exp(-pi^2 / h)`` is 1.4e-17 at 0.25, below round-off.
SIGN_STEP = 0.25

#: The nodes span ``t`` in ``[SIGN_LOW s, SIGN_HIGH (s + rr)]`` (``s = max|lam|``,
#: ``rr = r |z|^2`` the norm of the update): the two truncated tails add
#: ``(2/pi) (t_low / |x| + |x| / t_high)``, below 1e-17 for ``|x|`` in
#: ``[1e-17 s, s + rr]``; smaller ``|x|`` (numerically zero eigenvalues) get
#: ``|sign| <= 1``, an error below ``1e-17 s`` in ``|x|``.
SIGN_LOW, SIGN_HIGH = 1e-34, 1e17

#: Largest ``n`` at which :meth:`ProxyKernelOracle.eigendecomposition` of the default
#: ``"rational"`` oracle takes one dense ``numpy.linalg.eigh`` of the reduced matrix
#: ``diag(lam) + z z'/(4 rho)`` instead of all roots of the secular equation (the same
#: eigenpairs; the secular solver's fixed cost per call, ~10 ms, dominates below it).
#: Measured crossover, one BLAS thread: between n = 300 and 400 (``python
#: benchmarks/indefinite.py --small``; the figures are in ``benchmarks/README.md``);
#: far below the n = 2000 of that benchmark's part 1, which keeps the secular paths.
DENSE_EIGH_MAX_N = 300

#: Largest ``r |z|^2 / max|lam|`` of the rational path: its products reach
#: ``(rr / SIGN_LOW)^2``, finite below ~1e135; beyond, the secular path is used.
RATIONAL_MAX_UPDATE = 1e100


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
    secular : {"rational", "vectorized", "lapack"}
        How :meth:`evaluate` gets ``X_- z`` and ``||X_-||_F^2`` (module docstring):
        ``"rational"`` (default) by the trapezoidal rule of the sign function on
        shifted Sherman-Morrison resolvents, no eigenvalue of ``X`` computed (cost
        independent of the spectrum); ``"vectorized"`` by the roots of the secular
        equation solved together in NumPy
        (:func:`krein.solvers.secular.secular_apply`); ``"lapack"`` by one call of
        ``dlasd4`` per root and the dense ``(k, m)`` reciprocals (the reference).
        :meth:`eigendecomposition` uses the secular solver (``"vectorized"`` for
        ``"rational"``), except that ``"rational"`` takes one dense ``eigh`` of the
        reduced matrix when ``n <= DENSE_EIGH_MAX_N`` (the same eigenpairs, faster there).

    Attributes
    ----------
    eigenvalues : ndarray of shape (n,)
        Ascending eigenvalues of ``K0'`` (``K0`` itself without weights).
    eigenvectors : ndarray of shape (n, n)
    rho : float
    n : int
    secular : str
        The path in use (may be switched between calls, e.g. to time them).
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

    def __init__(self, K0, rho, weights=None, check=True, secular="rational"):
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
        self._rule = _SignRule(lam)

    @classmethod
    def from_spectrum(cls, eigenvalues, rho, secular="rational"):
        """The oracle of ``diag(eigenvalues)``: ``u`` given in the eigen coordinates of ``K0``.

        For a kernel whose eigendecomposition is known without an ``eigh`` (the reduced
        ``(r + 1) x (r + 1)`` problem of the low-rank oracle,
        :class:`~krein.solvers.indefinite.lowrank.LowRankProxyOracle`): the
        eigenvectors are the identity, so :meth:`evaluate` takes and returns vectors
        in those coordinates and costs O(N m) for ``m`` eigenvalues (``N`` ~ 480 nodes
        of the sign rule) and no product with an eigenvector matrix.

        Parameters
        ----------
        eigenvalues : array of shape (m,)
            The diagonal, ascending (the secular solver's order).
        rho : float > 0
            Penalty on ``||K - K0||_F^2`` (luss eq. 3).
        secular : {"rational", "vectorized", "lapack"}
            As in the constructor.

        Returns
        -------
        ProxyKernelOracle
            With ``eigenvectors = None`` (the identity) and ``K0 = None``.

        Raises
        ------
        ValueError
            Eigenvalues not finite or not ascending, ``rho <= 0``, an unknown ``secular``.
        """
        if secular not in SECULAR_METHODS:
            raise ValueError(f"secular must be one of {SECULAR_METHODS}; got {secular!r}")
        lam = np.asarray(eigenvalues, dtype=float).ravel()
        if not np.all(np.isfinite(lam)) or np.any(np.diff(lam) < 0):
            raise ValueError("eigenvalues must be finite and ascending")
        self = cls.__new__(cls)
        self.secular = secular
        self.rho = check_positive(rho, "rho")
        self.n = lam.size
        self._sqrt_h = None
        self.K0 = None
        self.eigenvalues = lam
        self.eigenvectors = None
        self.sigma = 1.0 / (4.0 * self.rho)
        self.n_evals = 0
        self._g0 = None
        self._rule = _SignRule(lam)
        return self

    # ------------------------------------------------------------------ helpers
    def _to_z(self, u):
        u = np.asarray(u, dtype=float)
        if u.shape != (self.n,):
            raise ValueError(f"u must have shape ({self.n},); got {u.shape}")
        ut = u if self._sqrt_h is None else u / self._sqrt_h
        if self.eigenvectors is None:          # from_spectrum: already eigen coordinates
            return ut.copy()
        return self.eigenvectors.T @ ut

    def _from_z(self, v):
        if self.eigenvectors is None:
            return v
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
        if self.secular == "rational":
            got = self._rule.negative_part(z, self.sigma)
            if got is not None:
                return got
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
        method = "lapack" if self.secular == "lapack" else "vectorized"
        mu, s = secular_apply(eig, which, side, method=method)
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
        ``(P - mu_j)^-1 zhat`` are orthogonal to working precision.  For
        ``secular="rational"`` and ``n <= DENSE_EIGH_MAX_N`` the same eigenpairs come
        from one dense ``numpy.linalg.eigh`` of the reduced matrix
        ``diag(lam) + z z'/(4 rho)`` (``z = Q'u``): at such ``n`` the secular
        solver's fixed cost per call exceeds the ``O(n^3)`` of LAPACK (measured
        crossover, :data:`DENSE_EIGH_MAX_N`).

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
        if self.secular == "rational" and n <= DENSE_EIGH_MAX_N:
            A = np.diag(lam)
            A += self.sigma * np.outer(z, z)      # exactly symmetric (z_i z_j = z_j z_i)
            return np.linalg.eigh(A)
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
            method = "vectorized" if self.secular == "rational" else self.secular
            mu, delta = secular_roots(eig, np.arange(m), method=method)
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

    def proxy_operator(self, u):
        """The product ``v -> K*(u) v`` with the proxy kernel, without forming it.

        ``K* = W^-1/2 Q A_+ Q' W^-1/2`` with ``A = diag(lam) + z z'/(4 rho)``,
        ``z = Q' W^-1/2 u`` (luss Theorem 1, eq. 5; eq. 24 with weights), and
        ``A_+ x = (y + sign(A) y) / 2`` for ``y = A x``.  On the default
        ``"rational"`` path above :data:`DENSE_EIGH_MAX_N`, ``sign(A) y`` is the
        trapezoidal rule of the module docstring applied to a general vector: each
        node's resolvent is Sherman-Morrison,
        ``(A - i t)^-1 y = (D - i t)^-1 y - r (D - i t)^-1 z (z'(D - i t)^-1 y) / beta(i t)``,
        so one product costs the two products with ``Q`` and two passes over the
        cached node arrays, as much as one :meth:`evaluate` (and no eigenvalue of
        ``A``).  Elsewhere (other paths, small ``n``, an update too large for the
        rule) the factor of :meth:`proxy_factor` is formed once and applied,
        ``O(n r)`` per product.

        Parameters
        ----------
        u : array of shape (n,)
            The point of luss eq. (4) (``y * alpha`` for svc) that defines ``K*``.

        Returns
        -------
        callable
            ``apply(v)`` for ``v`` of shape (n,): ``K*(u) v``, shape (n,).  Up to
            round-off the operator is symmetric positive semidefinite (its
            eigenvalues are ``(1 + s(mu)) mu / 2`` for the rule's ``s(mu)`` of the sign,
            of the sign of ``mu`` and within ``1e-17 max|lam|`` of ``mu_+``).
        """
        z = self._to_z(u)
        op = None
        if self.secular == "rational" and self.n > DENSE_EIGH_MAX_N:
            op = self._rule.positive_operator(z, self.sigma)
        if op is None:
            L = self.proxy_factor(u)
            return lambda v: L @ (L.T @ np.asarray(v, dtype=float))
        return lambda v: self._from_z(op(self._to_z(v)))

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


class _SignRule:
    """``A_- z`` and ``||A_-||_F^2`` of ``A = diag(lam) + r z z'`` without its eigenvalues.

    The trapezoidal rule of the module docstring: ``sign(A) z`` from the shifted
    resolvents ``(A - i t_j)^-1 z = (D - i t_j)^-1 z / beta_j`` (Sherman-Morrison),
    ``sum mu |mu| = tr(A^2 sign A)`` from ``tr(D^2 sign D)`` plus, at each node, the
    rank-one change of ``tr phi_t`` for ``phi_t(x) = x^3 / (x^2 + t^2)``::

        tr phi_t(A) - tr phi_t(D) = Re[(rr beta(s) - s^2 beta'(s)) / beta(s)],  s = i t,

    (residues of ``phi_t(s) (log beta)'(s)`` at ``s = +-i t``), whose numerator is
    written as ``r (rr sum z^2 a + 2 sum z^2 d a - sum z^2 d^2 a^2)`` with
    ``a = 1 / (d - s)``: the two ``rr`` of the first form cancel exactly, none are
    left to cancel in rounding when ``t >> |lam|``.  Everything is in units of
    ``s = max|lam|`` (so that ``t^2`` neither overflows nor underflows on kernels
    of any scale), and the nodes lie on a fixed lattice ``t_k = exp(h k)``, so that
    the matrices ``q = 1 / (lam^2 + t^2)`` and ``q^2`` of the nodes are computed once
    per oracle (and again only when ``|u|`` grows past the nodes' top): ``2 N n``
    doubles beside the ``n x n`` eigenvectors (``N`` ~ 480; 15 MB at n = 2000).

    Parameters
    ----------
    lam : ndarray of shape (n,)
        Eigenvalues of ``K0`` (the diagonal ``D``).

    References
    ----------
    Trefethen & Weideman (2014), "The exponentially convergent trapezoidal rule",
    SIAM Review 56(3), Thm. 5.1 (the rule's error); Golub (1973), SIAM Review 15
    (``det(D + r z z' - s) / det(D - s) = beta(s)``); Higham (2008), *Functions of
    Matrices*, §5 (``A_- = (A - A sign A) / 2``).
    """

    def __init__(self, lam):
        self.lam = lam
        self.scale = float(np.max(np.abs(lam))) if lam.size else 0.0
        self.d = lam / self.scale if self.scale > 0 else lam
        self.k_lo = int(np.floor(np.log(SIGN_LOW) / SIGN_STEP))
        self.k_hi = None

    def _nodes(self, top):
        """Nodes covering ``|x| <= top`` (units of ``scale``) and their cached ``q, q^2``."""
        k_hi = int(np.ceil(np.log(SIGN_HIGH * min(top, 1e130)) / SIGN_STEP))
        if self.k_hi is None or k_hi > self.k_hi:
            self.k_hi = k_hi + 8                     # room for |u| to grow a little
            t = np.exp(SIGN_STEP * np.arange(self.k_lo, self.k_hi + 1))
            q = 1.0 / (self.d[None, :] ** 2 + (t * t)[:, None])
            self.t, self.q, self.q2 = t, q, q * q
        return self.t, self.q, self.q2

    def positive_operator(self, z, r):
        """``x -> A_+ x`` for ``A = diag(lam) + r z z'`` by the same rule.

        ``A_+ x = (y + sign(A) y) / 2`` with ``y = A x``; the rule's
        ``sign(A) y = sum_j c_j Re (A - i t_j)^-1 y`` with the Sherman-Morrison
        resolvent ``(D - i t)^-1 y - rr a (z'(a y)) / beta(i t)``, ``a = 1 / (d - i t)``
        (units of ``max|lam|``, ``z`` normalized, as in :meth:`negative_part`).  The
        denominators ``beta(i t_j)`` depend on ``z`` only and are computed here once.

        Parameters
        ----------
        z : ndarray of shape (n,)
            The update vector (``Q'u``).
        r : float > 0
            The update weight (``1 / (4 rho)``).

        Returns
        -------
        callable or None
            ``apply(x)``: ``A_+ x`` for ``x`` of shape (n,); None when
            ``r |z|^2 > RATIONAL_MAX_UPDATE max|lam|`` (as :meth:`negative_part`).
        """
        lam = self.lam
        z = np.asarray(z, dtype=float)
        zz = float(z @ z)
        if self.scale == 0.0:                        # A = r z z'
            return lambda x: (r * float(z @ x)) * z
        if r * zz == 0.0:                            # A = D
            pos = np.maximum(lam, 0.0)
            return lambda x: pos * x
        d, s = self.d, self.scale
        rr = r * zz / s
        if rr > RATIONAL_MAX_UPDATE:
            return None
        zh = z / np.sqrt(zz)
        t, q, _ = self._nodes(1.0 + rr)
        c = (2.0 * SIGN_STEP / np.pi) * t
        M = q @ np.column_stack([zh * zh, zh * zh * d])
        beta = 1.0 + rr * (M[:, 1] + 1j * t * M[:, 0])
        cb = c / beta
        sD = d * (c @ q)                             # the rule's sign of D

        def apply(x):
            y = d * x + (rr * float(zh @ x)) * zh    # (A / s) x
            zy = zh * y
            P = q @ np.column_stack([zy * d, zy])
            gam = cb * (P[:, 0] + 1j * t * P[:, 1])
            G = np.vstack([gam.real, t * gam.imag]) @ q
            sy = sD * y - rr * zh * (d * G[0] - G[1])
            return (0.5 * s) * (y + sy)

        return apply

    def negative_part(self, z, r):
        """``A_- z``, ``||A_-||_F^2`` and the number of negative eigenvalues of ``A``.

        Parameters
        ----------
        z : ndarray of shape (n,)
            The update vector (``Q'u``).
        r : float > 0
            The update weight (``1 / (4 rho)``).

        Returns
        -------
        Xm_z : ndarray of shape (n,)
            ``A_- z``.
        neg2 : float
            ``sum min(mu, 0)^2`` over the eigenvalues ``mu`` of ``A``.
        n_negative : int
            Number of negative eigenvalues (inertia: ``det A / det D = beta(0)``).

        Returns None instead when ``r |z|^2 > RATIONAL_MAX_UPDATE max|lam|`` (the
        products of the rule would overflow; the secular path, which then deflates
        almost every pole as a tiny component, is cheap there).
        """
        lam = self.lam
        z2 = z * z
        zz = float(np.sum(z2))
        if self.scale == 0.0 or r * zz == 0.0:       # A = r z z' (PSD) or A = D: exact
            neg = np.minimum(lam, 0.0)
            return neg * z, float(neg @ neg), int(np.sum(lam < 0))
        live = z2 > 0                                # (a pole with z_i = 0 stays put)
        with np.errstate(divide="ignore", invalid="ignore"):
            beta0 = 1.0 + r * float(np.sum(z2[live] / lam[live]))
        # r > 0: the eigenvalues interlace the poles, so A has as many negative
        # eigenvalues as D or one less, and sign(beta(0)) = sign(det A / det D) tells
        n_neg = int(np.sum(lam < 0)) - int(beta0 < 0)
        d, s = self.d, self.scale
        rr = r * zz / s                              # the update's norm, units of s
        if rr > RATIONAL_MAX_UPDATE:
            return None
        zn = np.sqrt(zz)
        z = z / zn
        z2 = z2 / zz
        t, q, q2 = self._nodes(1.0 + rr)
        t2 = t * t
        w = z2 * d
        M = q @ np.column_stack([z2, w, w * d])
        M2 = q2 @ np.column_stack([w * d, w * d * d, w * d ** 3])
        sa = M[:, 1] + 1j * t * M[:, 0]              # sum z^2 a,  a = 1 / (d - i t)
        sda = M[:, 2] + 1j * t * M[:, 1]             # sum z^2 d a
        sdda = M2[:, 2] - t2 * M2[:, 0] + 2j * t * M2[:, 1]   # sum z^2 d^2 a^2
        beta = 1.0 + rr * sa
        delta = (rr * (rr * sa + 2.0 * sda - sdda) / beta).real   # tr phi_t(A) - tr phi_t(D)
        c = (2.0 * SIGN_STEP / np.pi) * t
        gam = c / beta
        G = np.vstack([gam.real, t * gam.imag]) @ q
        sz = z * (d * G[0] - G[1])                   # sign(A) z: sum c_j Re (A - i t_j)^-1 z
        Az = d * z + rr * z
        Asz = d * sz + (rr * float(z @ sz)) * z
        Xm_z = (0.5 * s * zn) * (Az - Asz)
        # sum min(mu, 0)^2 = (sum mu^2 - sum mu |mu|) / 2, written as the exact value on D
        # plus the change the update makes: tr A^2 - tr D^2 = 2 rr z'Dz + rr^2 exactly,
        # tr A|A| - tr D|D| by the rule.  Both changes are O(rr max|lam|), so the rule's
        # and the rounding's errors scale with the update, not with ||A||_F^2 (at large
        # rho, where f is dominated by rho ||(K0)_-||_F^2, the gap needs f to ~eps |f|)
        change = 2.0 * rr * float(np.sum(w)) + rr * rr - float(c @ delta)
        dneg = np.minimum(d, 0.0)
        neg2 = max(float(dneg @ dneg) + 0.5 * change, 0.0) * s * s
        return Xm_z, neg2, n_neg
