"""The large-data main job: 10^5 words under a non-metric edit distance, m = 1000 landmarks.

The data (built here, not shipped; ``pip install -e .[benchmarks]`` brings the two
packages): the word lists of ``wordfreq`` (Speer, wordfreq 3.1, code Apache-2.0, word
lists CC BY-SA 4.0), labelled by language, and the NORMALIZED Levenshtein distance
``d(a, b) = lev(a, b) / max(|a|, |b|)`` of ``rapidfuzz``
(``rapidfuzz.distance.Levenshtein.normalized_distance``, ``rapidfuzz.process.cdist``,
multithreaded C++).  The normalization breaks the triangle inequality
(``d(compras, prenait) = 1.0 > d(compras, comprenais) + d(comprenais, prenait) =
0.3 + 0.4``), and the Gaussian kernel ``exp(-gamma d^2)`` of these distances
is strongly indefinite; ``prepare`` counts both on a sample (``stats`` in
``prepare.json``).

Selection (deterministic, ``--seed`` for the order and the landmarks):

* languages ``--languages`` (default ``en,de,fr,es,it``: five Latin-script languages
  with a wordfreq "large" list), one class each;
* pool of a language: its ``--pool`` (30 000) most frequent words that are purely
  alphabetic (``str.isalpha``: no digits, apostrophes, hyphens), from
  ``wordfreq.top_n_list(lang, 60000, wordlist="large")``;
* a word in the pools of two or more of the languages is dropped (its label would be
  ambiguous);
* the ``n / L`` most frequent remaining words of each language (``n = 10^5``: 20 000
  each), then all ``n`` in one seeded random order (``numpy.random.default_rng(seed)``
  permutation), so that the file order carries no label;
* ``m`` landmarks: a seeded uniform draw of ``m`` of the ``n`` rows without
  replacement (the same generator, next draw), sorted;
* the small set: the first ``small_n / L`` rows of each language in that order
  (``small_n = 4000``: 800 each), its own ``m`` landmarks drawn uniformly among its
  rows (the generator's next draw).

Files (``--out DIR``, default ``benchmarks/large_data/``, git-ignored):

* ``large/columns.npy`` (``n x m`` float32: ``D[i, j] = d(word_i, landmark_j)``;
  float32 holds these ratios of small integers to 1e-7 relative),
  ``large/landmarks.txt`` (the ``m`` row indices, 0-based, one per line: the ``m x m``
  landmark block is ``columns[landmarks]``), ``large/labels.txt`` (language codes),
  ``large/words.txt`` (the objects);
* ``small/full.npy`` (the full ``small_n x small_n`` matrix, float32), and
  ``small/columns.npy``, ``small/landmarks.txt``, ``small/labels.txt``,
  ``small/words.txt`` as above (``columns = full[:, landmarks]``);
* ``prepare.json``: counts, timings, ``gamma`` and the sample statistics.

The kernel of every run: ``--kernel dissimilarity-gaussian`` with
``gamma = 1 / mean(d^2)`` over the off-diagonal pairs of the small set (krein's
default rule for that kernel, fixed once here so that the exact and the landmark runs
and both sizes use the same kernel).

Runs (``krein compare``, each in a fresh process; peak resident memory from
``os.wait4``, which covers the process and the workers it waited for):

* ``run --large``: the main job, ``krein compare --kernel-file large/columns.npy
  --landmarks large/landmarks.txt --labels large/labels.txt --dissimilarity`` with
  ``krein compare``'s default methods (each run, or skipped with its reason), the wall
  time and the seconds, status and accuracy per method from ``cells/results.csv`` and
  ``summary.csv``; ``--per-method`` runs each registered classifier (or ``--methods``)
  in its own process for its own peak memory;
* ``run --small``: the exact-versus-approximate check on the same 4000 objects and the
  same folds (``--seed``): ``krein compare --kernel-file small/full.npy`` against
  ``--kernel-file small/columns.npy --landmarks small/landmarks.txt``, per method in
  its own process (exact and landmark run): exact accuracy, approximate accuracy,
  difference in points, seconds and peak memory of each.

Extra ``krein compare`` options go after ``--``, e.g. ``-- --no-tune --cv 3``.  Every
run leaves a record (``logs/*.json`` beside its log; a run stopped at ``--time-limit``
its finished cells, reported as such, and an exact-against-landmark row of a stopped
run compares the folds both runs finished); ``--reuse`` reads a successful record
back instead of running again when the options are the same, and ``--side exact`` (or
``approx``) runs one half of ``--small``.

Usage::

    python benchmarks/large_data.py prepare [--out DIR] [--n 100000] [--m 1000]
    python benchmarks/large_data.py run --small [--methods esvm,flip] [-- --no-tune]
    python benchmarks/large_data.py run --large [--per-method] [--csv FILE]
    python benchmarks/large_data.py run --small --methods esvm,flip,clip-mds,clip,shift,\
        square,krein-ls,ksvm -- --no-tune --cv 3          # the README's table
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import signal
import subprocess
import threading
import sys
import tempfile
import time
from collections import Counter

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_OUT = os.path.join(HERE, "large_data")
LANGUAGES = ("en", "de", "fr", "es", "it")

#: Words read from each wordfreq list before the alphabetic filter.
TOP_N = 60_000


# ---------------------------------------------------------------------------- data
def select_words(languages, per_language, pool=30_000):
    """The most frequent unambiguous alphabetic words of each language.

    Parameters
    ----------
    languages : sequence of str
        wordfreq language codes with a "large" list.
    per_language : int
        Words kept per language.
    pool : int
        Alphabetic words of each language's list taken before dropping the shared ones.

    Returns
    -------
    words : list of str
        ``per_language`` words of each language, language by language, each in
        frequency order.
    labels : list of str
        The language code of each word.

    Raises
    ------
    ValueError
        When a language has fewer than ``per_language`` words left.
    """
    import wordfreq

    pools = {}
    for lang in languages:
        words = [w for w in wordfreq.top_n_list(lang, TOP_N, wordlist="large") if w.isalpha()]
        pools[lang] = list(dict.fromkeys(words))[:pool]
    count = Counter(w for lang in languages for w in set(pools[lang]))
    words, labels = [], []
    for lang in languages:
        kept = [w for w in pools[lang] if count[w] == 1]
        if len(kept) < per_language:
            raise ValueError(f"{lang}: {len(kept)} unambiguous words in a pool of {pool}, "
                             f"{per_language} needed; raise --pool")
        words += kept[:per_language]
        labels += [lang] * per_language
    return words, labels


def distances(rows, cols, dtype=np.float32):
    """Normalized Levenshtein distances ``lev(a, b) / max(|a|, |b|)`` (rapidfuzz, all cores).

    Parameters
    ----------
    rows, cols : sequence of str
        The objects of the rows and of the columns.
    dtype : numpy dtype
        Of the result.

    Returns
    -------
    ndarray of shape (len(rows), len(cols))
    """
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cdist

    return cdist(rows, cols, scorer=Levenshtein.normalized_distance, dtype=dtype, workers=-1)


def triangle_violations(D, tol=1e-12):
    """Ordered triples of distinct objects with ``D[i, k] > D[i, j] + D[j, k] + tol``.

    Parameters
    ----------
    D : ndarray of shape (s, s)
        Symmetric dissimilarities with zero diagonal.
    tol : float
        Slack against round-off.

    Returns
    -------
    count : int
        Violating ordered triples ``(i, j, k)`` (each triangle counted for ``(i, k)``
        and ``(k, i)``).
    worst : tuple
        ``(excess, i, j, k)`` of the largest ``D[i, k] - D[i, j] - D[j, k]``.
    """
    s = D.shape[0]
    count, worst = 0, (-np.inf, -1, -1, -1)
    for j in range(s):
        excess = D - (D[:, j, None] + D[None, j, :])
        excess[j, :] = -np.inf                   # i = j or k = j: no triangle
        excess[:, j] = -np.inf
        count += int(np.count_nonzero(excess > tol))   # i = k: excess = -2 D[i, j] <= 0
        flat = int(np.argmax(excess))
        if excess.flat[flat] > worst[0]:
            worst = (float(excess.flat[flat]), flat // s, j, flat % s)
    return count, worst


def spectrum_summary(K):
    """Signature of a symmetric matrix: counts, extreme eigenvalues, negative share.

    Parameters
    ----------
    K : ndarray of shape (s, s)

    Returns
    -------
    dict
        ``negative`` (eigenvalues below ``-1e-10 max|lambda|``), ``positive``,
        ``min``, ``max``, ``negative_share`` (``sum |lambda_-| / sum |lambda|``).
    """
    e = np.linalg.eigvalsh(K)
    tol = 1e-10 * np.abs(e).max()
    return {"negative": int(np.sum(e < -tol)), "positive": int(np.sum(e > tol)),
            "min": float(e.min()), "max": float(e.max()),
            "negative_share": float(-e[e < 0].sum() / np.abs(e).sum())}


def _write_set(folder, words, labels, landmarks, columns, full=None):
    os.makedirs(folder, exist_ok=True)
    np.save(os.path.join(folder, "columns.npy"), columns)
    if full is not None:
        np.save(os.path.join(folder, "full.npy"), full)
    np.savetxt(os.path.join(folder, "landmarks.txt"), landmarks, fmt="%d")
    with open(os.path.join(folder, "labels.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(labels) + "\n")
    with open(os.path.join(folder, "words.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(words) + "\n")


def prepare(out, n, m, small_n, languages, pool, seed, stats_n):
    """Build both sets and write them under ``out`` (module docstring); returns the record."""
    L = len(languages)
    if n % L or small_n % L:
        raise ValueError(f"n = {n} and small_n = {small_n} must be multiples of {L} languages")
    rec = {"source": "wordfreq large lists", "languages": list(languages), "n": n, "m": m,
           "small_n": small_n, "pool": pool, "seed": seed,
           "dissimilarity": "rapidfuzz Levenshtein.normalized_distance"}
    import rapidfuzz
    import wordfreq
    rec["versions"] = {"wordfreq": getattr(wordfreq, "__version__", None) or
                       _dist_version("wordfreq"), "rapidfuzz": rapidfuzz.__version__,
                       "numpy": np.__version__}

    t = time.perf_counter()
    words, labels = select_words(languages, n // L, pool)
    rec["seconds_select"] = time.perf_counter() - t
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    words = [words[i] for i in order]
    labels = [labels[i] for i in order]
    landmarks = np.sort(rng.choice(n, size=m, replace=False))

    t = time.perf_counter()
    C = distances(words, [words[i] for i in landmarks])
    rec["seconds_columns"] = time.perf_counter() - t
    t = time.perf_counter()
    _write_set(os.path.join(out, "large"), words, labels, landmarks, C)
    rec["seconds_write_large"] = time.perf_counter() - t
    rec["columns_bytes"] = int(C.nbytes)
    del C

    quota = Counter()
    small = []
    for i, lab in enumerate(labels):
        if quota[lab] < small_n // L:
            quota[lab] += 1
            small.append(i)
    s_words = [words[i] for i in small]
    s_labels = [labels[i] for i in small]
    s_landmarks = np.sort(rng.choice(small_n, size=m, replace=False))
    t = time.perf_counter()
    F = distances(s_words, s_words)
    rec["seconds_full_small"] = time.perf_counter() - t
    if not np.array_equal(F, F.T) or np.any(np.diag(F) != 0):
        raise RuntimeError("the small matrix is not symmetric with a zero diagonal")
    _write_set(os.path.join(out, "small"), s_words, s_labels, s_landmarks,
               np.ascontiguousarray(F[:, s_landmarks]), full=F)
    rec["small_rows_in_large"] = "the first small_n / L rows of each language"

    off = F[~np.eye(small_n, dtype=bool)].astype(np.float64)
    gamma = float(1.0 / np.mean(off ** 2))
    rec["gamma"] = gamma
    rec["mean_distance_small"] = float(off.mean())

    # statistics on a seeded sample, in float64 straight from rapidfuzz
    t = time.perf_counter()
    sample = np.sort(np.random.default_rng(seed + 1).choice(small_n, size=stats_n,
                                                            replace=False))
    sw = [s_words[i] for i in sample]
    D = distances(sw, sw, dtype=np.float64)
    count, (excess, i, j, k) = triangle_violations(D)
    triples = stats_n * (stats_n - 1) * (stats_n - 2)
    J = np.eye(stats_n) - 1.0 / stats_n
    rec["stats"] = {
        "sample": stats_n,
        "triangle_violations": count, "ordered_triples": triples,
        "violation_share": count / triples,
        "worst_violation": {"words": [sw[i], sw[j], sw[k]], "d_ik": float(D[i, k]),
                            "d_ij": float(D[i, j]), "d_jk": float(D[j, k]),
                            "excess": excess},
        "gaussian_kernel": spectrum_summary(np.exp(-gamma * D ** 2)),
        "classical_scaling": spectrum_summary(-0.5 * J @ (D ** 2) @ J),
    }
    rec["seconds_stats"] = time.perf_counter() - t
    with open(os.path.join(out, "prepare.json"), "w", encoding="utf-8") as f:
        json.dump(rec, f, indent=1, ensure_ascii=False)
    return rec


def _dist_version(name):
    from importlib.metadata import version

    return version(name)


# ---------------------------------------------------------------------------- runs
#: How krein compare says that the only method asked for cannot run (its reason follows).
SKIPPED = "no method can run on these data: "
_CLI = "import sys; from krein.cli import main; sys.exit(main(sys.argv[1:]))"


def _registered_methods():
    """Every registered classifier (``krein methods``), whether compare runs it by default."""
    from krein.registry import list_methods

    return list(list_methods(task="classifier"))


def compare_cached(args, log, reuse):
    """:func:`compare_once` in a temporary directory, its record kept beside ``log``.

    Every run leaves its record (``log`` with ``.json``: a stopped run its finished
    cells and its exit status); with ``reuse``, an earlier successful record of the
    same options is read instead of running again.
    """
    record = os.path.splitext(log)[0] + ".json"
    if reuse and os.path.exists(record):
        with open(record, encoding="utf-8") as f:
            old = json.load(f)
        if old["args"] == args and old["rc"] == 0:
            return old
    with tempfile.TemporaryDirectory() as tmp:
        r = compare_once(args, tmp, log)
    r["args"] = args
    with open(record, "w", encoding="utf-8") as f:
        json.dump(r, f)
    return r


#: Wall-clock limit of one ``krein compare`` process (``run --time-limit``; 0: none).
TIME_LIMIT = [0.0]


def _kill_group(pid, log):
    """Stop a run that exceeded :data:`TIME_LIMIT`, with a last line saying so."""
    log.write(f"\nover the time limit of {TIME_LIMIT[0]:g} s: stopped\n")
    log.flush()
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def compare_once(args, workdir, log):
    """One ``krein compare`` in a fresh process: its wall seconds, peak RSS and cells.

    Parameters
    ----------
    args : list of str
        The options after ``krein compare`` (``--out`` is added).
    workdir : str
        Directory for the run's output.
    log : str
        File receiving the run's stdout and stderr.

    Returns
    -------
    dict
        ``rc``, ``seconds`` (wall), ``peak_mb`` (``ru_maxrss`` of the process and the
        children it waited for), ``cells`` (rows of ``cells/results.csv``, or ``[]``),
        ``summary`` (rows of ``summary.csv`` when written).
    """
    out = os.path.join(workdir, "run")
    cmd = [sys.executable, "-c", _CLI, "compare", *args, "--out", out]
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with open(log, "w", encoding="utf-8") as f:
        f.write(" ".join(cmd) + "\n")
        f.flush()
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT, env=env,
                                start_new_session=True)
        timer = None
        if TIME_LIMIT[0]:          # the whole process group: krein and its workers
            timer = threading.Timer(TIME_LIMIT[0], _kill_group, (proc.pid, f))
            timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        if timer is not None:
            timer.cancel()
        seconds = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
    res = {"rc": proc.returncode, "seconds": seconds, "peak_mb": usage.ru_maxrss / 1024,
           "cells": [], "summary": []}
    for key, name in (("cells", os.path.join("cells", "results.csv")),
                      ("summary", "summary.csv")):
        path = os.path.join(out, name)
        if os.path.exists(path):
            with open(path, newline="", encoding="utf-8") as f:
                res[key] = list(csv.DictReader(f))
    return res


def per_method(cells, summary=()):
    """``{method: {"accuracy", "cell_seconds", "status"}}`` from the cells' rows.

    A method of ``summary`` (rows of ``summary.csv``) takes its status and note from
    there: a skipped method has no cells, only its reason.  ``folds`` maps each
    finished cell's ``(repeat, fold)`` to its accuracy (a run stopped at the time
    limit has only some).
    """
    out = {}
    for row in cells:
        m = out.setdefault(row["method"], {"acc": {}, "sec": 0.0, "status": set()})
        try:
            m["acc"][(row.get("repeat", ""), row.get("fold", ""))] = float(row["accuracy"])
        except (KeyError, ValueError):
            pass
        m["sec"] += float(row.get("cell_seconds") or 0.0)
        m["status"].add(row.get("status", ""))
    res = {k: {"accuracy": float(np.mean(list(v["acc"].values()))) if v["acc"] else float("nan"),
               "folds": v["acc"], "cell_seconds": v["sec"],
               "status": ",".join(sorted(v["status"]))}
           for k, v in out.items()}
    for row in summary:
        m = res.setdefault(row["method"], {"accuracy": float("nan"), "cell_seconds": 0.0})
        note = (row.get("note") or "").strip()
        m["status"] = row.get("status", "") + (f": {note}" if note else "")
    return res


def _failure(rc, log):
    """``rc N: <the log's last line>`` for a run that wrote no row of a method."""
    with open(log, encoding="utf-8", errors="replace") as f:
        lines = [line.strip() for line in f if line.strip()]
    last = lines[-1] if len(lines) > 1 else "no output"
    cut = last.find(SKIPPED)
    if rc == 2 and cut >= 0:
        return "skipped: " + last[cut + len(SKIPPED):]
    return f"rc {rc}: {last}"


