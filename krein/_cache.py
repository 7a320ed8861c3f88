"""Shared computations: one eigendecomposition (and one kernel correction) per block.

The methods of one outer fold (``krein compare``, the paper experiments) run one
after the other on the SAME training block, and the inner cross-validation of
each method refits it on the same inner blocks for every ``C`` of its grid.  The
spectrum-based methods, the diagnostics columns and the kernel corrections would
then recompute identical eigendecompositions and corrections many times.  This
module is the one store where such computations are kept and found again.

* Entries are keyed by the CONTENT of the input arrays (:func:`content_key`: a
  BLAKE2b digest of the C-contiguous bytes, the shape and the dtype) plus a tag
  that says what was computed and with which parameters.  Two equal matrices
  share an entry, whoever built them; two blocks that differ in one entry do not.
* The store is used only while a :func:`shared_computations` context is active
  (in the current thread).  Outside one, :func:`cached` just calls its function:
  nothing is stored, nothing is looked up, behaviour is exactly that of the
  uncached code.
* Entries persist between contexts in the same process (the methods of a fold run
  in separate cells), bounded by ``max_bytes`` (default 1 GiB,
  :func:`set_shared_computations_limit`) with least-recently-used eviction;
  :func:`clear_shared_computations` empties the store.
* Arrays stored in the cache (alone, or inside tuples, lists and dicts) are made
  read-only (``flags.writeable = False``): a caller that modifies one in place
  gets a ``ValueError`` instead of silently corrupting the results of the
  methods that come after it.

This is the ground floor: it imports only NumPy and the standard library.
"""

from __future__ import annotations

import collections
import functools
import hashlib
import pickle
import threading
import warnings

import numpy as np

__all__ = ["shared_computations", "shared_computations_active", "clear_shared_computations",
           "set_shared_computations_limit", "shared_computations_info", "content_key",
           "cached", "shared_eigh", "parameters_token"]

#: Tag of the full eigendecomposition (``numpy.linalg.eigh``) in the store.
EIGH = ("eigh",)

#: Default bound of the store (bytes of the arrays it holds).
DEFAULT_MAX_BYTES = 1 << 30

#: Bytes counted for an entry besides its arrays (keys, small Python objects).
_ENTRY_OVERHEAD = 256


class _Store:
    """The process-global LRU store (thread-safe; computations run outside the lock)."""

    def __init__(self, max_bytes=DEFAULT_MAX_BYTES):
        self.entries = collections.OrderedDict()   # key -> (value, nbytes)
        self.nbytes = 0
        self.max_bytes = int(max_bytes)
        self.hits = 0
        self.misses = 0
        self.evictions = 0
        self.lock = threading.RLock()

    def get(self, key):
        with self.lock:
            item = self.entries.get(key)
            if item is None:
                self.misses += 1
                return False, None
            self.entries.move_to_end(key)
            self.hits += 1
            return True, item[0]

    def put(self, key, value, nbytes):
        with self.lock:
            old = self.entries.pop(key, None)
            if old is not None:
                self.nbytes -= old[1]
            if nbytes > self.max_bytes:
                return False
            self.entries[key] = (value, nbytes)
            self.nbytes += nbytes
            self._evict()
            return True

    def _evict(self):
        while self.nbytes > self.max_bytes and self.entries:
            _, (_, nb) = self.entries.popitem(last=False)
            self.nbytes -= nb
            self.evictions += 1

    def clear(self):
        with self.lock:
            self.entries.clear()
            self.nbytes = 0
            self.hits = self.misses = self.evictions = 0


_STORE = _Store()
_STATE = threading.local()


def _depth():
    return getattr(_STATE, "depth", 0)


class _SharedComputations:
    """Context manager and decorator returned by :func:`shared_computations`."""

    def __enter__(self):
        _STATE.depth = _depth() + 1
        return self

    def __exit__(self, *exc):
        _STATE.depth = max(_depth() - 1, 0)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with _SharedComputations():
                return func(*args, **kwargs)

        return wrapper


