"""Many classes: ``krein compare`` and one fit per method on 10 and 14 classes.

No bundled data set has ~14 classes, so the measurement inputs are built from what
krein has, deterministically (seed 0), and written as a dissimilarity file + labels
(``krein compare --kernel-file D.npy --labels y.txt --dissimilarity``, README "Your own
data"):

* ``usps10``: 800 USPS digits (80 per class of the 7291 training digits of
  ``krein/datasets/data/usps.npz``), 10 classes, 45 one-vs-one problems; Minkowski
  ``p = 0.5`` dissimilarities of the 256 pixels (not a metric: the classical-scaling
  kernel is indefinite);
* ``gauss14``: 14 Gaussian classes in 20-D (57 objects each, 798 in all, 91 pairs),
  class means ``N(0, I / 2)``, unit covariance (overlapping: a libsvm SVC on the clipped
  kernel reaches ~0.7 in 3-fold CV), Minkowski ``p = 0.5`` (as the REGENERATED
  GaussM02 of :func:`krein.datasets.make_gauss_minkowski`, with 14 classes).

Both are scaled so that mean ``D^2 = 2`` (the classical-scaling kernel has a mean
diagonal ~1; the scale-free handling of the kernel is ``benchmarks/scale.py``'s subject).

Parts (each prints a table; the ratios are within one run):

1. ``--fits``: one fit per compare method on 80 % of ``gauss14`` (638 objects): seconds
   serially (``n_jobs=1``) and over two threads (``n_jobs=2``, the estimators that have
   it), the training-scope spectrum correction (``correction_scope="training"``), test
   accuracy on the other 20 %.
   ``--speedup``: the same fits serially and with the pairs on two threads
   (``joblib.parallel_config(n_jobs=2)``), interleaved, best of two.
2. ``--accuracy``: ``correction_scope="pair"`` against ``"training"`` for flip and clip
   (``--methods`` for others): 5-fold CV accuracy, C tuned by 3-fold inner CV on the registry's
   grid (scikit-learn's ``GridSearchCV``; the kernel is classical scaling of all
   objects, the same for both scopes), on usps10, gauss14 and the 4-class protein and
   newsgroups similarity sets.
3. ``--compare``: ``krein compare`` (:func:`krein.compare.run_comparison`) on the files,
   per method (the summary's mean fit seconds x cells) and the wall time: with the
   default workers over the cells (``n_jobs`` = the cores), and with one worker and the
   pairs of each fit on two threads (``joblib.parallel_config(n_jobs=2)``).  With
   ``--before DIR`` (an export of the code before this change: ``git archive 1de966c |
   tar -x -C DIR``) the same compare runs there in a subprocess for the "before" column.

4. ``--families --before DIR``: one fit of each slow family (rvm, bending, ch, mod-svm,
   lp-svm, indefinite-svm, iksvm-dc, ksvm; ``--methods`` for others) on 80 % of gauss14
   and of sonar (``--data``), with the code in ``DIR`` and with this code, each fit in
   its own process with one BLAS thread, interleaved, best of two; the largest
   difference of the test decision values and whether the test labels agree (the
   per-pair speed-ups keep the results).

5. ``--main-job``: the README's main job on the files, every default method
   (``krein compare --kernel-file D.npy --labels y.txt --dissimilarity``: nested CV, 5
   outer x 3 inner folds x the registry grids, cells over ``n_jobs`` = the cores, one
   BLAS thread each): the wall time and, per method, the seconds its cells took (inner
   CV and refit together, summed over the outer folds), its share of the run and its
   accuracy; ``--before-cells CSV`` adds the seconds per outer fold of an earlier run's
   ``cells/results.csv`` beside them (the folds it finished).

Usage::

    python benchmarks/many_classes.py --fits
    python benchmarks/many_classes.py --accuracy
    python benchmarks/many_classes.py --compare --methods esvm,flip,clip,svm --outer-folds 3
    python benchmarks/many_classes.py --families --before /tmp/before --methods rvm,bending
    python benchmarks/many_classes.py --main-job --inputs gauss14
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

from krein.datasets._regenerated import minkowski_dissimilarities

FAST_METHODS = ("esvm", "esvm-l", "svm", "flip", "clip", "shift", "clip-mds", "trik-svm",
                "knn", "pe-nearest-mean", "similarity-linear", "krein-ls")


def _unit(D):
    return D * np.sqrt(2.0 / np.mean(D ** 2))


def usps10(n_per_class=80, p=0.5, seed=0):
    """800 USPS digits, Minkowski-p dissimilarities (module docstring)."""
    path = os.path.join(os.path.dirname(__file__), "..", "krein", "datasets", "data", "usps.npz")
    d = np.load(path)
    X, y = d["X_train"].astype(float), d["y_train"].astype(int)
    rng = np.random.default_rng(seed)
    idx = np.sort(np.concatenate([rng.choice(np.flatnonzero(y == c), n_per_class, replace=False)
                                  for c in range(10)]))
    return _unit(minkowski_dissimilarities(X[idx], p)), y[idx]


def gauss14(n_per_class=57, n_classes=14, p=0.5, n_features=20, spread=1.0, seed=0):
    """14 Gaussian classes, Minkowski-p dissimilarities (module docstring)."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), n_per_class)
    means = rng.standard_normal((n_classes, n_features)) * spread / np.sqrt(2)
    X = rng.standard_normal((y.size, n_features)) + means[y]
    return _unit(minkowski_dissimilarities(X, p)), y


