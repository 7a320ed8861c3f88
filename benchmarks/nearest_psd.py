"""Nearest PSD kernel with a fixed diagonal (munoz §3.3): time in ``eigh``-equivalents.

For each n (default 500, 1000, 2000) and each family of unit-diagonal indefinite
matrices (``--families``, default all three):

* ``randcorr``: a random correlation matrix (eigenvalues geometric from 1 to
  1e-3, scaled to unit diagonal) plus ``0.1 E``, ``E`` symmetric uniform on
  [-1, 1], diagonal reset to 1 (a random correlation matrix plus a random
  symmetric perturbation, the kind of test matrix of Qi & Sun 2006);
* ``minkowski``: ``exp(-D / median(D))`` with the Minkowski ``p = 0.5``
  "distance" ``D_ij = (sum_k |x_ik - x_jk|^0.5)^2`` (not a metric) on standard
  Gaussian points in R^10;
* ``pickout``: munoz §4.1's artificial data, two Gaussian clouds, with the
  *pick-out* combination of the two Gaussian kernels of the coordinate
  projections (the maximum of the two kernels for a same-class pair, the
  minimum otherwise);
* ``sigmoid`` (on request): a sigmoid kernel scaled to unit diagonal;

print, with ``t_eigh`` one ``numpy.linalg.eigh`` of the same matrix (best of 3
before and 3 after the solvers) as the reference,

* for Qi & Sun's Newton method (best of ``--repeat`` runs, default 1;
  :func:`krein.solvers.psd_newton.nearest_psd_newton`),
  Dykstra's method (Higham's Algorithm 3.3) and its Anderson acceleration
  (:func:`krein.solvers.alternating.alternating_projections`): the time to
  ``--tol`` in ``eigh``-equivalents (seconds / ``t_eigh``), the iterations, the
  eigendecompositions (Newton: one per iterate, line-search trials included),
  and the relative difference of the distance ``||K - X||_F`` from Newton's.
  A Dykstra/Anderson run that would not fit its time share is stopped early and
  its iteration count to ``tol`` extrapolated from the linear rate of the
  stopping criterion over the last third of its iterations (marked ``~``; its
  time is then the extrapolated iterations times the seconds per iteration, and
  its distance is that of the stopped iterate, so no difference is printed);
* with ``--methods ...,estimator``: the estimator,
  ``NearestPSD(diagonal=1.0, tol=tol).fit(K)`` (its spectrum of ``K``, the
  Newton method, the KKT certificate and the row map included; ``eigh`` counts
  the spectrum too);
* with ``--before PATH``: the same for an older krein, a package renamed
  ``krein_before`` in the folder ``PATH`` (rows ``newton-0``, ``estim.-0``), in
  the same process;
* with ``--qisun PATH``: Qi and Sun's own Newton code, Yancheng Yuan's
  ``CorrelationMatrix.py`` (``files/CorrelationMatrix.py`` of
  ``defengwebsite/defengwebsite.github.io``, Defeng Sun's page), read from the
  folder ``PATH`` outside the repository and run unchanged but for two shims
  (its module-level test run at ``n = 3000`` is cut off, ``time.clock`` is
  ``time.perf_counter``; its prints are discarded), with ``b = 1``,
  ``tau = 0`` and ``tol``: its stopping test is ``relative gap <= tol`` or
  ``||grad|| / (1 + ||b||) <= tol``; its eigendecompositions (one per
  line-search trial) are counted by wrapping its ``my_mexeig``;
* with ``--sdp``: the CVXPY SDP of munoz (9)
  (:class:`krein.formulations.nearest_psd.NearestPSDSDP`) with SCS
  (``eps_abs = eps_rel = 1e-6``) at n = 25, 50, 100, ... while the next size is
  predicted to fit the remaining budget, and its relative objective difference
  from the Newton answer.

Newton, the estimator and Qi and Sun's code run ``--repeat`` times each, in turn
(so that a load change on a shared machine falls on all of them), the least time
of each kept.  Everything runs in one process with ``--threads`` BLAS threads (default 1, via
threadpoolctl) within ``--budget`` seconds (default 1800, shared equally by the
(family, n) cells, unused time carried over; Newton always runs to the end).

Usage::

    python benchmarks/nearest_psd.py                 # n = 500, 1000, 2000, three families
    python benchmarks/nearest_psd.py --quick         # n = 100, 200, within 90 s
    python benchmarks/nearest_psd.py --families pickout --sizes 300,600 --sdp
    python benchmarks/nearest_psd.py --families randcorr,minkowski --sizes 1000,2000 \
        --methods newton,estimator --tol 1e-6 --repeat 2 --qisun /path/to/folder
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import sys
import time
import types
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from krein import NearestPSD
from krein.formulations.nearest_psd import NearestPSDSDP
from krein.kernels import gaussian_kernel, sigmoid_kernel
from krein.solvers import solve
from krein.solvers.alternating import alternating_projections
from krein.solvers.psd_newton import nearest_psd_newton


def random_correlation(n, seed=0, alpha=0.1):
    """Random correlation matrix (geometric eigenvalues 1 ... 1e-3) + ``alpha E``, unit diagonal."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    lam = np.geomspace(1.0, 1e-3, n)
    C = (Q * (lam * n / lam.sum())) @ Q.T
    d = np.sqrt(np.diag(C))
    C /= np.outer(d, d)
    E = rng.uniform(-1.0, 1.0, size=(n, n))
    G = C + alpha * (np.triu(E) + np.triu(E, 1).T)
    np.fill_diagonal(G, 1.0)
    return G


