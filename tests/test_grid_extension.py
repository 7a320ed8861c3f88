"""The adaptive grid search of the inner CV (krein.experiment.tuning).

Checked:

* the rule on scores we control (``_kernel_fold_scores`` replaced by a known
  function of the parameters, the cell otherwise real): a winning end is extended
  one step at a time until an interior value wins; every grid point is fitted once
  (a point scored before an extension is not refitted); the choice is the first
  maximum over the final grid in ``ParameterGrid`` order; the limit of ``N`` steps per
  side stops it and is recorded, and the ``[edge]`` flag reports exactly that;
* two parameters at once (``C`` and the kernel's ``a``): the compass steps from the
  choice, point by point as the rule says; each kernel added is loaded once;
* feasible by construction, on real data: CH-DU's ``mu = 0.03`` below ``1 / (smallest
  class)`` of the inner training parts fails its inner fits with the grid as given and
  is replaced by the bound with the adaptive search, no inner fit failing;
* the rules of ``parameter_rule`` / ``feasible_values`` (log and integer steps, the
  ranges of ``mu`` and ``n_neighbors``, non-numeric values not extended);
* who is extended: ``krein compare`` extends its default grids and searches a
  ``--grid`` as given unless ``grid_extension`` is given; the papers' grids
  (``classification_grid`` by default) are searched as given, their cells unchanged.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import ParameterGrid

import krein.experiment.classification as classification
from krein.compare import run_comparison
from krein.experiment import classification_cell, classification_grid
from krein.experiment.statistics import edge_of_grid, grid_extensions
from krein.experiment.tuning import feasible_values, parameter_rule

CELL = {"dataset": "sonar", "n_samples": 60, "method": "esvm", "outer_folds": 3, "fold": 0,
        "inner_folds": 3, "cv_seed": 0, "seed": 0, "save_trace": False}


def _scripted_scores(monkeypatch, score):
    """Replace the inner fits by ``score(kernel params, method params)``; record each call."""
    calls = []

    def fake(fold, data, method_combos, splits, y, classes, scoring):
        calls.append((dict(data.kernel_params), [dict(mc) for mc in method_combos]))
        rows = np.array([[score(data.kernel_params, mc)] * len(splits) for mc in method_combos])
        return rows, 0, 0, None

    monkeypatch.setattr(classification, "_kernel_fold_scores", fake)
    return calls


def _peak(at):
    """A score in (0, 1] peaking at ``C = at``, a decade apart scoring less (exact floats)."""
    return lambda kp, mc: 1.0 / (1.0 + abs(round(math.log10(mc["C"]) - math.log10(at))))


def test_a_winning_end_is_extended_until_an_interior_value_wins(monkeypatch):
    calls = _scripted_scores(monkeypatch, _peak(100.0))
    out = classification_cell({**CELL, "param_grid": {"C": [0.1, 1.0, 10.0]},
                               "grid_extension": 3})
    fitted = [mc["C"] for _, combos in calls for mc in combos]
    # the grid, then 100 (10 won at the top), then 1000 (100 won at the new top)
    assert fitted == pytest.approx([0.1, 1.0, 10.0, 100.0, 1000.0])
    assert len(set(fitted)) == len(fitted)          # no point fitted twice
    assert [len(combos) for _, combos in calls] == [3, 1, 1]   # only the new points
    assert out["best_C"] == pytest.approx(100.0)
    search = json.loads(out["grid_search"])["C"]
    assert search["up"] == 2 and search["down"] == 0 and search["limit"] == ""
    assert search["range"] == pytest.approx([0.1, 1000.0])
    assert out["n_grid_points"] == 5 and out["n_inner_failures"] == 0
    # the choice is the first maximum over the final grid (scores by the same function)
    grid = list(ParameterGrid({"C": fitted}))
    best = max(range(len(grid)), key=lambda i: (_peak(100.0)(None, grid[i]), -i))
    assert out["best_C"] == grid[best]["C"]


def test_the_step_limit_stops_the_extension_and_is_the_only_edge(monkeypatch):
    _scripted_scores(monkeypatch, _peak(1e6))
    rows = []
    for fold in range(3):
        out = classification_cell({**CELL, "fold": fold, "param_grid": {"C": [0.1, 1.0, 10.0]},
                                   "grid_extension": 2})
        assert out["best_C"] == pytest.approx(1000.0)      # 10 x 10^2: two steps, no more
        search = json.loads(out["grid_search"])["C"]
        assert search["up"] == 2 and search["limit"] == "top: 2 extension(s), the limit"
        rows.append({"method": "esvm", "error": "", "best_params": out["best_params"],
                     "grid_search": out["grid_search"]})
    folds = pd.DataFrame(rows)
    edges = edge_of_grid(folds, {"esvm": {"C": [0.1, 1.0, 10.0]}})
    assert edges == {"esvm": "C at top limit (3 of 3 folds: 2 extension(s), the limit)"}
    assert grid_extensions(folds) == {"esvm": "C up 2 (3 of 3 folds)"}
    # an interior choice after an extension is not an edge, though it is the grid's end
    interior = folds.assign(grid_search=json.dumps(
        {"C": {"range": [0.1, 1000.0], "down": 0, "up": 2, "limit": ""}}))
    assert edge_of_grid(interior, {"esvm": {"C": [0.1, 1.0, 10.0]}}) == {}


def test_two_parameters_move_by_compass_steps_each_kernel_loaded_once(monkeypatch):
    a0 = 4 / 60
    # best at C = 100 and a = a0 / 4: both beyond an end of the starting grids
    def score(kp, mc):
        return _peak(100.0)(kp, mc) + 1.0 / (1.0 + abs(round(math.log2(kp["a"] / (a0 / 4)))))

    calls = _scripted_scores(monkeypatch, score)
    loaded = []
    real = classification.cell_kernel_data
    monkeypatch.setattr(classification, "cell_kernel_data",
                        lambda params, combos=None: loaded.append(combos) or real(params, combos))
    out = classification_cell({**CELL, "kernel_params": {"a": a0, "r": -2.0},
                               "kernel_grid": {"a": [a0 / 2, a0, 2 * a0]},
                               "param_grid": {"C": [0.1, 1.0, 10.0]}, "grid_extension": 3})
    assert out["best_C"] == pytest.approx(100.0)
    assert out["best_kernel_a"] == pytest.approx(a0 / 4)
    points = [(round(kp["a"] / a0, 6), round(mc["C"], 6)) for kp, combos in calls
              for mc in combos]
    assert len(set(points)) == len(points)                     # no point fitted twice
    start = {(f, c) for f in (0.5, 1.0, 2.0) for c in (0.1, 1.0, 10.0)}
    # the grid; (a/2, 10) wins at two ends: a/4 and 100 added, its new neighbours scored;
    # (a/4, 10) wins (first of two equal), a/8 added; (a/4, 100) wins, 1000 added; then
    # every neighbour of (a/4, 100) is scored and it is at no end: the search stops
    added = [(0.25, 10.0), (0.5, 100.0), (0.125, 10.0), (0.25, 1.0), (0.25, 100.0),
             (0.125, 100.0), (0.25, 1000.0)]
    assert set(points) == start | set(added) and len(points) == 9 + 7
    assert [round(c[0]["a"] / a0, 6) for c in loaded if c is not None] == [0.25, 0.125]
    search = json.loads(out["grid_search"])
    assert search["kernel_a"]["down"] == 2 and search["C"]["up"] == 2
    assert search["kernel_a"]["limit"] == search["C"]["limit"] == ""


def test_ch_grid_is_feasible_by_construction():
    """mu = 0.03 is below 1 / (smallest class) of these inner training parts: as given it
    fails every inner fit of that value; the adaptive search replaces it by the bound."""
    cell = {**CELL, "method": "ch", "param_grid": {"mu": [0.03, 0.1, 0.3, 1.0]},
            "method_params": {"n_starts": 2}}
    given = classification_cell(cell)
    assert given["n_inner_failures"] == 3 and "infeasible" in given["inner_error"]
    out = classification_cell({**cell, "grid_extension": 3})
    assert out["n_inner_failures"] == 0 and out["inner_error"] == ""
    search = json.loads(out["grid_search"])["mu"]
    n_min = round(1 / search["range"][0])
    assert 1 / n_min > 0.03 and search["range"][1] == 1.0
    assert search["feasible"].startswith(f"mu in [{1 / n_min:g}, 1]")
    assert out["best_mu"] >= 1 / n_min


def test_parameter_rules():
    c = parameter_rule("C", [0.1, 1.0, 10.0])
    assert (c.kind, c.down, c.up, c.lower, c.upper) == ("log", 10.0, 10.0, 0.0, math.inf)
    r = parameter_rule("radius_squared", [0.3, 1.0, 3.0, 10.0, 30.0, 100.0])
    assert r.kind == "log" and r.down == pytest.approx(1 / 0.3) and r.up == pytest.approx(10 / 3)
    k = parameter_rule("n_neighbors", [1, 3, 5, 7], n_min=6)
    assert (k.kind, k.down, k.up, k.lower, k.upper) == ("step", 2, 2, 1.0, 6.0)
    assert feasible_values([1, 3, 5, 7], k) == ([1, 3, 5, 6], True)
    mu = parameter_rule("mu", [0.03, 0.1, 0.3, 1.0], n_min=26)
    assert mu.lower == pytest.approx(1 / 26) and mu.upper == 1.0
    kept, changed = feasible_values([0.03, 0.1, 0.3, 1.0], mu)
    assert changed and kept == pytest.approx([1 / 26, 0.1, 0.3, 1.0])
    assert feasible_values([0.1, 1.0], parameter_rule("C", [0.1, 1.0])) == ([0.1, 1.0], False)
    assert parameter_rule("energy", [0.9, None]).kind is None          # not numeric
    assert parameter_rule("C", [1.0]).kind is None                     # one value: no edge


def test_who_is_extended():
    # the papers' grids: searched as given, the cells (their keys) without the new fields
    cells = classification_grid(["sonar"], [{"method": "esvm", "grid": {"C": [1.0, 10.0]}}])
    assert all("grid_extension" not in c and "grid_fixed" not in c for c in cells)
    # krein compare: the default grids extended, a --grid searched as given unless asked
    kw = dict(n_samples=45, methods=["esvm"], outer_folds=3, progress=False,
              kernel_params={"a": 4 / 60, "r": -2.0})
    res = run_comparison("sonar", grid={"C": [1e-3, 1e-2]}, **kw)
    assert res.grid_extension == {"steps": 3, "fixed": ["C", "kernel_C"]}
    for text in res.folds["grid_search"]:
        assert json.loads(text)["C"]["down"] == json.loads(text)["C"]["up"] == 0
    asked = run_comparison("sonar", grid={"C": [1e-3, 1e-2]}, grid_extension=1, **kw)
    assert asked.grid_extension == {"steps": 1, "fixed": []}
    reference = run_comparison("sonar", grid_extension=0, **kw)
    assert reference.grid_extension["steps"] == 0
    assert (reference.folds["grid_search"] == "").all()