INPUTS = {"usps10": usps10, "gauss14": gauss14}


def classical_scaling(D):
    n = D.shape[0]
    J = np.eye(n) - 1.0 / n
    K = -0.5 * J @ (D ** 2) @ J
    return 0.5 * (K + K.T)


def write_inputs(directory, names=tuple(INPUTS)):
    """``{name: (D.npy, labels.txt)}`` written into ``directory``."""
    files = {}
    for name in names:
        D, y = INPUTS[name]()
        dpath = os.path.join(directory, f"{name}.npy")
        ypath = os.path.join(directory, f"{name}-labels.txt")
        np.save(dpath, D)
        np.savetxt(ypath, y, fmt="%d")
        files[name] = (dpath, ypath)
    return files


# ------------------------------------------------------------------------------ 1. fits
def fits(name="gauss14"):
    from krein.registry import list_methods, make_method

    D, y = INPUTS[name]()
    K = classical_scaling(D)
    rng = np.random.default_rng(0)
    perm = rng.permutation(y.size)
    cut = int(0.8 * y.size)
    tr, te = np.sort(perm[:cut]), np.sort(perm[cut:])
    Ktr, Kte = K[np.ix_(tr, tr)], K[np.ix_(te, tr)]
    lam = np.linalg.eigvalsh(Ktr)
    print(f"{name}: {tr.size} training objects, {np.unique(y).size} classes, "
          f"{np.count_nonzero(lam < -1e-10 * abs(lam).max())} negative eigenvalues "
          f"(least {lam[0]:.3g}, largest {lam[-1]:.3g})")
    print(f"{'method':20s} {'serial s':>9s} {'2 threads s':>11s} {'training s':>10s} "
          f"{'acc':>6s} {'acc training':>12s}")
    rows = []
    for m in list_methods(task="classifier", compare=True):
        est = make_method(m, kernel="precomputed")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = time.perf_counter()
                est.fit(Ktr, y[tr])
                serial = time.perf_counter() - t
                acc = float(np.mean(est.predict(Kte) == y[te]))
                par = tr_s = tr_acc = float("nan")
                if "n_jobs" in est.get_params():
                    est.set_params(n_jobs=2)
                    t = time.perf_counter()
                    est.fit(Ktr, y[tr])
                    par = time.perf_counter() - t
                if "correction_scope" in est.get_params():
                    est.set_params(n_jobs=1, correction_scope="training")
                    t = time.perf_counter()
                    est.fit(Ktr, y[tr])
                    tr_s = time.perf_counter() - t
                    tr_acc = float(np.mean(est.predict(Kte) == y[te]))
        except Exception as exc:   # a stacked-kernel method, an unbounded LP: say so
            print(f"{m:20s} skipped: {type(exc).__name__}: {str(exc)[:70]}")
            continue
        rows.append((m, serial, par, tr_s, acc, tr_acc))
        print(f"{m:20s} {serial:9.2f} {par:11.2f} {tr_s:10.2f} {acc:6.3f} {tr_acc:12.3f}",
              flush=True)
    return rows