def _kernel_args(gamma):
    return ["--dissimilarity", "--kernel", "dissimilarity-gaussian",
            "--kernel-params", f"gamma={gamma!r}"]


def run_small(folder, gamma, methods, extra, seed, logs, reuse=False,
              sides=("exact", "approx")):
    """Exact (``full.npy``) against landmark (``columns.npy``) runs, one method per process."""
    rows = []
    exact_args = ["--kernel-file", os.path.join(folder, "full.npy")]
    approx_args = ["--kernel-file", os.path.join(folder, "columns.npy"),
                   "--landmarks", os.path.join(folder, "landmarks.txt")]
    common = ["--labels", os.path.join(folder, "labels.txt"), *_kernel_args(gamma),
              "--seed", str(seed)]
    print("| method | exact acc. | approx. acc. | diff. (points) | exact s | approx. s | "
          "exact peak MB | approx. peak MB | status |\n|---|---|---|---|---|---|---|---|---|",
          flush=True)
    for method in methods:
        got = {}
        for kind, args in (("exact", exact_args), ("approx", approx_args)):
            if kind not in sides:
                got[kind] = {"rc": None, "seconds": float("nan"), "peak_mb": float("nan"),
                             "accuracy": float("nan"), "folds": {}, "status": "not run"}
                continue
            log = os.path.join(logs, f"small-{method}-{kind}.log")
            r = compare_cached([*args, *common, "--methods", method, *extra], log, reuse)
            pm = per_method(r["cells"], r["summary"]).get(method, {})
            status = pm.get("status") or _failure(r["rc"], log)
            if r["rc"] not in (0, None) and pm.get("folds"):
                status = f"{_failure(r['rc'], log)} after {len(pm['folds'])} cells"
            got[kind] = {"rc": r["rc"], "seconds": r["seconds"], "peak_mb": r["peak_mb"],
                         "accuracy": pm.get("accuracy", float("nan")),
                         "folds": pm.get("folds", {}), "status": status}
        e, a = got["exact"], got["approx"]
        # the difference on the folds both runs finished (a stopped run has fewer)
        both = sorted(set(e["folds"]) & set(a["folds"]))
        if both and len(both) < max(len(e["folds"]), len(a["folds"])):
            e["accuracy"] = float(np.mean([e["folds"][f] for f in both]))
            a["accuracy"] = float(np.mean([a["folds"][f] for f in both]))
            e["status"] += f" (accuracies on the {len(both)} folds both finished)"
        diff = 100 * (a["accuracy"] - e["accuracy"])
        row = {"method": method, "exact_accuracy": e["accuracy"],
               "approx_accuracy": a["accuracy"], "diff_points": diff,
               "exact_seconds": e["seconds"], "approx_seconds": a["seconds"],
               "exact_peak_mb": e["peak_mb"], "approx_peak_mb": a["peak_mb"],
               "exact_status": e["status"], "approx_status": a["status"]}
        rows.append(row)
        status = (e["status"] if e["status"] == a["status"]
                  else f"exact {e['status']}; approx. {a['status']}")
        print(f"| {method} | {e['accuracy']:.3f} | {a['accuracy']:.3f} | {diff:+.1f} | "
              f"{e['seconds']:.1f} | {a['seconds']:.1f} | {e['peak_mb']:.0f} | "
              f"{a['peak_mb']:.0f} | {status} |", flush=True)
    return rows


