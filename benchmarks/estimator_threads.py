"""One fit of every registered classifier from Python: BLAS threads by size against fixed ones.

An estimator used directly (a script, a notebook, ``GridSearchCV``) picks its BLAS
threads by the number of rows it is fitted on (:mod:`krein._threads`, policy
``"auto"``: one thread for at most 1000 rows, the libraries' threads above).  For
each registered classifier and each size ``n`` this script times one fit on the
same sigmoid kernel (checkerboard points, ``tanh(x'z - 1)``, strongly indefinite)
under three policies, in this process, one after the other (after one untimed
warm-up fit): ``auto`` (what a user gets), ``1`` (one thread) and ``default`` (the
libraries' threads).  It prints the
seconds of each and ``auto / min(1, default)``: the target is at most 1.2 for every
method and size.  Each timing is the best of ``--repeat`` fits.

Usage::

    python benchmarks/estimator_threads.py [--sizes 100,300,1000,3000] [--methods a,b]
                                           [--repeat 3] [--limit 60]

``--limit`` skips the larger sizes of a method once one of its fits took longer.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def _problem(n):
    from krein.datasets import make_checkerboard
    from krein.kernels import sigmoid_kernel

    X, y = make_checkerboard(n, overlap=0.1, random_state=0)
    return sigmoid_kernel(X, a=1.0, r=-1.0), y


def _fit_seconds(method, K, y, policy, repeat):
    from krein import blas_threads, make_method

    best = np.inf
    for _ in range(repeat):
        est = make_method(method, kernel="precomputed")
        with warnings.catch_warnings(), blas_threads(policy):
            warnings.simplefilter("ignore")
            t = time.perf_counter()
            est.fit(K, y)
            best = min(best, time.perf_counter() - t)
    return best


def main(argv=None):
    from threadpoolctl import threadpool_info

    from krein import list_methods

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100,300,1000,3000")
    ap.add_argument("--methods", default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--limit", type=float, default=60.0)
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    methods = (args.methods.split(",") if args.methods else
               [m for m in list_methods(task="classifier") if m not in ("clc", "akm")])
    libs = ", ".join(f"{lib['internal_api']} {lib['num_threads']} threads"
                     for lib in threadpool_info() if lib["user_api"] == "blas")
    print(f"BLAS: {libs}; best of {args.repeat} fits; seconds under each policy")
    print(f"{'method':>18} {'n':>5} {'auto':>8} {'1':>8} {'default':>8} {'auto/best':>9}")
    worst = 0.0
    problems = {n: _problem(n) for n in sizes}
    for m in methods:
        for n in sizes:
            K, y = problems[n]
            try:
                _fit_seconds(m, K, y, 1, 1)      # warm-up: imports and caches, not timed
                t = {p: _fit_seconds(m, K, y, p, args.repeat) for p in ("auto", 1, "default")}
            except Exception as exc:   # noqa: BLE001 -- a method that cannot fit this kernel
                print(f"{m:>18} {n:>5} failed: {type(exc).__name__}: {str(exc)[:60]}")
                break
            ratio = t["auto"] / min(t[1], t["default"])
            worst = max(worst, ratio)
            print(f"{m:>18} {n:>5} {t['auto']:>8.3f} {t[1]:>8.3f} {t['default']:>8.3f} "
                  f"{ratio:>9.2f}", flush=True)
            if max(t.values()) > args.limit:
                break
    print(f"largest auto / best: {worst:.2f}")


if __name__ == "__main__":
    main()
