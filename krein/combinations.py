"""Kernel combinations of Munoz & de Diego (2006, "munoz") §4, and stacked kernel inputs.

Pick-out combination (munoz §4.1, after Munoz, Martin de Diego & Moguerza 2003)
-------------------------------------------------------------------------------
Given kernels ``K_1, ..., K_M`` on the same objects with labels ``y``::

    K*(x_i, x_j) = max_m K_m(x_i, x_j)   if y_i == y_j      (same class)
                   min_m K_m(x_i, x_j)   otherwise           (different classes)

:func:`pick_out` builds the square training block.  The result is symmetric but
in general indefinite even when every ``K_m`` is PSD (munoz Fig. 1; see
:func:`make_munoz_artificial <krein.datasets.make_munoz_artificial>` for the
measured deviation from Euclideanness).

Test rows (labels unknown)
^^^^^^^^^^^^^^^^^^^^^^^^^^
munoz does not say how the pick-out kernel is evaluated between a new point ``x``
and the training points; its definition needs the label of ``x``.  Using the true
test labels would leak them into the features (the test rows then encode the
answer: 0 % test error, ``experiments/README.md``, "Pick-out kernel rows").
:func:`pick_out_rows` offers:

* ``rule="mean"`` (default): the expected pick-out value when the label of ``x``
  is drawn uniformly from the ``c`` training classes,
  ``k*(x, x_i) = max_m k_m(x, x_i) / c + (1 - 1/c) min_m k_m(x, x_i)``.  For two
  classes this is the midpoint ``(max + min) / 2``, and with two kernels the
  midpoint is exactly the average kernel ``(k_1 + k_2) / 2`` (the AKM kernel).
  Because a kernel expansion ``f(x) = sum_i c_i k*(x, x_i) + b`` is linear in
  the row, this gives the average of the decision values under the ``c`` label
  hypotheses (each hypothesis ``y(x) = l`` puts ``max`` on the class-``l``
  columns and ``min`` elsewhere): no hypothesis is favoured.  Tested.
* ``rule="max"`` / ``rule="min"``: every test point treated as belonging to
  every class (resp. to none).  Both bias all test rows the same way; on the
  munoz artificial data their test errors are several times that of
  ``"mean"`` (the measurement is in ``experiments/README.md``, "Pick-out
  kernel rows"), which is why ``"mean"`` is the default.
* ``y_rows``: labels of the rows when they are legitimately known (e.g. the
  training rows themselves: then the rows equal the training block).

Projection kernels (munoz §4.1)
-------------------------------
"two kernels from the projections of the data set onto the coordinate axes":
:func:`projection_kernels` returns one kernel per coordinate, a kernel of the
1-D projections ``x_j``.  munoz does not name the kernel; the default is the
inner product of the projections, ``k_j(x, z) = x_j z_j`` (the linear kernel of
the projected data, the literal reading; the ``k_j`` then sum to the linear
kernel ``<x, z>``).  Any named kernel of :mod:`krein.kernels` may be used on the
single coordinates instead (e.g. ``"gaussian"``, for which the product of the
``k_j`` is the Gaussian kernel on ``x``).  See
:func:`krein.datasets.make_munoz_artificial` for the measured ``r_mm``/``r_neg``
of both choices against the paper's.

The kernel family of munoz §4.2 (Ionosphere)
--------------------------------------------
munoz §4.2 combines, on the Ionosphere data, ten RBF kernels
``K_m(x, z) = exp(-||x - z||^2 / c_m)`` with ``c_m = 10 + 5 (m - 1)``,
``m = 1..10`` (:data:`MUNOZ_IONOSPHERE_WIDTHS`), the linear kernel ``x'z`` and
the polynomial kernel ``(1 + x'z)^2``, each normalized as
``K(x, z) / sqrt(K(x, x) K(z, z))`` "to make comparable the different kernels
values".  :func:`munoz_ionosphere_kernels` returns these twelve normalized
kernels as one stack (the RBF kernels are already normalized, ``K(x, x) = 1``).
The paper combines them with its KWS method (a kernel weighting scheme using
labels and neighbourhoods, reference [9] of munoz) whose definition is not given
there; ``krein compare`` uses the pick-out combination of the twelve instead
(:mod:`krein.kernel_data`, kernel ``"pick-out-munoz-ionosphere"``), which is also
label-dependent and indefinite but NOT the paper's kernel (measured
indefiniteness in :func:`munoz_ionosphere_kernels`).

Stacked kernels
---------------
Methods that need several kernels on the same objects (the conformal linear
combination of munoz eq. 15 needs the indefinite ``K`` and the PSD ``K_m``; the
AKM baseline needs the ``K_m``) take ONE array of shape ``(n_rows, n_cols, 1 + M)``:
slice ``[:, :, 0]`` is the kernel ``K`` (the one to correct), slices ``1..M`` the
base kernels ``K_1..K_M`` on the same pairs of objects.  Such an array slices
like a kernel matrix along its first two axes, so scikit-learn's
cross-validation of a ``pairwise`` estimator (``X[np.ix_(test, train)]``) hands
each fold the right blocks of every kernel at once.  :func:`stack_kernels` builds
it, :func:`check_stacked_kernel` / :func:`check_stacked_rows` validate it.
Transformers and estimators that take such input set the class attribute
``accepts_stacked_kernels = True`` (read by :func:`accepts_stacked_kernels` and
by ``krein compare``).
"""

