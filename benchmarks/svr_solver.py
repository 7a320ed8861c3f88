"""IndefiniteSVR: projected gradient ("pg", luss Algorithm 1) against its accelerated form ("apg").

The SVR problem of luss eq. (17) has two variables per point (``alpha+``, ``alpha-``).
For each case this script fits ``IndefiniteSVR`` with ``C`` in ``{0.1, 1, 10, 100} x t / s``
(``s`` the kernel's scale, ``t`` the targets' standard deviation: the grid of ``krein
compare --task regression``) with each algorithm, checks that the two objectives agree
within the sum of their certified gaps, and prints the CPU seconds, the iterations and the
fits that stopped at ``max_iter`` without meeting ``tol`` (uncertified).

The cases: an inner training block of the bundled ``liver-drinks`` set (n = 184, its
default sigmoid kernel, 47 % of the spectrum's mass negative), the same kernel scaled by
1e-4 and 1e4 and the targets by 1e3, a sine on 200 points under a sigmoid kernel and
under a Gaussian (PSD) one, and a random kernel whose spectrum is half negative.

Usage::

    python benchmarks/svr_solver.py
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from krein import make_method
from krein.kernel_data import load_kernel_data
from krein.kernels import kernel_scale

C_GRID = (0.1, 1.0, 10.0, 100.0)


def case(name, K, y):
    """Fit both algorithms along the C grid; print one line."""
    s, t = kernel_scale(K), float(np.std(y))
    total = {"pg": [0.0, 0, 0], "apg": [0.0, 0, 0]}
    for C in C_GRID:
        objective = {}
        for solver in ("pg", "apg"):
            est = make_method("indefinite-svr", kernel="precomputed", C=C * t / s, solver=solver)
            c0 = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.fit(K, y)
            total[solver][0] += time.process_time() - c0
            total[solver][1] += est.n_iter_
            total[solver][2] += int(est.solution_.status != "optimal")
            objective[solver] = (est.objective_, est.duality_gap_)
        (a, ga), (b, gb) = objective["pg"], objective["apg"]
        assert abs(a - b) <= ga + gb, (name, C, a, b, ga, gb)
    pg, apg = total["pg"], total["apg"]
    print(f"{name:28s} {pg[0]:7.2f} {pg[1]:6d} {pg[2]:3d}   {apg[0]:7.2f} {apg[1]:6d} {apg[2]:3d}"
          f"   {apg[0] / pg[0]:5.2f}")


def main():
    print("case                         pg: CPU s  iter  unc  apg: CPU s  iter  unc   CPU ratio")
    d = load_kernel_data("liver-drinks")
    idx = np.random.default_rng(0).permutation(len(d.y))[:184]
    K, y = d.K[np.ix_(idx, idx)], d.y[idx].astype(float)
    case("liver-drinks, n = 184", K, y)
    case("  kernel x 1e-4", 1e-4 * K, y)
    case("  kernel x 1e4", 1e4 * K, y)
    case("  targets x 1e3", K, 1e3 * y)
    rng = np.random.default_rng(1)
    X = rng.standard_normal((200, 3))
    t = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(200)
    case("sine, sigmoid, n = 200", np.tanh(0.5 * X @ X.T - 0.5), t)
    case("sine, Gaussian (PSD)", np.exp(-((X[:, None] - X[None]) ** 2).sum(-1)), t)
    Q, _ = np.linalg.qr(rng.standard_normal((200, 200)))
    lam = np.r_[np.linspace(1, 10, 100), -np.linspace(1, 10, 100)]
    case("half-negative spectrum", Q @ np.diag(lam) @ Q.T, t)


if __name__ == "__main__":
    main()
