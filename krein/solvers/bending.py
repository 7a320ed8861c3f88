"""Matrix bending: Munoz & de Diego (2006, "munoz") §3.2, Algorithm 1 (after Hayes & Hill 1981).

Algorithm 1 of munoz, with ``K_0 = K``, a weighting matrix ``W`` and ``o`` the
Hadamard (entrywise) product::

    while K_n is indefinite:
        K_n = U_n Lambda_n U_n'                         (eigendecomposition)
        Lambda_n* = g(Lambda_n, eps)                     (entrywise on the eigenvalues)
        K_{n+1} = K_n - [K_n - U_n Lambda_n* U_n'] o W
        n = n + 1

``W_ij`` is the fraction of the gap ``(U g(Lambda) U' - K)_ij`` closed at each
step: ``W_ij = 0`` keeps ``K_ij`` fixed ("If W_ij = 0 then the value in K_ij does
not change at this step"), ``W_ij = 1`` moves it all the way.  So in munoz's
update a *large* weight means a *large* move, and an entry to be trusted (kept
close to its value) gets a *small* weight.  Entries are accepted in ``[0, 1]``:
a value above 1 overshoots the target.

Choices of ``g``, the parameter ``correction`` (munoz §3.2; the names are the
spectrum corrections of :mod:`krein._vocabulary`, which they equal for ``eps = 0``):

==============  ================================  =================================
``correction``  ``g(lam, eps)``                   munoz
==============  ================================  =================================
``"clip"``      ``max(lam, eps)``                 original bending (Hayes & Hill)
``"flip"``      ``max(|lam|, eps)``               "as in Pseudo method"
``"shift"``     ``lam + s``                       "adding a constant" (eq. 6)
``"square"``    ``lam**2``                        "as in ST" (eq. 7), see below
==============  ================================  =================================

``"square"`` is scale dependent beyond one step.  With partial weights each step
mixes entries of ``K_n`` with entries of ``K_n^2`` (units of ``K`` against units
of ``K^2``); with a constant weight ``w`` an eigenvalue follows
``lam -> (1 - w) lam + w lam^2``, which grows without bound above 1 and shrinks
to 0 below 1.  On a kernel with eigenvalues well above 1 the ``K_n^2`` part
may dominate and the iterate turn PSD within a few steps, but its entries grow
like ``K^(2^n)`` (measured: a 60-point sigmoid kernel, ``max |lam| = 33``, with
support-vector weights 0.5, became PSD after 3 steps with entries of order
1e10), or the iterates overflow before they are PSD (a 30-point sigmoid kernel
with a weighting matrix of entries uniform in ``[0.5, 1]``: non-finite at step
9, :class:`~krein.solvers.SolverError`).  We implement the printed ``lam**2``
all the same: dividing by a constant (``lam**2 / rho``, ``rho = max |lam(K)|``,
which keeps units) was tried and is worse: eigenvalues below ``rho`` then
shrink towards 0 step after step, and on the 60-point kernel the iterates
collapsed to the zero matrix.  Prefer ``"square"`` with ``weights=None`` (one
step, exactly eq. 7).

For ``"shift"`` the constant ``s`` is the user's ``shift`` (> 0), or by default
recomputed at every step as ``s_n = max(0, eps - lam_min(K_n))``, the smallest
shift making every ``g(lam) >= eps``.  Since ``U (Lambda + s I) U' - K_n = s I``,
a shift step only touches the diagonal: ``K_{n+1} = K_n + s_n diag(W_11, ..., W_nn)``.

Stopping rule
-------------
"while K_n is indefinite" is tested numerically: the loop stops at the first
iterate with ``lam_min(K_n) >= -tol * max |lam(K_n)|`` (the eigendecomposition of
``K_n`` is the one the next step would use, so the test is free).  With
``max_iter`` updates done and ``K_n`` still indefinite, a ``ConvergenceWarning``
is issued and the last iterate is returned (status ``"max_iter"``).  With
``eps = 0`` and partial weights the negative eigenvalues of ``"clip"`` approach
0 from below without reaching it, so ``tol`` decides the number of steps; a
positive ``eps`` (as Hayes & Hill) pulls them above 0 in finitely many steps
(on the 60-point sigmoid kernel with support-vector weights 0.5: 78 steps with
``eps = 0``, ``tol = 1e-10``; 33 with ``eps = 1e-3``).  An iterate
with NaN/inf entries (e.g. ``correction="square"`` with partial weights on a kernel with
eigenvalues above 1 can grow without bound, since ``lam -> (1 - w) lam + w lam^2``
diverges for ``lam > 1``) raises :class:`~krein.solvers.SolverError`.

With a constant ``W = 1`` (every entry 1) one step gives ``U g(Lambda) U'``, i.e.
the spectrum correction: for ``"clip"`` and ``eps = 0`` the clip/MDS kernel
(munoz eq. 1, "the Bending method is equivalent to the MDS method"), for
``"flip"`` the flip/pseudo kernel (eq. 4), for ``"square"`` ``K^2`` (eq. 7), for
``"shift"`` ``K + s I`` (eq. 6).  With a constant ``W = c`` in ``(0, 1)`` the
eigenvectors never change and each eigenvalue follows
``lam -> (1 - c) lam + c g(lam)``.

Out-of-sample rows (munoz eq. 8)
--------------------------------
A new point's row ``r = K_n(x, .)`` (shape ``(n,)``) follows the same steps with
its own weight row ``W(x, .)``::

    K_{n+1}(x, .) = K_n(x, .) - (K_n(x, .) - K_n(x, .) M_n) o W(x, .)       (8)

where ``K_n(x, .) M_n`` is the out-of-sample value of the corrected kernel
``U_n g(Lambda_n) U_n'``.  munoz writes (8) with the MDS map of eq. (3),
``M_n = U_r U_r'`` (eigenvectors with ``lam > eps``).  Two choices of ``M_n``:

* ``"munoz"``: the classical map of each ``g`` in munoz §2-3: eq. (3)
  ``U_{lam > eps} U_{lam > eps}'`` for ``"clip"`` (eq. 8 as printed), eq. (5)
  ``U sign(lam) 1[|lam| >= eps] U'`` for ``"flip"``, ``K_n`` (eq. 7,
  ``K*(x, .) = K(x, .) K``) for ``"square"``, and the identity for ``"shift"``
  (eq. 6 changes only the diagonal, i.e. pairs of identical points).
* ``"spectral"``: ``M_n = U_n diag(g(lam) / lam) U_n'`` on the eigenvalues above
  the null tolerance (0 on the others).

What they satisfy on training rows (``r_0 = K(i, .)``, ``W(x, .) = W(i, .)``):
``K_n(i, .) M_n`` is row ``i`` of ``U_n h(Lambda_n) Lambda_n U_n'``, so the rows
follow the iterates ``K_n`` exactly when ``h(lam) lam = g(lam)`` on every
eigenvalue.  For ``"spectral"`` this holds whenever no eigenvalue of an iterate
is within the null tolerance while ``g`` of it is not 0 (always for ``eps = 0``,
except ``"shift"`` on a singular ``K_n``).  For ``"munoz"`` it holds for
``"clip"``/``"flip"`` with ``eps = 0`` and always for ``"square"``; for
``"clip"`` with ``eps > 0`` eq. (8) follows the bending iterates of the MDS
function ``g(lam) = lam 1[lam > eps]`` (eq. 1) instead of ``max(lam, eps)``: one
step differs from the fitted one by ``W(i, .) o eps (I - U_r U_r')(i, .)``.  For
``"shift"`` the rows stay the original rows, which equal the fitted ones off
the diagonal; the fitted diagonal has ``sum_n s_n W_ii`` added.

The update is linear in ``r`` for a fixed weight row ``u = W(x, .)``:
``r_{n+1} = r_n T_n`` with ``T_n = diag(1 - u) + M_n diag(u)``.  When every new
point has the same weight row, the whole map is one ``(n, n)`` matrix
``T = T_0 T_1 ... T_{N-1}``, obtained by propagating the identity rows
(``rows=np.eye(n)``, ``row_weights=u``).

References
----------
A. Munoz and I. Martin de Diego (2006), "From indefinite to positive
semi-definite matrices", §3.2, Algorithm 1, eq. (8).
J. F. Hayes and W. G. Hill (1981), "Modification of estimates of parameters in
the construction of genetic selection indices ('Bending')", Biometrics 37.
H. Jorjani, L. Klei and U. Emanuelson (2003), "A simple method for weighted
bending of genetic (co)variance matrices", J. Dairy Sci. 86.
"""