from __future__ import annotations

import numpy as np

from ._validation import check_square_kernel
from .kernels import gaussian_kernel, linear_kernel, pairwise_kernel

__all__ = [
    "pick_out",
    "pick_out_rows",
    "projection_kernels",
    "average_kernel",
    "stack_kernels",
    "check_stacked_kernel",
    "check_stacked_rows",
    "as_kernel_stack",
    "accepts_stacked_kernels",
    "PICK_OUT_RULES",
    "munoz_ionosphere_kernels",
    "MUNOZ_IONOSPHERE_WIDTHS",
]

#: Rules for pick-out rows of points with unknown labels (:func:`pick_out_rows`).
PICK_OUT_RULES = ("mean", "max", "min")


# --------------------------------------------------------------------------- stacks
def as_kernel_stack(kernels, name="kernels"):
    """Kernels on the same pairs of objects as one ``(n_rows, n_cols, M)`` array.

    Parameters
    ----------
    kernels : array-like of shape (n_rows, n_cols, M) or sequence of M (n_rows, n_cols) arrays
        The ``M`` kernel matrices, stacked along the last axis or listed.
    name : str, default="kernels"
        Argument name for error messages.

    Returns
    -------
    stack : ndarray of shape (n_rows, n_cols, M)
        The kernels as float64, ``stack[:, :, m]`` the ``m``-th one.

    Raises
    ------
    ValueError
        On an empty sequence, arrays of different shapes, a wrong number of
        dimensions, or NaN/inf.
    """
    if isinstance(kernels, np.ndarray) and kernels.ndim == 3:
        B = np.asarray(kernels, dtype=float)
    else:
        if isinstance(kernels, np.ndarray) and kernels.ndim != 3:
            raise ValueError(f"{name} must be an (n_rows, n_cols, M) array or a sequence of "
                             f"(n_rows, n_cols) matrices; got an array of shape {kernels.shape}")
        try:
            mats = [np.asarray(k, dtype=float) for k in kernels]
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be an (n_rows, n_cols, M) array or a sequence of "
                             f"(n_rows, n_cols) matrices; got {type(kernels).__name__}") from None
        if not mats:
            raise ValueError(f"{name} is empty: give at least one kernel matrix")
        shapes = {m.shape for m in mats}
        if len(shapes) != 1 or mats[0].ndim != 2:
            raise ValueError(f"{name}: every kernel must be a 2-D matrix of the same shape; "
                             f"got shapes {[m.shape for m in mats]}")
        B = np.stack(mats, axis=-1)
    if B.shape[2] == 0 or B.shape[0] == 0 or B.shape[1] == 0:
        raise ValueError(f"{name} is empty; got shape {B.shape}")
    if not np.all(np.isfinite(B)):
        raise ValueError(f"{name} contains NaN or inf")
    return B


