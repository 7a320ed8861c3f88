"""The table of bundled data sets in the documentation is the one their records give.

``docs/datasets.rst`` holds the table that ``scripts/datasets_table.py`` builds from
``krein/datasets/data/SOURCES.json`` (name, kind, objects, source, licence): every
shipped data set has a row with its licence, and the page is not stale.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("datasets_table",
                                                  ROOT / "scripts" / "datasets_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_page_holds_the_generated_table():
    mod = _script()
    page = (ROOT / "docs" / "datasets.rst").read_text(encoding="utf-8")
    got = [line for line in mod.page_table(page) if line.strip()]
    assert got == [line for line in mod.table() if line.strip()]


def test_every_shipped_data_set_has_a_row_with_its_licence():
    sets = json.loads((ROOT / "krein" / "datasets" / "data" / "SOURCES.json").read_text())
    rows = "\n".join(_script().table())
    for name, record in sets["datasets"].items():
        assert f"``{name}``" in rows
        assert record.get("licence"), name
    assert (ROOT / "LICENSE").read_text().startswith("BSD 3-Clause License")
