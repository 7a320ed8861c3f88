"""Input checks shared by the whole package (clear errors naming the argument)."""

from __future__ import annotations

import numbers

import numpy as np

#: Relative tolerance under which an asymmetric kernel matrix is symmetrized.
SYMMETRY_RTOL = 1e-8


def check_square_kernel(K, name="K", sym_rtol=SYMMETRY_RTOL, copy=False):
    """Validate a square, finite, (numerically) symmetric kernel matrix.

    A matrix whose asymmetry ``max |K - K'|`` is at most
    ``sym_rtol * max(1, max |K|)`` is symmetrized as ``(K + K') / 2``; a larger
    asymmetry is an error rather than silently repaired: an asymmetric "kernel"
    is usually the wrong matrix (e.g. test-vs-train rows), and the user can
    symmetrize it explicitly, e.g. ``(K + K.T) / 2``, if that is what is meant.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Kernel (Gram) matrix, possibly indefinite.
    name : str, default="K"
        Argument name used in error messages.
    sym_rtol : float, default=SYMMETRY_RTOL
        Relative symmetry tolerance.
    copy : bool, default=False
        Always return a new array.

    Returns
    -------
    K : ndarray of shape (n, n)
        The matrix as float64, exactly symmetric.

    Raises
    ------
    ValueError
        If ``K`` is not 2-D square, has NaN/inf, entries out of range
        (:func:`check_kernel_range`), or is asymmetric beyond tolerance.
    """
    K = np.array(K, dtype=float, copy=copy) if copy else np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) matrix; got shape {K.shape}")
    if K.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(K)):
        raise ValueError(f"{name} contains NaN or inf")
    check_kernel_range(K, name)
    asym = np.max(np.abs(K - K.T))
    if asym > 0:
        scale = max(1.0, float(np.max(np.abs(K))))
        if asym > sym_rtol * scale:
            raise ValueError(
                f"{name} is not symmetric: max |{name} - {name}'| = {asym:.3g} exceeds the "
                f"tolerance {sym_rtol:g} * max(1, max|{name}|) = {sym_rtol * scale:.3g}; "
                "symmetrize it yourself, e.g. (K + K.T) / 2, if that is what you mean"
            )
        K = 0.5 * (K + K.T)
    return K


#: Entries above this size have a square that overflows float64 (``K K``, ``|lam|^2``,
#: ``||K||_F^2``): no method can use such a kernel.
MAX_KERNEL_ENTRY = float(np.sqrt(np.finfo(float).max)) / 16.0

#: Largest accepted ratio ``max |K| / median |K_ij|`` (nonzero entries): beyond
#: ``1 / eps`` the typical entries are below the rounding of the largest one in every
#: sum that contains it, and a method returns a constant classifier without an error.
MAX_KERNEL_RANGE = 1.0 / np.finfo(float).eps

def check_kernel_range(K, name="K"):
    """Refuse a finite kernel that no method can use: overflowing entries, or a
    dynamic range that destroys the other entries.

    Two checks, both on the magnitudes only (a kernel scaled by any ``s`` in
    ``[1e-100, 1e100]`` passes):

    * ``max |K| <= MAX_KERNEL_ENTRY`` (``sqrt`` of the largest double over 16): the
      products ``K K``, ``|lam|^2`` and ``||K||_F^2`` of the methods stay finite;
    * ``max |K| / median_i max_j |K_ij| <= 1 / eps`` (rows of zeros left out): the
      largest entry against the typical row's largest entry (a row maximum, not the
      median entry: a Gaussian kernel close to the identity has tiny typical entries
      and is fine).  One entry of ``1e300`` among entries of order one turned nine
      methods into constant classifiers without an error or a warning.

    Parameters
    ----------
    K : ndarray
        Finite kernel matrix or block.
    name : str, default="K"
        Argument name used in error messages.

    Raises
    ------
    ValueError
        Naming ``name``, the largest entry and the failed bound.
    """
    K = np.asarray(K)
    if K.size == 0:
        return
    big = float(np.max(np.abs(K)))
    if big > MAX_KERNEL_ENTRY:
        raise ValueError(
            f"{name} has an entry of magnitude {big:.3g}, above {MAX_KERNEL_ENTRY:.3g}: its "
            "square overflows float64; rescale the kernel (e.g. divide it by its largest "
            "entry) or remove the offending entries")
    if K.ndim != 2:
        return
    rows = np.maximum(np.max(K, axis=1), -np.min(K, axis=1))   # max_j |K_ij|, no copy of K
    rows = rows[rows > 0]
    if rows.size == 0:
        return
    typical = float(np.median(rows))
    if big > MAX_KERNEL_RANGE * typical:
        raise ValueError(
            f"{name} has an entry of magnitude {big:.3g} against a median row scale "
            f"(max_j |{name}_ij|) of {typical:.3g}: a ratio above 1/eps = "
            f"{MAX_KERNEL_RANGE:.3g} leaves the other rows below its rounding; check the "
            "offending entries (e.g. a missing value coded as a huge number)")