def speedup(name="gauss14", methods=("esvm", "flip", "svm", "ksvm", "indefinite-svm", "conformal"),
            repeats=2):
    # ksvm: its pairs stay serial (KSVC._parallel_pairs is False: the active set is
    # Python-bound, two threads measured 0.64x); listed as the reference of no gain
    """Serial against two threads over the pairs, interleaved, best of ``repeats``."""
    import joblib

    from krein.registry import make_method

    D, y = INPUTS[name]()
    K = classical_scaling(D)
    tr = np.sort(np.random.default_rng(0).permutation(y.size)[:int(0.8 * y.size)])
    Ktr, ytr = K[np.ix_(tr, tr)], y[tr]
    print(f"{'method':16s} {'serial s':>9s} {'2 threads s':>11s} {'speed-up':>8s}")
    for m in methods:
        best = {1: np.inf, 2: np.inf}
        for _ in range(repeats):
            for jobs in (1, 2):
                est = make_method(m, kernel="precomputed")
                with warnings.catch_warnings(), joblib.parallel_config(n_jobs=jobs):
                    warnings.simplefilter("ignore")
                    t = time.perf_counter()
                    est.fit(Ktr, ytr)
                    best[jobs] = min(best[jobs], time.perf_counter() - t)
        print(f"{m:16s} {best[1]:9.2f} {best[2]:11.2f} {best[1] / best[2]:8.2f}", flush=True)


# ------------------------------------------------------------------------------ 2. accuracy
def _bundled(name):
    """A bundled 4-class set as a kernel: classical scaling of its dissimilarities (unit
    mean diagonal), or its symmetrized similarities."""
    from krein.datasets import load_dataset

    data = load_dataset(name)
    if data.D is not None:
        return classical_scaling(_unit(np.asarray(data.D, dtype=float))), np.asarray(data.y)
    S = np.asarray(data.S, dtype=float)
    return 0.5 * (S + S.T), np.asarray(data.y)


def accuracy(names=("protein", "newsgroups", "gauss14", "usps10"), methods=("flip", "clip")):
    from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score

    from krein.registry import default_grid, make_method

    print(f"{'data':12s} {'classes':>7s} {'method':9s} {'pair':>6s} {'training':>8s} "
          f"{'pair s':>7s} {'training s':>10s}")
    out = []
    for name in names:
        if name in INPUTS:
            D, y = INPUTS[name]()
            K = classical_scaling(D)
        else:
            K, y = _bundled(name)
        for m in methods:
            accs, secs = [], []
            for scope in ("pair", "training"):
                est = make_method(m, kernel="precomputed", correction_scope=scope)
                search = GridSearchCV(est, {"C": default_grid(m)["C"]},
                                      cv=StratifiedKFold(3, shuffle=True, random_state=0))
                t = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    s = cross_val_score(search, K, y,
                                        cv=StratifiedKFold(5, shuffle=True, random_state=0))
                secs.append(time.perf_counter() - t)
                accs.append(float(np.mean(s)))
            out.append((name, m, *accs, *secs))
            print(f"{name:12s} {np.unique(y).size:7d} {m:9s} {accs[0]:6.3f} {accs[1]:8.3f} "
                  f"{secs[0]:7.1f} {secs[1]:10.1f}", flush=True)
    return out


# ------------------------------------------------------------------------------ 3. compare
def _compare_once(dpath, ypath, methods, outer_folds, n_jobs, pair_jobs):
    import joblib

    from krein.compare import run_comparison

    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as out, joblib.parallel_config(n_jobs=pair_jobs):
        res = run_comparison(kernel_file=dpath, labels=ypath, dissimilarity=True,
                             methods=list(methods), outer_folds=outer_folds, n_jobs=n_jobs,
                             progress=False, out=out)
    wall = time.perf_counter() - t
    s = res.summary
    per = {r["method"]: (float(r["fit_seconds_mean"]), float(r["accuracy_mean"]))
           for _, r in s.iterrows()}
    return wall, per


