"""Large n through the indefinite Nyström front end.

The 4 x 4 checkerboard with 10 % overlap, standardized on the training points, and
the sigmoid kernel of Loosli et al. Figs. 3-5 (``a = 1, r = -0.95``; hundreds of
negative eigenvalues: the HARD case for a low-rank front end, not a nearly PSD
kernel), ``C = 1``:

* ``ESVC(approximation=IndefiniteNystroem(n_components=m), solver="liblinear")`` at
  ``n = 10^4, 10^5, 10^6`` training points, each in a FRESH PROCESS so that its peak
  resident memory (``ru_maxrss``) is its own: fit seconds (landmarks, ``C = K_nm`` in
  row blocks, features, liblinear), the rank ``r`` kept by ``rcond="auto"`` and its
  negative eigenvalues, test accuracy on 10 000 new points;
* the reference, in the same process as the ``10^4`` run: the EXACT ESVC (full
  ``n x n`` kernel, ``eigh``, libsvm) at ``n = 10^4``: the ratio of fit times and the
  accuracy difference;
* one run through a local Dask cluster (``dask.distributed.LocalCluster``, 2 workers
  of 1 thread): the features of a chunked dask array of ``n_dask`` points, against the
  in-memory features of the same points (max difference relative to max |Psi|), and
  both times.

* the default solver: ``ESVC(approximation=IndefiniteNystroem(500))``
  with the default ``solver="auto"`` (liblinear on the features) against the old default
  ``solver="libsvm"`` (``SVC(kernel="linear")`` on the features) on the plain
  checkerboard of ``--default-n`` points (10^5 as the target; sigmoid ``a = 3, r = -1``,
  ``C = 1``), in one fresh process: both fit times, their ratio, both test accuracies.

Targets: ``n = 10^6`` in under 10 minutes with peak memory under 16 GB on the 2-core
24 GB machine; ``n = 10^5`` in under 1 minute.

Usage::

    python benchmarks/nystroem.py [--sizes 10000,100000,1000000] [--m 1000] [--C 1]
                                  [--n-dask 200000] [--no-exact] [--no-dask]
                                  [--default-n 20000] [--no-default]
    python benchmarks/nystroem.py --quick      # seconds: n = 2000, 20000, m = 200
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

KERNEL_PARAMS = {"a": 1.0, "r": -0.95}
N_TEST = 10_000


def data(n, seed=0):
    """Training and test points (standardized with the training mean and deviation)."""
    from krein.datasets import make_checkerboard

    X, y = make_checkerboard(n + N_TEST, overlap=0.1, random_state=seed)
    X = np.asarray(X, dtype=float)
    mu, sd = X[:n].mean(axis=0), X[:n].std(axis=0)
    X = (X - mu) / sd
    return X[:n], np.asarray(y[:n]), X[n:], np.asarray(y[n:])


def approximate_run(n, m, C):
    """One approximate fit (run in a child process); a dict of the measurements."""
    from krein import IndefiniteNystroem
    from krein.estimators import ESVC

    X, y, Xt, yt = data(n)
    est = ESVC(C=C, kernel="sigmoid", kernel_params=KERNEL_PARAMS, solver="liblinear",
               approximation=IndefiniteNystroem(n_components=m, random_state=0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        est.fit(X, y)
        fit = time.perf_counter() - t0
    t0 = time.perf_counter()
    acc = float(est.score(Xt, yt))
    pred = time.perf_counter() - t0
    ny = est.approximation_
    return {"n": n, "m": m, "C": C, "fit_seconds": fit, "predict_seconds": pred,
            "accuracy": acc, "rank": int(ny.n_components_),
            "negative": int(np.sum(ny.signs_ < 0)), "liblinear_iter": int(est.n_iter_[0]),
            "warnings": sorted({type(w.message).__name__ for w in caught}),
            "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}


#: The kernel of the default-solver case.
DEFAULT_CASE_PARAMS = {"a": 3.0, "r": -1.0}


def default_solver_run(n, m, C):
    """ESVC with an approximation: the default solver against the old default (libsvm)."""
    from krein import IndefiniteNystroem
    from krein.datasets import make_checkerboard
    from krein.estimators import ESVC

    X, y = make_checkerboard(n + N_TEST, random_state=0)
    out = {"n": n, "m": m, "C": C}
    for label, kw in (("default", {}), ("libsvm", {"solver": "libsvm"})):
        est = ESVC(C=C, kernel="sigmoid", kernel_params=DEFAULT_CASE_PARAMS, **kw,
                   approximation=IndefiniteNystroem(n_components=m, random_state=0))
        t0 = time.perf_counter()
        est.fit(X[:n], y[:n])
        out[f"{label}_seconds"] = time.perf_counter() - t0
        out[f"{label}_solver"] = est.solver_
        out[f"{label}_accuracy"] = float(est.score(X[n:], y[n:]))
    return out


def exact_run(n, C):
    """The exact ESVC (n x n kernel, eigh, libsvm) in this process; a dict."""
    from krein.estimators import ESVC
    from krein.kernels import sigmoid_kernel

    X, y, Xt, yt = data(n)
    t0 = time.perf_counter()
    K = sigmoid_kernel(X, **KERNEL_PARAMS)
    est = ESVC(C=C, kernel="precomputed").fit(K, y)
    fit = time.perf_counter() - t0
    del K
    acc = float(est.score(sigmoid_kernel(Xt, X, **KERNEL_PARAMS), yt))
    return {"n": n, "fit_seconds": fit, "accuracy": acc,
            "negative": int(est.signature_[1]),
            "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}


def dask_run(n, m, chunk):
    """Features of a chunked dask array on a LocalCluster against the in-memory ones."""
    import dask.array as da
    from dask.distributed import Client, LocalCluster

    from krein import IndefiniteNystroem

    X, _, _, _ = data(n)
    ny = IndefiniteNystroem(kernel_params=KERNEL_PARAMS, n_components=m, random_state=0)
    t0 = time.perf_counter()
    F_mem = ny.fit_transform(X)
    t_mem = time.perf_counter() - t0
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        Xd = da.from_array(X, chunks=(chunk, X.shape[1]))
        t0 = time.perf_counter()
        F_dask = IndefiniteNystroem(kernel_params=KERNEL_PARAMS, n_components=m,
                                    random_state=0).fit_transform(Xd).compute()
        t_dask = time.perf_counter() - t0
    diff = float(np.max(np.abs(F_dask - F_mem)) / np.max(np.abs(F_mem)))
    return {"n": n, "m": m, "chunk": chunk, "in_memory_seconds": t_mem,
            "dask_seconds": t_dask, "max_rel_difference": diff, "rank": int(F_mem.shape[1])}


def child(kind, *args):
    """Run one measurement in a fresh interpreter; return its dict."""
    code = (f"import json, sys; sys.path.insert(0, {ROOT!r}); sys.path.insert(0, {HERE!r}); "
            f"import nystroem as b; print('RESULT ' + json.dumps(b.{kind}(*{args!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else "failed",
                "args": args}
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="10000,100000,1000000")
    p.add_argument("--m", type=int, default=1000)
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--n-dask", type=int, default=200_000)
    p.add_argument("--no-exact", action="store_true")
    p.add_argument("--no-dask", action="store_true")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--default-n", type=int, default=20_000)
    p.add_argument("--no-default", action="store_true")
    a = p.parse_args(argv)
    sizes = [int(float(s)) for s in a.sizes.split(",")]
    m, n_dask = a.m, a.n_dask
    if a.quick:
        sizes, m, n_dask = [2000, 20000], 200, 20000
    print(f"checkerboard (10 % overlap, standardized), sigmoid {KERNEL_PARAMS}, C = {a.C}, "
          f"m = {m} landmarks, {N_TEST} test points; one fresh process per size\n")
    print("| n | fit (s) | peak memory (GB) | rank r (negative) | test accuracy | notes |")
    print("|---:|---:|---:|---:|---:|---|")
    rows = []
    for n in sizes:
        r = child("approximate_run", n, m, a.C)
        rows.append(r)
        if "error" in r:
            print(f"| {n} | failed: {r['error']} | | | | |")
            continue
        print(f"| {n} | {r['fit_seconds']:.1f} | {r['peak_rss_gb']:.2f} | {r['rank']} "
              f"({r['negative']}) | {100 * r['accuracy']:.2f} % | "
              f"{', '.join(r['warnings']) or ''} |", flush=True)
    if not a.no_exact:
        n0 = sizes[0]
        e = child("exact_run", n0, a.C)
        r0 = rows[0]
        if "error" in e:
            print(f"\nexact ESVC at n = {n0}: failed: {e['error']}")
        else:
            print(f"\nexact ESVC at n = {n0} (n x n kernel, eigh, libsvm): fit "
                  f"{e['fit_seconds']:.1f} s, peak {e['peak_rss_gb']:.2f} GB, "
                  f"{e['negative']} negative eigenvalues, accuracy {100 * e['accuracy']:.2f} %")
            if "error" not in r0:
                print(f"ratio exact / approximate fit time at n = {n0}: "
                      f"{e['fit_seconds'] / r0['fit_seconds']:.1f}; accuracy difference "
                      f"{100 * (r0['accuracy'] - e['accuracy']):+.2f} points")
    if not a.no_default:
        d = child("default_solver_run", a.default_n, 500, 1.0)
        if "error" in d:
            print(f"\ndefault solver: failed: {d['error']}")
        else:
            print(f"\ndefault solver with an approximation (plain checkerboard, "
                  f"sigmoid {DEFAULT_CASE_PARAMS}, C = 1, m = 500, n = {d['n']}): default "
                  f"(solver_ = {d['default_solver']}) {d['default_seconds']:.1f} s, accuracy "
                  f"{100 * d['default_accuracy']:.2f} %; old default solver='libsvm' "
                  f"{d['libsvm_seconds']:.1f} s, accuracy {100 * d['libsvm_accuracy']:.2f} %; "
                  f"ratio old / new {d['libsvm_seconds'] / d['default_seconds']:.1f}")
    if not a.no_dask:
        d = child("dask_run", n_dask, m, max(n_dask // 8, 1000))
        if "error" in d:
            print(f"\ndask: failed: {d['error']}")
        else:
            print(f"\nDask LocalCluster (2 workers x 1 thread), n = {d['n']}, chunks of "
                  f"{d['chunk']} rows: features in {d['dask_seconds']:.1f} s against "
                  f"{d['in_memory_seconds']:.1f} s in memory; max |Psi_dask - Psi| / max|Psi| "
                  f"= {d['max_rel_difference']:.1e} (rank {d['rank']})")


if __name__ == "__main__":
    main()
