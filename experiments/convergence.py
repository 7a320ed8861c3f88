"""Luss & d'Aspremont (2009) Fig. 1: duality gap against the iteration, ACCPM and gradient.

Luss & d'Aspremont, "Support vector machine classification with indefinite
kernels", Fig. 1: "Convergence plots for ACCPM (left) and projected gradient
method (right) on random subsets of the USPS-SS-3-5 data set (average gap
versus iteration number, dashed lines at plus and minus one standard
deviation)"; the codes are not stopped on the gap.

This experiment is also the example of a *custom cell function*: a cell is
not a classification fold but one run of an algorithm, returning its final
numbers and its per-iteration trace (written to ``traces/KEY.csv``).

Here: USPS digits 3 vs 5 (raw pixels in [0, 1]), the Simpson score kernel
(:func:`krein.kernels.simpson_kernel`, threshold 0.5: luss §5.1 "USPS-SS"), a
random subset of ``n`` points per repeat, :class:`krein.IndefiniteSVC` with
``C = 1``, ``rho = 1``, ``tol = atol = 0`` (never stopped on the gap) for
``max_iter`` iterations of ``algorithm`` in {"accpm", "pg"}.  ``krein experiment
plot`` draws ``*_convergence.png`` (one panel per algorithm).  The paper's
subsets are larger (its Table 1: n = 767); ACCPM needs about 5n analytic
centers to certify a small gap (see the ACCPM benchmark).

``--quick``: n = 80, 2 subsets, 30 iterations.
"""

from krein.experiment import Experiment, cartesian, cell_seed


def convergence_cell(params):
    """One IndefiniteSVC run on a random USPS-SS-3-5 subset; final gap and the trace."""
    import time
    import warnings

    import numpy as np

    from krein import IndefiniteSVC
    from krein.datasets import load
    from krein.kernels import simpson_kernel

    X, y = load("usps", binary=(3, 5))
    rng = np.random.default_rng(cell_seed(params, "n", "repeat", salt="subset"))
    idx = np.sort(rng.choice(y.shape[0], size=params["n"], replace=False))
    K = simpson_kernel(X[idx])
    est = IndefiniteSVC(kernel="precomputed", solver=params["algorithm"], C=params["C"],
                        rho=params["rho"], tol=0.0, atol=0.0, max_iter=params["max_iter"])
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter is reached on purpose (never stopped)
        est.fit(K, y[idx])
    fit_seconds = time.perf_counter() - t0
    return {"min_eigenvalue": float(np.linalg.eigvalsh(K)[0]),
            "final_gap": float(est.duality_gap_[0]), "objective": float(est.objective_[0]),
            "n_iter": int(est.n_iter_[0]),
            "fit_seconds": fit_seconds,
            "trace": est.trace_}


def experiment(quick=False):
    """The two algorithms on random subsets (module docstring); ``quick``: seconds."""
    grid = cartesian(algorithm=["accpm", "pg"], n=80 if quick else 200,
                     repeat=range(2 if quick else 10), max_iter=30 if quick else 500,
                     C=1.0, rho=1.0)
    return Experiment("convergence", grid, cell=convergence_cell, seed=0,
                      description="Luss & d'Aspremont 2009 Fig. 1: gap vs iteration, ACCPM "
                                  "and projected gradient, USPS-SS-3-5 subsets",
                      table={"value": "final_gap", "rows": ["n", "max_iter"],
                             "columns": "algorithm", "eigenvalue": True})