from __future__ import annotations

import numbers
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning

from .._cache import shared_eigh
from .._validation import check_int, check_square_kernel
from .._vocabulary import declared
from ..spectrum import correct_eigenvalues, null_tolerance, row_multipliers
from .core import Solution, SolverError

__all__ = ["bending", "bending_eigenvalues", "bending_row_multipliers", "check_bending_weights",
           "BENDING_FUNCTIONS", "BENDING_ROW_MAPS"]

#: The four functions ``g`` of munoz §3.2 (``correction``; names of :mod:`krein._vocabulary`).
BENDING_FUNCTIONS = declared("correction", "clip", "flip", "shift", "square")
#: Out-of-sample maps ``M_n`` of eq. (8) (``out_of_sample``).
BENDING_ROW_MAPS = declared("out_of_sample", "munoz", "spectral")


def _check_eps(eps):
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not np.isfinite(eps) or eps < 0:
        raise ValueError(f"eps must be a finite number >= 0; got {eps!r}")
    return float(eps)


def _check_shift(shift):
    if shift is None:
        return None
    if isinstance(shift, bool) or not isinstance(shift, numbers.Real) or not np.isfinite(shift) \
            or shift <= 0:
        raise ValueError(f"shift must be None (automatic) or a finite number > 0; got {shift!r}")
    return float(shift)


