"""Print the table of the bundled data sets (docs/datasets.rst) from their SOURCES.json.

Usage::

    python scripts/datasets_table.py            # the reStructuredText table
    python scripts/datasets_table.py --write    # rewrite it in docs/datasets.rst

The table has one row per data set shipped in ``krein/datasets/data``: its name,
kind, number of objects and classes (``regression`` for real targets), its source (the citation recorded when it was
converted) and its licence as stated upstream.  ``tests/test_docs_datasets.py``
checks that the page holds what this prints.
"""

from __future__ import annotations

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(ROOT, "krein", "datasets", "data", "SOURCES.json")
PAGE = os.path.join(ROOT, "docs", "datasets.rst")
BEGIN, END = ".. BEGIN datasets table", ".. END datasets table"


def _cell(text):
    return " ".join(str(text).split()).replace("|", "/")


def table():
    """The list-table of the bundled data sets, as reStructuredText lines."""
    with open(SOURCES, encoding="utf-8") as f:
        sets = json.load(f)["datasets"]
    lines = [".. list-table::", "   :header-rows: 1", "   :widths: 14 11 9 40 26", "",
             "   * - name", "     - kind", "     - objects (classes)", "     - source",
             "     - licence"]
    for name in sorted(sets):
        v = sets[name]
        counts = v.get("label_counts") or {}
        if v.get("task") == "regression":                                 # real targets
            n, k = str(v["target"]["n"]), "regression"
        elif counts and isinstance(next(iter(counts.values())), dict):   # train / test parts
            parts = [counts[p] for p in ("train", "test") if p in counts]
            n = " + ".join(str(sum(c.values())) for c in parts)
            k = len(set().union(*[set(c) for c in parts]))
        else:
            n, k = str(sum(counts.values())), len(counts)
        lines += [f"   * - ``{name}``", f"     - {v.get('kind', '')}", f"     - {n} ({k})",
                  f"     - {_cell(v.get('citation', ''))}", f"     - {_cell(v.get('licence', ''))}"]
    return lines


def page_table(text):
    """The lines between the markers of ``docs/datasets.rst``."""
    lines = text.splitlines()
    return lines[lines.index(BEGIN) + 1:lines.index(END)]


if __name__ == "__main__":
    rows = table()
    if sys.argv[1:] == ["--write"]:
        with open(PAGE, encoding="utf-8") as f:
            lines = f.read().splitlines()
        i, j = lines.index(BEGIN), lines.index(END)
        lines[i + 1:j] = [""] + rows + [""]
        with open(PAGE, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    else:
        print("\n".join(rows))
