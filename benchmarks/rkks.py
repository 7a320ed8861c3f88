"""Kreĭn least squares (Oglic & Gärtner 2018) fit time as a ratio to ESVC's on the same kernel.

Exact path: for n in (500, 1000, 2000) on the checkerboard with the sigmoid kernel
``tanh(a <x, z> + r)`` (``a = 1, r = -1`` on ``[-1, 1]^2``: an indefinite kernel), print

* ``KreinLeastSquaresClassifier(kernel="precomputed").fit(K, y)`` (one ``eigh`` of
  ``K``, then the secular equation: a few dozen O(n) evaluations),
* ``ESVC(kernel="precomputed").fit(K, y)`` (one ``eigh`` plus libsvm on ``|K|``),
* their ratio, the secular evaluations, the certificate (largest relative residual of
  the global optimality conditions) and both test accuracies (2000 fresh points).

Nyström path (Oglic & Gärtner 2019): ``approximation=IndefiniteNystroem(n_components=m)``
at n = 10^4 and 5 10^4 (``--large``), fit time and accuracy, against the exact path's
time at n = 2000 in the same process.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/rkks.py            # n = 500..2000, Nystroem 1e4, 5e4
    OPENBLAS_NUM_THREADS=1 python benchmarks/rkks.py --quick    # n = 200, 400; Nystroem 2000

Times are the best of ``--repeat`` runs (default 3; 1 with ``--quick``).
"""

from __future__ import annotations

import argparse
import time

from krein.approximation import IndefiniteNystroem
from krein.datasets import make_checkerboard
from krein.estimators import ESVC
from krein.estimators.rkks import KreinLeastSquaresClassifier
from krein.kernels import kernel_scale, sigmoid_kernel


def best_of(fn, repeat):
    """Least wall time of ``repeat`` calls of ``fn`` and the last result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main(argv=None):
    """Print the table of the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="500,1000,2000")
    ap.add_argument("--large", default="10000,50000")
    ap.add_argument("--landmarks", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--radius-squared", type=float, default=10.0,
                    help="r^2 relative to the kernel scale (r^2 s)")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    sizes = [200, 400] if args.quick else [int(v) for v in args.sizes.split(",")]
    large = [2000] if args.quick else [int(v) for v in args.large.split(",")]
    repeat = 1 if args.quick else args.repeat
    kp = {"a": 1.0, "r": -1.0}
    Xt, yt = make_checkerboard(2000, overlap=0.1, low=-1, high=1, random_state=1)
    print(f"{'n':>6} {'krein-ls s':>11} {'esvc s':>8} {'ratio':>6} {'evals':>5} "
          f"{'kkt':>8} {'acc ls':>6} {'acc esvc':>8}")
    ref = None
    for n in sizes:
        X, y = make_checkerboard(n, overlap=0.1, low=-1, high=1, random_state=0)
        K = sigmoid_kernel(X, **kp)
        Kt = sigmoid_kernel(Xt, X, **kp)
        r2 = args.radius_squared / kernel_scale(K)
        t_ls, ls = best_of(lambda: KreinLeastSquaresClassifier(
            kernel="precomputed", radius_squared=r2).fit(K, y), repeat)
        t_es, es = best_of(lambda: ESVC(kernel="precomputed").fit(K, y), repeat)
        ref = (n, t_es)
        cert = ls.solution_.certificate["kkt_residual"]
        print(f"{n:>6} {t_ls:>11.3f} {t_es:>8.3f} {t_ls / t_es:>6.2f} "
              f"{ls.solution_.iterations:>5} {cert:>8.1e} {ls.score(Kt, yt):>6.3f} "
              f"{es.score(Kt, yt):>8.3f}")
    print(f"\nNystroem path, m = {args.landmarks} landmarks (ratio: to ESVC's exact fit at "
          f"n = {ref[0]}, {ref[1]:.3f} s)")
    print(f"{'n':>7} {'fit s':>8} {'ratio':>6} {'rank':>5} {'kkt':>8} {'acc':>6}")
    for n in large:
        X, y = make_checkerboard(n, overlap=0.1, low=-1, high=1, random_state=0)
        K_sample = sigmoid_kernel(X[:500], **kp)
        r2 = args.radius_squared / kernel_scale(K_sample)
        est = KreinLeastSquaresClassifier(
            kernel="sigmoid", kernel_params=kp, radius_squared=r2,
            approximation=IndefiniteNystroem(n_components=args.landmarks, random_state=0))
        t, est = best_of(lambda: est.fit(X, y), repeat)
        cert = est.solution_.certificate["kkt_residual"]
        print(f"{n:>7} {t:>8.3f} {t / ref[1]:>6.2f} {est.coef_.shape[1]:>5} {cert:>8.1e} "
              f"{est.score(Xt, yt):>6.3f}")


if __name__ == "__main__":
    main()
