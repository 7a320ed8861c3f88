"""The benchmark page of the site shows the marked tables of benchmarks/README.md.

``docs/benchmarks.md`` includes each table of ``benchmarks/README.md`` that sits between
``<!-- site: NAME -->`` and ``<!-- /site: NAME -->``; the region holds one line stating the
machine and the date of the measurement, then one table.  Every marked table is on the page,
and the page includes nothing that is not marked.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "benchmarks" / "README.md"
PAGE = ROOT / "docs" / "benchmarks.md"


def _regions():
    text = RECORD.read_text(encoding="utf-8")
    return dict(re.findall(r"^<!-- site: ([\w-]+) -->\n(.*?)^<!-- /site: \1 -->$", text,
                           flags=re.S | re.M))


def test_every_marked_table_states_its_machine_and_date_once():
    regions = _regions()
    assert len(regions) >= 8
    for name, body in regions.items():
        lines = [line for line in body.splitlines() if line.strip()]
        assert re.fullmatch(r"\*(?:Measured|Computed) on .*machine.*, 20\d\d-\d\d-\d\d\.\*",
                            lines[0]), (name, lines[0])
        assert all(line.startswith("|") for line in lines[1:]), name
        assert len(lines) >= 4, name          # header, rule, at least two rows


def test_the_page_includes_every_marked_table():
    page = PAGE.read_text(encoding="utf-8")
    included = re.findall(r'^:start-after: "<!-- site: ([\w-]+) -->"\n'
                          r':end-before: "<!-- /site: \1 -->"$', page, flags=re.M)
    assert sorted(included) == sorted(_regions())
    assert len(included) == page.count("```{include} ../benchmarks/README.md")
    index = (ROOT / "docs" / "index.rst").read_text(encoding="utf-8")
    assert re.search(r"^   benchmarks$", index, flags=re.M)   # in the toctree
