"""ESVC speed as ratios against references measured in the same process.

For n in (500, 1000, 2000) on the checkerboard (10 % overlap) with a sigmoid
kernel, print

* ``ESVC(libsvm).fit`` time / [one ``numpy.linalg.eigh(K)`` + one libsvm fit on
  the flipped kernel] -- target <= 1.3 (issue 2);
* the time of each CVXPY path (``ESVC(solver=S, formulation=F)``) / the
  ``ESVC(libsvm)`` time;
* the SVM dual on the flipped kernel in both quadratic forms
  (``quad_form`` on the checked-PSD ``G`` vs ``sum_squares(L' u)`` with a dense
  ``n x n`` factor) per solver: the measurement behind
  :func:`krein.formulations.preferred_form`.

Usage::

    python benchmarks/esvm.py                  # n = 500, 1000, 2000; Clarabel and SCS
    python benchmarks/esvm.py --sizes 500 --solvers CLARABEL,SCS,OSQP,ECOS --forms
    python benchmarks/esvm.py --quick          # n = 300, to check the script runs

Times are the best of ``--repeat`` runs (default 3) for the libsvm paths and a
single run for CVXPY paths (seconds each).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.svm import SVC

from krein import ESVC
from krein.datasets import make_checkerboard
from krein.formulations import SVMDual
from krein.kernels import sigmoid_kernel
from krein.solvers import solve


def best_of(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="500,1000,2000")
    ap.add_argument("--solvers", default="CLARABEL,SCS")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--forms", action="store_true",
                    help="also time the dual's quad_form vs dense-factor forms per solver")
    ap.add_argument("--max-cvxpy-n", type=int, default=2000,
                    help="skip CVXPY paths above this n")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    sizes = [300] if args.quick else [int(s) for s in args.sizes.split(",")]
    solvers = [s.strip().upper() for s in args.solvers.split(",") if s.strip()]
    repeat = 1 if args.quick else args.repeat

    print(f"{'n':>5} {'min eig':>9} {'eigh s':>8} {'libsvm s':>9} {'ESVC s':>8} {'ratio':>6}  (target <= 1.3)")
    rows = []
    for n in sizes:
        X, y = make_checkerboard(n, overlap=0.1, random_state=0)
        K = sigmoid_kernel(X, a=1.0, r=-1.0)
        t_eigh, (lam, V) = best_of(lambda: np.linalg.eigh(K), repeat)
        K_abs = (V * np.abs(lam)) @ V.T
        svc = SVC(kernel="precomputed", C=args.C)
        t_svm, _ = best_of(lambda: svc.fit(K_abs, y), repeat)
        est = ESVC(kernel="precomputed", C=args.C)
        t_esvc, _ = best_of(lambda: est.fit(K, y), repeat)
        ratio = t_esvc / (t_eigh + t_svm)
        print(f"{n:>5} {lam[0]:>9.2f} {t_eigh:>8.3f} {t_svm:>9.3f} {t_esvc:>8.3f} {ratio:>6.2f}")
        rows.append((n, K, y, t_esvc, lam, V))

    print("\nCVXPY paths of ESVC: time / ESVC(libsvm) time")
    print(f"{'n':>5} {'solver':>9} {'formulation':>11} {'seconds':>8} {'ratio':>7} {'max |f - f_libsvm|':>18}")
    for n, K, y, t_esvc, lam, V in rows:
        if n > args.max_cvxpy_n:
            continue
        ref = ESVC(kernel="precomputed", C=args.C, tol=1e-8).fit(K, y).decision_function(K)
        for s in solvers:
            for form in ("dual", "primal"):
                est = ESVC(kernel="precomputed", C=args.C, solver=s, formulation=form)
                t0 = time.perf_counter()
                try:
                    est.fit(K, y)
                except Exception as exc:  # report, keep benchmarking
                    print(f"{n:>5} {s:>9} {form:>11}   failed: {type(exc).__name__}: {exc}"[:160])
                    continue
                t = time.perf_counter() - t0
                dev = np.max(np.abs(est.decision_function(K) - ref))
                print(f"{n:>5} {s:>9} {form:>11} {t:>8.2f} {t / t_esvc:>7.1f} {dev:>18.2e}")

    if args.forms:
        print("\nSVM dual on the flipped kernel: quad_form(alpha, G) vs sum_squares(L'(y*alpha)), dense L")
        print(f"{'n':>5} {'solver':>9} {'quad_form s':>11} {'factor s':>9}")
        for n, K, y, _, lam, V in rows:
            if n > args.max_cvxpy_n:
                continue
            K_abs = (V * np.abs(lam)) @ V.T
            L = V * np.sqrt(np.abs(lam))
            for s in solvers:
                out = []
                for form in ("quad_form", "factor"):
                    f = SVMDual(y, K=K_abs, L=L, C=args.C, form=form, psd_checked=True)
                    t0 = time.perf_counter()
                    try:
                        solve(f, s)
                        out.append(f"{time.perf_counter() - t0:.2f}")
                    except Exception as exc:
                        out.append(type(exc).__name__)
                print(f"{n:>5} {s:>9} {out[0]:>11} {out[1]:>9}")


if __name__ == "__main__":
    main()
