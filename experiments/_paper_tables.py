"""Paper-vs-ours tables of Loosli et al. (2013) Tables 2-3 for ``experiments/README.md``.

Not an experiment (the leading underscore keeps it out of the ``--quick``
test run): it slims the full-run results of ``loosli_table2.py`` /
``loosli_table3.py`` / ``loosli_certificates.py`` into the committed CSV files
of ``experiments/results/`` and rewrites the generated blocks of the README
(between ``<!-- BEGIN name -->`` and ``<!-- END name -->``)::

    python experiments/_paper_tables.py slim results/loosli_table2   # one experiment per call
    python experiments/_paper_tables.py slim results/loosli_table3
    python experiments/_paper_tables.py readme

Statistics: "ours" is the mean over the 10 repeats of the 5-fold CV accuracy
(each repeat: the mean over its five outer folds, i.e. the paper's "5-fold CV
performance"), with the standard deviation over the repeats in brackets, as
the paper's; for the regenerated sets (one repeat) the bracket holds the
standard deviation over the five folds instead (marked ``f``).
"""

import os
import sys

import numpy as np
import pandas as pd

from krein._io import atomic_write_bytes, atomic_write_text, csv_bytes

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
README = os.path.join(HERE, "README.md")

METHODS = ["esvm", "esvm-l", "ksvm", "rvm", "indefinite-svm", "lp-svm", "flip", "clip", "shift"]
HEAD = ["ESVM", "ESVM-L", "KSVM", "RVM", "IndefSVM", "LP-SVM", "Abs", "Trunc", "Shift"]

#: Loosli et al. (2013) Table 2: dataset -> (least eigenvalue, [(mean, std)] in METHODS order).
PAPER_TABLE2 = {
    "sonar": (-184.13, [(71.42, 1.46), (71.42, 1.46), (69.60, 3.56), (70.20, 3.79), (50.51, 0.46),
                        (73.17, 2.35), (53.87, 1.25), (46.12, 4.75), (51.84, 3.08)]),
    "heart": (-148.25, [(82.74, 2.67), (82.74, 2.67), (70.14, 5.66), (80.96, 1.72), (61.11, 1.07),
                        (81.92, 0.71), (22.96, 1.11), (55.55, 0.37), (20.22, 0.42)]),
    "breast_cancer": (-548.24, [(97.29, 0.15), (97.29, 0.15), (96.66, 0.23), (95.52, 0.62),
                                (66.14, 2.99), (91.51, 11.44), (87.15, 0.10), (30.33, 2.60),
                                (78.59, 3.76)]),
    "diabetes": (-235.64, [(75.10, 1.93), (75.10, 1.93), (72.03, 2.45), (76.66, 0.62),
                           (36.19, 0.56), (76.25, 0.42), (29.60, 3.64), (27.19, 2.37),
                           (64.74, 0.13)]),
    "a1a": (-1452.8, [(80.66, 0.62), (80.66, 0.62), (79.25, 0.60), (79.66, 0.63), (75.38, 0.0),
                      (80.70, 0.48), (50.92, 1.14), (35.17, 0.64), (74.65, 0.53)]),
}