def minkowski_kernel(n, seed=0, dim=10, p=0.5):
    """``exp(-D / median(D))``, ``D`` the Minkowski ``p = 0.5`` "distance" on N(0, I_10) points."""
    X = np.random.default_rng(seed).normal(size=(n, dim))
    S = np.zeros((n, n))
    for k in range(dim):
        S += np.abs(X[:, k, None] - X[None, :, k]) ** p
    D = S ** (1.0 / p)
    return np.exp(-D / np.median(D[np.triu_indices(n, 1)]))


def pickout_kernel(n, seed=0, gamma=1.0):
    """munoz §4.1: clouds N((3,3), 0.7^2 I) and N((5,5), 0.9^2 I), pick-out of the two
    Gaussian kernels on the coordinates (unit diagonal, indefinite)."""
    rng = np.random.default_rng(seed)
    n1 = n // 2
    X = np.r_[rng.normal(3.0, 0.7, size=(n1, 2)), rng.normal(5.0, 0.9, size=(n - n1, 2))]
    y = np.r_[np.zeros(n1), np.ones(n - n1)]
    K1 = gaussian_kernel(X[:, :1], gamma=gamma)
    K2 = gaussian_kernel(X[:, 1:], gamma=gamma)
    same = y[:, None] == y[None, :]
    return np.where(same, np.maximum(K1, K2), np.minimum(K1, K2))


def sigmoid_unit_kernel(n, seed=0):
    """Sigmoid kernel tanh(0.1 <x, z> + 0.5) on N(0, I_10) data, scaled to unit diagonal."""
    rng = np.random.default_rng(seed)
    K = sigmoid_kernel(rng.normal(size=(n, 10)), a=0.1, r=0.5)
    d = np.sqrt(np.diag(K))
    return K / np.outer(d, d)


KERNELS = {"randcorr": random_correlation, "minkowski": minkowski_kernel,
           "pickout": pickout_kernel, "sigmoid": sigmoid_unit_kernel}
DEFAULT_FAMILIES = "randcorr,minkowski,pickout"


