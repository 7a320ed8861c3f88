"""PseudoEuclideanPCA and pe-knn fit times as ratios against ESVC's fit, same kernel, same run.

For n in (2000,) by default, on the checkerboard of Loosli et al. (2013) §6.2 (10 %
overlap, ``[-1, 1]^2``) with the sigmoid kernel ``tanh(3 <x, z> - 1)`` (clearly
indefinite), print the best-of-``--repeat`` seconds of

* ``ESVC(kernel="precomputed").fit(K, y)`` (the reference: one ``eigh`` and a libsvm fit);
* ``PseudoEuclideanPCA(kernel="precomputed").fit(K)`` (one ``eigh`` of ``J K J``) and its
  ``transform`` of ``--n-test`` test rows;
* ``PseudoEuclideanKNeighbors(kernel="precomputed")`` fit (``energy`` None and 0.9) and
  predict, and the "knn" baseline (``KernelKNeighborsClassifier``) for comparison;

each fit as a ratio to ESVC's fit, with the test accuracies, the signature, and what
scikit-learn's ``KernelPCA(kernel="precomputed")`` says on the same kernel (it refuses
significant negative eigenvalues, its PR #12145).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/embedding.py          # n = 2000
    python benchmarks/embedding.py --sizes 500,2000 --repeat 1
    python benchmarks/embedding.py --quick                         # n = 300, one repeat
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.decomposition import KernelPCA

from krein import ESVC, PseudoEuclideanKNeighbors, PseudoEuclideanPCA
from krein.datasets import make_checkerboard
from krein.estimators import KernelKNeighborsClassifier
from krein.kernels import sigmoid_kernel

SIGMOID = {"a": 3.0, "r": -1.0}


def best_of(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def sklearn_kernel_pca_verdict(K):
    """What scikit-learn's KernelPCA does with the indefinite kernel (one line)."""
    try:
        KernelPCA(kernel="precomputed", eigen_solver="dense").fit(K)
    except ValueError as exc:
        return f"ValueError: {str(exc).splitlines()[0][:110]}"
    return "fitted (no error)"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="2000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--n-test", type=int, default=1000)
    ap.add_argument("--quick", action="store_true", help="n = 300, one repeat")
    args = ap.parse_args(argv)
    sizes = [300] if args.quick else [int(s) for s in args.sizes.split(",")]
    repeat = 1 if args.quick else args.repeat

    print(f"sigmoid kernel tanh({SIGMOID['a']} <x, z> + {SIGMOID['r']}), checkerboard on "
          f"[-1, 1]^2, 10 % overlap; best of {repeat}; ratio = fit time / ESVC fit time")
    for n in sizes:
        X, y = make_checkerboard(n + args.n_test, overlap=0.1, low=-1.0, high=1.0, random_state=0)
        X, Xt, y, yt = X[:n], X[n:], y[:n], y[n:]
        K = sigmoid_kernel(X, **SIGMOID)
        Kt = sigmoid_kernel(Xt, X, **SIGMOID)
        t_ref, esvc = best_of(lambda: ESVC(kernel="precomputed").fit(K, y), repeat)
        print(f"\nn = {n}: ESVC fit {t_ref:.3f} s (reference), test accuracy "
              f"{np.mean(esvc.predict(Kt) == yt):.3f}")
        print(f"  scikit-learn KernelPCA on K: {sklearn_kernel_pca_verdict(K)}")
        print(f"  {'method':<38} {'fit s':>8} {'ratio':>7} {'predict s':>9} {'acc':>6}  signature")
        t_fit, pca = best_of(lambda: PseudoEuclideanPCA(kernel="precomputed").fit(K), repeat)
        t_tr, _ = best_of(lambda: pca.transform(Kt), repeat)
        print(f"  {'PseudoEuclideanPCA (all components)':<38} {t_fit:8.3f} {t_fit / t_ref:7.2f} "
              f"{t_tr:9.3f} {'-':>6}  {pca.signature_}")
        rows = [("pe-knn k=5 (all components)", lambda: PseudoEuclideanKNeighbors(
                     kernel="precomputed")),
                ("pe-knn k=5 energy=0.9", lambda: PseudoEuclideanKNeighbors(
                     kernel="precomputed", energy=0.9)),
                ("knn k=5 (kernel-induced distance)", lambda: KernelKNeighborsClassifier(
                     kernel="precomputed"))]
        for name, make in rows:
            t_fit, est = best_of(lambda: make().fit(K, y), repeat)
            t_pred, pred = best_of(lambda: est.predict(Kt), repeat)
            sig = getattr(est, "signature_", "-")
            print(f"  {name:<38} {t_fit:8.3f} {t_fit / t_ref:7.2f} {t_pred:9.3f} "
                  f"{np.mean(pred == yt):6.3f}  {sig}")


if __name__ == "__main__":
    main()
