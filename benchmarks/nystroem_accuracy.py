"""Accuracy of the approximate ESVC (signed Nyström features) against the exact ESVC.

The target: on the bundled sets that fit in memory, the ESVC trained
on :class:`krein.approximation.IndefiniteNystroem` features with ``m`` = 500-1000
landmarks should be within about one point of test accuracy of the exact ESVC at
the same kernel and ``C``.  Not a test: it prints a markdown table (and, with
``--csv``, writes the rows to a file).

Data sets, kernels and splits (one fixed split each, no tuning):

* ``usps``: all 9298 digits, 10 classes, one-vs-one (the catalogue's multiclass
  USPS, :func:`krein.datasets.load_dataset`), split as shipped (7291 training /
  2007 test digits); pixels standardized over all 9298 rows (the catalogue's
  transductive rule); the catalogue's default kernel
  (:func:`krein.kernel_data.default_kernel`, ``default_kernel_params``):
  ``tanh(a x'z + r)`` with ``a = 4 / 256``, ``r = -2``.
* ``a1a``: LIBSVM a1a as shipped (1605 training / 30956 test rows, 123 binary
  features), standardized over all rows, the catalogue's default sigmoid
  ``a = 4 / 123``, ``r = -2``.
* ``polydish57``: the regenerated PolyDisH57 (``polydish57-regenerated``, 4000
  objects, ``random_state=0``), a seeded stratified 2/3 - 1/3 split (2666 / 1334),
  the kernel of the paper reproduction (``experiments/loosli_table3.py``):
  ``K = D / unit``, ``unit = 0.11601`` (its ``UNITS``; the catalogue's
  ``"dissimilarity-raw"`` kernel).  The approximate path uses precomputed mode:
  ``m`` landmarks drawn among the TRAINING objects (seed 0), ``X = K(objects,
  landmarks)`` for training and test objects alike and
  ``IndefiniteNystroem(kernel="precomputed", landmarks=idx)``; the exact ESVC gets
  the full training block and the test-vs-training rows.

``C = 1`` everywhere (the middle of the experiments' grid {0.1, 1, 10, 100}).
For each set: the exact ``ESVC(C=1)`` (libsvm on the flipped full training kernel,
tested with the original kernel rows), then for each ``m``
``ESVC(approximation=IndefiniteNystroem(n_components=m, random_state=0),
solver=S)`` with ``S = "liblinear"`` (intercept regularized) and, with
``--solvers liblinear,libsvm``, ``S = "libsvm"`` (the same linear SVM with an
unregularized intercept), so that the effect of the approximation is separated
from liblinear's intercept.  Recorded: test accuracy, fit time (kernel included),
rank ``r`` kept (``approximation_.n_components_``), negative eigenvalues of the
approximation, the relative error on 10000 sampled training entries
(``approximation_error``) and the number of ``ConvergenceWarning`` raised.

Usage::

    python benchmarks/nystroem_accuracy.py --quick             # seconds, small subsets
    python benchmarks/nystroem_accuracy.py                     # full sizes (minutes)
    python benchmarks/nystroem_accuracy.py --datasets a1a --m 500,1000 \\
        --solvers liblinear,libsvm --csv /tmp/nys.csv
"""

from __future__ import annotations

import argparse
import csv
import itertools
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

from krein import ESVC
from krein.approximation import IndefiniteNystroem
from krein.datasets import load, make_polygon_hausdorff
from krein.kernel_data import default_kernel_params

DATASETS = ("usps", "a1a", "polydish57")

#: ``K = D / unit`` for PolyDisH57 (``experiments/loosli_table3.py``, ``UNITS``).
POLYDISH_UNIT = 0.11601

#: Objects of the regenerated PolyDisH57 (the paper's size).
POLYDISH_N = 4000


def _standardize(X):
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd[sd == 0] = 1.0
    return (X - mu) / sd


def _subsample(X, y, n, seed):
    if n is None or n >= y.size:
        return X, y
    keep, _ = train_test_split(np.arange(y.size), train_size=n, stratify=y, random_state=seed)
    keep = np.sort(keep)
    return X[keep], y[keep]


def prepare(name, quick):
    """Training/test data of one set: a dict (module docstring for the choices)."""
    if name in ("usps", "a1a"):
        X_tr, y_tr = load(name, split="train")
        X_te, y_te = load(name, split="test")
        X = _standardize(np.vstack([X_tr, X_te]))
        X_tr, X_te = X[:y_tr.size], X[y_tr.size:]
        if quick:
            X_tr, y_tr = _subsample(X_tr, y_tr, 500, 0)
            X_te, y_te = _subsample(X_te, y_te, 300, 0)
        return dict(name=name, kind="vector", X_tr=X_tr, X_te=X_te, y_tr=y_tr, y_te=y_te,
                    kernel="sigmoid", params=default_kernel_params("sigmoid", X.shape[1]),
                    split="shipped split")
    if name == "polydish57":
        n = 300 if quick else POLYDISH_N
        D, y = make_polygon_hausdorff(n, random_state=0)
        tr, te = train_test_split(np.arange(n), test_size=1 / 3, stratify=y, random_state=0)
        tr, te = np.sort(tr), np.sort(te)
        return dict(name=name, kind="dissimilarity", D=D / POLYDISH_UNIT, tr=tr, te=te,
                    y_tr=y[tr], y_te=y[te], kernel="precomputed", params=None,
                    split="stratified 2/3 - 1/3, seed 0")
    raise ValueError(f"unknown data set {name!r}; accepted: {', '.join(DATASETS)}")


