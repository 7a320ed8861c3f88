"""Scale-free iterations: a kernel ``K`` and its copies ``s K``.

For CoilYork's classical-scaling kernel (144 objects, ``kernel_scale ~ 2.2e4``,
eigenvalues up to 9e5; the kernel ``krein compare --dataset coilyork`` builds) and a
unit-scale sigmoid kernel (200 points), each multiplied by ``s`` in {1, 1e4, 1e-4},
the script prints for each method the iterations and the fit time as a ratio to
one ``numpy.linalg.eigh`` of ``K`` (measured in the same run, best of 20):

* ``nearest-psd`` (``CorrectedKernelSVC(NearestPSD(weights="support-vectors"))``):
  *before*: a unit diagonal whatever the kernel's scale (the registry's factory,
  ``diagonal=1.0``; what ``krein compare`` ran, since ``correction__diagonal`` is
  not in its grid), solved here by calling the Newton solver directly, since
  ``NearestPSD`` now refuses it (:func:`krein.estimators.nearest_psd.check_diagonal_scale`);
  *after*: the diagonal on K's scale (``diagonal = kernel_scale(K)``, ``C`` and
  the SVC's ``C`` divided by it: the registry's exponents);
* ``IndefiniteSVC`` (``"pg"`` backtracking, ``"apg"``): ``C = 1 / s_K``, ``rho =
  1 / s_K^3`` with ``s_K = kernel_scale(K)`` (the registry's exponents), and the
  absolute defaults ``C = rho = 1`` for reference; ``"pg"`` with the paper's
  absolute ``5/k`` step (``step="diminishing"``) for reference.

Usage: ``PYTHONPATH=. python benchmarks/scale.py [--threads 1]`` (about a minute here).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from krein.estimators import CorrectedKernelSVC, IndefiniteSVC, NearestPSD
from krein.kernel_data import load_kernel_data
from krein.kernels import kernel_scale
from krein.solvers.libsvm import libsvm_svc
from krein.solvers.psd_newton import nearest_psd_newton
from krein.spectrum import Spectrum

SCALES = (1.0, 1e4, 1e-4)


def _eigh_seconds(K, repeat=5):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        np.linalg.eigh(K)
        best = min(best, time.perf_counter() - t)
    return best


def _timed(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", ConvergenceWarning)
        t = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t
    hit = any(issubclass(x.category, ConvergenceWarning) for x in w)
    return out, dt, hit


def _old_nearest_psd(K, y, max_iter):
    """The old default: unit diagonal, support-vector weights (SVC C = 1), Newton."""
    spec = Spectrum.from_kernel(K, check=False)
    svc = libsvm_svc(spec.corrected_kernel("clip"), y, 1.0)
    w = np.ones(K.shape[0])
    w[svc.support_] = 10.0
    return nearest_psd_newton(K, np.ones(K.shape[0]), w, tol=1e-6, max_iter=max_iter)


def _kernels(n_sigmoid):
    cy = load_kernel_data("coilyork")
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(n_sigmoid, 2))
    y = np.where(np.sign(X[:, 0]) == np.sign(X[:, 1]), 1, -1)
    return [("coilyork (classical scaling)", cy.K, cy.y),
            (f"sigmoid tanh(<x,z> - 1), n = {n_sigmoid}", np.tanh(X @ X.T - 1.0), y)]


def main(argv=None):
    """Print the iterations and time / eigh of each method on K, 1e4 K, 1e-4 K."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n-sigmoid", type=int, default=200)
    ap.add_argument("--max-iter", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=1,
                    help="BLAS threads (default 1: on a shared machine the default threads "
                         "made one 144 x 144 eigh take 0.36 s, best of 20)")
    args = ap.parse_args(argv)
    with threadpool_limits(args.threads):
        _run(args)


def _run(args):
    for name, K0, y in _kernels(args.n_sigmoid):
        s0 = kernel_scale(K0)
        # the reference: one eigh of K0 (the same work at every scale), after a warm-up fit
        # (numba compilation of the oracle, imports) that is not timed
        IndefiniteSVC(kernel="precomputed", C=1.0 / s0, rho=1.0 / s0 ** 3).fit(K0, y)
        te = _eigh_seconds(K0, repeat=20)
        print(f"one eigh: {te * 1e3:.2f} ms")
        print(f"\n== {name}: n = {K0.shape[0]}, kernel_scale = {s0:.4g}")
        print(f"{'method':44s} {'s':>7s} {'iter':>6s} {'time/eigh':>10s}  note")
        for s in SCALES:
            K = s * K0
            sk = kernel_scale(K)
            rows = []
            sol, dt, hit = _timed(lambda: _old_nearest_psd(K, y, args.max_iter))
            rows.append(("nearest-psd before (diagonal=1.0)", sol.iterations, dt, hit))
            est = CorrectedKernelSVC(kernel="precomputed", C=1.0 / sk, correction=NearestPSD(
                diagonal=sk, C=1.0 / sk, weights="support-vectors"))
            _, dt, hit = _timed(lambda: est.fit(K, y))
            rows.append(("nearest-psd after (diagonal=kernel_scale)", est.correction_.n_iter_,
                         dt, hit))
            for label, kw in (("indefinite-svm pg, C=1/s, rho=1/s^3", dict(solver="pg")),
                              ("indefinite-svm apg, C=1/s, rho=1/s^3", dict(solver="apg")),
                              ("indefinite-svm pg 5/k, C=1/s, rho=1/s^3",
                               dict(solver="pg", solver_options={"step": "diminishing"}))):
                est = IndefiniteSVC(kernel="precomputed", C=1.0 / sk, rho=1.0 / sk ** 3,
                                    max_iter=args.max_iter, **kw)
                _, dt, hit = _timed(lambda: est.fit(K, y))
                rows.append((label, int(est.n_iter_[0]), dt, hit))
            est = IndefiniteSVC(kernel="precomputed", C=1.0, rho=1.0, max_iter=args.max_iter)
            _, dt, hit = _timed(lambda: est.fit(K, y))
            rows.append(("indefinite-svm pg, C=1, rho=1 (absolute)", int(est.n_iter_[0]), dt, hit))
            for label, it, dt, hit in rows:
                print(f"{label:44s} {s:7.0e} {it:6d} {dt / te:10.1f}  "
                      f"{'max_iter (ConvergenceWarning)' if hit else ''}")


if __name__ == "__main__":
    main()