def _check_correction(correction):
    if correction not in BENDING_FUNCTIONS:
        raise ValueError(f"correction must be one of {list(BENDING_FUNCTIONS)}; got {correction!r}")
    return correction


def bending_eigenvalues(lam, correction, eps=0.0, shift=None):
    """The eigenvalue map ``g(lam, eps)`` of munoz Algorithm 1.

    Parameters
    ----------
    lam : array of shape (k,)
        Eigenvalues of the current iterate ``K_n``.
    correction : {"clip", "flip", "shift", "square"}
        ``g``: ``max(lam, eps)`` (Hayes & Hill), ``max(|lam|, eps)``, ``lam + s``, ``lam**2``.
    eps : float >= 0
        The constant ``eps`` of Algorithm 1 (unused by ``"square"``).
    shift : float > 0, optional
        ``s`` of ``"shift"``; default ``max(0, eps - min(lam))``.

    Returns
    -------
    g_lam : ndarray of shape (k,)
        ``g(lam)``.
    s : float
        The shift used (0 for the other functions).

    Raises
    ------
    ValueError
        Unknown ``correction``, negative ``eps`` or non-positive ``shift``.
    """
    g = _check_correction(correction)
    eps = _check_eps(eps)
    shift = _check_shift(shift)
    lam = np.asarray(lam, dtype=float)
    if g == "clip":
        return np.maximum(lam, eps), 0.0
    if g == "flip":
        return np.maximum(np.abs(lam), eps), 0.0
    if g == "square":
        return lam**2, 0.0
    s = max(0.0, eps - float(lam.min(initial=np.inf))) if shift is None else shift
    return lam + s, s


def bending_row_multipliers(lam, g_lam, correction, eps, out_of_sample, null_tol):
    """``h`` of the per-step map ``M_n = U_n diag(h) U_n'`` of eq. (8).

    Parameters
    ----------
    lam, g_lam : arrays of shape (n,)
        Eigenvalues of ``K_n`` and their images by ``g``.
    correction : str
        The eigenvalue function ``g`` (as in :func:`bending_eigenvalues`).
    eps : float
        The constant ``eps`` of Algorithm 1.
    out_of_sample : {"munoz", "spectral"}
        See the module docstring.
    null_tol : float
        Eigenvalues with ``|lam| <= null_tol`` count as zero.

    Returns
    -------
    h : ndarray of shape (n,), or None for the identity map (``"munoz"`` with
        ``"shift"``).
    """
    g = correction
    if g == "square":
        return lam.copy()
    if out_of_sample == "spectral":
        h = np.zeros_like(lam)
        nz = np.abs(lam) > null_tol
        h[nz] = g_lam[nz] / lam[nz]
        return h
    if g == "shift":
        return None
    method = "mds" if g == "clip" else "pseudo"
    return row_multipliers(lam, correct_eigenvalues(lam, method, eps=eps), method, null_tol)


