"""Nearest PSD kernel with a fixed diagonal (munoz §3.3): speed as ratios to one ``eigh``.

For each n (default 500, 1000, 2000) on an indefinite kernel with unit diagonal
(default: munoz §4.1's artificial data, two Gaussian clouds, with the *pick-out*
combination of the two Gaussian kernels of the coordinate projections: the
maximum of the two kernels for a same-class pair, the minimum otherwise), print

* ``t_eigh``: one ``numpy.linalg.eigh(K)`` (best of 3 before and 3 after the
  loops), the reference;
* for Dykstra (``method="dykstra"``, Higham's Algorithm 3.3) and its Anderson
  acceleration (``method="anderson"``): seconds per iteration / ``t_eigh``
  (target: close to 1, one eigendecomposition plus O(n^2) per iteration), and
  the number of iterations to ``tol`` (default 1e-6).  A run that would not fit
  the time budget is stopped early and its iteration count to ``tol``
  extrapolated from the linear rate of the stopping criterion over the last
  third of its iterations (marked ``~``);
* the CVXPY SDP of munoz (9) (:class:`krein.formulations.nearest_psd.NearestPSDSDP`)
  with SCS (``eps_abs = eps_rel = 1e-6``) at n = 25, 50, 100, ... while the next
  size is predicted to fit the remaining budget (growth exponent of the last two
  sizes, within [3, 6]): its setup (CVXPY compile, constant data) and
  solve times, and its relative objective difference from the Dykstra/Anderson
  answer on the same kernel.

Everything runs in one process with ``--threads`` BLAS threads (default 1, via
threadpoolctl) within ``--budget`` seconds (default 600): 70 % for the loops,
30 % for the SDP, unused time carried over.

Usage::

    python benchmarks/nearest_psd.py                 # n = 500, 1000, 2000; 10 minutes
    python benchmarks/nearest_psd.py --quick         # n = 100, 200; 1 minute
    python benchmarks/nearest_psd.py --kernel sigmoid --sizes 300,600
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from krein.formulations.nearest_psd import NearestPSDSDP
from krein.kernels import gaussian_kernel, sigmoid_kernel
from krein.solvers import solve
from krein.solvers.alternating import alternating_projections


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


KERNELS = {"pickout": pickout_kernel, "sigmoid": sigmoid_unit_kernel}


def time_eigh(K, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        np.linalg.eigh(K)
        best = min(best, time.perf_counter() - t0)
    return best


def run_loop(K, method, tol, seconds, t_eigh):
    """Run ``method`` with max_iter chosen to fit ``seconds``; return a result dict."""
    probe = 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sol = alternating_projections(K, 1.0, method=method, tol=tol, max_iter=probe,
                                      certify=False, check_input=False)
        tr = sol.trace
        per_iter = float(tr["seconds"].iloc[-1] - tr["seconds"].iloc[0]) / max(1, len(tr) - 1)
        if sol.status != "converged":
            max_iter = max(probe + 1, int(seconds / max(per_iter, 1e-9)))
            sol = alternating_projections(K, 1.0, method=method, tol=tol, max_iter=max_iter,
                                          certify=False, check_input=False)
    tr = sol.trace
    k = len(tr)
    per_iter = float(tr["seconds"].iloc[-1] - tr["seconds"].iloc[0]) / max(1, k - 1)
    if sol.status == "converged":
        iters = f"{k}"
    else:
        crit = np.log10(tr["criterion"].to_numpy())
        tail = slice(2 * k // 3, k)
        slope = np.polyfit(np.arange(k)[tail], crit[tail], 1)[0] if k - 2 * k // 3 >= 3 else 0.0
        if slope < 0:
            iters = f"~{int(k + (np.log10(tol) - crit[-1]) / slope)} (stopped at {k})"
        else:
            iters = f"? (stopped at {k}, criterion {tr['criterion'].iloc[-1]:.1e})"
    return {"sol": sol, "ratio": per_iter / t_eigh, "per_iter": per_iter, "iters": iters,
            "seconds": float(tr["seconds"].iloc[-1]), "converged": sol.status == "converged"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="500,1000,2000")
    ap.add_argument("--kernel", choices=sorted(KERNELS), default="pickout")
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--budget", type=float, default=600.0, help="seconds in all")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads")
    ap.add_argument("--quick", action="store_true", help="n = 100, 200 within 60 s")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.budget = "100,200", min(args.budget, 60.0)
    sizes = [int(s) for s in args.sizes.split(",")]
    make = KERNELS[args.kernel]
    t_start = time.perf_counter()
    loop_budget = 0.7 * args.budget
    with threadpool_limits(args.threads):
        print(f"kernel {args.kernel}, tol {args.tol:g}, {args.threads} BLAS thread(s), "
              f"budget {args.budget:.0f} s")
        print(f"{'n':>6} {'t_eigh':>8} {'method':>9} {'s/iter':>8} {'/eigh':>6} "
              f"{'iterations to tol':>28} {'seconds':>8} {'||K-X||':>12}")
        answers = {}
        for i, n in enumerate(sizes):
            K = make(n)
            t_eigh = time_eigh(K)
            left = loop_budget - (time.perf_counter() - t_start)
            share = max(left / (len(sizes) - i), 5 * t_eigh)
            res_aa = run_loop(K, "anderson", args.tol, 0.5 * share, t_eigh)
            share_dyk = max(share - res_aa["seconds"], 5 * t_eigh)
            res_dyk = run_loop(K, "dykstra", args.tol, share_dyk, t_eigh)
            # the reference again after the loops (best of both: less exposed to load spikes)
            t_eigh = min(t_eigh, time_eigh(K))
            for res in (res_aa, res_dyk):
                res["ratio"] = res["per_iter"] / t_eigh
            for name, res in (("dykstra", res_dyk), ("anderson", res_aa)):
                print(f"{n:6d} {t_eigh:8.3f} {name:>9} {res['per_iter']:8.3f} {res['ratio']:6.2f} "
                      f"{res['iters']:>28} {res['seconds']:8.1f} {res['sol'].objective:12.8g}")
            best = [r["sol"].objective for r in (res_aa, res_dyk) if r["converged"]]
            if best:
                answers[n] = min(best)
        # ---- the SDP reference (SCS)
        print("\nCVXPY SDP (munoz 9) with SCS, eps_abs = eps_rel = 1e-6")
        print(f"{'n':>6} {'setup s':>8} {'solve s':>8} {'total s':>8} {'rel. obj. diff':>15}")
        sdp_end = t_start + args.budget
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
                if time.perf_counter() + predicted > sdp_end:
                    print(f"  (n = {n} not run: predicted {predicted:.0f} s, "
                          f"{max(0.0, sdp_end - time.perf_counter()):.0f} s left)")
                    break
            K = make(n)
            t0 = time.perf_counter()
            form = NearestPSDSDP(K, 1.0)
            sol = solve(form, "SCS", eps_abs=1e-6, eps_rel=1e-6, max_iters=100000)
            total = time.perf_counter() - t0
            if n not in answers:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    answers[n] = alternating_projections(K, 1.0, method="anderson", tol=1e-10,
                                                         max_iter=5000, certify=False).objective
            diff = (sol.objective - answers[n]) / answers[n]
            print(f"{n:6d} {total - sol.solve_time:8.2f} {sol.solve_time:8.2f} {total:8.2f} "
                  f"{diff:15.2e}")
            hist.append((n, total))
            n *= 2
    print(f"\ntotal {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    main()