#: Loosli et al. (2013) Table 3 (None: the paper's "-").
PAPER_TABLE3 = {
    "balls3d": (-2.8894e03, [(53.90, 2.47), (53.90, 2.47), (53.98, 1.58), (47.40, 0.82),
                             (49.99, 0.01), (53.30, 3.86), (45.89, 2.40), (45.10, 1.54),
                             (44.41, 2.07)]),
    "gaussm1-regenerated": (-1.8739e03, [(81.94, 0.43), (81.94, 0.43), (83.95, 0.09),
                                         (82.40, 0.37), None, None, (17.67, 0.42),
                                         (16.54, 0.92), (16.89, 0.21)]),
    "gaussm02-regenerated": (-2.1096e08, [(73.98, 0.70), (73.98, 0.70), (78.75, 0.84),
                                          (79.54, 0.51), None, None, (23.42, 0.78),
                                          (38.31, 0.76), (16.24, 0.29)]),
    "catcortex": (-24.61, [(95.71, 2.30), (95.71, 2.30), (63.59, 5.27), (90.47, 2.96),
                           (55.46, 0.10), (81.31, 8.12), (8.31, 1.07), (26.13, 8.71),
                           (10.12, 2.53)]),
    "protein": (-322.34, [(99.91, 0.21), (99.91, 0.21), (48.54, 1.43), (98.21, 0.39),
                          (52.11, 0.00), (98.59, 1.10), (0.09, 0.21), (7.98, 6.23),
                          (1.87, 0.66)]),
    "coilyork": (-9.4559e03, [(75.83, 1.87), (75.83, 1.87), (65.00, 2.22), (74.16, 3.40), None,
                              (70.55, 6.19), (24.44, 4.38), (30.06, 1.58), (31.04, 0.67)]),
    "newsgroups": (-16.39, [(87.80, 0.32), (87.80, 0.32), (71.16, 0.97), (84.40, 1.32),
                            (50.83, 0.12), (65.36, 3.48), (12.06, 0.71), (17.93, 4.79),
                            (14.06, 0.84)]),
    "polydish57-regenerated": (-535.96, [(99.75, 0.08), (99.75, 0.08), (63.21, 0.38),
                                         (98.90, 0.18), None, None, (8.72, 0.40), (15.67, 0.77),
                                         (18.77, 0.26)]),
}

KEEP = ["key", "status", "error", "dataset", "method", "repeat", "fold", "kernel",
        "kernel_params.a", "kernel_params.r", "kernel_params.unit", "n_train", "n_test",
        "accuracy", "train_accuracy", "inner_score", "best_C", "best_rho", "fit_seconds",
        "select_seconds", "n_support", "n_iter", "min_eigenvalue", "solver_used",
        "solver_status", "gap", "n_inner_failures", "version_krein"]


def slim(*directories):
    """Write ``experiments/results/NAME.csv``: the columns the README needs, 6 digits.

    Several directories of the same experiment (parts run separately) are
    concatenated, each cell once.
    """
    from krein.experiment import read_results

    df = pd.concat([read_results(d) for d in directories], ignore_index=True)
    df = df.drop_duplicates("key", keep="last")
    name = df["experiment"].iloc[0]
    keep = [c for c in KEEP if c in df.columns]
    if name == "loosli_certificates":
        keep = [c for c in df.columns if c not in ("config", "host", "pid", "timestamp",
                                                   "trace_file", "warnings", "task", "seed")
                and not c.startswith("version_") or c == "version_krein"]
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, f"{name}.csv")
    atomic_write_bytes(path, csv_bytes(df[keep], index=False, float_format="%.6g"))
    return path


def _ours(df):
    """(mean, std, n_repeats, n_cells) per (dataset, method): repeat means of fold accuracies."""
    ok = df[df["status"] == "ok"]
    rep = ok.groupby(["dataset", "method", "repeat"])["accuracy"].agg(["mean", "size"])
    out = {}
    for (d, m), g in rep.groupby(level=[0, 1]):
        full = g[g["size"] == g["size"].max()]
        if len(full) > 1:
            out[(d, m)] = (100 * full["mean"].mean(), 100 * full["mean"].std(ddof=1),
                           len(full), int(g["size"].sum()), "r")
        else:
            folds = ok[(ok["dataset"] == d) & (ok["method"] == m)]["accuracy"]
            out[(d, m)] = (100 * folds.mean(), 100 * folds.std(ddof=1), 1, len(folds), "f")
    return out


def _least(df, scale=None):
    ok = df[(df["status"] == "ok")]
    return ok.groupby("dataset")["min_eigenvalue"].mean()