def _timed_fit(est, X, y):
    # liblinear's dual coordinate descent shuffles with NumPy's global generator
    # (LinearSVC(random_state=None)): seed it so that a rerun gives the same model
    np.random.seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        t0 = time.perf_counter()
        est.fit(X, y)
        secs = time.perf_counter() - t0
    n_conv = sum(issubclass(w.category, ConvergenceWarning) for w in caught)
    return secs, n_conv


def run_exact(data, C):
    est = ESVC(C=C, kernel=data["kernel"], kernel_params=data["params"])
    if data["kind"] == "dissimilarity":
        D, tr, te = data["D"], data["tr"], data["te"]
        secs, n_conv = _timed_fit(est, D[np.ix_(tr, tr)], data["y_tr"])
        acc = float(np.mean(est.predict(D[np.ix_(te, tr)]) == data["y_te"]))
    else:
        secs, n_conv = _timed_fit(est, data["X_tr"], data["y_tr"])
        acc = float(np.mean(est.predict(data["X_te"]) == data["y_te"]))
    return dict(method="exact", m=None, solver="libsvm", rcond=None, acc=acc, fit_s=secs, rank=None,
                n_neg=None, rel_err=None, conv_warnings=n_conv,
                min_eig=float(getattr(est, "min_eigenvalue_", np.nan)))


def run_approx(data, C, m, solver, rcond="auto", seed=0):
    y_tr, y_te = data["y_tr"], data["y_te"]
    if data["kind"] == "dissimilarity":
        D, tr, te = data["D"], data["tr"], data["te"]
        m = min(m, tr.size)
        rng = np.random.RandomState(seed)
        idx = np.sort(rng.choice(tr.size, size=m, replace=False))   # landmarks: training objects
        lm = tr[idx]
        ny = IndefiniteNystroem(kernel="precomputed", landmarks=idx, rcond=rcond,
                                random_state=seed)
        est = ESVC(C=C, kernel="precomputed", approximation=ny, solver=solver)
        X_tr = D[np.ix_(tr, lm)]                                    # K(training, landmarks)
        fit_s, n_conv = _timed_fit(est, X_tr, y_tr)
        acc = float(np.mean(est.predict(D[np.ix_(te, lm)]) == y_te))
        err = est.approximation_.approximation_error(
            X_tr, n_entries=10000, random_state=1,
            K_nn=lambda i, j: D[tr[i], tr[j]])
    else:
        m = min(m, y_tr.size)         # m = n: every training point a landmark (exact)
        ny = IndefiniteNystroem(n_components=m, rcond=rcond, random_state=seed)
        est = ESVC(C=C, kernel=data["kernel"], kernel_params=data["params"], approximation=ny,
                   solver=solver)
        fit_s, n_conv = _timed_fit(est, data["X_tr"], y_tr)
        acc = float(np.mean(est.predict(data["X_te"]) == y_te))
        err = est.approximation_.approximation_error(data["X_tr"], n_entries=10000,
                                                     random_state=1)
    ap = est.approximation_
    return dict(method="approx", m=m, solver=solver, rcond=rcond, acc=acc, fit_s=fit_s,
                rank=int(ap.n_components_), n_neg=int(np.sum(ap.signs_ < 0)), rel_err=float(err),
                conv_warnings=n_conv, min_eig=float(np.min(ap.eigenvalues_)))


