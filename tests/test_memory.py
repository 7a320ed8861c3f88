"""Memory checked before it is spent (`krein/_memory.py`, its uses in `krein/kernel_data.py`,
`Spectrum.from_kernel`
and `KernelMixin._gram` of `krein/estimators/base.py`).

The budget is set by ``KREIN_MEMORY_BUDGET`` so that the tests hold on any machine: a
dense kernel larger than the budget is refused before it is formed (one line naming the
low-rank path, exit status 2 on the command line, nothing written, nothing fitted), and
the Nyström path, which forms no ``n x n`` array, still runs under the same budget.
"""

import numpy as np
import pytest

from krein._memory import (DENSE_COPIES, MEMORY_BUDGET_ENV, MemoryBudgetError, available_memory,
                           check_dense, dense_bytes, format_bytes, memory_budget,
                           parse_bytes)
from krein._validation import InvalidArgument
from krein.approximation import IndefiniteNystroem
from krein.cli import main
from krein.datasets import make_checkerboard
from krein.estimators import ESVC
from krein.kernel_data import load_kernel_data

#: 1 MiB: a 400 x 400 kernel needs 3 x 1.2 MiB; a 100 x 40 Nyström block 31 KiB.
SMALL = "1M"


@pytest.mark.parametrize("text, expected", [
    ("123", 123), ("1K", 1024), ("512m", 512 * 1024 ** 2), ("4G", 4 * 1024 ** 3),
    ("1.5T", int(1.5 * 1024 ** 4)), (" 2GiB ", 2 * 1024 ** 3), ("3MB", 3 * 1024 ** 2),
])
def test_parse_bytes(text, expected):
    assert parse_bytes(text) == expected


@pytest.mark.parametrize("text", ["", "-1G", "4X", "G", "four"])
def test_parse_bytes_refuses_what_is_not_a_size(text):
    with pytest.raises(ValueError, match=MEMORY_BUDGET_ENV):
        parse_bytes(text)


def test_format_bytes():
    assert format_bytes(512) == "512 B"
    assert format_bytes(3 * 1024 ** 2) == "3.0 MiB"
    assert format_bytes(8 * 60_000 ** 2) == "26.8 GiB"


def test_the_budget_bounds_the_memory_available(monkeypatch):
    monkeypatch.setenv(MEMORY_BUDGET_ENV, "2K")
    assert available_memory() == 2048          # the system has more than 2 KiB
    monkeypatch.setenv(MEMORY_BUDGET_ENV, "1000T")
    free = available_memory()
    assert free is None or free <= 1000 * 1024 ** 4


def test_check_dense_refuses_what_does_not_fit(monkeypatch):
    monkeypatch.setenv(MEMORY_BUDGET_ENV, SMALL)
    assert dense_bytes(400, 400) == 8 * 400 * 400 * DENSE_COPIES
    with pytest.raises(MemoryBudgetError) as exc:
        check_dense(400, 400, what="the kernel", remedy="use fewer objects")
    text = str(exc.value)
    assert "\n" not in text and "400 x 400" in text and "3.7 MiB" in text
    assert "1.0 MiB" in text and text.endswith("use fewer objects")
    assert exc.value.needed == dense_bytes(400, 400) and exc.value.available == 1024 ** 2
    assert check_dense(100, 100, what="the kernel", remedy="-") == dense_bytes(100, 100)


def test_the_data_door_refuses_a_kernel_that_does_not_fit(monkeypatch):
    monkeypatch.setenv(MEMORY_BUDGET_ENV, SMALL)
    with pytest.raises(InvalidArgument) as exc:
        load_kernel_data("checkerboard", n_samples=400)
    assert exc.value.argument == "memory"
    assert "--approximation nystroem:M" in exc.value.message
    # the Nystroem path forms no n x n array: it loads under the same budget
    data = load_kernel_data("checkerboard", n_samples=400, approximation="nystroem:40")
    assert data.K is None and data.n_samples == 400


def test_a_budget_that_is_not_a_size_is_named(monkeypatch):
    monkeypatch.setenv(MEMORY_BUDGET_ENV, "lots")
    with pytest.raises(InvalidArgument, match=f"memory: {MEMORY_BUDGET_ENV} must be"):
        load_kernel_data("checkerboard", n_samples=40)


def test_the_command_line_refuses_in_one_line_and_writes_nothing(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv(MEMORY_BUDGET_ENV, SMALL)
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--dataset", "checkerboard", "--n-samples", "400", "--methods", "esvm",
              "--no-progress", "--out", str(out)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith("krein compare: error: memory:")
    assert "--approximation nystroem:M" in err
    assert not out.exists()


def test_an_estimator_refuses_before_forming_the_kernel(monkeypatch):
    monkeypatch.setenv(MEMORY_BUDGET_ENV, SMALL)
    X, y = make_checkerboard(400, random_state=0)
    est = ESVC(kernel="gaussian")
    with pytest.raises(MemoryBudgetError, match=r"approximation=IndefiniteNystroem\(M\)"):
        est.fit(X, y)
    assert not [k for k in vars(est) if k.endswith("_")]          # nothing fitted
    approx = ESVC(kernel="gaussian", approximation=IndefiniteNystroem(n_components=40, random_state=0))
    assert approx.fit(X, y).predict(X[:5]).shape == (5,)


def test_new_points_are_checked_too(monkeypatch):
    X, y = make_checkerboard(100, random_state=1)
    est = ESVC(kernel="gaussian").fit(X, y)
    monkeypatch.setenv(MEMORY_BUDGET_ENV, "100K")
    X_new = np.repeat(X, 100, axis=0)                # 10 000 x 100 rows: 15 MiB
    with pytest.raises(MemoryBudgetError, match="smaller blocks"):
        est.decision_function(X_new)
    assert est.decision_function(X[:10]).shape == (10,)


def test_the_memory_option_sets_the_budget_of_the_run(monkeypatch, capsys, tmp_path):
    monkeypatch.delenv(MEMORY_BUDGET_ENV, raising=False)
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--dataset", "checkerboard", "--n-samples", "400", "--methods", "esvm",
              "--no-progress", "--memory", "1M", "--out", str(out)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "3.7 MiB" in err and "1.0 MiB of memory is available" in err
    assert not out.exists()
    assert available_memory() is None or available_memory() > 1024 ** 2   # the block ended


def test_memory_budget_blocks_nest_and_end():
    outside = available_memory()
    with memory_budget(2048):
        assert available_memory() == 2048
        with memory_budget(None):
            assert available_memory() == outside
        assert available_memory() == 2048
    assert available_memory() == outside


def test_a_memory_option_that_is_not_a_size_is_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--dataset", "checkerboard", "--n-samples", "40", "--no-save",
              "--memory", "lots"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("krein compare: error: --memory must be a number of bytes")


def test_the_eigendecomposition_of_a_loaded_kernel_is_checked(monkeypatch):
    """A precomputed kernel already in memory: the two further n x n arrays of its full
    eigendecomposition are checked before LAPACK allocates them."""
    from krein import spectrum
    from krein.spectrum import Spectrum

    monkeypatch.setattr(spectrum, "_CHECKED_EIGH_SIZE", 100)
    K = np.eye(300)
    monkeypatch.setenv(MEMORY_BUDGET_ENV, "1M")               # 2 x 0.7 MiB do not fit
    with pytest.raises(MemoryBudgetError, match="eigendecomposition of the kernel is 300 x 300"):
        Spectrum.from_kernel(K)
    monkeypatch.setenv(MEMORY_BUDGET_ENV, "2M")
    assert Spectrum.from_kernel(K).n == 300