def time_eigh(K, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        np.linalg.eigh(K)
        best = min(best, time.perf_counter() - t0)
    return best


def run_newton(K, tol, newton=nearest_psd_newton):
    """One Newton run to ``tol`` (``newton``: the solver; an older one with ``--before``)."""
    t0 = time.perf_counter()
    sol = newton(K, 1.0, tol=tol, certify=False, check_input=False)
    return {"sol": sol, "seconds": time.perf_counter() - t0, "iters": f"{sol.iterations}",
            "eigh": int(sol.certificate["eigh"]), "converged": sol.status == "converged",
            "extrapolated": False}


def run_estimator(K, tol, estimator=NearestPSD):
    """One ``NearestPSD(diagonal=1.0, tol=tol).fit(K)``; ``eigh`` counts the spectrum of ``K``."""
    t0 = time.perf_counter()
    est = estimator(diagonal=1.0, tol=tol).fit(K)
    seconds = time.perf_counter() - t0
    sol = est.solution_
    return {"sol": sol, "seconds": seconds, "iters": f"{sol.iterations}",
            "eigh": int(sol.certificate["eigh"]) + 1,    # the solver's and the spectrum of K
            "converged": sol.status == "converged", "extrapolated": False}


def interleaved(runners, repeat):
    """Run each of ``runners`` (name -> zero-argument function returning a result dict)
    ``repeat`` times, in turn, and keep for each the least seconds (with the last result):
    a load change on a shared machine then falls on every column alike."""
    best = {}
    for _ in range(repeat):
        for name, fn in runners.items():
            res = fn()
            if name not in best or res["seconds"] < best[name]["seconds"]:
                best[name] = res
    return best


def load_qisun(folder):
    """Qi and Sun's ``CorrelationMatrix.py`` from ``folder``: (namespace, eigh counter)."""
    path = os.path.join(folder, "CorrelationMatrix.py")
    with open(path) as f:
        src = f.read()
    cut = src.find("\n#test")          # its module-level test run (n = 3000)
    if cut >= 0:
        src = src[:cut]
    ns = {"__name__": "qisun_correlation_matrix"}
    exec(compile(src, path, "exec"), ns)
    ns["time"] = types.SimpleNamespace(clock=time.perf_counter)  # time.clock left Python 3.8
    counter = {"eigh": 0}
    mexeig = ns["my_mexeig"]

    def counted(x):
        counter["eigh"] += 1
        return mexeig(x)

    ns["my_mexeig"] = counted
    return ns, counter


class _QiSunSolution:
    """The fields of a krein ``Solution`` that the table reads."""

    def __init__(self, X, K, seconds):
        self.objective = float(np.linalg.norm(K - X))
        self.setup_time, self.solve_time = 0.0, seconds


def run_qisun(qisun, K, tol):
    """One run of Qi and Sun's code on ``K`` with ``b = 1``, ``tau = 0``, ``tol``."""
    ns, counter = qisun
    n = K.shape[0]
    counter["eigh"] = 0
    out = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out):
        X, _ = ns["my_correlationmatrix"](K, np.ones((n, 1)), 0.0, tol)
    best = time.perf_counter() - t0
    text = out.getvalue()
    its = int(re.search(r"Number of iterations: (\d+)", text).group(1))
    gap = abs(float(re.findall(r"relative duality gap: \[*([-+0-9.e]+)", text)[-1]))
    grad = float(re.findall(r"Norm of Relative Gradient: \[*([-+0-9.e]+)", text)[-1]) \
        if its else np.inf
    return {"sol": _QiSunSolution(X, K, best), "seconds": best, "iters": f"{its}",
            "eigh": counter["eigh"], "converged": gap <= tol or grad <= tol,
            "extrapolated": False}


