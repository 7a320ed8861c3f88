"""IndefiniteSVM certificates: the reported gap against the exact gap.

For each problem and loop (default ``tol = 1e-3``, ``gap_every = 10``), C = 10,
rho = 1, prints the reported certified gap, the exact gap at the returned point
(``omega(K_i) + rho ||K_i - K0||_F^2 - f`` with ``omega(K_i)``, the SVM dual on
the proxy kernel, solved by Clarabel to 1e-11), their ratio, the libsvm calls
(refinements in brackets) and seconds, and for comparison the bound of a single
libsvm solve at its default tolerance 1e-4 at the returned point (what a gap
check gave before the refinement of :meth:`krein.solvers.indefinite.Certifier.libsvm_bound`).

Problems: sonar (standardized, sigmoid kernel ``tanh(x'z / d - 1)``) and the first
``n`` USPS training digits with the Simpson kernel (digits 0-4 against 5-9, as
``benchmarks/indefinite.py``).

Usage::

    python benchmarks/certificates.py [--problems sonar,usps200,usps500] [--algorithms pg,apg]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def make_problem(name):
    from krein.datasets import load
    from krein.formulations.indefinite import ProxyKernelProblem
    from krein.kernels import sigmoid_kernel, simpson_kernel

    if name == "sonar":
        X, y = load("sonar")
        X = (X - X.mean(axis=0)) / X.std(axis=0)
        y = np.where(np.asarray(y) == np.unique(y)[0], -1.0, 1.0)
        K = sigmoid_kernel(X, a=1.0 / X.shape[1], r=-1.0)
    else:
        n = int(name.removeprefix("usps"))
        X, y = load("usps", split="train")
        K = simpson_kernel(X[:n])
        y = np.where(np.asarray(y[:n]).astype(int) <= 4, 1.0, -1.0)
    return ProxyKernelProblem(K, y, C=10.0, rho=1.0, check=False)


def exact_gap(P, beta):
    """Exact gap at ``beta`` and the single-libsvm-solve (tol 1e-4) gap there."""
    import cvxpy as cp

    from krein.projections import project_box_hyperplane
    from krein.solvers.indefinite import Certifier, libsvm_point

    cert = Certifier(P)
    f, _, ev = cert.evaluate(beta)
    K = cert.oracle.proxy_kernel(P.u_of(beta))
    pen = P.rho * ev.dist2
    lam, V = np.linalg.eigh(K)
    keep = lam > 1e-12 * lam[-1]
    L = V[:, keep] * np.sqrt(lam[keep])
    a = cp.Variable(P.n)
    cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.sum_squares(L.T @ cp.multiply(P.y, a))),
               [P.y @ a == 0, a >= 0, a <= P.C]).solve(
        solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    alpha = project_box_hyperplane(np.clip(a.value, 0.0, P.C), P.y, 0.0, P.upper)
    v = P.y * alpha
    exact = alpha.sum() - 0.5 * v @ K @ v + pen - f
    v1 = libsvm_point(P, K, tol=1e-4)
    Kv = K @ v1
    single = P.omega_upper(Kv, float(v1 @ Kv))[0] + pen - f
    return exact, single


def main(argv=None):
    from krein.solvers import solve_indefinite

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--problems", default="sonar,usps200,usps500")
    p.add_argument("--algorithms", default="pg,apg")
    a = p.parse_args(argv)
    print(f"{'problem':>8} {'alg':>5} {'wall s':>7} {'iters':>5} {'reported':>9} {'exact':>9} "
          f"{'ratio':>6} {'1 solve':>9} {'ratio':>6} {'libsvm':>7} {'libsvm s':>8}")
    for name in a.problems.split(","):
        P = make_problem(name)
        for alg in a.algorithms.split(","):
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sol = solve_indefinite(P, alg)
            wall = time.perf_counter() - t
            c = sol.certificate
            exact, single = exact_gap(P, sol.primal["beta"])
            print(f"{name:>8} {alg:>5} {wall:7.2f} {sol.iterations:5d} {sol.gap:9.3e} {exact:9.3e} "
                  f"{sol.gap / exact:6.2f} {single:9.3e} {single / exact:6.2f} "
                  f"{c['n_libsvm']:3d} (+{c['n_libsvm_refined']}) {c['libsvm_seconds']:8.2f}")


if __name__ == "__main__":
    main()
