"""Experiment scripts: import a script by path, get its :class:`~krein.experiment.grid.Experiment`.

A script ``experiments/NAME.py`` defines ``experiment(quick=False) ->
Experiment`` (``quick=True`` shrinks every grid so the script runs in
seconds), or the constants ``EXPERIMENT`` and ``QUICK_EXPERIMENT``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import os
import re
import sys

from .grid import Experiment
from .runner import cloudpickle_module

__all__ = ["import_script", "load_experiment"]


def import_script(path):
    """Import a Python script by path (an experiment script or one it builds on).

    The module gets a private name derived from the path and is registered
    with cloudpickle to be pickled by value, so functions defined in it reach
    joblib and Dask workers that cannot import it.  Every call executes the
    file afresh.

    Parameters
    ----------
    path : str or path-like
        The script's file (made absolute).

    Returns
    -------
    module
        The executed module, registered in :data:`sys.modules` under the name
        ``_krein_experiment_STEM_HASH`` (STEM the file name, HASH 8 hex digits
        of SHA-256 of the absolute path).

    Raises
    ------
    ValueError
        Missing file or a file that cannot be imported as Python.
    Exception
        Whatever executing the script raises.
    """
    path = os.path.abspath(os.fspath(path))
    if not os.path.isfile(path):
        raise ValueError(f"script: no such file {path!r}")
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    modname = f"_krein_experiment_{stem}_{hashlib.sha256(path.encode()).hexdigest()[:8]}"
    spec = importlib.util.spec_from_file_location(modname, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"script: cannot import {path!r} (not a Python file?)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(modname, None)
        raise
    cloudpickle_module().register_pickle_by_value(module)
    return module


def load_experiment(path, quick=False):
    """Import an experiment script and return its :class:`Experiment`.

    The script defines ``experiment(quick=False) -> Experiment`` or the
    constants ``EXPERIMENT`` (and ``QUICK_EXPERIMENT`` for ``quick=True``).
    It is imported under a private module name and registered with
    cloudpickle to be pickled by value, so its cell functions reach joblib
    and Dask workers that cannot import it.

    Parameters
    ----------
    path : str or path-like
        The script (``experiments/NAME.py``).
    quick : bool
        The shrunken variant (``--quick``).

    Returns
    -------
    Experiment
        With ``script`` (absolute path) and ``quick`` set.

    Raises
    ------
    ValueError
        Missing file, no ``experiment``/``EXPERIMENT``, no quick variant, or a
        value that is not an :class:`Experiment`.
    """
    path = os.path.abspath(os.fspath(path))
    module = import_script(path)
    if callable(getattr(module, "experiment", None)):
        exp = module.experiment(quick=bool(quick))
    elif hasattr(module, "EXPERIMENT"):
        if quick and not hasattr(module, "QUICK_EXPERIMENT"):
            raise ValueError(f"script: {path} has no quick variant (define QUICK_EXPERIMENT or "
                             "experiment(quick))")
        exp = module.QUICK_EXPERIMENT if quick else module.EXPERIMENT
    else:
        raise ValueError(f"script: {path} defines neither experiment(quick) nor EXPERIMENT")
    if not isinstance(exp, Experiment):
        raise ValueError(f"script: {path} returned {type(exp).__name__}, not a "
                         "krein.experiment.Experiment")
    return dataclasses.replace(exp, script=path, quick=bool(quick))
