"""BLAS threads for many small fits: one thread per fit, the library's threads for large ones.

A comparison or an experiment fits hundreds of estimators on kernels of a few
hundred objects.  Threaded BLAS gains nothing on such matrices, and on a shared
machine (other jobs, or joblib workers of the same run) its threads spin against
each other (``benchmarks/README.md`` has the measurements of the main job and the
Loosli Table 2 quick run, one thread against the libraries' default).  The parallelism of a run is over its cells
(``--n-jobs``); a single large solve keeps the threads.

The policy, one name per idea across the command line (``--blas-threads``), the
Python API (``blas_threads=``) and the environment (``KREIN_BLAS_THREADS``):

* ``"auto"`` (default): a fit on at most :data:`SMALL_KERNEL` objects runs with
  one BLAS thread; a larger one with the library's default (in a joblib worker,
  the share of the cores joblib gives each worker);
* a positive integer ``k``: every fit with at most ``k`` threads;
* ``"default"``: leave the BLAS libraries alone.

The runner (:func:`krein.experiment.run_experiment`) sets the policy around each
cell in whatever process runs it (serial, joblib or Dask worker), and a cell
applies it to its fits with :func:`fit_threads` once it knows the kernel's size.
Every estimator's ``fit`` applies it too (:func:`krein._fitting.fit_wrapper`), on
the number of rows it is given, so that a small problem fitted from a script, a
notebook or ``GridSearchCV`` does not pay for spinning threads.  Outside a
:func:`blas_policy` block the policy is ``$KREIN_BLAS_THREADS``, else ``"auto"``;
``krein.blas_threads(policy)`` (:func:`blas_threads`) sets it for a block of code.
"""

from __future__ import annotations

import contextlib
import numbers
import os

from ._validation import InvalidArgument

__all__ = ["SMALL_KERNEL", "ENV_VAR", "check_blas_threads", "resolve_blas_threads",
           "threads_for", "blas_threads", "blas_policy", "fit_threads", "blas_controller"]

#: Kernels with at most this many objects are fitted with one BLAS thread under "auto".
SMALL_KERNEL = 1000

#: Environment variable read when no policy is given.
ENV_VAR = "KREIN_BLAS_THREADS"

_POLICY = None          # None: $KREIN_BLAS_THREADS, else "auto" (resolve_blas_threads)
_CONTROLLER = None


def check_blas_threads(value, name="blas_threads"):
    """Validate a BLAS-thread policy.

    Parameters
    ----------
    value : {"auto", "default"} or int >= 1 or str of an int
        The policy (module docstring).
    name : str
        Name of the argument, for the error message.

    Returns
    -------
    str or int
        ``"auto"``, ``"default"`` or a positive int.

    Raises
    ------
    ValueError
        (:class:`krein._validation.InvalidArgument`) for anything else, naming
        ``name`` and what is accepted.
    """
    v = value
    if isinstance(v, str):
        s = v.strip().lower()
        if s in ("auto", "default"):
            return s
        try:
            v = int(s)
        except ValueError:
            v = None
    if isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1:
        return int(v)
    raise InvalidArgument(name, f"must be 'auto', 'default' or a positive integer; got {value!r}")


def resolve_blas_threads(value=None):
    """The policy in force: ``value`` if given, else ``$KREIN_BLAS_THREADS``, else ``"auto"``.

    Parameters
    ----------
    value : {"auto", "default"} or int >= 1, optional
        An explicit policy.

    Returns
    -------
    str or int
        The validated policy.

    Raises
    ------
    ValueError
        For a bad ``value`` or a bad ``KREIN_BLAS_THREADS``.
    """
    if value is not None:
        return check_blas_threads(value)
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return check_blas_threads(env, name=f"environment variable {ENV_VAR}")
    return "auto"


def threads_for(n_samples, policy=None):
    """BLAS threads for a fit on ``n_samples`` objects under ``policy``.

    Parameters
    ----------
    n_samples : int
        Objects of the kernel (rows of the training block).
    policy : {"auto", "default"} or int >= 1, optional
        Default: the one set by :func:`blas_policy`; outside it
        ``$KREIN_BLAS_THREADS``, else ``"auto"``.

    Returns
    -------
    int or None
        A thread limit, or None for the libraries' defaults.
    """
    if policy is None:
        policy = _POLICY if _POLICY is not None else resolve_blas_threads()
    else:
        policy = check_blas_threads(policy)
    if policy == "default":
        return None
    if policy == "auto":
        return 1 if n_samples <= SMALL_KERNEL else None
    return policy


@contextlib.contextmanager
def blas_threads(policy):
    """Set the BLAS-thread policy of every fit in the block (``krein.blas_threads``).

    Every estimator's ``fit`` limits the BLAS threads by the number of rows it
    is given (:func:`fit_threads`): under ``"auto"`` (the default) one thread on
    at most 1000 rows, where threaded BLAS only spins, and the libraries'
    threads above.

    Parameters
    ----------
    policy : {"auto", "default"} or int >= 1 or None
        None leaves the current policy.

    Yields
    ------
    str or int
        The policy in force inside the block.

    Raises
    ------
    ValueError
        For a bad policy.

    Examples
    --------
    >>> import numpy as np
    >>> from krein import ESVC, blas_threads
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> with blas_threads("default"):      # the libraries' threads, whatever the size
    ...     model = ESVC().fit(X, y)
    """
    global _POLICY
    old = _POLICY
    if policy is not None:
        _POLICY = check_blas_threads(policy)
    try:
        yield _POLICY if _POLICY is not None else resolve_blas_threads()
    finally:
        _POLICY = old


#: The name the runner uses (the same context manager).
blas_policy = blas_threads


def blas_controller():
    """The process's one threadpoolctl controller of the BLAS and OpenMP libraries.

    Inspecting the loaded libraries costs milliseconds, so it is made once, at first
    use (after NumPy, SciPy and scikit-learn are loaded), and reused.

    Returns
    -------
    threadpoolctl.ThreadpoolController
        Its ``limit(limits=..., user_api=...)`` limits the threads of a block.
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


@contextlib.contextmanager
def fit_threads(n_samples):
    """Limit the BLAS threads of the fits in the block by the current policy.

    Parameters
    ----------
    n_samples : int
        Objects of the kernel the block fits on.

    Yields
    ------
    int or None
        The limit applied (None: none).
    """
    limit = threads_for(n_samples)
    if limit is None:
        yield None
        return
    with blas_controller().limit(limits=limit):   # BLAS and OpenMP
        yield limit
