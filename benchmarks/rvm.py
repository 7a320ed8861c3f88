"""RVC fit time as a ratio against one libsvm fit on the same indefinite kernel, same run.

For n in (500, 1000, 2000) on the checkerboard of Loosli et al. (2013) §6.2
(10 % overlap) on ``[-1, 1]^2`` with the sigmoid kernel ``tanh(3 <x, z> - 1)``
(clearly indefinite: the least eigenvalue is about as large in magnitude as the
largest), print

* ``RVC(kernel="precomputed").fit(K, y)`` time / ``SVC(kernel="precomputed").fit(K, y)``
  time (libsvm's SMO on the indefinite kernel as it is, C = 1);
* the number of relevance vectors against libsvm's support vectors, the RVC's
  iterations and rejected candidate actions, and both test accuracies (2000
  held-out points, kernel rows computed with the same sigmoid).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/rvm.py           # n = 500, 1000, 2000
    python benchmarks/rvm.py --sizes 500,4000 --repeat 1
    python benchmarks/rvm.py --quick                          # n = 300, one repeat

Times are the best of ``--repeat`` runs (default 3).  The RVC's cost per
iteration is one ``(n, n + 1) x (n, M)`` product (M = active basis functions,
~20 here) for the sparsity/quality factors of every column (Tipping & Faul 2003
§4; SparseBayes does the same), so its time grows like ``n^2 M`` times the
number of iterations; libsvm stops early on this indefinite kernel (its SMO
reaches a stationary point quickly) and predicts poorly with it.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.svm import SVC

from krein.datasets import make_checkerboard
from krein.estimators.rvm import RVC
from krein.kernels import sigmoid_kernel

SIGMOID = {"a": 3.0, "r": -1.0}


def best_of(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="500,1000,2000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--n-test", type=int, default=2000)
    ap.add_argument("--quick", action="store_true", help="n = 300, one repeat")
    args = ap.parse_args(argv)
    sizes = [300] if args.quick else [int(s) for s in args.sizes.split(",")]
    repeat = 1 if args.quick else args.repeat

    print(f"sigmoid kernel tanh({SIGMOID['a']} <x, z> + {SIGMOID['r']}), checkerboard on [-1, 1]^2, "
          f"10 % overlap; best of {repeat}")
    head = (f"{'n':>5} {'min eig':>8} {'max eig':>8} {'libsvm s':>9} {'n_SV':>5} {'SVC acc':>7} "
            f"{'RVC s':>7} {'n_RV':>5} {'iters':>5} {'rejected':>8} {'RVC acc':>7} {'ratio':>7}")
    print(head)
    for n in sizes:
        X, y = make_checkerboard(n + args.n_test, overlap=0.1, low=-1.0, high=1.0,
                                 random_state=0)
        X, Xt, y, yt = X[:n], X[n:], y[:n], y[n:]
        K = sigmoid_kernel(X, **SIGMOID)
        Kt = sigmoid_kernel(Xt, X, **SIGMOID)
        lam = np.linalg.eigvalsh(K)
        svc = SVC(kernel="precomputed", C=1.0)
        t_svm, _ = best_of(lambda: svc.fit(K, y), repeat)
        rvc = RVC(kernel="precomputed")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t_rvc, _ = best_of(lambda: rvc.fit(K, y), repeat)
        note = "  (max_iter reached)" if caught else ""
        print(f"{n:>5} {lam[0]:>8.1f} {lam[-1]:>8.1f} {t_svm:>9.4f} {svc.support_.size:>5} "
              f"{svc.score(Kt, yt):>7.3f} {t_rvc:>7.3f} {rvc.relevance_vectors_.size:>5} "
              f"{int(rvc.n_iter_[0]):>5} {int(rvc.trace_['n_rejected'].sum()):>8} "
              f"{rvc.score(Kt, yt):>7.3f} {t_rvc / t_svm:>7.0f}{note}")


if __name__ == "__main__":
    main()
