"""Warm starts along C in the inner search of ``krein compare``: iterations, time, results.

The inner cross-validation fits each grid point of a method on every inner split.
For an estimator with a ``warm_start`` parameter (IndefiniteSVC: its projected
gradient starts at the previous fit's ``alpha``) the split's points are fitted
along ``C`` and each starts at its neighbour's solution
(:func:`krein.experiment.classification._warm_started`).  This script runs, in one
process and one after the other, the default comparison of ``indefinite-svm``
(adaptive grids, nested CV) twice:

* ``cold``: every inner fit starts at zero (the reference);
* ``warm``: the default.

and prints for each the CPU and wall time (the run is serial, so CPU time is the
work), the iterations of every inner fit summed, and whether the chosen parameters
and outer accuracies are the same.  A warm start changes where the algorithm starts,
not the problem: the two runs agree to the certified gap of ``tol = 1e-3``, which can
move a validation point across the decision boundary, so a chosen parameter may
differ; the script counts the folds where it does.

The cases: Sonar (the main job's data, kernel grid included), Sonar's kernel
scaled by ``1e-4`` and by ``1e4`` (given as a kernel file; the grids follow the
scale), and Chen et al.'s aural-sonar and protein-similarity.

Usage::

    python benchmarks/warm_start.py
    python benchmarks/warm_start.py --case sonar
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from krein import IndefiniteSVC
from krein._cache import clear_shared_computations
from krein.compare import run_comparison
from krein.experiment import classification

ITERATIONS = []


def _counting(original):
    def fit_binary(self, K, y, idx, C):
        model = original(self, K, y, idx, C)
        ITERATIONS.append(int(model.info["n_iter"]))
        return model
    return fit_binary


def _cold(est, previous):
    return est


def run(fields, warm):
    """One comparison of indefinite-svm: (wall s, CPU s, iterations, result)."""
    clear_shared_computations()
    ITERATIONS.clear()
    original = classification._warm_started
    if not warm:
        classification._warm_started = _cold
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = run_comparison(methods=["indefinite-svm"], progress=False, n_jobs=1,
                                    **fields)
        seconds = time.perf_counter() - t0, time.process_time() - c0
    finally:
        classification._warm_started = original
    return seconds, sum(ITERATIONS), result


def cases(tmp):
    """The data of each case, as keyword fields of :class:`krein.compare.Comparison`."""
    from krein.kernel_data import load_kernel_data

    out = {"sonar": {"dataset": "sonar"}}
    data = load_kernel_data("sonar")
    for scale in (1e-4, 1e4):
        k, lab = Path(tmp) / f"sonar-{scale:g}.npy", Path(tmp) / "sonar-labels.txt"
        np.save(k, scale * data.K)
        lab.write_text("\n".join(str(v) for v in data.y) + "\n")
        out[f"sonar x {scale:g}"] = {"kernel_file": str(k), "labels": str(lab)}
    out["aural-sonar"] = {"dataset": "aural-sonar"}
    out["protein-similarity"] = {"dataset": "protein-similarity"}
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append",
                        help="run only this case (repeatable); default: all")
    args = parser.parse_args(argv)
    IndefiniteSVC._fit_binary = _counting(IndefiniteSVC._fit_binary)
    print("case                  run    wall s   CPU s   iterations   ratio CPU   ratio it"
          "   folds with another choice   accuracy % (mean)")
    with tempfile.TemporaryDirectory() as tmp:
        for name, fields in cases(tmp).items():
            if args.case and name not in args.case:
                continue
            (w0, c0), it0, r0 = run(fields, warm=False)
            (w1, c1), it1, r1 = run(fields, warm=True)
            f0, f1 = r0.folds, r1.folds
            other = int(np.sum(f0["best_params"].to_numpy() != f1["best_params"].to_numpy()))
            for label, w, c, it, f in (("cold", w0, c0, it0, f0), ("warm", w1, c1, it1, f1)):
                ratio = (f"{c / c0:9.2f}   {it / it0:8.2f}" if label == "warm"
                         else " " * 20)
                print(f"{name:20s}  {label:4s}  {w:7.1f}  {c:6.1f}  {it:11d}   {ratio}"
                      f"   {other if label == 'warm' else '':>25}   "
                      f"{100 * f['accuracy'].mean():.1f}")


if __name__ == "__main__":
    main()