def shared_computations(func=None):
    """Share eigendecompositions and kernel corrections while active (context or decorator).

    Inside the context, :func:`cached` computations (the full eigendecomposition
    of :meth:`krein.spectrum.Spectrum.from_kernel`, the least eigenvalue of the
    estimators' diagnostics, the corrections of
    :class:`krein.estimators.CorrectedKernelSVC`) are looked up by the content
    of their input before they are computed, and stored after.  Contexts nest
    (reentrant) and are per thread; the store is per process and outlives the
    context (module docstring).

    Parameters
    ----------
    func : callable, optional
        When given (``@shared_computations`` without parentheses), the function
        is decorated: every call runs inside the context.

    Returns
    -------
    context or callable
        Without ``func``: an object usable as ``with shared_computations():``
        and as a decorator ``@shared_computations()``.  With ``func``: the
        decorated function.

    Examples
    --------
    >>> import numpy as np
    >>> from krein.spectrum import Spectrum
    >>> K = np.array([[2.0, 1.0], [1.0, -1.0]])
    >>> with shared_computations():
    ...     a = Spectrum.from_kernel(K)
    ...     b = Spectrum.from_kernel(K.copy())     # same content: no second eigh
    >>> a.eigenvectors is b.eigenvectors
    True
    """
    ctx = _SharedComputations()
    if func is None:
        return ctx
    if not callable(func):
        raise TypeError(f"shared_computations takes a function to decorate or nothing; "
                        f"got {func!r}")
    return ctx(func)


def shared_computations_active():
    """Whether a :func:`shared_computations` context is active in this thread.

    Returns
    -------
    bool
        True inside at least one context.
    """
    return _depth() > 0


def clear_shared_computations():
    """Empty the store of shared computations (and reset its counters).

    Returns
    -------
    None
    """
    _STORE.clear()


def set_shared_computations_limit(max_bytes=DEFAULT_MAX_BYTES):
    """Set the bound of the store in bytes; evicts least recently used entries above it.

    Parameters
    ----------
    max_bytes : int >= 0
        The most bytes of arrays the store keeps (default 1 GiB).  An entry
        larger than the bound is computed but not kept.

    Returns
    -------
    int
        The previous bound.

    Raises
    ------
    ValueError
        For a negative or non-integer ``max_bytes``.
    """
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, np.integer)) \
            or max_bytes < 0:
        raise ValueError(f"max_bytes must be an integer >= 0; got {max_bytes!r}")
    with _STORE.lock:
        old = _STORE.max_bytes
        _STORE.max_bytes = int(max_bytes)
        _STORE._evict()
    return old


def shared_computations_info():
    """State of the store: entries, bytes, bound, hits, misses, evictions, active.

    Returns
    -------
    dict
        ``entries`` (count), ``nbytes`` (bytes held), ``max_bytes``, ``hits``,
        ``misses``, ``evictions`` (since the last clear), ``active`` (this
        thread is inside a context) and ``tags`` (the tag of each entry, least
        recently used first).
    """
    with _STORE.lock:
        return {"entries": len(_STORE.entries), "nbytes": _STORE.nbytes,
                "max_bytes": _STORE.max_bytes, "hits": _STORE.hits, "misses": _STORE.misses,
                "evictions": _STORE.evictions, "active": shared_computations_active(),
                "tags": [k[0] for k in _STORE.entries]}


# ----------------------------------------------------------------------------- keys
def content_key(a):
    """Digest of an array's content: shape, dtype and C-contiguous bytes (BLAKE2b).

    Parameters
    ----------
    a : array-like
        Any array (object arrays are pickled).

    Returns
    -------
    str
        32 hexadecimal digits; equal for arrays of equal shape, dtype and values
        whatever their memory layout, different (up to a negligible collision
        probability) otherwise.
    """
    a = np.asarray(a)
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((a.shape, a.dtype.str)).encode())
    if a.dtype.hasobject:
        h.update(pickle.dumps(a.tolist(), protocol=4))
    else:
        h.update(memoryview(np.ascontiguousarray(a)).cast("B"))
    return h.hexdigest()