def stack_kernels(K, kernels):
    """Stack a kernel and base kernels into one ``(n_rows, n_cols, 1 + M)`` array.

    Parameters
    ----------
    K : array of shape (n_rows, n_cols)
        The kernel (e.g. an indefinite combination) at slice 0.
    kernels : array of shape (n_rows, n_cols, M) or sequence of M such matrices
        Base kernels at slices ``1..M``.

    Returns
    -------
    stack : ndarray of shape (n_rows, n_cols, 1 + M)
        ``stack[:, :, 0] = K``, ``stack[:, :, m] = K_m`` for ``m = 1..M``.

    Raises
    ------
    ValueError
        On shape mismatch or NaN/inf.
    """
    K = np.asarray(K, dtype=float)
    B = as_kernel_stack(kernels)
    if K.ndim != 2 or K.shape != B.shape[:2]:
        raise ValueError(f"K must have the shape {B.shape[:2]} of the base kernels; got {K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError("K contains NaN or inf")
    return np.concatenate([K[:, :, None], B], axis=2)


def check_stacked_kernel(X, name="X"):
    """Validate a stacked training input ``(n, n, 1 + M)``; return ``(K, base)``.

    Every slice must be a square, finite, symmetric kernel matrix (symmetrized
    within :data:`krein._validation.SYMMETRY_RTOL`, as
    :func:`krein._validation.check_square_kernel`).

    Parameters
    ----------
    X : array-like of shape (n, n, 1 + M) with M >= 1, or a sequence ``[K, K_1, ..., K_M]``
        The stacked training kernel: slice 0 the kernel to correct, slices
        ``1..M`` the base kernels (:func:`stack_kernels`).
    name : str, default="X"
        Argument name for error messages.

    Returns
    -------
    K : ndarray of shape (n, n)
        Slice 0, symmetrized.
    base : ndarray of shape (n, n, M)
        Slices ``1..M``, symmetrized.

    Raises
    ------
    ValueError
        If ``X`` is not 3-D with at least two slices, not square, has NaN/inf,
        or a slice is asymmetric beyond tolerance.
    """
    if not (isinstance(X, np.ndarray) and X.ndim == 3) and not (
            isinstance(X, (list, tuple)) and len(X) > 0 and np.ndim(X[0]) == 2):
        shape = np.shape(X) if isinstance(X, np.ndarray) else type(X).__name__
        raise ValueError(
            f"{name} must be a stacked kernel of shape (n, n, 1 + M): slice 0 the kernel to "
            f"correct, slices 1..M the base kernels (krein.combinations.stack_kernels); "
            f"got {shape}")
    S = as_kernel_stack(X, name)
    if S.shape[2] < 2:
        raise ValueError(f"{name} must have at least two slices (the kernel and one base kernel); "
                         f"got shape {S.shape}")
    if S.shape[0] != S.shape[1]:
        raise ValueError(f"{name} must be square in its first two axes (n, n, 1 + M); "
                         f"got {S.shape}")
    slices = [check_square_kernel(S[:, :, j], f"{name}[:, :, {j}]") for j in range(S.shape[2])]
    return slices[0], np.stack(slices[1:], axis=-1)


def check_stacked_rows(X, n_train, depth, name="X"):
    """Validate stacked kernel rows ``(m, n_train, depth)``; return ``(K_rows, base_rows)``.

    Parameters
    ----------
    X : array-like of shape (m, n_train, depth)
        Stacked kernel rows of ``m`` new objects against the training objects.
    n_train : int
        Number of training points (columns).
    depth : int
        ``1 + M`` as in the training input.
    name : str, default="X"
        Argument name for error messages.

    Returns
    -------
    K_rows : ndarray of shape (m, n_train)
        Rows of the kernel to correct (slice 0).
    base_rows : ndarray of shape (m, n_train, depth - 1)
        Rows of the base kernels.

    Raises
    ------
    ValueError
        On a wrong shape or NaN/inf.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 3 or X.shape[1] != n_train or X.shape[2] != depth:
        raise ValueError(f"{name} must be stacked kernel rows of shape (m, {n_train}, {depth}) "
                         f"[kernel rows, then the {depth - 1} base kernels' rows against the "
                         f"training points]; got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or inf")
    return X[:, :, 0], X[:, :, 1:]


def accepts_stacked_kernels(obj):
    """Whether a transformer or estimator takes stacked ``(n, n, 1 + M)`` kernel input.

    Reads the attribute ``accepts_stacked_kernels`` (a class attribute of the
    transformers, a property of :class:`krein.estimators.corrected.CorrectedKernelSVC`);
    False when absent.

    Parameters
    ----------
    obj : object
        A transformer or estimator, class or instance.

    Returns
    -------
    bool
        True when ``obj`` takes stacked kernel input.
    """
    return bool(getattr(obj, "accepts_stacked_kernels", False))


# --------------------------------------------------------------------------- combinations
def average_kernel(kernels):
    """The average of kernels (AKM, Moguerza, Munoz & Martin de Diego 2004; munoz §4).

    Parameters
    ----------
    kernels : array-like of shape (n_rows, n_cols, M) or sequence of M matrices
        The kernels ``K_1..K_M`` on the same pairs of objects.

    Returns
    -------
    K : ndarray of shape (n_rows, n_cols)
        ``sum_m K_m / M``: PSD when every ``K_m`` is (a convex combination).
    """
    return as_kernel_stack(kernels).mean(axis=2)


def _check_labels(y, n, name):
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"{name} must be a 1-D array of {n} labels; got shape {y.shape}")
    return y


def pick_out(kernels, y):
    """Pick-out combination of kernels on the training objects (munoz §4.1).

    ``K*_ij = max_m (K_m)_ij`` when ``y_i == y_j``, else ``min_m (K_m)_ij``.

    Parameters
    ----------
    kernels : array-like of shape (n, n, M) or sequence of M symmetric (n, n) matrices
        The base kernels ``K_m`` on the training objects.
    y : array of shape (n,)
        Labels (any number of classes).

    Returns
    -------
    K : ndarray of shape (n, n)
        The pick-out kernel ``K*``. Symmetric; in general indefinite even for PSD ``K_m`` (module docstring).

    Raises
    ------
    ValueError
        If the kernels are not square, differ in shape, have NaN/inf, or ``y``
        does not have ``n`` labels.

    References
    ----------
    A. Munoz, I. Martin de Diego, J. M. Moguerza (2003), "Support vector machine
    classifiers for asymmetric proximities", ICANN, LNCS 2714; munoz §4.1.
    """
    B = as_kernel_stack(kernels)
    if B.shape[0] != B.shape[1]:
        raise ValueError(f"kernels must be square (n, n) matrices for the training block; got "
                         f"{B.shape[:2]} (use pick_out_rows for test rows)")
    y = _check_labels(y, B.shape[0], "y")
    same = y[:, None] == y[None, :]
    return np.where(same, B.max(axis=2), B.min(axis=2))


def pick_out_rows(kernels_rows, y_train, y_rows=None, *, rule="mean"):
    """Pick-out kernel rows between new objects and the training objects.

    Parameters
    ----------
    kernels_rows : array of shape (m, n, M) or sequence of M (m, n) matrices
        Base kernels between the ``m`` new objects (rows) and the ``n``
        training objects (columns).
    y_train : array of shape (n,)
        Training labels (the only labels used unless ``y_rows`` is given).
    y_rows : array of shape (m,), optional
        Labels of the rows when they are legitimately known; then the exact
        pick-out rule is applied and ``rule`` is ignored.
    rule : {"mean", "max", "min"}
        Value for rows of unknown label (module docstring): ``"mean"`` is
        ``max / c + (1 - 1/c) min`` with ``c`` the number of training classes
        (the midpoint for two classes).

    Returns
    -------
    K_rows : ndarray of shape (m, n)
        Pick-out kernel rows of the new objects against the training objects.

    Raises
    ------
    ValueError
        On an unknown ``rule``, label arrays of the wrong length, or bad kernels.
    """
    B = as_kernel_stack(kernels_rows, "kernels_rows")
    y_train = _check_labels(y_train, B.shape[1], "y_train")
    mx, mn = B.max(axis=2), B.min(axis=2)
    if y_rows is not None:
        y_rows = _check_labels(y_rows, B.shape[0], "y_rows")
        return np.where(y_rows[:, None] == y_train[None, :], mx, mn)
    if rule == "max":
        return mx
    if rule == "min":
        return mn
    if rule == "mean":
        c = np.unique(y_train).size
        return mx / c + (1.0 - 1.0 / c) * mn
    raise ValueError(f"rule must be one of {list(PICK_OUT_RULES)}; got {rule!r}")


def projection_kernels(X, Z=None, kernel="linear", kernel_params=None):
    """One kernel per coordinate axis: the kernel of the 1-D projections (munoz §4.1).

    ``(K)_[:, :, j] = k(x_j, z_j)`` with ``k`` a named kernel of
    :mod:`krein.kernels` evaluated on the single coordinate ``j``.  The default
    ``"linear"`` gives ``x_j z_j``, the inner product of the projections onto
    axis ``j`` (module docstring).

    Parameters
    ----------
    X : array-like of shape (n_x, d)
        Rows are the first arguments of the kernels.
    Z : array-like of shape (n_z, d), optional
        Rows are the second arguments; ``None`` (default) means ``Z = X``.
    kernel : str or callable
        A name from :data:`krein.kernels.KERNELS` or a callable ``k(A, B, **params)``
        on ``(., 1)`` arrays.
    kernel_params : dict, optional
        Parameters of ``kernel`` (e.g. ``{"gamma": 1.0}`` for ``"gaussian"``).

    Returns
    -------
    stack : ndarray of shape (n_x, n_z, d)
        ``stack[:, :, j]`` the kernel of the projections on axis ``j``.

    Raises
    ------
    ValueError
        On bad arrays, mismatched feature counts or an unknown kernel.
    """
    X = np.asarray(X, dtype=float)
    Zv = X if Z is None else np.asarray(Z, dtype=float)
    if X.ndim != 2 or Zv.ndim != 2 or X.shape[1] != Zv.shape[1]:
        raise ValueError(f"X and Z must be 2-D with the same number of features; got shapes "
                         f"{X.shape} and {Zv.shape}")
    if X.shape[1] == 0:
        raise ValueError("X has no features")
    out = np.empty((X.shape[0], Zv.shape[0], X.shape[1]))
    for j in range(X.shape[1]):
        out[:, :, j] = pairwise_kernel(kernel, X[:, j:j + 1], Zv[:, j:j + 1], kernel_params)
    return out


#: Widths ``c_m = 10 + 5 (m - 1)``, m = 1..10, of the RBF kernels
#: ``exp(-||x - z||^2 / c_m)`` of munoz §4.2.
MUNOZ_IONOSPHERE_WIDTHS = tuple(float(10 + 5 * (m - 1)) for m in range(1, 11))


def _normalized(K, diag_x, diag_z):
    """``K / sqrt(diag_x diag_z')``, with 0 where a diagonal entry is 0."""
    scale = np.sqrt(np.outer(diag_x, diag_z))
    out = np.zeros_like(K)
    np.divide(K, scale, out=out, where=scale > 0)
    return out


def munoz_ionosphere_kernels(X, Z=None, *, widths=MUNOZ_IONOSPHERE_WIDTHS, degree=2):
    """The normalized kernels that munoz §4.2 combines on Ionosphere, as one stack.

    Slices, in the paper's order:

    * ``0 .. len(widths) - 1``: ``exp(-||x - z||^2 / c_m)`` for ``c_m`` in
      ``widths`` (default :data:`MUNOZ_IONOSPHERE_WIDTHS`, ``10, 15, ..., 55``);
    * ``len(widths)``: the normalized linear kernel ``x'z / (||x|| ||z||)``
      (the cosine);
    * ``len(widths) + 1``: the normalized polynomial kernel
      ``(1 + x'z)^d / sqrt((1 + x'x)^d (1 + z'z)^d)`` with ``d = degree``.

    Every kernel is normalized as ``K(x, z) / sqrt(K(x, x) K(z, z))`` (munoz
    §4.2; a no-op for the RBF kernels).  The cosine with a zero vector is
    undefined; it is set to 0 (the convention of
    ``sklearn.preprocessing.normalize``: a zero vector stays zero), which keeps
    the normalized linear kernel the Gram matrix of the normalized vectors,
    hence PSD.  Each slice is PSD (a normalized PSD kernel is PSD).

    The paper combines these kernels with its KWS method, which it does not
    define (module docstring); :mod:`krein.kernel_data` combines them by pick-out
    (kernel ``"pick-out-munoz-ionosphere"``).  Measured on the raw Ionosphere
    features (``krein.datasets.load("ionosphere")``, 351 x 34), the pick-out of
    the twelve has 154 negative of 351 eigenvalues (43.9 %), ``r_mm = 4.1``,
    ``r_neg = 8.0`` (munoz eq. 2); on the training blocks of ten stratified
    60 % / 40 % splits (seeds 0..9) 41.4 +- 0.4 % negative eigenvalues,
    ``r_mm = 4.23 +- 0.39``, ``r_neg = 7.23 +- 0.35`` (mean +- s.d.; 210 training objects).  munoz
    reports for its KWS combination 19.0 % negative eigenvalues,
    ``r_mm = 3.2 +- 0.3``, ``r_neg = 4.6 +- 0.4``: the pick-out is more
    indefinite.  Note that the RBF kernels increase with ``c_m`` at every pair,
    so the pick-out can only ever select the narrowest (``c = 10``, as a
    minimum) or the widest (``c = 55``, as a maximum) of them; the eight in
    between never enter it, whatever the data (besides those two, the minimum
    is often the linear or polynomial kernel).

    Parameters
    ----------
    X : array-like of shape (n_x, d)
        Rows are the first arguments of the kernels.
    Z : array-like of shape (n_z, d), optional
        Rows are the second arguments; ``None`` (default) means ``Z = X``.
    widths : sequence of float > 0
        The RBF widths ``c_m`` (the divisor of the squared distance).
    degree : int >= 1
        Degree of the polynomial kernel.

    Returns
    -------
    stack : ndarray of shape (n_x, n_z, len(widths) + 2)
        The normalized kernels, in the slice order above.

    Raises
    ------
    ValueError
        On bad arrays (not 2-D, different feature counts, NaN/inf), a
        non-positive width or a bad degree.

    References
    ----------
    Munoz & de Diego (2006), §4.2.
    """
    X = np.asarray(X, dtype=float)
    Zv = X if Z is None else np.asarray(Z, dtype=float)
    G = linear_kernel(X, Zv)                          # validates X, Z
    try:
        widths = [float(c) for c in widths]
    except (TypeError, ValueError):
        raise ValueError(f"widths must be a sequence of positive numbers; got {widths!r}") from None
    if not widths or not all(np.isfinite(c) and c > 0 for c in widths):
        raise ValueError(f"widths must be a non-empty sequence of positive finite numbers; "
                         f"got {widths!r}")
    if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)) or degree < 1:
        raise ValueError(f"degree must be an integer >= 1; got {degree!r}")
    out = np.empty((X.shape[0], Zv.shape[0], len(widths) + 2))
    for m, c in enumerate(widths):
        out[:, :, m] = gaussian_kernel(X, Zv, gamma=1.0 / c)
    nx = np.einsum("ij,ij->i", X, X)
    nz = nx if Z is None else np.einsum("ij,ij->i", Zv, Zv)
    out[:, :, -2] = _normalized(G, nx, nz)
    out[:, :, -1] = _normalized((1.0 + G) ** degree, (1.0 + nx) ** degree, (1.0 + nz) ** degree)
    return out