def run_large(folder, gamma, methods, extra, seed, logs, separate, reuse=False):
    """The main job on the ``n x m`` columns: all methods in one run, or one per process."""
    args = ["--kernel-file", os.path.join(folder, "columns.npy"),
            "--landmarks", os.path.join(folder, "landmarks.txt"),
            "--labels", os.path.join(folder, "labels.txt"), *_kernel_args(gamma),
            "--seed", str(seed)]
    rows = []
    groups = [[m] for m in methods] if separate else [methods]     # None: compare's default
    total = time.perf_counter()
    print("| method | accuracy | cell seconds | run seconds | run peak MB | status |\n"
          "|---|---|---|---|---|---|", flush=True)
    for group in groups:
        log = os.path.join(logs, f"large-{group[0] if separate else 'all'}.log")
        chosen = [] if group is None else ["--methods", ",".join(group)]
        r = compare_cached([*args, *chosen, *extra], log, reuse)
        pm = per_method(r["cells"], r["summary"])
        for method in (list(pm) if group is None else group):
            v = pm.get(method, {})
            status = v.get("status") or _failure(r["rc"], log)
            if r["rc"] != 0 and v.get("folds"):
                status = f"{_failure(r['rc'], log)} after {len(v['folds'])} cells"
            row = {"method": method, "accuracy": v.get("accuracy", float("nan")),
                   "cell_seconds": v.get("cell_seconds", float("nan")),
                   "run_seconds": r["seconds"], "run_peak_mb": r["peak_mb"],
                   "status": status}
            rows.append(row)
            print(f"| {method} | {row['accuracy']:.3f} | {row['cell_seconds']:.1f} | "
                  f"{row['run_seconds']:.1f} | {row['run_peak_mb']:.0f} | {row['status']} |",
                  flush=True)
    print(f"\nwhole job: {time.perf_counter() - total:.0f} s wall", flush=True)
    return rows


