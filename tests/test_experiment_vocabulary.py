"""One vocabulary in krein/experiment: the seed is ``random_state`` and the outer folds
``outer_folds`` in the public signatures of classification_grid, Experiment and the solver
study (``folds`` and ``seed`` are refused there); the keys stored in the cells (``seed``,
``cv_seed``, ``outer_folds``) keep their names, so the cell keys of committed results stay
the same (the keys below are fixed: another stored name would change them).
"""

from __future__ import annotations

import pytest

from krein.experiment import Experiment, classification_grid
from krein.experiment.solver_study import make_formulation, solve_cell


def test_classification_grid_takes_outer_folds_and_random_state():
    new = classification_grid(["sonar"], ["esvm", "svm"], outer_folds=3, random_state=4)
    assert len(new) == 6
    assert {c["outer_folds"] for c in new} == {3} and {c["cv_seed"] for c in new} == {4}
    exp = Experiment("k", new, random_state=7)
    assert exp.random_state == 7
    # fixed keys: the cells hashed with the stored names seed, cv_seed and outer_folds
    assert (exp.cells[0].key, exp.cells[-1].key) == ("2868b1625a6b2385", "69fa6faf08f7e1f7")
    with pytest.raises(TypeError, match="folds"):
        classification_grid(["sonar"], ["esvm"], outer_folds=3, folds=2)
    with pytest.raises(ValueError, match="random_state must be"):
        classification_grid(["sonar"], ["esvm"], random_state=-1)
    with pytest.raises(TypeError, match="seed"):  # one name: random_state
        Experiment("k", new, seed=1)


def test_solver_study_takes_random_state():
    a = make_formulation("lp-svm", 10, random_state=5)
    assert (a.K == make_formulation("lp-svm", 10, 5).K).all()
    row = solve_cell("lp-svm", "NOT_A_SOLVER", 8, random_state=2)
    assert row["seed"] == 2 and row["status"] == "not-installed"    # the stored column
