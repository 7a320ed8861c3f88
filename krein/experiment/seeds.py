"""The seeds every random choice of an experiment derives from (:func:`cell_seed`).

Its own module, below both :mod:`~krein.experiment.grid` (which declares
experiments and re-exports :func:`cell_seed`) and
:mod:`~krein.experiment.classification` (whose cells draw their folds with it),
so that neither imports the other for it: the arrows point down to here and to
:mod:`~krein.experiment.store` (the canonical JSON the seeds hash).
"""

from __future__ import annotations

import hashlib
import ntpath
import posixpath

from .store import canonical_json

__all__ = ["cell_seed", "location_free"]

#: Keys of a cell's ``data_file`` entry that name files (reduced to their names by
#: :func:`location_free`).
FILE_PATH_KEYS = ("path", "labels", "test_path", "test_labels")


def _file_name(path):
    """The name of a file, whatever the separators of the path (``/`` or ``\\``)."""
    return ntpath.basename(posixpath.basename(path))


def location_free(params):
    """A cell's parameters with the paths of its data files reduced to the files' names.

    The seeds that derive from every parameter of a cell (the estimator's
    ``random_state``, :func:`krein.experiment.classification_cell`) must not
    depend on where the user's file lies: the same file in another directory,
    or named by a relative instead of an absolute path, is the same data set
    and must give the same table.  (Before this function, a multi-start method
    such as ``ch`` or ``iksvm-dc`` got another seed, and so other results, in
    every temporary directory.)  A cell without a ``data_file`` (a catalogue
    data set) is returned unchanged, so its seeds are those it always had.

    Parameters
    ----------
    params : dict
        A cell's parameters.

    Returns
    -------
    dict
        ``params`` itself when it has no ``data_file`` dict; else a shallow copy
        whose ``data_file`` has each path of :data:`FILE_PATH_KEYS` that is a
        string replaced by its last component.
    """
    spec = params.get("data_file")
    if not isinstance(spec, dict):
        return params
    spec = {k: _file_name(v) if k in FILE_PATH_KEYS and isinstance(v, str) else v
            for k, v in spec.items()}
    return {**params, "data_file": spec}


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
