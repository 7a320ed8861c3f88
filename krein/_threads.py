"""BLAS threads chosen by the size of the work: one thread for small matrices and loops.

A comparison or an experiment fits hundreds of estimators on kernels of a few
hundred objects, and a user fits small problems from a script, a notebook or
``GridSearchCV``.  Threaded BLAS gains nothing on such matrices, and its threads
spin against each other and against other work (``benchmarks/README.md`` has the
measurements: the main job and the Loosli Table 2 quick run under each policy, and
one fit of every registered method at n = 100 to 3000,
``benchmarks/estimator_threads.py``).  The parallelism of a run is over its cells
(``--n-jobs``); a large factorization keeps the threads.

Two rules, by what the work is:

* **a fit** (an estimator's ``fit``, a cell of a comparison) on at most
  :data:`SMALL_KERNEL` objects runs with one BLAS thread: up to that size a dense
  eigendecomposition or factorization of the kernel is no faster on two threads;
* **a solver loop** (many products with the kernel between small steps: DCA, the
  sparse Bayesian loop, a Newton-CG, a projected gradient) on at most
  :data:`LOOP_KERNEL` objects runs with one thread (:func:`loop_threads`), and so do
  the steps on small blocks inside a larger loop (ch's face steps) and ARPACK's
  restarted Lanczos iteration at any size: a thread's wake-up costs more than such a
  step, while the one-off factorizations around the loop keep the threads.  Loops
  whose steps are large products (the KSVM active set's blocks of ``K^2`` columns,
  the IndefiniteSVM iterations) are faster on the threads from a few hundred
  objects and are left to them.

The policy, one name per idea across the command line (``--blas-threads``), the
Python API (``blas_threads=``) and the environment (``KREIN_BLAS_THREADS``):

* ``"auto"`` (default): the two rules above; everything else runs with the
  library's default (in a joblib worker, the share of the cores joblib gives each
  worker);
* a positive integer ``k``: every fit with at most ``k`` threads (loops included);
* ``"default"``: leave the BLAS libraries alone (loops included).

The runner (:func:`krein.experiment.run_experiment`) sets the policy around each
cell in whatever process runs it (serial, joblib or Dask worker), and a cell
applies it to its fits with :func:`fit_threads` once it knows the kernel's size.
Every estimator's ``fit`` applies it too (:func:`krein._fitting.fit_wrapper`), on
the number of rows it is given, so that a small problem fitted from a script, a
notebook or ``GridSearchCV`` does not pay for spinning threads.  Outside a
:func:`blas_policy` block the policy is ``$KREIN_BLAS_THREADS``, else ``"auto"``;
``krein.blas_threads(policy)`` (:func:`blas_threads`) sets it for a block of code.
The solver loops apply :func:`loop_threads` themselves, so a solver called directly
(``krein.solvers.dca``, say) follows the policy too.

Thread limits are process-wide (threadpoolctl), so a loop limits them only on the
main thread: fits run on threads of one process (one-vs-one pairs,
:func:`krein.estimators.base.fit_pairs`) share the cores under the limit their
caller set, and a loop on one of them leaves it alone.
"""

from __future__ import annotations

import contextlib
import functools
import numbers
import os
import threading

from ._validation import InvalidArgument

__all__ = ["SMALL_KERNEL", "LOOP_KERNEL", "ENV_VAR", "check_blas_threads", "resolve_blas_threads",
           "threads_for", "blas_threads", "blas_policy", "fit_threads", "loop_threads",
           "loop_threads_of",
           "blas_controller"]

#: Kernels with at most this many objects are fitted with one BLAS thread under "auto":
#: about where one ``eigh`` stops being slower on two threads than on one
#: (``benchmarks/estimator_threads.py --eigh``; ``benchmarks/README.md``, "BLAS threads
#: of one fit from Python").
SMALL_KERNEL = 300

#: Solver loops on at most this many objects run with one BLAS thread under "auto"
#: (:func:`loop_threads`): the loops measured are faster on one thread at 1000
#: objects and on two at 3000 (the same benchmark).
LOOP_KERNEL = 2000

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


def _current(policy=None):
    """The validated ``policy``, or the one in force when None."""
    if policy is None:
        return _POLICY if _POLICY is not None else resolve_blas_threads()
    return check_blas_threads(policy)


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
    policy = _current(policy)
    if policy == "default":
        return None
    if policy == "auto":
        return 1 if n_samples <= SMALL_KERNEL else None
    return policy


@contextlib.contextmanager
def blas_threads(policy):
    """Set the BLAS-thread policy of every fit in the block (``krein.blas_threads``).

    Every estimator's ``fit`` limits the BLAS threads by the number of rows it
    is given (:func:`fit_threads`), and every solver loop by the size of its
    steps (:func:`loop_threads`): under ``"auto"`` (the default) one thread on
    at most 300 rows and in loops on at most 2000, where threaded BLAS only
    spins, and the libraries' threads elsewhere.  ``"default"`` leaves the
    libraries' threads everywhere; an integer ``k`` caps them at ``k``.

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


@contextlib.contextmanager
def loop_threads(n_rows, up_to=None):
    """One BLAS thread for a solver loop whose steps are small (policy ``"auto"``).

    A loop that multiplies by the kernel and takes small steps between the
    products (an active set, a projected gradient, a Newton-CG, a Lanczos
    iteration) is slowed by threaded BLAS up to a few thousand objects: each
    call wakes the threads for too little work (``benchmarks/estimator_threads.py``).
    Under any other policy (``"default"``, an integer) the block is left as the
    caller set it, and so it is off the main thread (module docstring).

    Parameters
    ----------
    n_rows : int
        Rows of the largest matrix one step of the loop multiplies (the
        kernel's ``n``; the size of the block for steps on a block).
    up_to : int, optional
        The largest ``n_rows`` limited to one thread; default :data:`LOOP_KERNEL`.

    Yields
    ------
    int or None
        1 when the block runs on one thread, None when it is left alone.
    """
    limit = (None if n_rows > (LOOP_KERNEL if up_to is None else up_to)
             or _current() != "auto"
             or threading.current_thread() is not threading.main_thread() else 1)
    if limit is None:
        yield None
        return
    with blas_controller().limit(limits=1, user_api="blas"):
        yield 1


def loop_threads_of(rows):
    """Decorator: run a solver under :func:`loop_threads` for the rows of its input.

    Parameters
    ----------
    rows : callable
        ``rows(*args, **kwargs) -> int``: the ``n_rows`` of :func:`loop_threads`
        from the solver's arguments (before they are validated: it returns 0 when
        they have no length, and the solver's own checks then raise).

    Returns
    -------
    callable
        The decorator; the decorated function keeps its name, docstring and
        signature.
    """
    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            try:
                n = int(rows(*args, **kwargs))
            except (TypeError, ValueError, IndexError, AttributeError):
                n = 0
            with loop_threads(n):
                return func(*args, **kwargs)
        return wrapper
    return decorate