def _n(data, part):
    return int(data[f"y_{part}"].size)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=",".join(DATASETS),
                    help=f"comma-separated, from {', '.join(DATASETS)} (default: all)")
    ap.add_argument("--m", default=None,
                    help="comma-separated landmark counts (default 500,1000; --quick: 50,100)")
    ap.add_argument("--solvers", default="liblinear",
                    help="solvers of the approximate ESVC: liblinear and/or libsvm")
    ap.add_argument("--rcond", default="auto",
                    help="comma-separated cutoffs of IndefiniteNystroem: 'auto' and/or floats "
                         "in (0, 1) (default auto); the summary tables are per cutoff")
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--quick", action="store_true",
                    help="small subsets (USPS 500/300, a1a 500/300, PolyDisH57 300 objects)")
    ap.add_argument("--csv", default=None, help="also write every row to this CSV file")
    args = ap.parse_args(argv)
    names = [s.strip() for s in args.datasets.split(",") if s.strip()]
    for s in names:
        if s not in DATASETS:
            ap.error(f"--datasets: unknown {s!r}; accepted: {', '.join(DATASETS)}")
    ms = [int(v) for v in (args.m or ("50,100" if args.quick else "500,1000")).split(",")]
    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    for s in solvers:
        if s not in ("liblinear", "libsvm"):
            ap.error(f"--solvers: unknown {s!r}; accepted: liblinear, libsvm")

    rconds = []
    for v in args.rcond.split(","):
        v = v.strip()
        try:
            rconds.append(v if v == "auto" else float(v))
        except ValueError:
            ap.error(f"--rcond: {v!r} is neither 'auto' nor a number")

    rows = []
    for name in names:
        t0 = time.perf_counter()
        data = prepare(name, args.quick)
        prep = time.perf_counter() - t0
        base = dict(dataset=name, n_train=_n(data, "tr"), n_test=_n(data, "te"),
                    kernel=data["kernel"] if data["kind"] == "vector" else "D / unit",
                    C=args.C)
        print(f"# {name}: {base['n_train']} training / {base['n_test']} test ({data['split']}), "
              f"prepared in {prep:.1f} s", flush=True)
        ex = dict(base, **run_exact(data, args.C))
        rows.append(ex)
        print(f"  exact: acc {100 * ex['acc']:.2f} %, fit {ex['fit_s']:.1f} s, "
              f"min eig {ex['min_eig']:.4g}", flush=True)
        for m, rcond, solver in itertools.product(ms, rconds, solvers):
            r = dict(base, **run_approx(data, args.C, m, solver, rcond))
            rows.append(r)
            print(f"  m={m} rcond={rcond} {solver}: acc {100 * r['acc']:.2f} %, fit {r['fit_s']:.1f} s, "
                  f"r={r['rank']} ({r['n_neg']} negative), rel. err {r['rel_err']:.3g}, "
                  f"ConvergenceWarnings {r['conv_warnings']}", flush=True)
        del data

    exact = {r["dataset"]: r for r in rows if r["method"] == "exact"}
    print("\nAll runs (accuracy in %, difference = approximate - exact in points):\n")
    print("| data set | n_train | n_test | method | m | rcond | solver | r (negative) | "
          "rel. error | acc. | diff. | fit s |")
    print("|---|---:|---:|---|---:|---|---|---|---:|---:|---:|---:|")
    for r in rows:
        e = exact[r["dataset"]]
        if r["method"] == "exact":
            print(f"| {r['dataset']} | {r['n_train']} | {r['n_test']} | exact ESVC | - | - | "
                  f"libsvm | - | - | {100 * r['acc']:.2f} | - | {r['fit_s']:.1f} |")
        else:
            print(f"| {r['dataset']} | {r['n_train']} | {r['n_test']} | Nyström ESVC | {r['m']} | "
                  f"{r['rcond']} | {r['solver']} | {r['rank']} ({r['n_neg']}) | {r['rel_err']:.3f} | "
                  f"{100 * r['acc']:.2f} | {100 * (r['acc'] - e['acc']):+.2f} | "
                  f"{r['fit_s']:.1f} |")

    for rcond, solver in itertools.product(rconds, solvers):
        print(f"\nSummary, approximate ESVC with solver={solver!r}, rcond={rcond!r}:\n")
        head = " | ".join(f"approx. m={m}" for m in ms)
        print(f"| data set | n_train | n_test | exact | {head} | "
              + " | ".join(f"diff. m={m}" for m in ms) + " | fit s exact / "
              + " / ".join(f"m={m}" for m in ms) + " |")
        print("|---|---:|---:|---:|" + "---:|" * (2 * len(ms) + 1))
        for name in names:
            e = exact[name]
            ap_rows = {r["m"]: r for r in rows if r["dataset"] == name and r["method"] == "approx"
                       and r["solver"] == solver and r["rcond"] == rcond}
            got = [ap_rows.get(min(m, e["n_train"])) for m in ms]
            accs = " | ".join(f"{100 * g['acc']:.2f}" + (f" (m={g['m']})" if g["m"] != m else "")
                              for m, g in zip(ms, got))
            diffs = " | ".join(f"{100 * (g['acc'] - e['acc']):+.2f}" for g in got)
            times = " / ".join(f"{g['fit_s']:.1f}" for g in got)
            print(f"| {name} | {e['n_train']} | {e['n_test']} | {100 * e['acc']:.2f} | {accs} | "
                  f"{diffs} | {e['fit_s']:.1f} / {times} |")

    if args.csv:
        keys = list(rows[0])
        with open(args.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=keys)
            w.writeheader()
            w.writerows(rows)
        print(f"\nwrote {args.csv}")


if __name__ == "__main__":
    main()
