"""KSVC (loosli Algorithm 2) fit time as a ratio to one libsvm fit on the same kernel.

For n in (500, 1000, 2000) on the checkerboard (4 x 4 cells, 10 % overlap, as in
loosli §6.2's timing experiment) with a clearly indefinite sigmoid kernel
``tanh(a <x, z> + r)``, print

* ``KSVC(kernel="precomputed").fit(K, y)`` time (active set, default ``tol``),
* one ``sklearn.svm.SVC(kernel="precomputed").fit(K, y)`` (libsvm's SMO, which
  accepts the indefinite kernel and stops at a stationary point), and
* their ratio, with iterations, support vectors, the KKT residual of (26), the
  most negative eigenvalue and test accuracies (2000 fresh checkerboard points),
  for context: on this problem the libsvm stationary point is close to chance
  while KSVM keeps the information of the negative eigenspace (loosli Fig. 3).

Default kernel: points on ``[-1, 1]^2`` with ``a = 3, r = -1`` (about half the
eigenvalues negative, least eigenvalue about -240 at n = 500, the size of
loosli's reported -231.77).  ``--low 0 --high 1 --a 1 --r -1`` is the setting of
``benchmarks/esvm.py`` (there both methods are at chance level).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/ksvm.py            # n = 500, 1000, 2000
    OPENBLAS_NUM_THREADS=1 python benchmarks/ksvm.py --quick    # n = 200, 400

Times are the best of ``--repeat`` runs (default 3; 1 with ``--quick``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.svm import SVC

from krein.datasets import make_checkerboard
from krein.estimators.ksvm import KSVC
from krein.kernels import sigmoid_kernel


def best_of(fn, repeat):
    times, out = [], None
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
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--a", type=float, default=3.0)
    ap.add_argument("--r", type=float, default=-1.0)
    ap.add_argument("--low", type=float, default=-1.0)
    ap.add_argument("--high", type=float, default=1.0)
    ap.add_argument("--quick", action="store_true", help="n = 200, 400, one repeat")
    args = ap.parse_args(argv)
    sizes = [200, 400] if args.quick else [int(s) for s in args.sizes.split(",")]
    repeat = 1 if args.quick else args.repeat
    box = {"low": args.low, "high": args.high}

    Xt, yt = make_checkerboard(2000, overlap=0.1, random_state=12345, **box)
    print(f"checkerboard on [{args.low:g}, {args.high:g}]^2, 10% overlap; sigmoid a={args.a:g}, "
          f"r={args.r:g}; C={args.C:g}; best of {repeat}")
    head = (f"{'n':>5} {'min eig':>8} {'#neg':>5} {'KSVC s':>8} {'libsvm s':>9} {'ratio':>6} "
            f"{'iter':>5} {'SV':>5} {'libSV':>5} {'KKT(26)':>8} {'acc KSVC':>8} {'acc SVC':>7}")
    print(head)
    for n in sizes:
        X, y = make_checkerboard(n, overlap=0.1, random_state=0, **box)
        K = sigmoid_kernel(X, a=args.a, r=args.r)
        Kt = sigmoid_kernel(Xt, X, a=args.a, r=args.r)
        lam = np.linalg.eigvalsh(K)
        t_ksvc, est = best_of(lambda: KSVC(C=args.C, kernel="precomputed").fit(K, y), repeat)
        t_svc, svc = best_of(lambda: SVC(C=args.C, kernel="precomputed").fit(K, y), repeat)
        print(f"{n:>5} {lam[0]:>8.1f} {int(np.sum(lam < 0)):>5} {t_ksvc:>8.3f} {t_svc:>9.4f} "
              f"{t_ksvc / t_svc:>6.1f} {int(est.n_iter_[0]):>5} {est.support_.size:>5} "
              f"{svc.support_.size:>5} {est.kkt_residual_[0]:>8.1e} {est.score(Kt, yt):>8.3f} "
              f"{svc.score(Kt, yt):>7.3f}")


if __name__ == "__main__":
    main()
