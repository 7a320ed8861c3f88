"""Small-size paths of ch and iksvm-dc: where each path is faster.

``--projection``: the CH-DU projection (both classes' capped simplices) by sorting the
breakpoints (:func:`krein.formulations.hull._project_sorted`, one numpy pass) against
the per-class safeguarded Newton iteration
(:func:`krein.projections.project_capped_simplex`), on pairs of ``n`` points (two equal
classes), ``S`` columns (the multi-start loop projects ``2 x`` its active starts at once:
20 at first), ``mu`` in {1/n_c, 0.1, 1}, one BLAS thread, interleaved, best of
``--repeats``; CPU microseconds per call.  ``krein.formulations.hull._SORT_MAX`` is put at
the measured crossover.

Usage::

    python benchmarks/hull_dc_paths.py --projection
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from krein.formulations.hull import _project_sorted
from krein.projections import project_capped_simplex


def _best(f, repeats, inner):
    best = np.inf
    for _ in range(repeats):
        t = time.process_time()     # CPU time: the machine is shared
        for _ in range(inner):
            f()
        best = min(best, (time.process_time() - t) / inner)
    return best


def projection(sizes=(50, 100, 200, 400, 800, 1600), columns=(2, 20), repeats=5):
    rng = np.random.default_rng(0)
    print(f"{'n':>5s} {'S':>3s} {'mu':>7s} {'sorted us':>10s} {'Newton us':>10s} {'ratio':>6s}")
    for n in sizes:
        y = np.r_[np.ones(n // 2), -np.ones(n - n // 2)]
        pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
        for S in columns:
            for mu in (1.0 / (n // 2), 0.1, 1.0):
                # points as the loop sees them: a feasible point (entries ~ 1/n) minus a
                # gradient step (grad F / s is O(1): the residual's step 1/s)
                V = rng.dirichlet(np.ones(n), size=S).T + 0.5 * rng.standard_normal((n, S))

                def newton():
                    out = np.empty_like(V)
                    for rows in (pos, neg):
                        out[rows] = project_capped_simplex(V[rows], mu)
                    return out

                inner = max(3, 4000 // n)
                ts, tn = [], []
                for _ in range(repeats):   # interleaved
                    ts.append(_best(lambda: _project_sorted(V, pos, neg, mu), 1, inner))
                    tn.append(_best(newton, 1, inner))
                a, b = min(ts), min(tn)
                print(f"{n:5d} {S:3d} {mu:7.3g} {a * 1e6:10.1f} {b * 1e6:10.1f} {b / a:6.2f}",
                      flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--projection", action="store_true")
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)
    with threadpool_limits(limits=1):
        if args.projection:
            projection(repeats=args.repeats)


if __name__ == "__main__":
    main()