def check_kernel_rows(K_rows, n_train, name="K"):
    """Validate an ``(m, n_train)`` matrix of kernel values between new and training points.

    Parameters
    ----------
    K_rows : array-like of shape (m, n_train)
        Kernel values ``k(x, X)`` of ``m`` new points against the training points.
    n_train : int
        Number of training points the model was fitted on.
    name : str, default="K"
        Argument name used in error messages.

    Returns
    -------
    K_rows : ndarray of shape (m, n_train)
        The rows as float64.

    Raises
    ------
    ValueError
        On wrong dimension, wrong width or NaN/inf.
    """
    K_rows = np.asarray(K_rows, dtype=float)
    if K_rows.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (n_test, n_train) matrix; got shape {K_rows.shape}")
    if K_rows.shape[1] != n_train:
        raise ValueError(
            f"{name} has {K_rows.shape[1]} columns but the model was fitted on {n_train} "
            f"training points: pass the (n_test, {n_train}) kernel between test and training points"
        )
    if not np.all(np.isfinite(K_rows)):
        raise ValueError(f"{name} contains NaN or inf")
    return K_rows


def check_positive(value, name, allow_inf=False):
    """Check a positive real parameter.

    Parameters
    ----------
    value : object
        The value to check (``bool`` is rejected).
    name : str
        Argument name used in the error message.
    allow_inf : bool, default=False
        Accept ``inf`` (e.g. a hard-margin ``C``).

    Returns
    -------
    float
        ``float(value)``.

    Raises
    ------
    ValueError
        If ``value`` is not a real number > 0 (finite unless ``allow_inf``).
    """
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and value > 0
    ok = ok and (allow_inf or np.isfinite(value))
    if not ok:
        raise ValueError(f"{name} must be a positive finite number; got {value!r}")
    return float(value)


def check_binary_labels(y, name="y"):
    """Map two-class labels to ``{-1, +1}``.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels of any sortable type.
    name : str, default="y"
        Argument name used in the error message.

    Returns
    -------
    classes : ndarray of shape (2,)
        Sorted original labels; ``classes[1]`` becomes +1.
    y_pm : ndarray of shape (n,), float in {-1, +1}
        The labels mapped to +-1.

    Raises
    ------
    ValueError
        If there are not exactly two classes.
    """
    y = np.asarray(y)
    classes, y_idx = np.unique(y, return_inverse=True)
    if classes.size != 2:
        raise ValueError(f"{name} must have exactly 2 classes; got {classes.size} ({classes[:5]})")
    return classes, np.where(y_idx == 1, 1.0, -1.0)


def check_int(value, name, low=None, allow_minus_one=False):
    """Check an integer parameter (``max_iter`` style).

    Parameters
    ----------
    value : object
        The value to check (``bool`` is rejected).
    name : str
        Argument name used in the error message.
    low : int, optional
        Smallest accepted value; no bound when None.
    allow_minus_one : bool, default=False
        Also accept -1 (scikit-learn's "no limit").

    Returns
    -------
    int
        ``int(value)``.

    Raises
    ------
    ValueError
        If ``value`` is not an integer ``>= low`` (or -1 when allowed).
    """
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if ok and allow_minus_one and value == -1:
        return int(value)
    if not ok or (low is not None and value < low):
        raise ValueError(f"{name} must be an integer >= {low}" + (" or -1" if allow_minus_one else "")
                         + f"; got {value!r}")
    return int(value)


class InvalidArgument(ValueError):
    """A bad argument of a data, kernel or comparison function (one line, names the argument).

    The command-line interface maps ``argument`` to its option and prints the
    message on one line with exit status 2.

    Parameters
    ----------
    argument : str
        Name of the Python argument (``"dataset"``, ``"kernel"``, ``"C"``...).
    message : str
        What is wrong, with the accepted values.
    """

    def __init__(self, argument, message):
        super().__init__(f"{argument}: {message}")
        self.argument = argument
        self.message = message


# ---------------------------------------------------------------------------- parameter constraints
# The declarative checks of scikit-learn (``_parameter_constraints`` + ``_fit_context``):
# the shared entries of the estimators' tables live here.
from numbers import Integral, Real  # noqa: E402

from sklearn.utils._param_validation import Interval, Options, StrOptions  # noqa: E402

class RealInterval(Interval):
    """scikit-learn's ``Interval`` over the reals, without ``True``/``False``."""

    def __init__(self, left, right, *, closed):
        super().__init__(Real, left, right, closed=closed)

    def is_satisfied_by(self, val):
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


#: ``C``, ``rho``...: a finite real number > 0.
POSITIVE = RealInterval(0, np.inf, closed="neither")
#: ``tol``-like: a finite real number >= 0.
NONNEGATIVE = RealInterval(0, np.inf, closed="left")
#: ``max_iter`` of libsvm: an integer >= 1, or -1 for no limit.
LIBSVM_MAX_ITER = [Interval(Integral, 1, None, closed="left"), Options(Integral, {-1})]
#: ``class_weight`` of every classifier with a box bound ``C``.
CLASS_WEIGHT = [dict, StrOptions({"balanced"}), None]
