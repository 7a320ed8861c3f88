"""The seeds every random choice of an experiment derives from (:func:`cell_seed`).

Its own module, below both :mod:`~krein.experiment.grid` (which declares
experiments and re-exports :func:`cell_seed`) and
:mod:`~krein.experiment.classification` (whose cells draw their folds with it),
so that neither imports the other for it: the arrows point down to here and to
:mod:`~krein.experiment.store` (the canonical JSON the seeds hash).
"""

from __future__ import annotations

import hashlib

from .store import canonical_json

__all__ = ["cell_seed"]


def cell_seed(params, *names, salt=""):
    """A seed derived from the experiment's seed and some of the cell's parameters.

    Cells that agree on ``names`` (and the seed) get the same number, e.g.
    ``cell_seed(params, "dataset", "repeat", salt="folds")`` gives every method
    and kernel of a repeat the same folds; without names every parameter
    counts.

    Parameters
    ----------
    params : dict
        The cell's parameters (with ``"seed"``: the experiment's
        ``random_state``, stored in the cell under this key, which is hashed
        into the cell's key and so kept as it is).
    *names : str
        Parameters the seed depends on (missing ones count as None).
    salt : str
        Distinguishes several seeds drawn from the same parameters.

    Returns
    -------
    int
        In ``[0, 2**32)``: the first four bytes of SHA-256 of the canonical
        JSON of ``{"names": {...}, "salt": salt, "seed": seed}``.

    Raises
    ------
    ValueError
        If ``params`` has no ``"seed"``.
    """
    if "seed" not in params:
        raise ValueError("params has no 'seed' (cells receive the experiment's seed)")
    chosen = ({n: params.get(n) for n in names} if names
              else {k: v for k, v in params.items() if k != "seed"})
    text = canonical_json({"names": chosen, "salt": salt, "seed": params["seed"]})
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
