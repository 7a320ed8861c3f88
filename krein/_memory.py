"""Memory checked before it is spent: the size of a dense kernel against what is available.

An exact method forms the ``n x n`` kernel (and its eigenvectors, and a working copy):
at ``n = 60 000`` that is 27 GiB per array.  Allocating it on a machine that lacks the
memory either raises ``MemoryError`` deep inside NumPy or, worse, succeeds and lets the
operating system kill the process later.  :func:`check_dense` compares the size of such
an array, times :data:`DENSE_COPIES`, with :func:`available_memory` BEFORE anything is
allocated, and raises :class:`MemoryBudgetError` (one line: the size, what is available,
and the remedy) when it does not fit.

The memory available is the least of

* the system's ``MemAvailable`` (``/proc/meminfo``; ``os.sysconf`` elsewhere),
* the room left under a cgroup (v2) memory limit (``memory.max - memory.current``),
* the room left under an address-space limit (``RLIMIT_AS`` minus the process's
  ``VmSize``),
* the budget set by the environment variable ``KREIN_MEMORY_BUDGET`` (bytes, or with a
  suffix ``K``, ``M``, ``G``, ``T``: ``KREIN_MEMORY_BUDGET=4G``),
* the budget of a :func:`memory_budget` block (``krein compare --memory 4G``),

and unknown (no check) when none of them can be read.
"""

from __future__ import annotations

import contextlib
import os
import re

__all__ = ["DENSE_COPIES", "MEMORY_BUDGET_ENV", "MemoryBudgetError", "available_memory",
           "check_dense", "dense_bytes", "format_bytes", "memory_budget", "parse_bytes"]

#: Arrays of the dense kernel's size that an exact fit holds at once: the kernel, its
#: eigenvectors (or a corrected copy) and one working array of LAPACK or of a product.
DENSE_COPIES = 3

#: The environment variable that caps the memory krein plans to use, in bytes or with a
#: suffix K, M, G, T (powers of 1024).
MEMORY_BUDGET_ENV = "KREIN_MEMORY_BUDGET"

_SUFFIX = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}

#: The budget of the innermost :func:`memory_budget` block (bytes), or None.
_BUDGET = None


class MemoryBudgetError(ValueError):
    """A dense array that would not fit in the memory available (:func:`check_dense`).

    Parameters
    ----------
    message : str
        One line: what was to be formed, its size, the memory available and the remedy.
    needed : int
        Bytes the computation would hold.
    available : int
        Bytes available (:func:`available_memory`).
    """

    def __init__(self, message, needed, available):
        super().__init__(message)
        self.needed = int(needed)
        self.available = int(available)


def parse_bytes(text, name=MEMORY_BUDGET_ENV):
    """Bytes from ``"123"``, ``"512M"``, ``"4G"``, ``"1.5T"`` (powers of 1024).

    Parameters
    ----------
    text : str
        A non-negative number with an optional suffix ``K``, ``M``, ``G`` or ``T``
        (and an optional ``B`` or ``iB`` after it), case-insensitive.
    name : str, default=MEMORY_BUDGET_ENV
        What holds the text, for the message.

    Returns
    -------
    int
        The number of bytes.

    Raises
    ------
    ValueError
        When ``text`` is not of that form.
    """
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([KMGT]?)(?:I?B)?\s*", str(text),
                         flags=re.IGNORECASE)
    if match is None:
        raise ValueError(f"{name} must be a number of bytes with an optional "
                         f"suffix K, M, G or T (e.g. 4G); got {text!r}")
    return int(float(match.group(1)) * _SUFFIX[match.group(2).upper()])


def format_bytes(n):
    """``n`` bytes as a short text in powers of 1024 (``"26.8 GiB"``).

    Parameters
    ----------
    n : int or float
        A number of bytes.

    Returns
    -------
    str
    """
    for unit, size in (("TiB", 1024 ** 4), ("GiB", 1024 ** 3), ("MiB", 1024 ** 2),
                       ("KiB", 1024)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"


def _meminfo_available():
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


def _read_int(path):
    try:
        with open(path, encoding="ascii") as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _cgroup_room():
    limit = _read_int("/sys/fs/cgroup/memory.max")
    used = _read_int("/sys/fs/cgroup/memory.current")
    if limit is None or used is None:
        return None
    return max(limit - used, 0)


def _address_space_room():
    try:
        import resource
    except ImportError:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    size = 0
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    size = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    return max(soft - size, 0)


def available_memory():
    """Bytes this process may still allocate, or None when nothing tells (module docstring).

    Returns
    -------
    int or None
        The least of the system's available memory, the room under a cgroup limit,
        the room under an address-space limit, ``KREIN_MEMORY_BUDGET`` and the budget
        of the enclosing :func:`memory_budget` block.

    Raises
    ------
    ValueError
        When ``KREIN_MEMORY_BUDGET`` is set but not a number of bytes (:func:`parse_bytes`).
    """
    bounds = [_meminfo_available(), _cgroup_room(), _address_space_room()]
    budget = os.environ.get(MEMORY_BUDGET_ENV, "").strip()
    if budget:
        bounds.append(parse_bytes(budget))
    if _BUDGET is not None:
        bounds.append(_BUDGET)
    bounds = [b for b in bounds if b is not None]
    return min(bounds) if bounds else None


@contextlib.contextmanager
def memory_budget(nbytes):
    """Cap :func:`available_memory` at ``nbytes`` inside a ``with`` block (this process).

    Parameters
    ----------
    nbytes : int or None
        The budget in bytes; None leaves the memory available as it is.

    Yields
    ------
    None
    """
    global _BUDGET
    previous = _BUDGET
    _BUDGET = None if nbytes is None else int(nbytes)
    try:
        yield
    finally:
        _BUDGET = previous


def dense_bytes(n_rows, n_cols, copies=DENSE_COPIES):
    """Bytes of ``copies`` float64 arrays of shape ``(n_rows, n_cols)``.

    Parameters
    ----------
    n_rows, n_cols : int
        The array's shape.
    copies : int, default=DENSE_COPIES
        How many such arrays are held at once.

    Returns
    -------
    int
    """
    return 8 * int(n_rows) * int(n_cols) * int(copies)


def check_dense(n_rows, n_cols, *, what, remedy, copies=DENSE_COPIES):
    """Refuse, before allocating it, a dense array that does not fit in memory.

    Parameters
    ----------
    n_rows, n_cols : int
        Shape of the float64 array about to be formed (the kernel: ``n x n``; test
        rows: ``n_test x n``).
    what : str
        What the array is, for the message (e.g. ``"the kernel of this file"``).
    remedy : str
        What to do instead, for the message (the low-rank path, fewer objects).
    copies : int, default=DENSE_COPIES
        Arrays of that size held at once by the computation that follows.

    Returns
    -------
    int
        The bytes needed (``copies`` arrays), when they fit or nothing tells.

    Raises
    ------
    MemoryBudgetError
        When the bytes needed exceed :func:`available_memory`.
    """
    needed = dense_bytes(n_rows, n_cols, copies)
    available = available_memory()
    if available is not None and needed > available:
        raise MemoryBudgetError(
            f"{what} is {n_rows} x {n_cols}: an exact fit holds {copies} such arrays, "
            f"{format_bytes(needed)}, and {format_bytes(available)} of memory is available; "
            f"{remedy}", needed, available)
    return needed