def check_bending_weights(weights, n, name="weights"):
    """Validate a bending weighting matrix.

    Parameters
    ----------
    weights : None, array of shape (n,) or (n, n)
        ``None``: every entry 1.  A vector ``w`` means ``W = w w'``.  A matrix
        must be symmetric (within :data:`krein._validation.SYMMETRY_RTOL`).
        Entries must lie in ``[0, 1]`` (fraction of the gap closed per step).
    n : int
        Size of the kernel.
    name : str, default="weights"
        Argument name for error messages.

    Returns
    -------
    W : ndarray of shape (n, n)
        The weight matrix.
    w : ndarray of shape (n,) or None
        The factor when ``W = w w'`` (a vector or ``None`` was given).

    Raises
    ------
    ValueError
        Wrong shape, NaN/inf, asymmetry, or entries outside ``[0, 1]``.
    """
    if weights is None:
        return np.ones((n, n)), np.ones(n)
    if isinstance(weights, str):
        raise ValueError(f"{name} must be None, an array of shape ({n},) or ({n}, {n}); "
                         f"got {weights!r}")
    arr = np.asarray(weights, dtype=float)
    if arr.shape == (n,):
        if not np.all(np.isfinite(arr)) or arr.min() < 0 or arr.max() > 1:
            raise ValueError(f"{name}: a weight vector w (W = w w') must have finite entries in "
                             f"[0, 1]; got range [{np.nanmin(arr):.3g}, {np.nanmax(arr):.3g}]")
        return np.outer(arr, arr), arr.copy()
    if arr.shape == (n, n):
        W = check_square_kernel(arr, name)
        if W.min() < 0 or W.max() > 1:
            raise ValueError(f"{name}: weighting matrix entries must lie in [0, 1] (the fraction "
                             f"of the gap closed per step, munoz Algorithm 1); got range "
                             f"[{W.min():.3g}, {W.max():.3g}]")
        return W, None
    raise ValueError(f"{name} must be None, an array of shape ({n},) (W = w w') or ({n}, {n}); "
                     f"got shape {arr.shape}")


def _spectral_product(V, d, R=None):
    """``V diag(d) V'`` (or ``R V diag(d) V'``) over the columns with ``d != 0`` only.

    The zero terms add exact zeros, so this is the full product up to the order
    of the floating-point sums; "clip" zeroes every negative eigenvalue, so on a
    kernel with many of them the three ``n^3`` products of a step shrink to
    ``n^2 k`` (``k`` the non-negative ones).
    """
    keep = d != 0
    if not np.all(keep):
        V, d = V[:, keep], d[keep]
    left = V if R is None else R @ V
    return (left * d) @ V.T