def compare(files, methods, outer_folds, before=None, threads_first=False):
    cores = max(1, min(4, os.cpu_count() or 1))
    for name, (dpath, ypath) in files.items():
        runs = {}
        if threads_first:   # the other order of the runs (a loaded machine's load drifts)
            runs["after (1 worker, pairs on 2 threads)"] = _compare_once(
                dpath, ypath, methods, outer_folds, 1, 2)
            runs["after (n_jobs=cores)"] = _compare_once(dpath, ypath, methods, outer_folds,
                                                         cores, None)
        if before:
            cmd = [sys.executable, os.path.abspath(__file__), "--compare-child", dpath, ypath,
                   ",".join(methods), str(outer_folds)]
            env = {**os.environ, "PYTHONPATH": before}
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=before)
            if proc.returncode != 0:
                print(proc.stderr[-2000:])
            else:
                wall, per = json.loads(proc.stdout.strip().splitlines()[-1])
                runs["before (n_jobs=cores)"] = (wall, per)
        if not threads_first:
            runs["after (n_jobs=cores)"] = _compare_once(dpath, ypath, methods, outer_folds,
                                                         cores, None)
            runs["after (1 worker, pairs on 2 threads)"] = _compare_once(
                dpath, ypath, methods, outer_folds, 1, 2)
        print(f"\n{name}: krein compare, {outer_folds} outer folds x 3 inner folds x grid")
        for label, (wall, per) in runs.items():
            print(f"  {label}: wall {wall:.1f} s")
            for m in methods:
                fit, acc = per.get(m, (float("nan"), float("nan")))
                print(f"    {m:20s} fit {fit:7.2f} s (mean refit)  accuracy {acc:.3f}")


# ------------------------------------------------------------------------------ 5. main job
def _grid_size(method):
    """Points of the registry's default inner-CV grid of ``method`` (1: nothing to tune)."""
    from krein.registry import default_grid

    size = 1
    for values in (default_grid(method) or {}).values():
        size *= len(values)
    return size


def main_job(files, outer_folds=5, before_cells=None, keep=None):
    """The default ``krein compare`` on each file: wall time, seconds per method (``keep``:
    a directory where each file's run directory is kept, else a temporary one)."""
    import pandas as pd

    from krein.compare import run_comparison

    cores = max(1, os.cpu_count() or 1)
    before = None
    if before_cells:
        b = pd.read_csv(before_cells)
        done = b.groupby("fold")["method"].transform("size") == b["method"].nunique()
        b = b[done]
        before = b.groupby("method")["cell_seconds"].sum() / b["fold"].nunique()
    for name, (dpath, ypath) in files.items():
        with (contextlib.nullcontext(os.path.join(keep, name)) if keep
              else tempfile.TemporaryDirectory()) as out:
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = run_comparison(kernel_file=dpath, labels=ypath, dissimilarity=True,
                                     outer_folds=outer_folds, n_jobs=cores, progress=False,
                                     out=out)
            wall = time.perf_counter() - t
            cells = pd.read_csv(os.path.join(out, "cells", "results.csv"))
        per = cells.groupby("method", sort=False).agg(
            seconds=("cell_seconds", "sum"), accuracy=("accuracy", "mean"),
            status=("status", lambda st: ",".join(sorted(set(st)))))
        per = per.sort_values("seconds", ascending=False)
        total = float(per["seconds"].sum())
        print(f"\n{name}: krein compare, every default method ({len(per)}), {outer_folds} outer "
              f"x 3 inner folds x grid, {cores} workers: wall {wall:.0f} s, cells {total:.0f} s")
        head = f"  {'method':18s} {'cells s':>8s} {'share':>6s} {'s/fold':>7s}"
        print(head + (f" {'before s/fold':>13s} {'ratio':>6s}" if before is not None else "")
              + f" {'accuracy':>8s} {'fits':>5s} {'ms/fit':>7s}  status")
        for m, r in per.iterrows():
            line = (f"  {m:18s} {r.seconds:8.1f} {r.seconds / total:6.1%} "
                    f"{r.seconds / outer_folds:7.1f}")
            if before is not None:
                bs = float(before.get(m, float("nan")))
                line += f" {bs:13.1f} {bs / (r.seconds / outer_folds):6.1f}"
            # fits of the nested CV: per outer fold, 3 inner folds x the grid, plus the refit
            fits = outer_folds * (3 * _grid_size(m) + 1)
            print(line + f" {r.accuracy:8.3f} {fits:5d} {1e3 * r.seconds / fits:7.0f}  "
                  f"{r.status}", flush=True)
        summary = res.summary
        bad = summary[~summary["status"].isin(["ok"])]
        if len(bad):
            print("  not ok:", ", ".join(f"{m} ({st})" for m, st in
                                         zip(bad["method"], bad["status"])))


