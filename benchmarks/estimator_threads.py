"""One fit of every registered method from Python: BLAS threads by size against fixed ones.

An estimator used directly (a script, a notebook, ``GridSearchCV``) picks its BLAS
threads by the size of the work (:mod:`krein._threads`, policy ``"auto"``: one
thread for a fit on at most ``SMALL_KERNEL`` rows and for a solver loop on at most
``LOOP_KERNEL``, the libraries' threads elsewhere).  For each registered method
(classifiers, regressors and outlier detectors; ``--task`` picks one kind) and
each size ``n`` this script times one fit on the same sigmoid kernel
(checkerboard points, ``tanh(x'z - 1)``, strongly indefinite; :func:`_problem`) under three
policies, in this process, interleaved (after one untimed warm-up fit at n = 100):
``auto`` (what a user gets), ``1`` (one thread) and ``default`` (the libraries'
threads).  It prints the seconds of each and ``auto / min(1, default)``: the
target is at most 1.2 for every method and size.  Each timing is the best of at
least ``--repeat`` rounds and one second of fits (at most 15 rounds); a fit longer
than ``--once`` seconds is timed once per policy.  ``perturb-svm`` needs a PSD
kernel and is left out, and so are ``clc`` and ``akm`` (``--methods`` times them).

``--eigh SIZES`` times one ``scipy.linalg.eigh`` (driver ``evd``) of a random
symmetric matrix on one thread and on the libraries' threads instead: where the
two cross is ``SMALL_KERNEL``.

Usage::

    python benchmarks/estimator_threads.py [--sizes 100,300,1000,3000] [--methods a,b]
                                           [--task all] [--repeat 3] [--once 5]
                                           [--limit 600]
    python benchmarks/estimator_threads.py --eigh 100,200,300,400,500,700

``--limit`` skips the larger sizes of a method once one of its fits took longer.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def _problem(n, task="classifier"):
    """The sigmoid kernel of ``n`` checkerboard points and the task's target.

    Classifiers get the checkerboard's labels, regressors a smooth real target of
    the same points (``sin(3 x1) cos(3 x2)`` plus noise), outlier detectors none.
    """
    from krein.datasets import make_checkerboard
    from krein.kernels import sigmoid_kernel

    X, y = make_checkerboard(n, overlap=0.1, random_state=0)
    K = sigmoid_kernel(X, a=1.0, r=-1.0)
    if task == "regressor":
        noise = np.random.default_rng(0).normal(scale=0.1, size=n)
        return K, np.sin(3 * X[:, 0]) * np.cos(3 * X[:, 1]) + noise
    return K, (None if task == "outlier" else y)


def _fit_seconds(method, K, y, policy):
    from krein import blas_threads, make_method

    est = make_method(method, kernel="precomputed")
    with warnings.catch_warnings(), blas_threads(policy):
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        est.fit(K) if y is None else est.fit(K, y)
        return time.perf_counter() - t


POLICIES = ("auto", 1, "default")


def _timings(method, K, y, repeat, once):
    """Best seconds per policy over interleaved rounds: at least ``repeat`` and one
    second in all (at most 15 rounds), or one round when a fit is slower than ``once``."""
    best = {p: np.inf for p in POLICIES}
    spent, rounds = 0.0, 0
    while True:
        for p in POLICIES:
            t = _fit_seconds(method, K, y, p)
            best[p] = min(best[p], t)
            spent += t
        rounds += 1
        if max(best.values()) > once or (rounds >= repeat and (spent >= 1.0 or rounds >= 15)):
            return best


def _eigh(sizes, repeat):
    import scipy.linalg
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    print(f"{'n':>5} {'1 thread ms':>12} {'default ms':>11} {'1 / default':>11}")
    for n in sizes:
        A = rng.normal(size=(n, n))
        A += A.T
        t = {}
        for _ in range(repeat):
            for p in (1, None):
                with threadpool_limits(limits=p, user_api="blas"):
                    t0 = time.perf_counter()
                    scipy.linalg.eigh(A, driver="evd")
                    t[p] = min(t.get(p, np.inf), time.perf_counter() - t0)
        print(f"{n:>5} {1e3 * t[1]:>12.2f} {1e3 * t[None]:>11.2f} {t[1] / t[None]:>11.2f}")


def main(argv=None):
    from threadpoolctl import threadpool_info

    from krein import list_methods

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100,300,1000,3000")
    ap.add_argument("--methods", default=None)
    ap.add_argument("--task", default="all", choices=("classifier", "regressor", "outlier", "all"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--once", type=float, default=5.0)
    ap.add_argument("--limit", type=float, default=600.0)
    ap.add_argument("--eigh", default=None)
    args = ap.parse_args(argv)
    if args.eigh:
        _eigh([int(s) for s in args.eigh.split(",")], max(args.repeat, 5))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    from krein.registry import method_entry

    tasks = ("classifier", "regressor", "outlier") if args.task == "all" else (args.task,)
    methods = (args.methods.split(",") if args.methods else
               [m for t in tasks for m in list_methods(task=t)
                if m not in ("clc", "akm", "perturb-svm")])
    libs = ", ".join(f"{lib['internal_api']} {lib['num_threads']} threads"
                     for lib in threadpool_info() if lib["user_api"] == "blas")
    print(f"BLAS: {libs}; best of {args.repeat} rounds (one above {args.once:g} s); "
          "seconds under each policy")
    print(f"{'method':>18} {'n':>5} {'auto':>8} {'1':>8} {'default':>8} {'auto/best':>9}")
    worst = 0.0
    problems = {(n, t): _problem(n, t) for n in sizes for t in tasks}
    over = []
    for m in methods:
        task = method_entry(m).task
        for n in sizes:
            K, y = problems[n, task]
            try:
                if n == sizes[0]:
                    _fit_seconds(m, *_problem(100, task), 1)   # warm-up: imports, caches
                t = _timings(m, K, y, args.repeat, args.once)
            except Exception as exc:   # noqa: BLE001 -- a method that cannot fit this kernel
                print(f"{m:>18} {n:>5} failed: {type(exc).__name__}: {str(exc)[:60]}")
                break
            ratio = t["auto"] / min(t[1], t["default"])
            worst = max(worst, ratio)
            if ratio > 1.2:
                over.append(f"{m} at {n} ({ratio:.2f})")
            print(f"{m:>18} {n:>5} {t['auto']:>8.3f} {t[1]:>8.3f} {t['default']:>8.3f} "
                  f"{ratio:>9.2f}", flush=True)
            if max(t.values()) > args.limit:
                break
    print(f"largest auto / best: {worst:.2f}; above 1.2: {', '.join(over) or 'none'}")


if __name__ == "__main__":
    main()