def bending(K, weights=None, *, correction="clip", eps=0.0, shift=None, tol=1e-10, max_iter=100,
            out_of_sample="munoz", rows=None, row_weights=None):
    """Bend an indefinite kernel matrix to a PSD one (munoz Algorithm 1).

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric kernel matrix ``K_0``.
    weights : None or array of shape (n,) or (n, n)
        Weighting matrix ``W`` (see :func:`check_bending_weights`); ``None`` is
        every entry 1 (one step = the spectrum correction ``U g(Lambda) U'``).
    correction : {"clip", "flip", "shift", "square"}
        Eigenvalue map ``g`` (module docstring).
    eps : float >= 0
        ``eps`` of ``g`` (``"clip"``, ``"flip"``, default shift).
    shift : float > 0, optional
        Constant of ``"shift"``; default per step ``max(0, eps - lam_min(K_n))``.
    tol : float >= 0
        Stop when ``lam_min(K_n) >= -tol * max |lam(K_n)|``.
    max_iter : int >= 1
        Maximum number of updates.
    out_of_sample : {"munoz", "spectral"}
        Map ``M_n`` of eq. (8) used for ``rows``.
    rows : array of shape (m, n), optional
        Kernel rows ``K(x, .)`` of points to carry along the iteration by eq. (8).
        ``np.eye(n)`` yields the composed linear map ``T`` (module docstring).
    row_weights : array of shape (n,) or (m, n), optional
        Weight rows ``W(x, .)`` of ``rows`` (entries in ``[0, 1]``); default ones.

    Returns
    -------
    Solution
        ``primal["K"]`` (n, n) the last iterate (PSD when converged),
        ``primal["rows"]`` (m, n) or None; ``objective`` = ``||K_N - K||_F``;
        ``primal_residual`` = ``max(0, -lam_min(K_N))``; ``iterations`` = number
        of updates; ``certificate`` has ``min_eigenvalue`` (of ``K_N``),
        ``shifts`` (``s_n`` of ``"shift"``) and ``converged``; ``trace`` has one
        row per decomposition ``n = 0..N``: ``iter, min_eigenvalue, n_negative,
        objective (||K_n - K||_F), residual (max(0, -lam_min) / max|lam|),
        change (||K_n - K_{n-1}||_F), seconds``.

    Raises
    ------
    ValueError
        Bad ``K``, weights, ``correction``, ``eps``, ``shift``, ``tol``, ``max_iter``,
        ``out_of_sample``, ``rows`` or ``row_weights``.
    SolverError
        When an iterate has NaN/inf entries (divergence).

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` updates leave ``K_n`` indefinite.
    """
    t0 = time.perf_counter()
    K0 = check_square_kernel(K)
    n = K0.shape[0]
    g = _check_correction(correction)
    eps = _check_eps(eps)
    shift = _check_shift(shift)
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not np.isfinite(tol) or tol < 0:
        raise ValueError(f"tol must be a finite number >= 0; got {tol!r}")
    max_iter = check_int(max_iter, "max_iter", low=1)
    if out_of_sample not in BENDING_ROW_MAPS:
        raise ValueError(f"out_of_sample must be one of {list(BENDING_ROW_MAPS)}; got {out_of_sample!r}")
    W, _ = check_bending_weights(weights, n)
    R = U = None
    if rows is not None:
        R = np.array(rows, dtype=float)
        if R.ndim != 2 or R.shape[1] != n or not np.all(np.isfinite(R)):
            raise ValueError(f"rows must be a finite (m, {n}) array; got shape {R.shape}")
        U = np.ones(n) if row_weights is None else np.asarray(row_weights, dtype=float)
        if U.shape not in ((n,), R.shape) or not np.all(np.isfinite(U)) or U.min() < 0 or U.max() > 1:
            raise ValueError(f"row_weights must have shape ({n},) or {R.shape} with entries in "
                             f"[0, 1]; got shape {U.shape}")
    elif row_weights is not None:
        raise ValueError("row_weights given without rows")
    t_setup = time.perf_counter() - t0

    Kn = K0.copy()
    trace, shifts = [], []
    converged = False
    prev = None
    k = 0
    while True:
        ts = time.perf_counter()
        # K_0 = K: its decomposition is shared with the fold's other methods (krein._cache)
        lam, V = shared_eigh(Kn) if k == 0 else np.linalg.eigh(Kn)
        scale = float(np.max(np.abs(lam))) if n else 0.0
        lmin = float(lam[0])
        ok = lmin >= -tol * scale
        with np.errstate(over="ignore", invalid="ignore"):  # huge iterates of "square"
            rec = {"iter": k, "min_eigenvalue": lmin, "n_negative": int(np.sum(lam < -tol * scale)),
                   "objective": float(np.linalg.norm(Kn - K0)),
                   "residual": max(0.0, -lmin) / scale if scale > 0 else 0.0,
                   "change": float("nan") if prev is None else float(np.linalg.norm(Kn - prev))}
        if ok or k >= max_iter:
            rec["seconds"] = time.perf_counter() - ts
            trace.append(rec)
            converged = ok
            break
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is checked below
            g_lam, s = bending_eigenvalues(lam, g, eps, shift)
            shifts.append(s)
            target = _spectral_product(V, g_lam)
            prev = Kn
            Kn = Kn - (Kn - target) * W
            Kn = 0.5 * (Kn + Kn.T)
            if R is not None:
                h = bending_row_multipliers(lam, g_lam, g, eps, out_of_sample, null_tolerance(lam, n))
                if h is not None:  # identity map: rows unchanged
                    RM = _spectral_product(V, h, R)
                    R = R - (R - RM) * U
        k += 1
        rec["seconds"] = time.perf_counter() - ts
        trace.append(rec)
        if not np.all(np.isfinite(Kn)) or (R is not None and not np.all(np.isfinite(R))):
            raise SolverError(f"bending with correction={g!r} diverged at iteration {k} (non-finite "
                              f"entries); use correction='clip' or 'flip', or weights closer to 1",
                              solver="bending", status="diverged", size={"n": n})
    if not converged:
        warnings.warn(f"bending stopped at max_iter={max_iter} with least eigenvalue {lmin:.3g} "
                      f"(tolerance {-tol * scale:.3g})", ConvergenceWarning, stacklevel=2)
    elapsed = time.perf_counter() - t0
    cert = {"min_eigenvalue": lmin, "max_abs_eigenvalue": scale, "shifts": np.array(shifts),
            "converged": converged}
    return Solution(solver="bending", status="converged" if converged else "max_iter",
                    objective=float(np.linalg.norm(Kn - K0)), primal={"K": Kn, "rows": R},
                    dual={}, setup_time=t_setup, solve_time=elapsed - t_setup, iterations=k,
                    primal_residual=max(0.0, -lmin), dual_residual=float("nan"),
                    gap=float("nan"), certificate=cert,
                    certificate_kind="",     # an iteration to a PSD kernel: no optimality measure
                    trace=pd.DataFrame(trace))