# ----------------------------------------------------------------------------- values
def _freeze(value):
    """Make the arrays of a value read-only (arrays, and inside tuples, lists, dicts)."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, (tuple, list)):
        for v in value:
            _freeze(v)
    elif isinstance(value, dict):
        for v in value.values():
            _freeze(v)
    return value


def _nbytes(value, seen=None, depth=0):
    """Bytes of the arrays reachable from a value (each array once; a few levels deep)."""
    if seen is None:
        seen = set()
    if id(value) in seen or depth > 6:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, (str, bytes, int, float, complex, bool)) or value is None:
        return 0
    if isinstance(value, (tuple, list, set, frozenset)):
        return sum(_nbytes(v, seen, depth + 1) for v in value)
    if isinstance(value, dict):
        return sum(_nbytes(v, seen, depth + 1) for v in value.values())
    usage = getattr(value, "memory_usage", None)   # pandas objects
    if callable(usage) and hasattr(value, "to_numpy"):
        try:
            return int(np.sum(usage(deep=True)))
        except Exception:  # pragma: no cover - defensive
            return 0
    fields = getattr(value, "__dict__", None)
    if isinstance(fields, dict):
        return sum(_nbytes(v, seen, depth + 1) for v in fields.values())
    return 0


def _replay(records):
    for w in records:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


def cached(tag, inputs, compute, *, record_warnings=False):
    """``compute()``, looked up first and stored after when a context is active.

    Parameters
    ----------
    tag : hashable
        What is computed, with every parameter that changes the result, e.g.
        ``("eigh",)`` or ``("correction", "NearestPSD", params)``.
    inputs : array-like or sequence of array-like
        The arrays the result depends on; their content (:func:`content_key`)
        completes the key.  A tuple or list is a sequence of inputs.
    compute : callable
        ``compute() -> value``, called on a miss (and always outside a context).
    record_warnings : bool
        Record the warnings ``compute`` emits and emit them again on every hit,
        so that a cached computation warns as the uncached one would.

    Returns
    -------
    object
        The value; on a hit the stored object itself, whose arrays are
        read-only (copy before modifying them).
    """
    if not shared_computations_active():
        return compute()
    if not isinstance(inputs, (tuple, list)):
        inputs = (inputs,)
    key = (tag, tuple(content_key(a) for a in inputs))
    found, item = _STORE.get(key)
    if found:
        value, records = item
        _replay(records)
        return value
    if record_warnings:
        records = []
        try:
            with warnings.catch_warnings(record=True) as records:
                warnings.simplefilter("always")
                value = compute()
        finally:   # emitted as the computation emitted them, even when it raised
            _replay(records)
    else:
        value, records = compute(), []
    _freeze(value)
    _STORE.put(key, (value, list(records)), _nbytes(value) + _ENTRY_OVERHEAD)
    return value


def shared_eigh(K):
    """``numpy.linalg.eigh(K)``, shared through the store while a context is active.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric matrix (as ``numpy.linalg.eigh`` reads it: lower triangle).

    Returns
    -------
    eigenvalues : ndarray of shape (n,)
        Ascending; read-only when it comes from the store.
    eigenvectors : ndarray of shape (n, n)
        Orthonormal columns; read-only when it comes from the store.
    """
    return cached(EIGH, K, lambda: tuple(np.linalg.eigh(K)))


class _Uncacheable(Exception):
    """A parameter value whose identity or state a key cannot capture."""


def _token(v):
    if isinstance(v, np.ndarray):
        return ("ndarray", content_key(v))
    if isinstance(v, (np.random.RandomState, np.random.Generator)):
        raise _Uncacheable("a random generator changes state with every use")
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(_token(x) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple(sorted((repr(k), _token(x)) for k, x in v.items())))
    if hasattr(v, "get_params") and not isinstance(v, type):
        return ("estimator", type(v).__module__, type(v).__qualname__,
                _token(v.get_params(deep=False)))
    text = repr(v)
    if " at 0x" in text or (callable(v) and not isinstance(v, type)):
        raise _Uncacheable("a value known only by its address (a function, an object)")
    return text


def parameters_token(estimator):
    """A hashable token of an estimator's class and parameters, or None when it has none.

    Parameters
    ----------
    estimator : object with ``get_params``
        E.g. a kernel-correction transformer.

    Returns
    -------
    tuple or None
        ``(module, class name, sorted (name, value token) pairs of
        get_params(deep=True))``: arrays by content (:func:`content_key`),
        nested estimators by their own parameters, other values by ``repr``.
        None when a value cannot be captured in a key: a random generator
        (its state changes with every use), a function or an object known only
        by its address; such an estimator is then not shared.
    """
    try:
        params = estimator.get_params(deep=True)
        items = tuple(sorted((str(k), _token(v)) for k, v in params.items()))
    except _Uncacheable:
        return None
    cls = type(estimator)
    return (cls.__module__, cls.__qualname__, items)
