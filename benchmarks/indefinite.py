"""IndefiniteSVM speed and scale ratios against references measured in the same run.

1. One projected-gradient iteration (gap checks excluded, the default backtracking
   step: about 1.5 oracle calls per iteration, ``ev/it``) divided by one
   ``numpy.linalg.eigh`` of the same size, n = 1000, 2000, 4000 (target <= 1/40 at
   n = 2000 on every kernel, one BLAS thread and the default; the MATLAB original
   spends an eigen-update plus an n x n product per iteration), and one oracle call
   divided by the two n x n matrix-vector products it cannot avoid (``Q'u`` and
   ``Q v``; moonshot: within 3x).  Eight kernels (``--part1-kernels``, every spectrum
   shape the oracle meets): the USPS Simpson kernel, the sigmoid kernel on 10-D points,
   the null-cluster sigmoid on 2-D points (hundreds of negative eigenvalues and a
   thousand numerically zero ones) and it scaled by 1e-4 and 1e4, a random symmetric
   matrix with half its eigenvalues negative, the Epanechnikov kernel on 5-D points,
   the classical-scaling kernel of L1 distances.  The oracle's default path
   (``secular="rational"``, no root of the secular equation) against the secular-root path
   (``"vectorized"``: the roots on the smaller side
   of the spectrum; "old") in PG runs, and one call of each plus ``"lapack"`` (one
   ``dlasd4`` per root) on the same point, medians, in the same process.  Run with
   one BLAS thread (threadpoolctl) and with the default number of threads
   (``--threads``; unset ``OMP_NUM_THREADS`` for the latter); the load average is
   printed beside each table.
2. Time to a certified relative gap of 1e-3: PG and APG at n = 4000, ACCPM at
   n = 1000, the exchange method at n = 500 (luss Fig. 2 stopped at 500 and 300).
   The exchange method runs with its default level step, and also as luss
   Algorithm 3 is written (``stabilization=None``, "exchange-plain"), capped at 20
   iterations, since it crawls at small rho.
3. Peak memory (tracemalloc, which sees NumPy's allocations) of a PG run at the
   largest n, as a multiple of the n x n kernel.
4. ``--small`` (the one-vs-one pairs of many classes): the crossover
   of the two ways :meth:`ProxyKernelOracle.eigendecomposition` (the proxy kernel of
   every libsvm gap check and the spectral out-of-sample map) can take at
   n = 50, 100, 200, 300, 400 (one BLAS thread, interleaved, best of 7): the secular
   roots (``secular="vectorized"``, what the default used at every n before) against
   one dense ``eigh`` of the reduced matrix (the default up to
   ``DENSE_EIGH_MAX_N``), on the sigmoid and the half-negative kernels; only
   this part runs.
5. ``--certificate``: PG to its default tolerance with the gap checks
   of a small svc refined by one interior-point solve (the default up to
   ``EXACT_SVM_MAX_N``) against libsvm's refinement (``EXACT_SVM_MAX_N = 0``), one BLAS
   thread, interleaved, best of 3, on three one-vs-one pairs of gauss14
   (``benchmarks/many_classes.py``; 425 and 638 training objects, as the main job's inner
   fits and refits) and at n = 61, 150, 300 on the L1 classical-scaling and sigmoid
   kernels, C in {1, 10}, rho in {0.1, 1}: seconds, iterations, libsvm / interior-point solves,
   the relative gap reached and the objective difference; only this part runs.

Kernels (:func:`make_problem`):

* ``simpson``: the Simpson score on USPS training digits (luss §5.1 "USPS-SS"; labels
  digits 0-4 vs 5-9 so that n = 4000 is available);
* ``sigmoid``: ``tanh(X X'/10 - 1)``, ``X`` standard normal ``(n, 10)`` (parts 2 and 3
  of the README's numbers);
* ``sigmoid-2d``: ``tanh(9 <x, z> - 1)`` on points uniform in ``[-1, 1]^2``, labels
  ``sign(x_0 x_1)`` (the XOR quadrants); about a third of its eigenvalues below
  ``-1e-10 max |lam|`` (668 at n = 2000) and many near zero;
* ``half-negative``: ``(G + G')/sqrt(2n)``, ``G`` standard normal (semicircle spectrum
  on ``[-2, 2]``, half negative), random labels;
* ``sigmoid-2d-1e-4``, ``sigmoid-2d-1e4``: ``sigmoid-2d`` times 1e-4 and 1e4 (same
  ``rho``: the update ``u u' / (4 rho)`` is then large or small against ``K``);
* ``epanechnikov``: ``max(0, 1 - |x - z|^2 / 4)`` on standard normal points in 5-D
  (luss §6 "EP");
* ``l1-scaling``: ``-1/2 J D^2 J`` for the L1 (cityblock) distances ``D`` of standard
  normal points in 10-D (classical scaling of a non-Euclidean dissimilarity);
* ``truncated-l1``: ``max(0, 1 - |x - z|_1 / 3)`` on points uniform in ``[0, 1]^10``
  (the truncated L1 kernel of Huang et al. 2018 with ``rho = 0.3 d``: 920 of 2000
  eigenvalues negative at n = 2000),
  labels ``sign(x_0 - x_1 + 0.2 e)``.

``--kernel`` picks the kernel of parts 2 and 3.  ``--quick`` runs n = 500, 1000 only,
and part 1 with one BLAS thread only.

Usage::

    python benchmarks/indefinite.py [--quick] [--kernel simpson|sigmoid|sigmoid-2d|half-negative|...]
                                    [--part1-kernels simpson,sigmoid-2d,half-negative,...]
                                    [--threads 1,default] [--sizes 1000,2000] [--C 1] [--rho 1]
                                    [--skip 1,3] [--algorithms accpm,exchange]
    python benchmarks/indefinite.py --small | --certificate
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
import warnings

import numpy as np

KERNELS = ("simpson", "sigmoid", "sigmoid-2d", "half-negative", "sigmoid-2d-1e-4", "sigmoid-2d-1e4",
           "epanechnikov", "l1-scaling", "truncated-l1")

#: Kernels of part 1 by default: every spectrum shape the oracle meets.
PART1_KERNELS = ("simpson", "sigmoid", "sigmoid-2d", "half-negative", "sigmoid-2d-1e-4",
                 "sigmoid-2d-1e4", "epanechnikov", "l1-scaling")


def make_problem(n, kernel, seed=0):
    """Kernel matrix and labels of size ``n`` (see the module docstring)."""
    from krein.kernels import sigmoid_kernel, simpson_kernel

    if kernel == "simpson":
        from krein.datasets import load

        X, y = load("usps", split="train")
        X, y = X[:n], y[:n]
        if X.shape[0] < n:
            raise SystemExit(f"USPS train has only {X.shape[0]} points")
        K = simpson_kernel(X)
        yy = np.where(np.asarray(y).astype(int) <= 4, 1.0, -1.0)
        return K, yy
    rng = np.random.default_rng(seed)
    if kernel.startswith("sigmoid-2d"):
        X = rng.uniform(-1.0, 1.0, size=(n, 2))
        scale = float(kernel[len("sigmoid-2d-"):]) if kernel != "sigmoid-2d" else 1.0
        K = scale * sigmoid_kernel(X, a=9.0, r=-1.0)
        return K, np.where(X[:, 0] * X[:, 1] >= 0, 1.0, -1.0)
    if kernel == "half-negative":
        G = rng.normal(size=(n, n))
        return (G + G.T) / np.sqrt(2.0 * n), rng.choice([-1.0, 1.0], size=n)
    if kernel == "epanechnikov":
        from krein.kernels import epanechnikov_kernel

        X = rng.normal(size=(n, 5))
        return epanechnikov_kernel(X, sigma=2.0), np.where(X[:, 0] * X[:, 1] >= 0, 1.0, -1.0)
    if kernel == "l1-scaling":
        from scipy.spatial.distance import cdist

        from krein.kernels import dissimilarity_kernel

        X = rng.normal(size=(n, 10))
        return (dissimilarity_kernel(cdist(X, X, "cityblock"), kind="linear"),
                np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0))
    if kernel == "truncated-l1":
        from scipy.spatial.distance import cdist

        X = rng.uniform(0.0, 1.0, size=(n, 10))
        K = np.maximum(0.0, 1.0 - cdist(X, X, "cityblock") / 3.0)
        return K, np.where(X[:, 0] - X[:, 1] + 0.2 * rng.normal(size=n) > 0, 1.0, -1.0)
    X = rng.normal(size=(n, 10))
    yy = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    return sigmoid_kernel(X, a=0.1, r=-1.0), yy


def time_eigh(K, repeats=1):
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        np.linalg.eigh(K)
        best = min(best, time.perf_counter() - t)
    return best


def _best_time(fn, repeats=7):
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts)


PATHS = ("rational", "vectorized", "lapack")


def _best_of_interleaved(oracle, u, repeats=7):
    """Median times of one oracle call on each path of :data:`PATHS`, alternated."""
    times = {method: [] for method in PATHS}
    for _ in range(repeats):
        for method in PATHS:
            oracle.secular = method
            t = time.perf_counter()
            oracle.evaluate(u)
            times[method].append(time.perf_counter() - t)
    oracle.secular = "rational"
    return {method: float(np.median(v)) for method, v in times.items()}


def _pg_seconds(P, oracle, n_iter, step="backtracking"):
    from krein.solvers.indefinite import projected_gradient

    before = oracle.n_evals
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = projected_gradient(P, tol=0.0, atol=0.0, max_iter=n_iter, gap_every=0,
                                 oracle=oracle, step=step)
    return float(np.median(sol.trace["seconds"])), sol, (oracle.n_evals - before) / n_iter


def per_iteration(sizes, kernels, C, rho, threads=(1, None), n_iter=20, eigh_repeats=3):
    """Part 1: PG iteration and oracle call against one eigh and two matrix-vector products.

    Every time is a median of repeats in this process (``eigh``: ``eigh_repeats``; a PG
    iteration: ``n_iter`` iterations; an oracle call: 7, the paths alternated), so the
    ratios hold on a shared machine; the load average is printed beside them.
    """
    import os

    from threadpoolctl import threadpool_info, threadpool_limits

    from krein.formulations.indefinite import ProxyKernelProblem
    from krein.solvers.indefinite import ProxyKernelOracle

    print("\n== 1. one PG iteration / one numpy.linalg.eigh (gap checks excluded); one oracle "
          "call / two n x n matrix-vector products (2mv) ==")
    print("new: secular='rational' (the default: the sign function's trapezoidal rule, no "
          "root); old: 'vectorized' (the secular roots); "
          "dlasd4: 'lapack'; same process, same point")
    rows = []
    for nthreads in threads:
        with threadpool_limits(limits=nthreads):
            used = max((i.get("num_threads", 1) for i in threadpool_info()), default=1)
            print(f"\n-- BLAS threads: {used} ({'limited to 1' if nthreads else 'default'}); "
                  f"load average {os.getloadavg()[0]:.2f} --")
            print(f"{'kernel':>15} {'n':>5} {'eigh s':>7} {'iter ms':>8} {'old':>6} "
                  f"{'iter/eigh':>9} {'old':>6} {'oracle ms':>9} {'old':>6} {'dlasd4':>6} "
                  f"{'2mv ms':>6} {'oracle/2mv':>10} {'old':>5} {'ev/it':>5} {'k_neg':>5} "
                  f"{'roots':>5}")
            for kernel in kernels:
                for n in sizes:
                    K, y = make_problem(n, kernel)
                    # the oracle's construction is one numpy.linalg.eigh of K (check=False)
                    t = time.perf_counter()
                    oracle = ProxyKernelOracle(K, rho, check=False)
                    t_eigh = [time.perf_counter() - t]
                    t_eigh += [time_eigh(K) for _ in range(eigh_repeats - 1)]
                    t_eigh = float(np.median(t_eigh))
                    P = ProxyKernelProblem(K, y, C=C, rho=rho, check=False)
                    it_new, sol, ev_it = _pg_seconds(P, oracle, n_iter)
                    oracle.secular = "vectorized"
                    it_old, _, _ = _pg_seconds(P, oracle, n_iter)
                    oracle.secular = "rational"
                    # one oracle call at the final point of the new run (value + gradient)
                    u = P.u_of(sol.primal["beta"])
                    t_call = _best_of_interleaved(oracle, u)
                    ev = oracle.evaluate(u)
                    Q = oracle.eigenvectors
                    t_2mv = float(np.median([_best_time(lambda: (Q.T @ u, Q @ u), 1)
                                             for _ in range(7)]))
                    roots = _roots_solved(oracle, u)
                    print(f"{kernel:>15} {n:5d} {t_eigh:7.2f} {1e3 * it_new:8.1f} "
                          f"{1e3 * it_old:6.1f} {'1/%.0f' % (t_eigh / it_new):>9} "
                          f"{'1/%.0f' % (t_eigh / it_old):>6} {1e3 * t_call['rational']:9.1f} "
                          f"{1e3 * t_call['vectorized']:6.1f} {1e3 * t_call['lapack']:6.1f} "
                          f"{1e3 * t_2mv:6.2f} {t_call['rational'] / t_2mv:10.1f} "
                          f"{t_call['vectorized'] / t_2mv:5.1f} {ev_it:5.2f} "
                          f"{ev.n_negative:5d} {roots:5d}", flush=True)
                    rows.append((used, kernel, n, t_eigh, it_new, it_old, t_call, t_2mv))
    return rows


def _roots_solved(oracle, u):
    """Roots of the secular equation one call of the old path solves (the smaller side)."""
    from krein.solvers.secular import rank_one_eig

    eig = rank_one_eig(oracle.eigenvalues, oracle._to_z(u), oracle.sigma)
    m = eig.poles.size
    k = int(np.searchsorted(eig.poles, 0.0))
    return 0 if k == 0 else min(k, m - k + 1)


def to_gap(kernel, C, rho, jobs):
    from krein.formulations.indefinite import ProxyKernelProblem
    from krein.solvers import solve_indefinite

    print("\n== 2. time to certified relative gap 1e-3 ==")
    print(f"{'algorithm':>14} {'n':>6} {'rho':>6} {'wall s':>8} {'iters':>6} {'rel gap':>9} "
          f"{'bound':>12} {'libsvm s':>9} {'status':>8}")
    for label, n, opts, job_rho in jobs:
        alg = label.split("-")[0]
        job_rho = rho if job_rho is None else job_rho
        K, y = make_problem(n, kernel)
        P = ProxyKernelProblem(K, y, C=C, rho=job_rho, check=False)
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                sol = solve_indefinite(P, alg, tol=1e-3, **opts)
            except Exception as exc:  # report and go on
                print(f"{label:>14} {n:6d}  failed: {type(exc).__name__}: {exc}")
                continue
        wall = time.perf_counter() - t
        c = sol.certificate
        print(f"{label:>14} {n:6d} {job_rho:6g} {wall:8.1f} {sol.iterations:6d} {c['relative_gap']:9.2e} "
              f"{c['upper_source']:>12} {c.get('libsvm_seconds', float('nan')):9.1f} "
              f"{sol.status:>8}")


def peak_memory(n, kernel, C, rho):
    from krein.formulations.indefinite import ProxyKernelProblem
    from krein.solvers.indefinite import projected_gradient

    print(f"\n== 3. peak memory of a PG run (10 iterations, one libsvm gap check) at n = {n} ==")
    K, y = make_problem(n, kernel)
    kb = K.nbytes
    tracemalloc.start()
    P = ProxyKernelProblem(K, y, C=C, rho=rho, check=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        projected_gradient(P, tol=0.0, atol=0.0, max_iter=10, gap_every=10)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"kernel {kb / 2**20:.0f} MiB, peak extra {peak / 2**20:.0f} MiB = {peak / kb:.2f} x kernel")


def small_eigendecomposition(sizes=(50, 100, 200, 300, 400), kernels=("sigmoid", "half-negative"),
                             C=1.0, rho=1.0, repeats=7):
    """Part 4: seconds of one eigendecomposition of ``X(u)`` by the secular roots and by
    one dense ``eigh`` (interleaved, best of ``repeats``, one BLAS thread), at a point
    ``u = y * alpha`` with ``alpha`` uniform in ``[0, C]``."""
    from threadpoolctl import threadpool_limits

    from krein.solvers.indefinite import oracle as oracle_module

    threshold = oracle_module.DENSE_EIGH_MAX_N
    print(f"part 4: eigendecomposition of X(u), one BLAS thread, ms (dense is the default "
          f"for n <= {threshold})")
    print(f"{'kernel':14s} {'n':>5s} {'secular ms':>11s} {'dense ms':>9s} {'ratio':>6s}")
    rng = np.random.default_rng(0)
    with threadpool_limits(1):
        for kernel in kernels:
            for n in sizes:
                K, y = make_problem(n, kernel)
                oracle = oracle_module.ProxyKernelOracle(K, rho, check=False)
                u = y * rng.uniform(0.0, C, size=n)
                best = {"vectorized": np.inf, "rational": np.inf}
                oracle_module.DENSE_EIGH_MAX_N = n      # "rational": the dense path at this n
                try:
                    for _ in range(repeats):
                        for path in best:
                            oracle.secular = path
                            t = time.perf_counter()
                            oracle.eigendecomposition(u)
                            best[path] = min(best[path], time.perf_counter() - t)
                finally:
                    oracle_module.DENSE_EIGH_MAX_N = threshold
                print(f"{kernel:14s} {n:5d} {1e3 * best['vectorized']:11.3f} "
                      f"{1e3 * best['rational']:9.3f} "
                      f"{best['vectorized'] / best['rational']:6.2f}", flush=True)


def _gauss14_pairs(n_train, pairs=((0, 1), (4, 9), (7, 12))):
    """One-vs-one pair problems of benchmarks/many_classes.py's gauss14 (14 classes,
    Minkowski-0.5 dissimilarities, classical scaling of ``n_train`` training objects):
    the problems a many-class main job solves (~61 objects at the inner folds' 425,
    ~91 at the refit's 638)."""
    import os
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import many_classes as mc

    D, labels = mc.gauss14()
    K = mc.classical_scaling(D)
    tr = np.sort(np.random.default_rng(0).permutation(labels.size)[:n_train])
    K, labels = K[np.ix_(tr, tr)], labels[tr]
    out = []
    for a, b in pairs:
        idx = np.flatnonzero((labels == a) | (labels == b))
        out.append((f"{a}v{b}", K[np.ix_(idx, idx)], np.where(labels[idx] == a, 1.0, -1.0)))
    return out


def certificate_paths(sizes=(61, 150, 300), kernels=("l1-scaling", "sigmoid"),
                      Cs=(1.0, 10.0), rhos=(0.1, 1.0), repeats=3):
    """Part 5: PG with the interior-point refinement of the gap checks (the default for a
    small svc) against libsvm's refinement, interleaved in this process: on one-vs-one
    pairs of gauss14 (the favourable case) and on two kernels of part 1 at the sizes
    ``sizes`` (where libsvm's first solve is mostly enough)."""
    from threadpoolctl import threadpool_limits

    from krein.formulations.indefinite import ProxyKernelProblem
    from krein.solvers import solve_indefinite
    from krein.solvers.indefinite import certifier as certifier_module

    threshold = certifier_module.EXACT_SVM_MAX_N
    print(f"part 5: PG to its default tolerance, gap checks refined by libsvm (EXACT_SVM_MAX_N = 0)"
          f" or by one interior-point solve (default, n <= {threshold}); one BLAS thread, best of "
          f"{repeats}")
    print(f"{'kernel':11s} {'n':>4s} {'C':>4s} {'rho':>4s} {'libsvm s':>9s} {'exact s':>8s} "
          f"{'ratio':>6s} {'iters':>9s} {'libsvm/ip solves':>17s} {'rel. gap':>17s} {'|df|/|f|':>9s}")
    tot = {"libsvm": 0.0, "exact": 0.0}
    problems = [(f"g14-{name}", K, y) for n_train in (425, 638)
                for name, K, y in _gauss14_pairs(n_train)]
    problems += [(kernel, *make_problem(n, kernel)) for kernel in kernels for n in sizes]
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kernel, K, y in problems:
            n = y.size
            if True:
                for C in Cs:
                    for rho in rhos:
                        P = ProxyKernelProblem(K, y, C=C, rho=rho, check=False)
                        best, sol = {"libsvm": np.inf, "exact": np.inf}, {}
                        for _ in range(repeats):
                            for path, limit in (("libsvm", 0), ("exact", threshold)):
                                certifier_module.EXACT_SVM_MAX_N = limit
                                try:
                                    t = time.perf_counter()
                                    sol[path] = solve_indefinite(P, "pg")
                                    best[path] = min(best[path], time.perf_counter() - t)
                                finally:
                                    certifier_module.EXACT_SVM_MAX_N = threshold
                        a, b = sol["libsvm"].certificate, sol["exact"].certificate
                        df = abs(sol["libsvm"].objective - sol["exact"].objective) / max(
                            abs(sol["libsvm"].objective), 1e-300)
                        tot["libsvm"] += best["libsvm"]
                        tot["exact"] += best["exact"]
                        print(f"{kernel:11s} {n:4d} {C:4g} {rho:4g} {best['libsvm']:9.3f} "
                              f"{best['exact']:8.3f} {best['libsvm'] / best['exact']:6.2f} "
                              f"{sol['libsvm'].iterations:4d}/{sol['exact'].iterations:<4d} "
                              f"{a['n_libsvm']:5d}/{b['n_libsvm']:4d}+{b['n_interior_point']:<4d}  "
                              f"{a['relative_gap']:8.1e}/{b['relative_gap']:8.1e} {df:9.1e}",
                              flush=True)
    print(f"total: libsvm {tot['libsvm']:.2f} s, exact {tot['exact']:.2f} s, ratio "
          f"{tot['libsvm'] / tot['exact']:.2f}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--sizes", default=None,
                   help="comma list of the sizes of parts 1-3 (default 1000,2000,4000; "
                        "500,1000 with --quick)")
    p.add_argument("--kernel", choices=KERNELS, default="simpson",
                   help="kernel of parts 2 and 3")
    p.add_argument("--part1-kernels", default=",".join(PART1_KERNELS),
                   help="comma list of the kernels of part 1")
    p.add_argument("--threads", default=None,
                   help="comma list of BLAS thread settings of part 1: 1 and/or default "
                        "(default 1,default; 1 with --quick)")
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--rho", type=float, default=1.0)
    p.add_argument("--skip", default="", help="comma list of parts to skip (1,2,3)")
    p.add_argument("--algorithms", default="pg,apg,accpm,exchange,exchange-plain",
                   help="comma list of part-2 runs")
    p.add_argument("--small", action="store_true",
                   help="only part 4: eigendecomposition at small n, secular roots vs dense eigh")
    p.add_argument("--certificate", action="store_true",
                   help="only part 5: the gap checks refined by libsvm vs one interior-point solve")
    a = p.parse_args(argv)
    if a.certificate:
        certificate_paths()
        return
    if a.small:
        small_eigendecomposition(C=a.C, rho=a.rho)
        return
    skip = set(a.skip.split(","))
    sizes = [500, 1000] if a.quick else [1000, 2000, 4000]
    if a.sizes:
        sizes = [int(v) for v in a.sizes.split(",")]
    print(f"kernel={a.kernel} C={a.C} rho={a.rho}")
    if "1" not in skip:
        kernels = a.part1_kernels.split(",")
        bad = sorted(set(kernels) - set(KERNELS))
        if bad:
            p.error(f"--part1-kernels: unknown {bad}; choose from {', '.join(KERNELS)}")
        spec = a.threads or ("1" if a.quick else "1,default")
        threads = [None if t == "default" else int(t) for t in spec.split(",")]
        per_iteration(sizes, kernels, a.C, a.rho, threads)
    if "2" not in skip:
        big = sizes[-1]
        # luss Algorithm 3 as written crawls at small rho (each QCLP cut misses the quartic
        # term of (7)): capped at 20 iterations
        n_ex = 200 if a.quick else 500
        jobs = [("pg", big, {}, None), ("apg", big, {}, None),
                # ACCPM needs about 5 n centers (krein/solvers/accpm.py)
                ("accpm", 300 if a.quick else 1000, {"max_iter": 6000}, None),
                ("exchange", n_ex, {"solver": "ECOS"}, None),
                ("exchange-plain", n_ex, {"solver": "ECOS", "max_iter": 20,
                                          "stabilization": None}, None)]
        wanted = set(a.algorithms.split(","))
        to_gap(a.kernel, a.C, a.rho, [j for j in jobs if j[0] in wanted])
    if "3" not in skip:
        peak_memory(sizes[-1], a.kernel, a.C, a.rho)


if __name__ == "__main__":
    main()
