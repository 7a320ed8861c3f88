"""``krein compare``'s default run against its 2-minute budget, and what sharing buys.

The target: the default run (every method on Sonar, nested CV with the registry's grids
and the sigmoid's scale, 5 outer folds) stays under 2 minutes on a 2-core machine.
This script prints

* the wall time of :func:`krein.compare.run_comparison` with its defaults as
  ``krein compare`` runs them (``n_jobs`` = the cores here, at most 4), and the ratio
  to the 120 s budget (target <= 1);
* the same run with one worker (``n_jobs=1``) for reference, and the speed-up;
* for one outer fold, the summed cell time of every method with the fold's
  computations shared (:func:`krein._cache.shared_computations`: one
  eigendecomposition per training block, one kernel correction per block for the
  inner grid over C) against the same cells computed independently, method by
  method: the unfavourable methods (those whose cost is not an eigendecomposition:
  LP-SVM, Mod-SVM, IndefiniteSVM, CH, RVM) gain nothing and are listed too.

Usage::

    python benchmarks/compare.py            # the full default run, twice (minutes)
    python benchmarks/compare.py --quick    # 80 objects of Sonar, one fold study only
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

from threadpoolctl import threadpool_limits

from krein._cache import clear_shared_computations
from krein.compare import run_comparison
from krein.experiment import classification_cell
from krein.kernel_data import default_kernel_grid, default_kernel_params
from krein.registry import default_grid, list_methods

BUDGET = 120.0


def whole_run(n_samples, n_jobs):
    t = time.perf_counter()
    res = run_comparison("sonar", n_samples=n_samples, progress=False, n_jobs=n_jobs)
    return time.perf_counter() - t, res


def fold_study(n_samples):
    """Cell seconds of fold 0 per method, shared vs independent."""
    a = default_kernel_params("sigmoid", 60)
    kernel_grid = default_kernel_grid("sigmoid", a)
    rows = []
    for shared in (True, False):
        clear_shared_computations()
        cell = classification_cell if shared else classification_cell.__wrapped__
        for m in list_methods(task="classifier", compare=True):
            params = {"dataset": "sonar", "n_samples": n_samples, "method": m, "seed": 0,
                      "fold": 0, "param_grid": default_grid(m), "kernel_grid": kernel_grid,
                      "cv_seed": 0, "save_trace": False}
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    cell(params)
                except Exception:  # noqa: BLE001 - a method that needs other inputs
                    continue
            rows.append((m, shared, time.perf_counter() - t))
    clear_shared_computations()
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="80 objects, fold study only")
    args = parser.parse_args()
    n = 80 if args.quick else None
    n_jobs = max(1, min(4, os.cpu_count() or 1))
    if not args.quick:
        t_par, res = whole_run(n, n_jobs)
        print(f"default run (Sonar, {len(res.methods)} methods, n_jobs={n_jobs}): {t_par:.1f} s"
              f" = {t_par / BUDGET:.2f} x the {BUDGET:.0f} s budget (target <= 1)")
        t_ser, _ = whole_run(n, 1)
        print(f"same run, n_jobs=1: {t_ser:.1f} s (speed-up {t_ser / t_par:.2f})")
    with threadpool_limits(1):
        rows = fold_study(n)
    shared = {m: t for m, s, t in rows if s}
    alone = {m: t for m, s, t in rows if not s}
    print(f"\nfold 0, tuned cells, one BLAS thread ({'80 objects' if n else 'all of Sonar'}):")
    print(f"{'method':16s} {'shared s':>9s} {'independent s':>14s} {'ratio':>6s}")
    for m in shared:
        print(f"{m:16s} {shared[m]:9.2f} {alone[m]:14.2f} {shared[m] / alone[m]:6.2f}")
    ts, ta = sum(shared.values()), sum(alone.values())
    print(f"{'all':16s} {ts:9.2f} {ta:14.2f} {ts / ta:6.2f}")


if __name__ == "__main__":
    main()
