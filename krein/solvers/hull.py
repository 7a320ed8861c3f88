"""Local solvers of Haasdonk's convex-hull problem CH-DU for the non-convex case (haasdonk §7.2).

The problem, the decision rule and the Prop. 3 maps are in
:mod:`krein.formulations.hull`; the estimator is
:class:`krein.estimators.hull.ConvexHullClassifier`.

* :func:`hull_nu_svm` -- libsvm's nu-SVM (``sklearn.svm.NuSVC(kernel="precomputed")``)
  on the kernel as given.  libsvm's nu-SVC dual (Chang & Lin 2001)
  ``min 1/2 alpha'Q alpha, 0 <= alpha_i <= 1/n, y'alpha = 0, 1'alpha = nu`` is CH-DU
  after the scaling of Prop. 3, case 1, ``alpha_bar = 2 alpha / sum(alpha)``, with
  ``mu = 2 / (nu n)`` (Crisp & Burges 2000); its SMO solver terminates at a stationary
  point on indefinite kernels (Lin & Lin 2003).  The point is then polished by the
  projected-gradient loop below to the requested stationarity ``tol``.
* :func:`hull_multistart` -- spectral projected gradient (Birgin, Martinez & Raydan
  2000: Barzilai-Borwein step, non-monotone Grippo-Lampariello-Lucidi acceptance,
  else the exact minimizer along the projected direction, in closed form for a
  quadratic) from ``n_starts`` random points of the product of capped simplices, all
  starts advanced together (one ``K @ (n, S)`` product per iteration).  Once a
  start's free set stops changing, active-set steps on that face (a Newton step when
  the reduced Hessian is positive semidefinite, a step to the boundary along negative
  curvature otherwise) end it at the face's minimizer exactly.  The face steps only
  decrease the objective, so the convergence of the non-monotone SPG to stationary
  points (Birgin, Martinez & Raydan 2000) is kept; termination is certified anyway by
  the residual.  Every end point is certified by the projected-gradient
  residual and the Frank-Wolfe gap (:func:`~krein.formulations.hull.hull_stationarity`)
  and classified by a second-order test
  (:func:`~krein.formulations.hull.hull_local_minimality`); the distinct stationary
  points form the table of local optima.  Random restarts are what haasdonk §7.2
  suggests (after Lin & Lin 2003) to improve local solutions.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
from scipy.linalg.lapack import dsyevd
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .._threads import loop_threads
from .._validation import check_int, check_positive
from ..formulations.hull import (ConvexHullDual, check_hull_data, check_hull_mu, hull_face_basis,
                                 hull_gradient_scale, hull_lipschitz, hull_local_minimality,
                                 hull_stationarity, project_hulls)
from .core import Solution, solve
from .libsvm import libsvm_nu_binary

__all__ = ["hull_multistart", "hull_nu_svm", "hull_convex", "one_row_table", "optimum_row"]

#: Memory of the non-monotone line search (Birgin, Martinez & Raydan 2000 use 10).
_GLL_MEMORY = 10

_TINY = np.finfo(float).tiny

#: Columns of a solution's ``trace`` (one row per iteration of :func:`_spg`).
_TRACE = ("iter", "n_active", "objective", "max_residual", "seconds")


def _new_trace():
    return {key: [] for key in _TRACE}


def _max_free(n, rank=None):
    """The face steps (an eigendecomposition of the free block each) are tried on free sets
    of at most ``max(64, 2 n^(2/3))`` coefficients, so that one costs about as much as a
    few gradient iterations (``n^2`` each); on a kernel of rank ``r`` given by features
    (:class:`~krein.formulations.hull.SignedGram`, ``n r`` per iteration) at most
    ``max(64, 2 (n r)^(1/3))``, the same number at ``r = n``."""
    if rank is None:
        return max(64, int(2 * n ** (2.0 / 3.0)))
    return max(64, int(2 * (n * rank) ** (1.0 / 3.0)))


# ---------------------------------------------------------------------------- the loop
def _spg(K, y, mu, A, tol, max_iter, scale, trace, t0):
    """Spectral projected gradient on CH-DU for the columns of ``A`` (n, S), together.

    Stops a column when its residual ``||a - P(a - grad F / scale)||_inf <= tol``.
    ``trace``: None or :func:`_new_trace`'s dict, one entry per iteration appended to
    each column.  Returns ``A, n_iter (S,), converged (S,), residual (S,)``.  The loop
    runs on one BLAS thread up to a few thousand objects (:func:`krein._threads.loop_threads`).
    """
    with loop_threads(y.size):
        return _spg_loop(K, y, mu, A, tol, max_iter, scale, trace, t0)


def _spg_loop(K, y, mu, A, tol, max_iter, scale, trace, t0):
    S = A.shape[1]
    L = hull_lipschitz(K)
    A = project_hulls(A, y, mu, check_input=False)
    Yc = y[:, None]
    KU = K @ (Yc * A)
    smin, smax = 1e-8 / L, 1e8 / L
    n_iter = np.zeros(S, dtype=int)
    conv = np.zeros(S, dtype=bool)
    res = np.full(S, np.inf)
    # the state of the active columns, compact (the columns of ``active``, in order);
    # A and KU are written back every iteration (the trace's objective, the result)
    active = np.arange(S)
    Aa, KUa = A.copy(), KU.copy()
    sig = np.full(S, 1.0 / L)
    Fa = np.tile(np.sum(Yc * A * KU, axis=0), (_GLL_MEMORY, 1))   # last objectives
    last_free = np.zeros(A.shape, dtype=bool)
    tried = np.zeros(A.shape, dtype=bool)
    it = 0
    rows = (np.flatnonzero(y > 0), np.flatnonzero(y < 0))
    while active.size:
        na = active.size
        # column-major: the sums over axis 0 below are NumPy's pairwise sums along
        # contiguous columns (a C-ordered copy would sum in another order)
        Aa, KUa = np.asfortranarray(Aa), np.asfortranarray(KUa)
        G = 2.0 * Yc * KUa
        # the residual's and the step's projections in one call (column by column)
        V2 = np.empty((Aa.shape[0], 2 * na))
        np.subtract(Aa, G / scale, out=V2[:, :na])
        np.subtract(Aa, sig * G, out=V2[:, na:])
        Pj = project_hulls(V2, y, mu, rows=rows, check_input=False)
        R = np.max(np.abs(Aa - Pj[:, :na]), axis=0)
        res[active] = R
        done = R <= tol
        if trace is not None:
            F = np.sum(Yc * A * KU, axis=0)
            for key, val in zip(_TRACE, (it, int(na), float(F.min()), float(R.max()),
                                         time.perf_counter() - t0)):
                trace[key].append(val)
        if done.any():
            conv[active[done]] = True
            keep = ~done
            Pj, active, Aa, KUa, G = Pj[:, na:][:, keep], active[keep], Aa[:, keep], KUa[:, keep], G[:, keep]
            sig, Fa, last_free, tried = sig[keep], Fa[:, keep], last_free[:, keep], tried[:, keep]
        else:
            Pj = np.asfortranarray(Pj[:, na:])
        if active.size == 0 or it >= max_iter:
            break
        it += 1
        D = Pj - Aa
        YD = Yc * D
        KD = K @ YD
        gd = np.sum(G * D, axis=0)          # < 0 unless D = 0
        c2 = np.sum(YD * KD, axis=0)        # F(A + t D) = F + t gd + t^2 c2
        # non-monotone (Grippo-Lampariello-Lucidi) acceptance of the full step, else the
        # exact minimizer along D (closed form for a quadratic)
        full = Fa[-1] + gd + c2 <= Fa.max(axis=0) + 1e-4 * gd
        curved = c2 > 0
        lam = np.ones_like(gd)
        np.divide(-gd, 2.0 * c2, out=lam, where=curved)
        # clip to [0, 1]; fmax maps a NaN to 0 (as nan_to_num did)
        lam = np.fmin(np.fmax(lam, 0.0), 1.0)
        lam[full] = 1.0
        Fnew = Fa[-1] + lam * gd + lam ** 2 * c2
        Fa[:-1] = Fa[1:].copy()
        Fa[-1] = Fnew
        Aa = Aa + lam * D
        KUa = KUa + lam * KD
        n_iter[active] += 1
        dd = np.sum(D * D, axis=0)
        bb = np.full(dd.shape, smax)                        # Barzilai-Borwein s's / s'z
        np.divide(dd, 2.0 * c2, out=bb, where=curved)       # (finite: dd, c2 > 0 are)
        sig = np.minimum(np.maximum(bb, smin), smax)
        if it % 50 == 0:   # refresh the running product against drift
            KUa = K @ (Yc * Aa)
        # face Newton step once the free set has settled (finite termination on the face)
        free = (Aa > 0) & (Aa < mu) if mu < 1.0 else Aa > 0
        changed = np.any(free != last_free, axis=0)
        last_free[:, changed] = free[:, changed]
        settled = ~changed & np.any(free != tried, axis=0)
        for c in np.flatnonzero(settled):
            tried[:, c] = free[:, c]
            # the face steps work on the free block (at most _max_free(n) rows): one
            # BLAS thread whatever n (krein._threads.loop_threads)
            with loop_threads(int(free[:, c].sum())):
                a_new, ku_new, steps = _face_descent(K, y, mu, Aa[:, c], KUa[:, c], free[:, c])
            if steps:
                Aa[:, c], KUa[:, c] = a_new, ku_new
                Fa[-1, c] = float(np.sum(y * a_new * ku_new))
        A[:, active] = Aa
        KU[:, active] = KUa
    return A, n_iter, conv, res


def _face_descent(K, y, mu, a, ku, free, max_steps=20):
    """Active-set steps on the face of the free set (acceleration of the projected gradient).

    On the face ``{d : d_i = 0 off the free set, sum of d per class = 0}`` the objective
    is a quadratic with reduced Hessian ``R``.  If ``R`` is positive semidefinite, the
    (pseudo-inverse) Newton step minimizes it there; if ``R`` has a negative eigenvalue,
    the objective decreases without bound along that eigenvector (signed downhill) and
    the step goes to the first bound.  Either step is cut at the first bound it meets,
    which then leaves the free set, and the next step uses the smaller face; a full
    Newton step ends the sequence (the face minimizer, exactly).  Every step decreases
    the objective.  The face's basis is
    :func:`~krein.formulations.hull.hull_face_basis` (a complete QR of the class indicators).

    Parameters
    ----------
    a, ku : arrays of shape (n,)
        The point and ``K (y * a)``; updated copies are returned.
    free : bool array of shape (n,)

    Returns
    -------
    (a, ku, n_steps); ``n_steps = 0`` when nothing was done.
    """
    a, ku = a.copy(), ku.copy()
    steps = 0
    idx = np.flatnonzero(free)
    kmax = _max_free(y.size, getattr(K, "rank", None))
    for _ in range(max_steps):
        if idx.size < 2 or idx.size > kmax:
            break
        yF = y[idx]
        Z = hull_face_basis(yF)
        if Z.shape[1] == 0:                      # idx.size <= number of classes present
            break
        KF = K[:, idx]                           # column-major, as fancy indexing makes it
        # Z'HZ, H = 2 diag(yF) K_FF diag(yF): the signs and the 2 are exact, so this is
        # Z'HZ to the bit without forming H
        Zy = yF[:, None] * Z
        R = Zy.T @ K[np.ix_(idx, idx)] @ Zy
        R *= 2.0
        # LAPACK directly: ch 1.03-1.07x faster, the same bits as np.linalg.eigh on the tests'
        # problems, and ch's results independent of NumPy's own LAPACK build
        # (benchmarks/lapack_calls.py, "face-eigh")
        w, V, info = dsyevd(R, compute_v=1, lower=1)   # np.linalg.eigh's LAPACK routine
        if info != 0:
            w, V = np.linalg.eigh(R)
        zg = Z.T @ (2.0 * yF * ku[idx])
        wmax = max(abs(float(w[0])), abs(float(w[-1])), _TINY)   # w ascending: max |w|
        if w[0] < -1e-10 * wmax:                 # negative curvature: go to a bound
            v = V[:, 0]
            d = Z @ (v if v @ zg <= 0 else -v)
            newton = False
        else:                                    # (pseudo-inverse) Newton step
            keep = w > 1e-10 * wmax
            Vk = V[:, keep]
            d = -Z @ (Vk @ ((Vk.T @ zg) / w[keep]))
            newton = True
        aF = a[idx]
        t_lo = np.full(d.shape, np.inf)
        np.divide(aF, -d, out=t_lo, where=d < 0)
        t_hi = np.full(d.shape, np.inf)
        if mu < 1.0:
            np.divide(mu - aF, d, out=t_hi, where=d > 0)
        k_lo, k_hi = int(t_lo.argmin()), int(t_hi.argmin())
        lam = min(float(t_lo[k_lo]), float(t_hi[k_hi]))
        if newton:
            lam = min(1.0, lam)
        if not (0 < lam < np.inf) or not d.any():
            break
        new = aF + lam * d
        hit = None
        if not (newton and lam == 1.0):          # land exactly on the bound that cut the step
            if t_lo[k_lo] <= t_hi[k_hi]:
                new[k_lo], hit = 0.0, k_lo
            else:
                new[k_hi], hit = mu, k_hi
        new = np.clip(new, 0.0, mu)
        ku += KF @ (yF * (new - aF))
        a[idx] = new
        steps += 1
        if hit is None:
            break
        idx = np.delete(idx, hit)
    return a, ku, steps


def _random_starts(y, mu, n_starts, rng):
    A = np.zeros((y.size, n_starts))
    for cls in (1.0, -1.0):
        rows = np.flatnonzero(y == cls)
        A[rows] = rng.dirichlet(np.ones(rows.size), size=n_starts).T
    return project_hulls(A, y, mu, check_input=False)


def _optima_rows(K, y, mu, A, conv, distinct_tol, L):
    """Group the end points into distinct stationary points; one row (a dict) per group,
    best first (the rows of :func:`hull_multistart`'s table)."""
    st = hull_stationarity(A, K, y, mu, scale=L, check_input=False)
    Yc = y[:, None]
    KU = K @ (Yc * A)
    G = 2.0 * KU - np.sum(A * KU, axis=0)          # decision values on the training points
    order = np.argsort(st["objective"], kind="stable")
    groups = []                                   # list of lists of column indices
    for j in order:
        for grp in groups:
            if np.max(np.abs(G[:, j] - G[:, grp[0]])) <= distinct_tol * L:
                grp.append(j)
                break
        else:
            groups.append([j])
    rows = []
    for k, grp in enumerate(groups):
        j = grp[0]
        lm = hull_local_minimality(A[:, j], K, y, mu, check_input=False)
        rows.append({
            "optimum": k, "objective": float(st["objective"][j]),
            "w_norm_pe_positive": bool(st["objective"][j] > 0),
            "residual": float(st["residual"][j]), "fw_gap": float(st["fw_gap"][j]),
            "local_min": lm["local_min"], "min_curvature": lm["min_curvature"],
            "n_found": len(grp), "starts": sorted(int(i) for i in grp),
            "n_support": int(np.sum(A[:, j] > 0)), "best": k == 0,
            "alpha_bar": A[:, j].copy(), "converged": bool(all(conv[i] for i in grp)),
        })
    return rows, [grp[0] for grp in groups], st


def _solution(name, a, K, y, mu, n_iter, converged, t_setup, t_solve, trace, extra):
    """The Solution of the point ``a`` (its certificate computed here, for the one point)."""
    st = hull_stationarity(a, K, y, mu, check_input=False)
    cert = dict(st)
    cert.update(extra)
    return Solution(solver=name, status="stationary" if converged else "max_iter",
                    objective=st["objective"], primal={"alpha_bar": a, "u": y * a}, dual={},
                    setup_time=t_setup, solve_time=t_solve, iterations=int(n_iter),
                    primal_residual=st["violation"], dual_residual=st["residual"],
                    gap=st["fw_gap"], certificate=cert, certificate_kind="fw_gap",
                    trace=None if trace is None else pd.DataFrame(trace))


def hull_multistart(K, y, mu=1.0, *, n_starts=10, tol=1e-6, max_iter=10000, random_state=None,
                    init=None, distinct_tol=1e-4, check_input=True, as_frame=True):
    """Multi-start spectral projected gradient on CH-DU (haasdonk §4; §7.2 random restarts).

    Parameters
    ----------
    K : array of shape (n, n)
        Any symmetric kernel matrix.
    y : array of shape (n,) in {-1, +1}
    mu : float
        Reduction bound, ``>= 1 / min(n+, n-)``.
    n_starts : int >= 1
        Number of random starts (uniform, i.e. Dirichlet(1), on each class simplex,
        projected onto the capped simplex), in addition to the columns of ``init``.
    tol : float > 0
        Stop a start when the residual ``||a - P(a - grad F / s)||_inf <= tol``
        (:func:`~krein.formulations.hull.hull_stationarity`).
    max_iter : int >= 1
        Iterations per start; a ``ConvergenceWarning`` counts the starts that hit it.
    random_state : None, int or RandomState
        Seed or generator of the random starts.
    init : array of shape (n,) or (n, S0), optional
        Extra starting points (projected onto the feasible set).
    distinct_tol : float > 0
        Two end points are the same optimum when their decision values
        (:func:`~krein.formulations.hull.hull_plane`) on the training points differ
        by at most ``distinct_tol * s`` (``s`` =
        :func:`~krein.formulations.hull.hull_gradient_scale`; those values are at most
        ``4 s`` in size); this identifies optima by their hull points ``z+-``,
        not by their possibly non-unique coefficients.
    check_input : bool, default=True
        Check ``K``, ``y``, ``mu`` and the numbers; ``False`` for a caller that has
        checked them (:func:`~krein.formulations.hull.check_hull_data`,
        :func:`~krein.formulations.hull.check_hull_mu`, positive ``tol`` and
        ``distinct_tol``, integers ``n_starts, max_iter >= 1``).
    as_frame : bool, default=True
        Return the table as a DataFrame; ``False``: as its list of row dicts (an
        estimator builds one table for all its pairs).

    Returns
    -------
    solution : krein.solvers.Solution
        The stationary point of least objective; ``primal = {"alpha_bar", "u"}``,
        ``dual_residual`` = stationarity residual, ``gap`` = Frank-Wolfe gap,
        ``certificate`` also has ``local_min``, ``n_distinct``, ``n_starts``;
        ``trace`` has one row per iteration (``iter, n_active, objective``
        (best over starts), ``max_residual`` (over active starts), ``seconds``).
    table : pandas.DataFrame or list of dict
        One row per distinct stationary point, best first: ``optimum, objective``
        (``= w'Mw``), ``w_norm_pe_positive, residual, fw_gap, local_min``
        (True / False (saddle) / None (undecided)), ``min_curvature, n_found``
        (number of starts that ended there), ``starts, n_support, best,
        alpha_bar`` (the point), ``converged``.

    Raises
    ------
    ValueError
        On bad input or parameters.
    """
    if check_input:
        K, y = check_hull_data(K, y)
        mu = check_hull_mu(mu, y)
        n_starts = check_int(n_starts, "n_starts", low=1)
        tol = check_positive(tol, "tol")
        distinct_tol = check_positive(distinct_tol, "distinct_tol")
        max_iter = check_int(max_iter, "max_iter", low=1)
    sol, rows = _multistart(K, y, mu, n_starts, tol, max_iter, random_state, init, distinct_tol)
    return sol, (pd.DataFrame(rows) if as_frame else rows)


def _multistart(K, y, mu, n_starts, tol, max_iter, random_state, init, distinct_tol):
    """:func:`hull_multistart` on checked input; the table as a list of row dicts."""
    t0 = time.perf_counter()
    rng = check_random_state(random_state)
    A0 = _random_starts(y, mu, n_starts, rng)
    if init is not None:
        init = np.asarray(init, dtype=float)
        init = init[:, None] if init.ndim == 1 else init
        if init.ndim != 2 or init.shape[0] != y.size or not np.all(np.isfinite(init)):
            raise ValueError(f"init must be a finite array of shape ({y.size},) or ({y.size}, S0)")
        A0 = np.hstack([project_hulls(init, y, mu), A0])
    L = hull_gradient_scale(K)
    t_setup = time.perf_counter() - t0
    trace = _new_trace()
    A, n_iter, conv, _ = _spg(K, y, mu, A0, tol, max_iter, L, trace, t0)
    rows, reps, st = _optima_rows(K, y, mu, A, conv, distinct_tol, L)
    if not conv.all():
        warnings.warn(f"CH-DU projected gradient: {int((~conv).sum())} of {conv.size} starts hit "
                      f"max_iter={max_iter} before residual <= {tol:g}", ConvergenceWarning,
                      stacklevel=3)
    j = reps[0]
    extra = {"local_min": rows[0]["local_min"], "n_distinct": len(reps),
             "n_starts": int(A.shape[1]), "n_iter_per_start": n_iter}
    sol = _solution("multistart-spg", A[:, j], K, y, mu, n_iter.max(), bool(conv[j]), t_setup,
                    time.perf_counter() - t0 - t_setup, trace, extra)
    return sol, rows


def hull_nu_svm(K, y, mu=1.0, *, tol=1e-6, libsvm_tol=1e-3, max_iter=10000, polish=True,
                cache_size=200):
    """CH-DU through libsvm's nu-SVM on the kernel as given (haasdonk §7.1-7.2).

    ``nu = 2 / (min(mu, 1) n)``; libsvm's dual variables are mapped by
    ``alpha_bar = 2 alpha / sum(alpha)`` (Prop. 3, case 1's scaling; for nu-SVM it is an
    exact change of variables) and projected onto the feasible set (round-off).
    With ``polish=True`` the point is refined by the projected-gradient loop of
    :func:`hull_multistart` until the stationarity residual is ``<= tol`` (libsvm
    stops on its own, looser, criterion ``libsvm_tol``).

    Parameters
    ----------
    K : array of shape (n, n)
        Any symmetric kernel matrix.
    y : array of shape (n,) in {-1, +1}
        Labels.
    mu : float
        Reduction bound, ``>= 1 / min(n+, n-)`` (libsvm's ``nu = 2 / (mu n)``).
    tol : float > 0
        Stationarity target of the polish.
    libsvm_tol : float > 0
        libsvm's stopping tolerance.
    max_iter : int >= 1
        Polishing iterations.
    polish : bool
        Refine libsvm's point by projected gradient steps to ``tol``.
    cache_size : float
        libsvm kernel cache (MB).

    Returns
    -------
    krein.solvers.Solution
        As :func:`hull_multistart` (one start); ``certificate["libsvm_residual"]``
        is the residual of libsvm's point before polishing, ``iterations`` the
        polishing iterations and ``certificate["libsvm_iterations"]`` libsvm's.
        ``certificate["libsvm_failed"]`` is True when libsvm returned no usable point
        (``mu`` so close to ``1 / min(n+, n-)`` that no support vector is free:
        libsvm's rescaling divides by zero); the polish then starts from the class
        means, the centre of the (then tiny) feasible set.

    Raises
    ------
    ValueError
        On bad input; libsvm's own errors are passed through.
    """
    K, y = check_hull_data(K, y)
    mu = check_hull_mu(mu, y)
    tol = check_positive(tol, "tol")
    libsvm_tol = check_positive(libsvm_tol, "libsvm_tol")
    max_iter = check_int(max_iter, "max_iter", low=1)
    n = y.size
    t0 = time.perf_counter()
    nu = min(1.0, 2.0 / (min(mu, 1.0) * n))
    alpha, libsvm_iter = libsvm_nu_binary(K, y, nu, tol=libsvm_tol, cache_size=cache_size)
    # libsvm rescales its solution by 1/r, r the margin it reads off the free SVs; with
    # mu near 1/min(n+, n-) (nu near its upper limit) no SV may be free, r = 0 and
    # scikit-learn rejects the infinite coefficients (alpha is None).  The feasible set
    # is then a tiny neighbourhood of the class means: start the polish from there instead.
    libsvm_failed = alpha is None
    if libsvm_failed:
        a = project_hulls(np.where(y > 0, 1.0 / np.sum(y > 0), 1.0 / np.sum(y < 0)), y, mu)
    else:
        a = np.zeros(n)
        for cls in (1.0, -1.0):
            rows = y == cls
            a[rows] = alpha[rows] / alpha[rows].sum()
        a = project_hulls(a, y, mu)
    L = hull_gradient_scale(K)
    t_libsvm = time.perf_counter() - t0
    res0 = hull_stationarity(a, K, y, mu, scale=L, check_input=False)["residual"]
    trace = None
    n_it, converged = 0, res0 <= tol
    if polish and not converged:
        trace = _new_trace()
        A, n_iter, conv, _ = _spg(K, y, mu, a[:, None], tol, max_iter, L, trace, t0)
        a, n_it, converged = A[:, 0], int(n_iter[0]), bool(conv[0])
        if not converged:
            warnings.warn(f"CH-DU polish after nu-SVM hit max_iter={max_iter}", ConvergenceWarning,
                          stacklevel=2)
    lm = hull_local_minimality(a, K, y, mu, check_input=False)
    extra = {"libsvm_residual": res0, "libsvm_seconds": t_libsvm, "nu": nu,
             "libsvm_failed": libsvm_failed,
             "libsvm_iterations": libsvm_iter,
             "local_min": lm["local_min"], "min_curvature": lm["min_curvature"],
             "n_distinct": 1, "n_starts": 1}
    return _solution("nu-svm", a, K, y, mu, n_it, converged, t_libsvm,
                     time.perf_counter() - t0 - t_libsvm, trace, extra)


def hull_convex(K, y, mu=1.0, solver="CLARABEL", *, convexity=None, form="factor", **options):
    """CH-DU on a kernel that makes it convex, by a CVXPY solver, as a complete Solution.

    The interior-point point is finished in krein: entries below ``1e-10`` are set
    to zero (round-off), the point is projected onto the product of the capped
    simplices and certified there (:func:`~krein.formulations.hull.hull_stationarity`):
    the returned objective, stationarity residual and Frank-Wolfe gap are those of
    the returned (projected) point.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Kernel.
    y : ndarray of shape (n,) in {-1, +1}
        Labels.
    mu : float
        Reduction bound, ``>= 1 / min(n+, n-)``.
    solver : str
        An installed CVXPY solver.
    convexity : HullConvexity, optional
        :func:`~krein.formulations.hull.hull_convexity` of ``(K, y)`` (computed by
        the formulation when None).
    form : {"factor", "quad"}
        Formulation form (:func:`~krein.formulations.svm.preferred_form`).
    **options
        Passed to the CVXPY solver.

    Returns
    -------
    krein.solvers.Solution
        ``primal["alpha_bar"]`` the projected point; ``objective``,
        ``dual_residual`` and ``gap`` its ``||w||^2``-objective, stationarity
        residual and Frank-Wolfe gap; ``certificate`` the formulation's certificate
        at the solver's point plus ``projected`` (the dict at the returned point) and
        ``fw_gap``; ``certificate_kind`` ``"fw_gap"``.

    Raises
    ------
    ValueError
        When CH-DU is not convex on ``K`` (see :class:`ConvexHullDual`).
    krein.solvers.SolverError
        When the solver fails.
    """
    f = ConvexHullDual(K, y, mu, convexity=convexity, form=form)
    raw = solve(f, solver, **options)
    a = np.asarray(f.variables["alpha_bar"].value, dtype=float)
    a[a < 1e-10] = 0.0      # interior-point round-off
    a = project_hulls(a, y, mu, check_input=False)
    st = hull_stationarity(a, K, y, mu, check_input=False)
    return Solution(solver=raw.solver, status=raw.status, objective=st["objective"],
                    primal={**raw.primal, "alpha_bar": a}, dual=raw.dual,
                    setup_time=raw.setup_time, solve_time=raw.solve_time,
                    iterations=raw.iterations, primal_residual=raw.primal_residual,
                    dual_residual=st["residual"], gap=st["fw_gap"],
                    certificate={**raw.certificate, "projected": st, "fw_gap": st["fw_gap"]},
                    certificate_kind="fw_gap")


def one_row_table(sol, K, y, mu, global_opt):
    """The table of local optima of a single-point solve (the convex and nu-SVM paths).

    Parameters
    ----------
    sol : krein.solvers.Solution
        With ``primal["alpha_bar"]``.
    K : ndarray of shape (n, n)
        Kernel.
    y : ndarray of shape (n,) in {-1, +1}
        Labels.
    mu : float
        Reduction bound.
    global_opt : bool
        Whether the point is a global optimum (convex path).

    Returns
    -------
    pandas.DataFrame
        One row, the columns of :func:`hull_multistart`'s table.
    """
    return pd.DataFrame([optimum_row(sol, K, y, mu, global_opt)])


def optimum_row(sol, K, y, mu, global_opt):
    """The row of a single-point solve in the table of local optima, as a dict.

    Parameters
    ----------
    sol : krein.solvers.Solution
        With ``primal["alpha_bar"]``.
    K : ndarray of shape (n, n)
        Kernel, checked (:func:`~krein.formulations.hull.check_hull_data`).
    y : ndarray of shape (n,) in {-1, +1}
        Labels.
    mu : float
        Reduction bound, checked (:func:`~krein.formulations.hull.check_hull_mu`).
    global_opt : bool
        Whether the point is a global optimum (convex path): then no second-order test.

    Returns
    -------
    dict
        The columns of :func:`hull_multistart`'s table.
    """
    a = sol.primal["alpha_bar"]
    lm = {"local_min": True, "min_curvature": float("nan")} if global_opt else \
        hull_local_minimality(a, K, y, mu, check_input=False)
    return {
        "optimum": 0, "objective": sol.objective, "w_norm_pe_positive": bool(sol.objective > 0),
        "residual": sol.dual_residual, "fw_gap": sol.gap, "local_min": lm["local_min"],
        "min_curvature": lm["min_curvature"], "n_found": 1, "starts": [0],
        "n_support": int(np.sum(a > 0)), "best": True, "alpha_bar": a.copy(),
        "converged": sol.status in ("optimal", "stationary")}