def run_loop(K, method, tol, seconds):
    """Run ``method`` with max_iter chosen to fit ``seconds``; return a result dict."""
    probe = 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sol = alternating_projections(K, 1.0, solver=method, tol=tol, max_iter=probe,
                                      certify=False, check_input=False)
        tr = sol.trace
        per_iter = float(tr["seconds"].iloc[-1] - tr["seconds"].iloc[0]) / max(1, len(tr) - 1)
        if sol.status != "converged":
            max_iter = max(probe + 1, int(seconds / max(per_iter, 1e-9)))
            sol = alternating_projections(K, 1.0, solver=method, tol=tol, max_iter=max_iter,
                                          certify=False, check_input=False)
    tr = sol.trace
    k = len(tr)
    per_iter = float(tr["seconds"].iloc[-1]) / k
    total = sol.setup_time + sol.solve_time
    res = {"sol": sol, "seconds": total, "iters": f"{k}", "eigh": k,
           "converged": sol.status == "converged", "extrapolated": False}
    if not res["converged"]:
        crit = np.log10(tr["criterion"].to_numpy())
        tail = slice(2 * k // 3, k)
        slope = np.polyfit(np.arange(k)[tail], crit[tail], 1)[0] if k - 2 * k // 3 >= 3 else 0.0
        if slope < 0:
            k_tol = int(k + (np.log10(tol) - crit[-1]) / slope)
            res.update(iters=f"~{k_tol} (stopped at {k})", eigh=k_tol, seconds=k_tol * per_iter,
                       extrapolated=True)
        else:
            res.update(iters=f"? (stopped at {k})", eigh=None, seconds=np.nan, extrapolated=True)
    return res


def sdp_section(make, budget_end, answers):
    """The CVXPY SDP with SCS at n = 25, 50, ... while the next size fits the budget."""
    print("\nCVXPY SDP (munoz 9) with SCS, eps_abs = eps_rel = 1e-6")
    print(f"{'n':>6} {'setup s':>8} {'solve s':>8} {'total s':>8} {'rel. obj. diff':>15}")
    n, hist = 25, []
    while True:
        if hist:
            m_prev, t_prev = hist[-1]
            # growth exponent from the last two sizes, within [3, 6] (an eigh of order n
            # per SCS iteration, a sparse factorization with n^2 unknowns)
            expo = 4.0
            if len(hist) >= 2 and hist[-2][1] > 0.5:
                expo = float(np.log(t_prev / hist[-2][1]) / np.log(m_prev / hist[-2][0]))
                expo = min(max(expo, 3.0), 6.0)
            predicted = t_prev * (n / m_prev) ** expo
            if time.perf_counter() + predicted > budget_end:
                print(f"  (n = {n} not run: predicted {predicted:.0f} s, "
                      f"{max(0.0, budget_end - time.perf_counter()):.0f} s left)")
                break
        K = make(n)
        t0 = time.perf_counter()
        sol = solve(NearestPSDSDP(K, 1.0), "SCS", eps_abs=1e-6, eps_rel=1e-6, max_iters=100000)
        total = time.perf_counter() - t0
        ref = answers.get(n)
        if ref is None:
            ref = nearest_psd_newton(K, 1.0, tol=1e-10, certify=False).objective
        diff = (sol.objective - ref) / ref
        print(f"{n:6d} {total - sol.solve_time:8.2f} {sol.solve_time:8.2f} {total:8.2f} "
              f"{diff:15.2e}")
        hist.append((n, total))
        n *= 2


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="500,1000,2000")
    ap.add_argument("--families", default=DEFAULT_FAMILIES,
                    help=f"comma-separated, among {sorted(KERNELS)}")
    ap.add_argument("--kernel", choices=sorted(KERNELS), default=None,
                    help="one family (same as --families KERNEL)")
    ap.add_argument("--methods", default="newton,anderson,dykstra")
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--budget", type=float, default=1800.0, help="seconds in all")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per cell of Newton, the estimator and Qi and Sun's code, "
                         "interleaved, the best time of each kept (as for the reference)")
    ap.add_argument("--sdp", action="store_true", help="also time the CVXPY SDP with SCS")
    ap.add_argument("--before", default=None, metavar="PATH",
                    help="folder holding an older krein package renamed krein_before (git "
                         "archive REV krein | tar -x -C PATH; mv PATH/krein PATH/krein_before): "
                         "adds its Newton solver (newton-0) and estimator (estim.-0)")
    ap.add_argument("--qisun", default=None, metavar="PATH",
                    help="folder holding Qi and Sun's CorrelationMatrix.py (Yancheng Yuan's "
                         "Python code), outside the repository: adds its column")
    ap.add_argument("--quick", action="store_true", help="n = 100, 200 within 90 s")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.budget = "100,200", min(args.budget, 90.0)
    families = [args.kernel] if args.kernel else args.families.split(",")
    bad = [f for f in families if f not in KERNELS]
    if bad:
        ap.error(f"--families: unknown {bad}; choose among {sorted(KERNELS)}")
    methods = args.methods.split(",")
    before = None
    if args.before:
        sys.path.insert(0, args.before)
        from krein_before import NearestPSD as before_estimator
        from krein_before.solvers.psd_newton import nearest_psd_newton as before_newton
        before = (before_newton, before_estimator)
    qisun = None
    if args.qisun:
        if os.path.exists(os.path.join(args.qisun, "CorrelationMatrix.py")):
            qisun = load_qisun(args.qisun)
        else:
            print(f"no CorrelationMatrix.py in {args.qisun} (--qisun): its column is skipped")
    sizes = [int(s) for s in args.sizes.split(",")]
    t_start = time.perf_counter()
    loop_budget = (0.8 if args.sdp else 1.0) * args.budget
    cells = [(f, n) for n in sizes for f in families]
    answers = {}
    with threadpool_limits(args.threads):
        print(f"tol {args.tol:g}, {args.threads} BLAS thread(s), budget {args.budget:.0f} s")
        print(f"{'family':>10} {'n':>5} {'t_eigh':>7} {'method':>9} {'eigh-eq.':>9} "
              f"{'iterations':>22} {'eigh':>6} {'seconds':>8} {'||K-X||':>14} {'rel. diff':>9}")
        for i, (fam, n) in enumerate(cells):
            K = KERNELS[fam](n)
            t_eigh = time_eigh(K)
            runners = {}
            if "newton" in methods:
                runners["newton"] = lambda: run_newton(K, args.tol)
                if before is not None:
                    runners["newton-0"] = lambda: run_newton(K, args.tol, before[0])
            if "estimator" in methods:
                runners["estimator"] = lambda: run_estimator(K, args.tol)
                if before is not None:
                    runners["estim.-0"] = lambda: run_estimator(K, args.tol, before[1])
            if qisun is not None:
                runners["qisun"] = lambda: run_qisun(qisun, K, args.tol)
            results = interleaved(runners, args.repeat)
            left = loop_budget - (time.perf_counter() - t_start)
            share = max(left / (len(cells) - i), 5 * t_eigh)
            others = [m for m in ("anderson", "dykstra") if m in methods]
            for j, m in enumerate(others):
                used = sum(r["sol"].setup_time + r["sol"].solve_time
                           for k, r in results.items() if k in others)
                results[m] = run_loop(K, m, args.tol,
                                      max((share - used) / (len(others) - j), 5 * t_eigh))
            t_eigh = min(t_eigh, time_eigh(K))
            ref = results.get("newton")
            for m, res in results.items():
                obj = res["sol"].objective
                diff = ""
                if ref is not None and m != "newton" and res["converged"]:
                    best = max(ref["sol"].objective, 1e-300)
                    diff = f"{(obj - ref['sol'].objective) / best:9.1e}"
                eq = res["seconds"] / t_eigh
                eigh = "?" if res["eigh"] is None else f"{res['eigh']}"
                print(f"{fam:>10} {n:5d} {t_eigh:7.3f} {m:>9} {eq:9.1f} {res['iters']:>22} "
                      f"{eigh:>6} {res['seconds']:8.1f} {obj:14.10g} {diff:>9}", flush=True)
            if ref is not None and fam == families[0]:
                answers[n] = ref["sol"].objective
        if args.sdp:
            sdp_section(KERNELS[families[0]], t_start + args.budget, answers)
    print(f"\ntotal {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    main()
