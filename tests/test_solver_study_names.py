"""krein/experiment/solver_study.py: formulation names that do not read as registry
methods, and a figure made without pyplot or a change of Matplotlib's backend."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from krein.experiment.solver_study import FORMULATIONS, RENAMED, make_formulation, plot_times
from krein.formulations.clc import ConformalLinearCombinationQP
from krein.formulations.nearest_psd import NearestPSDSDP
from krein.registry import list_methods


def test_formulation_names_are_not_other_methods_of_the_registry():
    # shared names are the registry method's own formulation (LP-SVM, Mod SVM, PerturbSVM)
    assert set(FORMULATIONS) & set(list_methods()) == {"lp-svm", "mod-svm", "perturb-svm"}
    assert isinstance(make_formulation("clc-qp", 8), ConformalLinearCombinationQP)
    assert isinstance(make_formulation("nearest-psd-sdp", 8), NearestPSDSDP)
    for old, new in RENAMED.items():     # the aliases in RENAMED build the same problem
        assert type(make_formulation(old, 8)) is type(make_formulation(new, 8))


def test_plot_times_leaves_pyplot_and_the_backend_alone(monkeypatch, tmp_path):
    def forbidden(*args, **kwargs):
        raise AssertionError("a library function changed Matplotlib's global state")

    monkeypatch.setattr(matplotlib, "use", forbidden)
    monkeypatch.setattr(plt, "subplots", forbidden)
    monkeypatch.setattr(plt, "figure", forbidden)
    rows = [{"formulation": f, "solver": s, "n": n, "status": "optimal",
             "solve_seconds": 1e-3 * n, "setup_seconds": 1e-3}
            for f in ("svm-dual", "clc-qp") for s in ("CLARABEL", "SCS") for n in (10, 20)]
    out = plot_times(pd.DataFrame(rows), tmp_path / "times.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="no successful cell"):
        plot_times(pd.DataFrame(rows).assign(status="error", solve_seconds=np.nan),
                   tmp_path / "none.png")
