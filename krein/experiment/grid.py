"""Declaring an experiment: cells, the grid, the seeds every random choice derives from.

An :class:`Experiment` is a grid of cells (plain dicts of JSON values) and a
cell function; each cell's key is the hash of its canonical configuration
(:func:`krein.experiment.store.cell_key`), and :func:`cell_seed` derives every
random number from the experiment's seed and chosen parameters, so a rerun,
another process or another machine gives the same numbers.
"""

from __future__ import annotations

import functools
import json
import numbers
import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .seeds import cell_seed  # noqa: F401 (re-export: its home is seeds.py)
from .store import canonical_json, cell_key

__all__ = ["Cell", "Experiment", "cartesian", "cell_seed", "json_default"]


@dataclass(frozen=True)
class Cell:
    """One cell of an experiment, as :class:`Experiment` builds it (``Experiment.cells``).

    Parameters
    ----------
    key : str
        16 hex digits, the hash of ``config``
        (:func:`krein.experiment.store.cell_key`).
    params : dict
        The parameters the cell function receives (the experiment's ``seed``
        included), in declared order.
    config : str
        Canonical JSON of ``{"params": params, "task": task}`` (sorted keys).
    """

    key: str
    params: dict
    config: str


@dataclass(frozen=True)
class Experiment:
    """A declared experiment: a grid of cell configurations and the function computing a cell.

    Parameters
    ----------
    name : str
        Short name (letters, digits, ``-``, ``_``, ``.``); the default results
        directory is ``results/NAME`` (``results/NAME-quick`` for a quick run).
    grid : sequence of dict
        One dict of parameters per cell (JSON values: None, bool, int, float,
        str, lists and dicts of them; NumPy scalars are converted).  Build it
        with :func:`cartesian`, :func:`classification_grid` or by hand; lists
        of grids concatenate with ``+``.  The key ``"seed"`` is reserved.
    cell : callable, default :func:`classification_cell`
        ``cell(params) -> dict`` (module docstring, "The cell function").
    random_state : int >= 0
        The one seed every random choice is derived from (:func:`cell_seed`);
        part of every cell's configuration under the key ``"seed"`` and written
        to ``experiment.json`` as ``"seed"`` (storage keys: hashed into every
        cell's key, so kept).
    task : str, optional
        Name of the task in the keys; default the cell function's ``__name__``.
        Two experiments with the same task and cell parameters share keys.
    description : str
        One line shown by the command line.
    table : dict or callable, optional
        Default table: keyword arguments of :func:`results_table` (``value``,
        ``rows``, ``columns``, ...), or ``table(results) -> DataFrame`` making
        the table itself from the results DataFrame.
    figures : callable, optional
        ``figures(results, out_dir) -> list of paths``: figures besides the
        standard ones of :func:`plot_results`.
    script : str, optional
        Path of the script that declared it (set by :func:`load_experiment`).
    quick : bool
        Whether this is the ``--quick`` variant (set by :func:`load_experiment`).

    Attributes
    ----------
    cells : list of Cell
        Keys and parameters, in grid order.

    Raises
    ------
    ValueError
        Bad name, empty grid, a non-dict cell, a value that is not JSON, the
        reserved ``seed`` key, two cells with the same configuration, bad seed,
        non-callable ``cell``/``figures``, or a ``table`` that is neither a dict
        nor callable.
    """

    name: str
    grid: tuple
    cell: Callable = None
    random_state: int = 0
    task: str | None = None
    description: str = ""
    table: object = None
    figures: Callable | None = None
    script: str | None = None
    quick: bool = False
    cells: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        set_ = functools.partial(object.__setattr__, self)
        if not isinstance(self.name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", self.name):
            raise ValueError(f"name must be a non-empty string of letters, digits, '-', '_', "
                             f"'.'; got {self.name!r}")
        if self.cell is None:
            from .classification import classification_cell

            cell = classification_cell
        else:
            cell = self.cell
        if not callable(cell):
            raise ValueError(f"cell must be a callable cell(params) -> dict; got {cell!r}")
        set_("cell", cell)
        seed = self.random_state
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise ValueError(f"random_state must be an integer >= 0; got {seed!r}")
        set_("random_state", int(seed))
        task = self.task if self.task is not None else getattr(cell, "__name__", None)
        if not isinstance(task, str) or not task:
            raise ValueError(f"task must be a non-empty string; got {task!r}")
        set_("task", task)
        if self.table is not None and not (isinstance(self.table, dict) or callable(self.table)):
            raise ValueError(f"table must be None, a dict of results_table arguments or a "
                             f"callable; got {self.table!r}")
        if self.figures is not None and not callable(self.figures):
            raise ValueError(f"figures must be None or a callable; got {self.figures!r}")
        if isinstance(self.grid, dict) or not hasattr(self.grid, "__iter__"):
            raise ValueError("grid must be a list of dicts (one per cell); got "
                             f"{type(self.grid).__name__}")
        grid = tuple(self.grid)
        if not grid:
            raise ValueError("grid is empty: an experiment needs at least one cell")
        cells, seen = [], {}
        for i, params in enumerate(grid):
            if not isinstance(params, dict):
                raise ValueError(f"grid[{i}] must be a dict of parameters; got "
                                 f"{type(params).__name__}")
            if "seed" in params:
                raise ValueError(f"grid[{i}] has the key 'seed', which is reserved: the cell "
                                 "receives the experiment's seed (Experiment(random_state=...))")
            full = json.loads(canonical_json({**params, "seed": self.random_state},
                                             f"grid[{i}]"))
            key, config = cell_key(task, full)
            if key in seen:
                raise ValueError(f"grid[{seen[key]}] and grid[{i}] have the same configuration "
                                 f"{config}; every cell must be distinct")
            seen[key] = i
            # the parameters keep their declared order (the key uses the sorted form)
            ordered = json.loads(json.dumps({**_plain(params), "seed": self.random_state}))
            cells.append(Cell(key, ordered, config))
        set_("grid", grid)
        set_("cells", tuple(cells))

    def __len__(self):
        return len(self.cells)


def _plain(params):
    """JSON-ready copy in declared order (canonical_json has already validated it)."""
    return json.loads(json.dumps(params, default=json_default))


def json_default(obj):
    """The JSON value of a NumPy scalar or array (the ``default`` of :func:`json.dumps`).

    Parameters
    ----------
    obj : object
        A value :mod:`json` cannot write itself.

    Returns
    -------
    object
        A NumPy scalar as the Python scalar (``obj.item()``), an array as nested
        lists (``obj.tolist()``).

    Raises
    ------
    TypeError
        For any other value.
    """
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON: {obj!r}")


def cartesian(**axes):
    """The Cartesian product of parameter axes, as a list of cell dicts.

    Parameters
    ----------
    **axes
        ``name=[v1, v2, ...]`` (a list or tuple: one axis; ``range`` works too)
        or ``name=value`` (any other value, dicts and strings included: the
        same in every cell).  The first axis varies slowest.

    Returns
    -------
    list of dict
        One dict ``{name: value}`` per combination of the axes, with the
        axes' names in the order given; ``len`` is the product of the axes'
        lengths.

    Raises
    ------
    ValueError
        For an empty axis.

    Examples
    --------
    >>> cartesian(solver=["CLARABEL", "SCS"], n=[50, 100], tol=1e-6)[1]
    {'solver': 'CLARABEL', 'n': 100, 'tol': 1e-06}
    """
    import itertools

    names, values = [], []
    for name, v in axes.items():
        if isinstance(v, (list, tuple, range)):
            v = list(v)
            if not v:
                raise ValueError(f"{name}: empty axis; give at least one value")
        else:
            v = [v]
        names.append(name)
        values.append(v)
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]