def _write_csv(path, rows):
    if not rows:
        return
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="step", required=True)
    a = sub.add_parser("prepare", help="build the data sets")
    a.add_argument("--out", default=DEFAULT_OUT, metavar="DIR")
    a.add_argument("--n", type=int, default=100_000)
    a.add_argument("--m", type=int, default=1000)
    a.add_argument("--small-n", type=int, default=4000)
    a.add_argument("--languages", default=",".join(LANGUAGES))
    a.add_argument("--pool", type=int, default=30_000)
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--stats-n", type=int, default=2000,
                   help="sample for the triangle count and the eigenvalues")
    r = sub.add_parser("run", help="krein compare on the prepared sets")
    r.add_argument("--out", default=DEFAULT_OUT, metavar="DIR")
    r.add_argument("--small", action="store_true", help="exact vs landmark runs at small_n")
    r.add_argument("--large", action="store_true", help="the main job on the n x m columns")
    r.add_argument("--per-method", action="store_true",
                   help="--large: one process per method (its own peak memory)")
    r.add_argument("--methods", default=None, help="comma-separated (default: every method)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--csv", default=None, metavar="FILE", help="write the rows here")
    r.add_argument("--time-limit", type=float, default=0.0, metavar="SECONDS",
                   help="stop a krein compare process after SECONDS of wall time (its "
                        "methods are reported over the limit; default: no limit)")
    r.add_argument("--reuse", action="store_true",
                   help="read a run's earlier record (logs/*.json) when its options match")
    r.add_argument("--side", choices=("both", "exact", "approx"), default="both",
                   help="--small: run only the exact or only the landmark half")
    args = p.parse_args(argv)
    TIME_LIMIT[0] = float(getattr(args, "time_limit", 0.0) or 0.0)

    if args.step == "prepare":
        t = time.perf_counter()
        rec = prepare(args.out, args.n, args.m, args.small_n, args.languages.split(","),
                      args.pool, args.seed, args.stats_n)
        rec["seconds_total"] = time.perf_counter() - t
        with open(os.path.join(args.out, "prepare.json"), "w", encoding="utf-8") as f:
            json.dump(rec, f, indent=1, ensure_ascii=False)
        print(json.dumps(rec, indent=1, ensure_ascii=False))
        return 0

    with open(os.path.join(args.out, "prepare.json"), encoding="utf-8") as f:
        rec = json.load(f)
    methods = args.methods.split(",") if args.methods else None
    logs = os.path.join(args.out, "logs")
    os.makedirs(logs, exist_ok=True)
    rows = []
    if args.small:
        rows += run_small(os.path.join(args.out, "small"), rec["gamma"],
                          methods or _registered_methods(), extra, args.seed, logs,
                          args.reuse, ("exact", "approx") if args.side == "both"
                          else (args.side,))
    if args.large:
        if args.per_method and methods is None:
            methods = _registered_methods()
        rows += run_large(os.path.join(args.out, "large"), rec["gamma"], methods, extra,
                          args.seed, logs, args.per_method, args.reuse)
    if args.csv:
        _write_csv(args.csv, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
