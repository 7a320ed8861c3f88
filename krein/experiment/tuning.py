"""The adaptive grid of the inner model selection: extend a grid whose end value wins.

A default grid of three values per parameter (``C in {0.1, 1, 10} / s``) often
puts the inner cross-validation's choice at one of its ends, where the best
value may lie outside it.  :func:`krein.experiment.classification.classification_cell`
with ``grid_extension = N > 0`` therefore searches each grid adaptively, inside
the inner cross-validation of each outer fold (the outer folds, and so the
pairing of the comparison, are untouched):

1. **Feasible by construction.**  Before any fit, each parameter's values are
   placed inside the range the inner training parts make feasible
   (:func:`parameter_rule`): ``mu`` of CH-DU in ``[1 / m, 1]`` and a k-NN's
   ``n_neighbors`` in ``[1, m]``, ``m`` the smallest class of the inner fitting
   parts (``mu < 1 / m`` empties a reduced hull, Haasdonk 2005 §3.2;
   ``mu >= 1`` is the whole hull; a vote of more neighbours than the smallest
   class has can never elect it).  A value outside is replaced by the bound
   (duplicates dropped): an inner fit that fails is then a real failure.
2. **Extension.**  After the grid is scored, each parameter whose chosen value
   is the smallest (largest) of the values searched so far gains one value, one
   step beyond that end.  Then the *compass neighbours* of the chosen point are
   scored: the point with one parameter moved one step, down or up, among the
   values searched so far (the new value included), the others kept; a point
   already scored is never refitted.  The choice is made again over every point
   scored, and this repeats until the chosen point is at no end that can move
   and all its neighbours are scored: a pattern search (compass search, Kolda,
   Lewis & Torczon 2003) on the lattice of the grid's values, started from the
   whole grid.  Moving along a parameter costs its neighbours, not a new row of
   the whole grid: the extra points of a two-parameter grid are about three per
   step instead of the size of the other parameter's grid.  A step is the
   grid's own spacing at that end: a factor (the ratio of the two end values,
   e.g. a decade for ``C``, ``rho``, ``gamma``; two for the kernel's scale
   ``a``; ~3.3 for ``radius_squared``) for a parameter whose values are
   positive numbers, a difference (2 for ``n_neighbors``) for an integer one.
3. **Limits.**  At most ``N`` steps per side of each parameter (``krein
   compare``: :data:`GRID_EXTENSION` = 3, so ``C`` in ``[1e-4, 1e4] / s``), and
   never beyond a feasible bound.  A parameter chosen at an end that cannot be
   extended is *at a limit*, recorded with the reason; the ``[edge]`` flag of a
   comparison reports only those (:func:`krein.experiment.statistics.edge_of_grid`).
   Parameters with non-numeric values (``pe-knn``'s ``energy`` in ``{0.9,
   all}``) and grids of one value are not extended.

The choice among the points scored keeps the rule of
:func:`krein.experiment.classification._best_combination` (exact fractions;
the first in search order among equal means): the original grid in
``ParameterGrid`` order first, then each extension's new points in the order
they were added.  So a tie between an original and an added value goes to the
original one, and a flat plateau at an end does not pull the search outward.
Every step is deterministic.

A parameter the user gave (``--grid``) is searched as given (neither moved
into its feasible range nor extended) unless the user also asks for the
extension (``krein compare --grid-extension N`` given explicitly); the papers'
reproductions (``experiments/``) run their papers'
grids as published (``grid_extension = 0``, the default of
:func:`krein.experiment.classification_grid`).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np

__all__ = ["GRID_EXTENSION", "ParameterRule", "parameter_rule", "smallest_class",
           "feasible_values", "GridAxis"]

#: Steps per side by which ``krein compare`` extends a default grid at most.
GRID_EXTENSION = 3


def smallest_class(splits, y):
    """The size of the smallest class among the fitting parts of the inner splits.

    Parameters
    ----------
    splits : list of (ndarray, ndarray)
        Fitting and validation indices into ``y``.
    y : ndarray of shape (n,)
        Labels.

    Returns
    -------
    int
        ``min`` over splits and classes of the class counts of the fitting parts.
    """
    return int(min(np.unique(y[a], return_counts=True)[1].min() for a, _ in splits))


@dataclass(frozen=True)
class ParameterRule:
    """How one parameter's grid is placed in its feasible range and extended.

    Parameters
    ----------
    kind : {"log", "step", None}
        ``"log"``: positive values, extended by a factor; ``"step"``: integers,
        extended by a difference; None: not extended (non-numeric values, one
        value).
    down, up : float
        The factor (``"log"``) or difference (``"step"``) of one step at the
        bottom and at the top: the grid's own spacing at that end.
    lower, upper : float
        The feasible bounds (``-inf`` / ``inf``: none).
    lower_reason, upper_reason : str
        Why the bound (shown when a choice is at it).
    """

    kind: object = None
    down: float = 1.0
    up: float = 1.0
    lower: float = -math.inf
    upper: float = math.inf
    lower_reason: str = ""
    upper_reason: str = ""


def _numbers(values):
    return all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values)


def parameter_rule(name, values, n_min=None):
    """The extension rule and feasible range of one grid parameter.

    Parameters
    ----------
    name : str
        The parameter (``"kernel_<p>"`` for a kernel parameter).
    values : sequence
        Its grid values.
    n_min : int, optional
        The smallest class of the inner fitting parts (:func:`smallest_class`):
        the feasible range of ``mu`` (``[1 / n_min, 1]``, Haasdonk 2005 §3.2)
        and ``n_neighbors`` (``[1, n_min]``).

    Returns
    -------
    ParameterRule
        ``kind`` None for a grid of fewer than two distinct values or with a
        non-numeric value.
    """
    vals = list(values)
    if len(set(vals)) < 2 or not _numbers(vals):
        return ParameterRule()
    srt = sorted(float(v) for v in set(vals))
    lower, upper, lo_why, hi_why = -math.inf, math.inf, "", ""
    if name == "mu":
        lower, upper = 0.0, 1.0
        hi_why = "mu = 1: the whole class hulls"
        if n_min:
            lower = 1.0 / n_min
            lo_why = (f"mu >= 1/{n_min}: the reduced hull of the smallest class of the inner "
                      "training parts is its mean")
    if name == "n_neighbors":
        lower, lo_why = 1.0, "k = 1"
        if n_min:
            upper = float(n_min)
            hi_why = f"k <= {n_min}: the smallest class of the inner training parts"
    if all(isinstance(v, numbers.Integral) for v in vals):
        # an integer parameter is a count (neighbours, components, starts): at least 1
        lower, lo_why = max(lower, 1.0), lo_why or f"{name} >= 1"
        return ParameterRule("step", srt[1] - srt[0], srt[-1] - srt[-2], lower, upper,
                             lo_why, hi_why)
    if srt[0] > 0:
        return ParameterRule("log", srt[1] / srt[0], srt[-1] / srt[-2], max(lower, 0.0), upper,
                             lo_why, hi_why)
    return ParameterRule()


def feasible_values(values, rule):
    """The grid values placed inside the rule's feasible range.

    Parameters
    ----------
    values : sequence
        Grid values, in grid order.
    rule : ParameterRule
        :func:`parameter_rule` of the parameter.

    Returns
    -------
    kept : list
        Each value, or the bound it crosses (an integer bound for an integer
        parameter), duplicates dropped, in grid order.
    changed : bool
        Whether a value was replaced.
    """
    if rule.kind is None:
        return list(values), False
    out, changed = [], False
    for v in values:
        w = min(max(float(v), rule.lower), rule.upper)
        if rule.kind == "step":
            w = int(round(w))
        elif w == float(v):
            w = v
        changed |= w != v
        if w not in out:
            out.append(w)
    return out, changed


@dataclass
class GridAxis:
    """One parameter of an adaptive search: its values so far, its rule and its steps.

    Parameters
    ----------
    name : str
        The parameter (``kernel_<p>`` for a kernel parameter).
    values : list
        The values searched so far, in search order.
    rule : ParameterRule
        :func:`parameter_rule`.
    max_steps : int
        Extensions allowed per side (0: a grid searched as given).
    steps : list of int
        Extensions made at the bottom and at the top.
    feasible : str
        The feasible-range note when a value was replaced (else ``""``).
    """

    name: str
    values: list
    rule: ParameterRule
    max_steps: int
    steps: list = field(default_factory=lambda: [0, 0])
    feasible: str = ""

    @property
    def numeric(self):
        """Whether the axis has an edge to report (numeric values, at least two)."""
        return self.rule.kind is not None

    def end(self, value):
        """Where a value lies among the values searched.

        Parameters
        ----------
        value : object
            A value of the axis.

        Returns
        -------
        str or None
            ``"bottom"`` (the smallest), ``"top"`` (the largest) or None
            (interior, or an axis without an edge: non-numeric, one value).
        """
        if not self.numeric or len(self.values) < 2:
            return None
        if value == min(self.values):
            return "bottom"
        if value == max(self.values):
            return "top"
        return None

    def neighbours(self, value):
        """The values one step from ``value`` among those searched.

        Parameters
        ----------
        value : object
            A value of the axis.

        Returns
        -------
        list
            The next smaller and the next larger value (a numeric axis), or every
            other value in grid order (a non-numeric one, such as ``energy`` in
            ``{0.9, None}``).
        """
        if not self.numeric:
            return [v for v in self.values if v != value]
        srt = sorted(set(self.values))
        i = srt.index(value)
        return [srt[j] for j in (i - 1, i + 1) if 0 <= j < len(srt)]

    def extend(self, where):
        """Add one value beyond the ``where`` end; return it, or the reason it cannot be added.

        Parameters
        ----------
        where : {"bottom", "top"}
            The end to move.

        Returns
        -------
        value : number or None
            The added value (None when at a limit).
        reason : str
            Why not (``""`` when added).
        """
        side = 0 if where == "bottom" else 1
        if self.max_steps == 0:
            return None, "grid given (not extended)"
        if self.steps[side] >= self.max_steps:
            return None, f"{self.max_steps} extension(s), the limit"
        r = self.rule
        end = min(self.values) if side == 0 else max(self.values)
        if r.kind == "log":
            new = end / r.down if side == 0 else end * r.up
        else:
            new = end - r.down if side == 0 else end + r.up
        bound, why = (r.lower, r.lower_reason) if side == 0 else (r.upper, r.upper_reason)
        if (side == 0 and end <= bound) or (side == 1 and end >= bound):
            return None, why or f"{self.name} bound {bound:g}"
        new = max(new, bound) if side == 0 else min(new, bound)
        if r.kind == "step":
            new = int(round(new))
        self.values.append(new)
        self.steps[side] += 1
        return new, ""

    def record(self, chosen, limit):
        """The axis' entry of ``grid_search`` (a cell's JSON column).

        Parameters
        ----------
        chosen : object
            The chosen value.
        limit : str
            Why the chosen end could not be extended (``""``: interior or extended).

        Returns
        -------
        dict
            ``range`` ([smallest, largest] value searched), ``down`` and ``up``
            (extensions made), ``limit`` (``"bottom: why"`` / ``"top: why"`` when
            the choice is at an end that could not move, else ``""``) and, when
            values were replaced by a bound, ``feasible``.
        """
        vals = [float(v) for v in self.values]
        out = {"range": [min(vals), max(vals)], "down": self.steps[0], "up": self.steps[1]}
        where = self.end(chosen)
        out["limit"] = f"{where}: {limit}" if where and limit else ""
        if self.feasible:
            out["feasible"] = self.feasible
        return out