def comparison(table, results=None):
    """Markdown: every cell of the paper's table next to ours, flagged where they differ.

    A cell is flagged (``**!**``) when |ours - paper| exceeds the paper's standard
    deviation plus ours (both over 10 runs).

    Parameters
    ----------
    table : {2, 3}
        The paper's table.
    results : str, optional
        Name of the results file in ``experiments/results`` (default
        ``loosli_table{table}``).
    """
    from krein.experiment import import_script

    paper = PAPER_TABLE2 if table == 2 else PAPER_TABLE3
    df = pd.read_csv(os.path.join(RESULTS, f"{results or f'loosli_table{table}'}.csv"))
    ours = _ours(df)
    train_least = _least(df)
    units = {}
    if table == 3:
        units = import_script(os.path.join(HERE, "loosli_table3.py")).UNITS
    lines = ["| data set (paper's least eig.; ours: training blocks) | "
             + " | ".join(HEAD) + " |", "|---|" + "---:|" * len(HEAD)]
    for d, (least, cells) in paper.items():
        unit = units.get(d, 1.0)
        tl = train_least.get(d, np.nan) * unit
        row = [f"{d} ({least:.5g}; {tl:.5g})"]
        for m, p in zip(METHODS, cells):
            o = ours.get((d, m))
            ptxt = "–" if p is None else f"{p[0]:.2f} ({p[1]:.2f})"
            if o is None:
                row.append(f"{ptxt} / not run")
                continue
            if o[4] == "f" and o[3] < 2:
                otxt = f"{o[0]:.2f} (1 of 5 folds)"
            elif o[4] == "f" and o[3] < 5:
                otxt = f"{o[0]:.2f} ({o[1]:.2f}f, {o[3]} of 5 folds)"
            else:
                otxt = f"{o[0]:.2f} ({o[1]:.2f}{'f' if o[4] == 'f' else ''})"
            flag = ""
            if p is not None and abs(o[0] - p[0]) > p[1] + (o[1] if np.isfinite(o[1]) else 0):
                flag = " **!**"
            row.append(f"{ptxt} / {otxt}{flag}")
        lines.append("| " + " | ".join(row) + " |")
    extra = sorted({m for (_, m) in ours} - set(METHODS))
    if extra:
        lines.append("")
        lines.append("Not in the paper: " + "; ".join(
            f"{m}: " + ", ".join(f"{d} {ours[(d, m)][0]:.2f} ({ours[(d, m)][1]:.2f}"
                                 f"{'f' if ours[(d, m)][4] == 'f' else ''})"
                                 for d in paper if (d, m) in ours) for m in extra) + ".")
    counts = df.groupby("dataset")["repeat"].nunique()
    lines.append("")
    lines.append("Repeats run: " + ", ".join(f"{d} {counts.get(d, 0)}" for d in paper) + ".")
    return "\n".join(lines)


def certificates():
    """Markdown table of the certificate run (one row per data set and method)."""
    df = pd.read_csv(os.path.join(RESULTS, "loosli_certificates.csv"))
    df = df[df["status"] == "ok"]
    lines = ["| data set | " + " | ".join(HEAD + ["libsvm on K"]) + " |",
             "|---|" + "---|" * (len(HEAD) + 1)]
    present = set(df["dataset"])
    for d in [d for d in list(PAPER_TABLE2) + list(PAPER_TABLE3) if d in present]:
        row = [d]
        for m in METHODS + ["svm"]:
            r = df[(df["dataset"] == d) & (df["method"] == m)]
            if r.empty:
                row.append("–")
                continue
            r = r.iloc[0]
            measure = r["relative_gap"] if m in ("indefinite-svm", "lp-svm") else r["kkt_residual"]
            tag = {"certified": "", "stationary": " s", "NOT CONVERGED": " **NC**"}[r["verdict"]]
            row.append(f"{measure:.1e}{tag}")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def readme():
    """Rewrite the generated blocks of experiments/README.md."""
    text = open(README).read()
    blocks = {"table2": comparison(2), "table2_negated": comparison(2, "loosli_table2_negated"),
              "table3": comparison(3), "certificates": certificates()}
    for name, body in blocks.items():
        begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
        if begin in text:
            head, rest = text.split(begin, 1)
            _, tail = rest.split(end, 1)
            text = f"{head}{begin}\n{body}\n{end}{tail}"
    atomic_write_text(README, text)


if __name__ == "__main__":
    if sys.argv[1:2] == ["slim"]:
        # slim DIR [DIR ...]: one experiment, possibly run in parts
        print(slim(*sys.argv[2:]))
    elif sys.argv[1:2] == ["readme"]:
        readme()
    else:
        print(comparison(2))
        print()
        print(comparison(3))
