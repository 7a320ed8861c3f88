"""The adaptive grid search of ``krein compare`` against the fixed grids: time, points, edges.

``krein compare`` searches each default grid adaptively inside the inner CV
(:mod:`krein.experiment.tuning`): values placed in their feasible range, a
parameter chosen at an end of its grid extended by one step, up to three per side,
only the new grid points fitted.  This script runs, in one process and on the same
machine, the default comparison of each data set twice, one after the other:

* ``fixed``: ``grid_extension=0``, every grid searched as given (the reference);
* ``adaptive``: the default (three steps per side).

and prints for each the wall and CPU time (the process's: the run is serial, one
BLAS thread on these small kernels, so CPU time is the work, whatever else the
machine runs), the grid points scored per cell (each on every
inner split), the inner fits that failed, the methods flagged ``[edge]`` (fixed: an
end of its grid in most folds; adaptive: a limit of the search, named), and the
ratios of the times (target for Sonar, the main job: <= 1.5).  The shared
computations are cleared before each run, so neither run profits from the other.

Usage::

    python benchmarks/tuning.py                          # Sonar, the main job
    python benchmarks/tuning.py --dataset aural-sonar --dataset yeast
    python benchmarks/tuning.py --dataset voting --adaptive-only
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from krein._cache import clear_shared_computations
from krein.compare import run_comparison


def run(dataset, grid_extension):
    """One default comparison, serial: its wall and CPU seconds and the tables."""
    clear_shared_computations()
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_comparison(dataset=dataset, grid_extension=grid_extension, progress=False,
                                n_jobs=1)
    return (time.perf_counter() - t0, time.process_time() - c0), result


def report(name, seconds, result):
    """Print one run's line and its flags; return its (wall, CPU) seconds."""
    folds, s = result.folds, result.summary
    points = (pd_mean(folds["n_grid_points"]) if "n_grid_points" in folds else float("nan"))
    fails = int(np.nansum(folds["n_inner_failures"].to_numpy(dtype=float)))
    edges = {m: e for m, e in zip(s["method"], s["edge"].fillna("")) if e}
    print(f"  {name:9s} wall {seconds[0]:6.1f} s  CPU {seconds[1]:6.1f} s   grid points per "
          f"cell {points:5.1f}   "
          f"inner fits failed {fails:3d}   [edge] {len(edges)} methods")
    for m, e in edges.items():
        print(f"      {m}: {e}")
    return seconds


def pd_mean(col):
    """Mean of a numeric column, NaN when it holds none."""
    v = np.asarray(col, dtype=float)
    return float(np.nanmean(v)) if np.isfinite(v).any() else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", action="append", default=None,
                    help="a data set of krein compare (repeatable; default sonar)")
    ap.add_argument("--adaptive-only", action="store_true",
                    help="run only the adaptive search (no reference)")
    args = ap.parse_args()
    for dataset in args.dataset or ["sonar"]:
        print(f"{dataset}:")
        if not args.adaptive_only:
            t_fixed = report("fixed", *run(dataset, 0))
        t_adaptive = report("adaptive", *run(dataset, None))
        if not args.adaptive_only:
            print(f"  adaptive / fixed: wall {t_adaptive[0] / t_fixed[0]:.2f}, CPU "
                  f"{t_adaptive[1] / t_fixed[1]:.2f}  (target for the main job <= 1.5)")


if __name__ == "__main__":
    main()
