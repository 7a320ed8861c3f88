"""Where a kept (reusable) margin problem pays: LP-SVM and Mod SVM at n = 50 ... 400.

For each block side ``n`` (square sigmoid-kernel blocks of 2-D points, CLARABEL, one
BLAS thread when run as below) and each formulation, best of ``--repeats``:

* ``own``: build the formulation with constant data and solve it (the path of the
  blocks above :data:`krein.estimators.lpsvm.REUSE_MAX_N`);
* ``first``: build it with ``reusable=True`` and solve it (the DPP compile);
* ``re-solve``: ``set_data`` with another block of the same shape, ``set(C=...)``, solve.

A kept problem pays when ``re-solve`` is below ``own`` and the shape comes back (the
pairs, inner folds and ``C`` values of a grid); the ``first`` solve's extra cost is
paid once per shape.  The threshold ``REUSE_MAX_N`` is put where ``first`` stops being
a small multiple of ``own`` (the DPP compile of ``YK @ w`` grows with ``n m``).

``--solvers N``: the re-solve time of a kept ``N x N`` problem with each installed
CVXPY solver, the solver ``solver=None`` picks, and the objective's difference from
CLARABEL's (the default of LPSVC and ModSVC).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/reusable_margin.py --sizes 50,100,200,400
    OPENBLAS_NUM_THREADS=1 python benchmarks/reusable_margin.py --solvers 60
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from krein.formulations.lpsvm import LPSVM
from krein.formulations.modsvm import ModSVM
from krein.solvers import solve


def _block(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return np.tanh(0.7 * X @ X.T - 0.5), y


def _best(f, repeats):
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def run(sizes, repeats):
    print(f"{'formulation':12s} {'n':>5s} {'own ms':>8s} {'first ms':>9s} {'re-solve ms':>12s} "
          f"{'own/re-solve':>13s}")
    for cls in (LPSVM, ModSVM):
        for n in sizes:
            (K0, y0), (K1, y1) = _block(n, 0), _block(n, 1)
            own = _best(lambda: solve(cls(K1, y1, C=2.0), "CLARABEL"), repeats)
            first = _best(lambda: solve(cls(K0, y0, C=1.0, reusable=True), "CLARABEL"), repeats)
            kept = cls(K0, y0, C=1.0, reusable=True)
            solve(kept, "CLARABEL")
            flip = [0]

            def again():
                K, y = ((K0, y0), (K1, y1))[flip[0] % 2]
                flip[0] += 1
                solve(kept.set_data(K, y).set(C=2.0), "CLARABEL")

            re = _best(again, repeats)
            print(f"{cls.__name__:12s} {n:5d} {1e3 * own:8.1f} {1e3 * first:9.1f} "
                  f"{1e3 * re:12.1f} {own / re:13.2f}", flush=True)


def solvers(n, repeats, names=("CLARABEL", "HIGHS", "ECOS", "PIQP", "OSQP", "SCS")):
    """Re-solve time of a kept ``n x n`` problem per CVXPY solver, what ``solver=None`` picks,
    and the objective's relative difference from CLARABEL's (the default)."""
    import cvxpy as cp

    (K0, y0), (K1, y1) = _block(n, 0), _block(n, 1)
    print(f"{'formulation':12s} {'n':>4s} {'solver':9s} {'re-solve ms':>12s} {'rel obj diff':>13s}")
    for cls in (LPSVM, ModSVM):
        f = cls(K1, y1, C=2.0)
        f.problem.solve()
        print(f"{cls.__name__:12s} {n:4d} solver=None picks {f.problem.solver_stats.solver_name}")
        ref = solve(cls(K1, y1, C=2.0), "CLARABEL").objective
        for name in names:
            if name not in cp.installed_solvers():
                continue
            kept = cls(K0, y0, C=1.0, reusable=True)
            try:
                solve(kept, name)
                t = _best(lambda: solve(kept.set_data(K1, y1).set(C=2.0), name), repeats)
                obj = solve(kept, name).objective
            except Exception as exc:     # a solver that refuses the class or fails
                print(f"{cls.__name__:12s} {n:4d} {name:9s} failed: {str(exc)[:50]}")
                continue
            print(f"{cls.__name__:12s} {n:4d} {name:9s} {1e3 * t:12.1f} "
                  f"{abs(obj - ref) / abs(ref):13.2e}", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="50,100,200,400")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--solvers", type=int, metavar="N", default=0,
                   help="instead: re-solve time per CVXPY solver at block side N")
    args = p.parse_args(argv)
    if args.solvers:
        solvers(args.solvers, args.repeats)
    else:
        run([int(s) for s in args.sizes.split(",")], args.repeats)


if __name__ == "__main__":
    main()
