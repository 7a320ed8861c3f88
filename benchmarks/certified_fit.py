"""The certified IndefiniteSVC fit in ``eigh``-equivalents, on three hard kernels.

``IndefiniteSVC(kernel="precomputed")`` with its default parameters (``C = rho = 1``,
projected gradient, ``tol = 1e-3``), fitted to its certified gap at n = 2000 on three
kernels of :func:`benchmarks.indefinite.make_problem`: ``sigmoid-2d`` (a null cluster:
about a third of the eigenvalues numerically zero), ``half-negative`` (a random
symmetric matrix, half of its spectrum negative) and ``truncated-l1`` (the truncated
L1 kernel, 920 negative eigenvalues).  Each fit's wall and CPU seconds are divided by
those of one ``numpy.linalg.eigh`` of the same matrix in the same process (best of
``--repeats``; the fit includes the ``eigh`` of its own oracle), beside the
iterations, the seconds of the iterations and of the gap checks (``trace_``'s
``seconds`` and ``gap_seconds`` plus the check after the loop), the libsvm solves and
the source of the reported bound, the certified and the exact relative gap (the
latter with ``omega(K_i)`` solved by Clarabel, ``--exact``) and the training accuracy.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/certified_fit.py --checks auto,libsvm
    python benchmarks/certified_fit.py --kernels sigmoid-2d --n 2000 --repeats 2 [--exact]

``--checks auto,libsvm`` fits each kernel with the default checks and with libsvm's
checks every ``gap_every`` iterations (``solver_options={"checks": "libsvm"}``), in the
same process.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

KERNELS = ("sigmoid-2d", "half-negative", "truncated-l1")


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def one_kernel(name, n, repeats, exact, checks="auto"):
    """Best-of-``repeats`` fit and ``eigh`` times and the fit's counters on one kernel
    (``checks``: how the gap checks solve the SVM on the proxy kernel, passed to the
    solver through ``solver_options``)."""
    from indefinite import make_problem

    from krein.estimators import IndefiniteSVC

    K, y = make_problem(n, name)
    eigh_w, eigh_c, fit_w, fit_c = np.inf, np.inf, np.inf, np.inf
    est = None
    for _ in range(repeats):
        _, w, c = _timed(lambda: np.linalg.eigh(K))
        eigh_w, eigh_c = min(eigh_w, w), min(eigh_c, c)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est, w, c = _timed(lambda: IndefiniteSVC(
                kernel="precomputed", solver_options={"checks": checks}).fit(K, y))
        fit_w, fit_c = min(fit_w, w), min(fit_c, c)
    sol = est.solution_
    cert = sol.certificate
    tr = est.trace_
    row = {"kernel": name, "checks": checks, "eigh_s": eigh_w, "fit_s": fit_w, "eigh_cpu": eigh_c,
           "fit_cpu": fit_c, "iters": int(sol.iterations), "iter_s": float(tr["seconds"].sum()),
           "check_s": float(cert["check_seconds"]),
           "n_libsvm": int(cert["n_libsvm"]), "n_inner": int(cert.get("n_inner_checks", 0)),
           "source": cert["upper_source"], "rel_gap": float(cert["relative_gap"]),
           "accuracy": float(np.mean(est.predict(K) == y)), "status": sol.status}
    if exact:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from certificates import exact_gap

        ex, _ = exact_gap(est.problem_ if hasattr(est, "problem_") else _problem(K, y),
                          sol.primal["beta"])
        row["exact_rel_gap"] = ex / float(cert["scale"])
    return row


def _problem(K, y):
    from krein.formulations.indefinite import ProxyKernelProblem

    return ProxyKernelProblem(K, y, C=1.0, rho=1.0, check=False)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernels", default=",".join(KERNELS))
    p.add_argument("--n", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--checks", default="auto",
                   help="comma list of checks= values, each fitted in turn (auto, libsvm)")
    p.add_argument("--exact", action="store_true",
                   help="also the exact relative gap at the returned point (Clarabel)")
    args = p.parse_args(argv)
    print(f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}  load {os.getloadavg()}")
    print("| kernel | checks | eigh s (cpu) | fit s (cpu) | eigh-equiv wall (cpu) | iterations | "
          "iter s | check s | libsvm | inner checks | bound | rel. gap | exact | accuracy |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.kernels.split(","):
        for checks in args.checks.split(","):
            r = one_kernel(name, args.n, args.repeats, args.exact, checks)
            print(f"| {r['kernel']} | {r['checks']} | {r['eigh_s']:.2f} ({r['eigh_cpu']:.2f}) | "
                  f"{r['fit_s']:.2f} ({r['fit_cpu']:.2f}) | {r['fit_s'] / r['eigh_s']:.1f} "
                  f"({r['fit_cpu'] / r['eigh_cpu']:.1f}) | {r['iters']} | {r['iter_s']:.2f} | "
                  f"{r['check_s']:.2f} | {r['n_libsvm']} | {r['n_inner']} | {r['source']} | "
                  f"{r['rel_gap']:.2e} | {r.get('exact_rel_gap', float('nan')):.2e} | "
                  f"{r['accuracy']:.4f} |", flush=True)

if __name__ == "__main__":
    main()