# ------------------------------------------------------------------------------ 4. families
SLOW_FAMILIES = ("rvm", "bending", "ch", "mod-svm", "lp-svm", "indefinite-svm", "iksvm-dc",
                 "ksvm")


def _split_kernel(name):
    """``(K_train, y_train, K_test, y_test)``: classical scaling, 80 % for training (seed 0);
    ``name`` an input of :data:`INPUTS` or ``"sonar"`` (Minkowski-0.5 of its 60 features)."""
    if name in INPUTS:
        D, y = INPUTS[name]()
    else:
        from krein.datasets import load_dataset

        data = load_dataset(name)
        D = _unit(minkowski_dissimilarities(np.asarray(data.X, dtype=float), 0.5))
        y = np.asarray(data.y)
    K = classical_scaling(D)
    perm = np.random.default_rng(0).permutation(y.size)
    cut = int(0.8 * y.size)
    tr, te = np.sort(perm[:cut]), np.sort(perm[cut:])
    return K[np.ix_(tr, tr)], y[tr], K[np.ix_(te, tr)], y[te]


def _one_fit(method, name, path, params="{}"):
    """Child of :func:`families`: one fit of ``method`` (registry defaults, ``random_state=0``
    where it has one, then ``params``, a JSON object) on ``name``,
    its seconds and test decision values written to ``path`` (.npz)."""
    from krein.registry import make_method

    Ktr, ytr, Kte, _ = _split_kernel(name)
    est = make_method(method, kernel="precomputed")
    est.set_params(**json.loads(params))      # e.g. ksvm's grid point C = 0.1
    if "random_state" in est.get_params():   # ch's starts, iksvm-dc's initial point
        est.set_params(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, c = time.perf_counter(), time.process_time()
        est.fit(Ktr, ytr)
        sec, cpu = time.perf_counter() - t, time.process_time() - c
    np.savez(path, seconds=sec, cpu=cpu, decision=est.decision_function(Kte),
             predict=est.predict(Kte))


def families(before, methods=SLOW_FAMILIES, names=("gauss14", "sonar"), repeats=2, params="{}"):
    """One fit per method with the code in ``before`` and this code, each in its own
    process (one BLAS thread, serial pairs), interleaved, best of ``repeats``; the
    largest difference of the test decision values and whether the predictions agree.
    ``params``: a JSON object of parameters set on every method (``--params``)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # CPU seconds too: on a loaded machine a fit's wall time is mostly waiting for a core
    print(f"{'data':8s} {'method':16s} {'before s':>9s} {'after s':>8s} {'ratio':>6s} "
          f"{'cpu ratio':>9s} {'max|f diff|':>11s} {'max|f|':>7s} {'same labels':>11s}")
    env1 = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            for m in methods:
                out = {}
                for r in range(repeats):
                    for label, root in (("before", before), ("after", here)):
                        path = os.path.join(tmp, f"{label}-{r}.npz")
                        cmd = [sys.executable, os.path.abspath(__file__), "--one-fit", m, name,
                               path, params]
                        proc = subprocess.run(cmd, env={**env1, "PYTHONPATH": root}, cwd=root,
                                              capture_output=True, text=True)
                        if proc.returncode != 0:
                            print(f"{name:8s} {m:16s} {label} failed: {proc.stderr[-300:]}")
                            break
                        with np.load(path) as z:
                            out.setdefault(label, []).append(
                                (float(z["seconds"]), z["decision"], z["predict"],
                                 float(z["cpu"])))
                if len(out.get("before", ())) < repeats or len(out.get("after", ())) < repeats:
                    continue
                b = min(x[0] for x in out["before"])
                a = min(x[0] for x in out["after"])
                fb, fa = out["before"][0][1], out["after"][0][1]
                same = bool(np.array_equal(out["before"][0][2], out["after"][0][2]))
                cb = min(x[3] for x in out["before"])
                ca = min(x[3] for x in out["after"])
                print(f"{name:8s} {m:16s} {b:9.2f} {a:8.2f} {b / a:6.2f} {cb / ca:9.2f} "
                      f"{float(np.max(np.abs(fb - fa))):11.3g} {float(np.max(np.abs(fb))):7.3g} "
                      f"{str(same):>11s}", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fits", action="store_true")
    p.add_argument("--speedup", action="store_true")
    p.add_argument("--accuracy", action="store_true")
    p.add_argument("--compare", action="store_true")
    p.add_argument("--methods", default=None,
                   help="comma-separated registry methods (default: --compare the fast "
                        "families, --accuracy flip,clip)")
    p.add_argument("--outer-folds", type=int, default=5)
    p.add_argument("--inputs", default="usps10,gauss14", help="--compare: the inputs")
    p.add_argument("--before", default=None, metavar="DIR")
    p.add_argument("--threads-first", action="store_true",
                   help="--compare: the after runs first, threads before cores, then before")
    p.add_argument("--families", action="store_true",
                   help="one fit per slow family, --before DIR against this code")
    p.add_argument("--data", default="gauss14,sonar", help="--families: the inputs")
    p.add_argument("--main-job", action="store_true",
                   help="the default krein compare (every method) on --inputs")
    p.add_argument("--before-cells", default=None, metavar="CSV",
                   help="--main-job: an earlier run's cells/results.csv, per fold beside")
    p.add_argument("--keep", default=None, metavar="DIR",
                   help="--main-job: keep each input's run directory under DIR")
    p.add_argument("--compare-child", nargs=4, default=None, help=argparse.SUPPRESS)
    p.add_argument("--params", default="{}",
                   help="--families: JSON parameters for every method, e.g. '{\"C\": 0.1}'")
    p.add_argument("--one-fit", nargs=4, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.one_fit:
        _one_fit(*args.one_fit)
        return
    if args.families:
        if not args.before:
            p.error("--families needs --before DIR (the code to compare against)")
        families(os.path.abspath(args.before),
                 tuple(args.methods.split(",")) if args.methods else SLOW_FAMILIES,
                 tuple(args.data.split(",")), params=args.params)
        return
    if args.compare_child:
        dpath, ypath, methods, folds = args.compare_child
        cores = max(1, min(4, os.cpu_count() or 1))
        wall, per = _compare_once(dpath, ypath, methods.split(","), int(folds), cores, None)
        print(json.dumps([wall, per]))
        return
    from threadpoolctl import threadpool_limits

    # one BLAS thread per fit, as krein compare's fits of at most 1000 objects (the
    # threads over the pairs then use one core each; BLAS threads would spin against them)
    with threadpool_limits(limits=1):
        if args.fits:
            fits()
        if args.speedup:
            speedup()
        if args.accuracy:
            accuracy(methods=args.methods.split(",") if args.methods else ("flip", "clip"))
    if args.main_job:
        with tempfile.TemporaryDirectory() as directory:
            main_job(write_inputs(directory, args.inputs.split(",")), args.outer_folds,
                     args.before_cells, args.keep)
    if args.compare:
        with tempfile.TemporaryDirectory() as directory:
            methods = (args.methods or ",".join(FAST_METHODS)).split(",")
            compare(write_inputs(directory, args.inputs.split(",")), methods, args.outer_folds,
                    args.before, args.threads_first)


if __name__ == "__main__":
    main()
