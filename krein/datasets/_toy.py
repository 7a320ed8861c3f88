"""Pseudo-Euclidean toy data of Haasdonk (2005), Figs. 1-3 and Lemma 4.

haasdonk §5 (after Prop. 3): "An easy way of obtaining such a feature space is by
directly assuming X = R^2 with the non-cpd kernel function
k(x, x') := x1 x1' - x2 x2'.  An isometric embedding then is interpreting x as
element of R^(1,1)."  :func:`pseudo_euclidean_kernel` is that kernel for any
signature, and the generators below give point sets in ``R^(1,1)`` (or
``R^(1,q)``) with the geometric situations of the paper's figures.  The figures'
exact coordinates are not published; the generators reproduce the *properties*
the text states, which the tests check.

Figures (real axis horizontal, imaginary axis vertical, as in the paper):

* :func:`make_pe_separable` -- Figs. 1a, 1b, 2a: separable classes side by side
  along the real axis; every point of one hull is at positive squared distance
  from every point of the other (the hypothesis of Lemma 5, so the CH/SVM
  solution is unique).
* :func:`make_pe_overlapping` -- Figs. 1c, 2b, 2c: overlapping hulls (the CH
  solution with ``mu = 1`` has ``w'Mw < 0``) but class means at positive squared
  distance (lowering ``mu`` or ``C`` gives ``w'Mw > 0``, haasdonk §7.3).
* :func:`make_pe_negative_means` -- Figs. 1d, 2d: every pair of training points
  at positive squared distance, yet the class means at negative squared distance,
  so every CH/SVM solution has ``w'Mw < 0`` (haasdonk §5, §7.3).
* :func:`make_pe_local_optima` -- Fig. 3 (``q = 1``) and the construction behind
  Lemma 4 (``R^(1,q)``, ``2^q`` local optima, all separating).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

__all__ = [
    "pseudo_euclidean_kernel",
    "make_pe_separable",
    "make_pe_overlapping",
    "make_pe_negative_means",
    "make_pe_local_optima",
]


def _check_int(value, name, low):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def _check_real(value, name, low=None, high=None, low_open=False):
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value)
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if ok and high is not None:
        ok = value < high
    if not ok:
        rng = f"in {'(' if low_open else '['}{low}, {high})" if high is not None else (
            f"{'>' if low_open else '>='} {low}" if low is not None else "finite")
        raise ValueError(f"{name} must be a real number {rng}; got {value!r}")
    return float(value)


def pseudo_euclidean_kernel(X, Z=None, p=1, q=None):
    """The pseudo-Euclidean inner product ``k(x, z) = x' M z``, ``M = diag(I_p, -I_q)``.

    For 2-D points and ``p = q = 1`` this is haasdonk's ``k(x, x') = x1 x1' - x2 x2'``
    (§5, Figs. 1-3): the points themselves are an isometric embedding in
    ``R^(p,q)``, so the CH/SVM solutions can be drawn in the plane.  Usable as an
    estimator kernel: ``kernel=pseudo_euclidean_kernel, kernel_params={"p": 1}``.

    Parameters
    ----------
    X : array-like of shape (n_x, d)
        Rows are points of ``R^(p,q)``, the first arguments of the kernel.
    Z : array-like of shape (n_z, d), optional
        Rows are the second arguments; ``None`` (default) means ``Z = X``.
    p : int >= 0
        Number of leading "real" (positive) coordinates.
    q : int >= 0, optional
        Number of trailing "imaginary" (negative) coordinates; default ``d - p``.
        ``p + q`` must equal ``d``.

    Returns
    -------
    K : ndarray of shape (n_x, n_z)
        ``K[i, j] = X[i]' M Z[j]``.

    Raises
    ------
    ValueError
        On non-2-D or non-finite input, mismatched feature counts, or ``p + q != d``.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array (n_samples, n_features); got shape {X.shape}")
    Z = X if Z is None else np.asarray(Z, dtype=float)
    if Z.ndim != 2 or Z.shape[1] != X.shape[1]:
        raise ValueError(f"Z must be a 2-D array with {X.shape[1]} features; got shape {Z.shape}")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(Z))):
        raise ValueError("X and Z must not contain NaN or inf")
    d = X.shape[1]
    p = _check_int(p, "p", 0)
    q = d - p if q is None else _check_int(q, "q", 0)
    if p + q != d:
        raise ValueError(f"p + q must equal the number of features {d}; got p={p}, q={q}")
    s = np.r_[np.ones(p), -np.ones(q)]
    return (X * s) @ Z.T


def _labels(n_pos, n_neg):
    return np.r_[np.ones(n_pos, dtype=np.int64), -np.ones(n_neg, dtype=np.int64)]


def make_pe_separable(n_samples=20, *, gap=2.0, width=1.0, height=0.6, random_state=None):
    """Separable classes in ``R^(1,1)`` (haasdonk Figs. 1a, 1b, 2a).

    Class +1 is uniform on the box ``[gap/2, gap/2 + width] x [-height/2, height/2]``,
    class -1 on its mirror image ``x1 -> -x1``.  With ``height < gap`` every vector
    from a point of one box to a point of the other has
    ``|dx1| >= gap > height >= |dx2|``, i.e. a positive squared pE distance: the
    hypothesis of Lemma 5 holds for the whole hulls, so CH-DU (``mu = 1``) has a
    unique stationary point, with ``w'Mw > 0``, and it separates the classes.

    Parameters
    ----------
    n_samples : int >= 4
        Total number of points (``n_samples // 2`` in class +1).
    gap : float > 0
        Horizontal distance between the boxes.
    width : float > 0
        Horizontal extent of each box.
    height : float in (0, gap)
        Vertical extent of each box.
    random_state : None, int or RandomState
        Seed or generator of the uniform/normal draws (scikit-learn's
        ``check_random_state``).

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        Points (real coordinate, imaginary coordinate).
    y : ndarray of shape (n_samples,), int64 in {-1, +1}
        Labels: the first ``n_samples // 2`` points are class +1.

    Raises
    ------
    ValueError
        On out-of-range arguments (the message names the argument).
    """
    n = _check_int(n_samples, "n_samples", 4)
    gap = _check_real(gap, "gap", 0.0, low_open=True)
    width = _check_real(width, "width", 0.0, low_open=True)
    height = _check_real(height, "height", 0.0, gap, low_open=True)
    rng = check_random_state(random_state)
    n_pos = n // 2
    x1 = gap / 2 + width * rng.uniform(size=n)
    x2 = height * (rng.uniform(size=n) - 0.5)
    y = _labels(n_pos, n - n_pos)
    X = np.column_stack([np.where(y > 0, x1, -x1), x2])
    return X, y


def make_pe_overlapping(n_samples=30, *, shift=1.5, spread=0.6, random_state=None):
    """Overlapping classes with positive class-mean distance (haasdonk Figs. 1c, 2b, 2c).

    Two isotropic Gaussian clouds in ``R^(1,1)`` with standard deviation ``spread``
    and means ``(+-shift/2, 0)``.  Their convex hulls overlap (for the defaults and
    ``n_samples >= 20``, with high probability), so the differences ``z+ - z-`` of
    hull points fill a neighbourhood of 0 that contains vectors of negative squared
    norm: CH-DU with ``mu = 1`` ends at ``w'Mw < 0`` (Fig. 1c).  The class means are
    about ``shift`` apart along the real axis (squared distance about
    ``shift^2 > 0``), so small ``mu`` (the class means themselves at
    ``mu = 1 / n_class``) gives ``w'Mw > 0`` (Fig. 2c, §7.3).

    Parameters
    ----------
    n_samples : int >= 4
        Total number of points (``n_samples // 2`` in class +1).
    shift : float > 0
        Distance of the two class centres along the real axis.
    spread : float > 0
        Standard deviation of each coordinate in both clouds.
    random_state : None, int or RandomState
        Seed or generator of the uniform/normal draws (scikit-learn's
        ``check_random_state``).

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        Points (real coordinate, imaginary coordinate).
    y : ndarray of shape (n_samples,), int64 in {-1, +1}
        Labels: the first ``n_samples // 2`` points are class +1.

    Raises
    ------
    ValueError
        On out-of-range arguments (the message names the argument).
    """
    n = _check_int(n_samples, "n_samples", 4)
    shift = _check_real(shift, "shift", 0.0, low_open=True)
    spread = _check_real(spread, "spread", 0.0, low_open=True)
    rng = check_random_state(random_state)
    n_pos = n // 2
    y = _labels(n_pos, n - n_pos)
    X = spread * rng.standard_normal(size=(n, 2))
    X[:, 0] += np.where(y > 0, shift / 2, -shift / 2)
    return X, y


def make_pe_negative_means(n_samples=16, *, height=0.6, jitter=0.05, random_state=None):
    """Positive pairwise distances, negative class-mean distance (haasdonk Figs. 1d, 2d).

    Points on a zig-zag: point ``i`` is at ``x1 = i``, labels repeat the pattern
    ``+, -, -, +`` and class +1 sits at height ``x2 = height``, class -1 at 0, each
    coordinate jittered uniformly by at most ``jitter``.  Any two points have
    ``|dx1| >= 1 - 2 jitter > height + 2 jitter >= |dx2|``: all pairwise squared pE
    distances are positive ("only positive squared distances between training
    objects", §5).  The pattern balances the classes along ``x1``, so the class
    means differ (up to the jitter) only vertically: their squared distance is
    about ``-height^2 < 0``, and then every CH/SVM solution has ``w'Mw < 0``
    (§7.3), whatever ``mu`` or ``C``.

    Parameters
    ----------
    n_samples : int >= 4, a multiple of 4
        Total number of points (the balance of the ``+, -, -, +`` pattern needs
        whole periods).
    height : float in (0, 1)
        Height ``x2`` of class +1 (class -1 is at 0).
    jitter : float >= 0 with ``height + 4 jitter < 1``
        Half-width of the uniform jitter added to each coordinate.
    random_state : None, int or RandomState
        Seed or generator of the uniform/normal draws (scikit-learn's
        ``check_random_state``).

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        Points (real coordinate, imaginary coordinate), point ``i`` near ``x1 = i``.
    y : ndarray of shape (n_samples,), int64 in {-1, +1}
        Labels in the repeated pattern ``+, -, -, +``.

    Raises
    ------
    ValueError
        If ``n_samples`` is not a multiple of 4 (or below 4), ``height`` is not
        in (0, 1), ``jitter < 0`` or ``height + 4 jitter >= 1``.
    """
    n = _check_int(n_samples, "n_samples", 4)
    if n % 4:
        raise ValueError(f"n_samples must be a multiple of 4 (the +,-,-,+ pattern); got {n}")
    height = _check_real(height, "height", 0.0, 1.0, low_open=True)
    jitter = _check_real(jitter, "jitter", 0.0)
    if not height + 4 * jitter < 1.0:
        raise ValueError(f"need height + 4 jitter < 1 for positive pairwise distances; got "
                         f"height={height}, jitter={jitter}")
    rng = check_random_state(random_state)
    i = np.arange(n)
    y = np.where(np.isin(i % 4, (0, 3)), 1, -1).astype(np.int64)
    X = np.column_stack([i.astype(float), np.where(y > 0, height, 0.0)])
    X += jitter * rng.uniform(-1.0, 1.0, size=X.shape)
    return X, y


def make_pe_local_optima(q=2, *, scale=None, offset=1.0):
    """Lemma 4's construction: ``2^q`` local optima of CH-DU / SVM-DU in ``R^(1,q)``.

    haasdonk Lemma 4 (proof omitted in the paper; "the multiple solutions z+ are
    located on the vertices of a square for q = 2, of a cube for q = 3").  The
    construction: one negative point at the origin and ``2^q`` positive points
    ``(offset, s * sigma)`` for all sign vectors ``sigma`` in ``{-1, +1}^q``.  With
    ``z+ = (offset, v)``, ``v`` in the cube ``[-s, s]^q``, the squared pE distance
    to ``z- = 0`` is ``offset^2 - ||v||^2``; its local minima over the cube are the
    ``2^q`` vertices (maxima of the convex ``||v||^2``), each a strict local minimum
    (strict complementarity holds: the gradient entries ``2 (offset^2 - s^2
    sigma_i' sigma)`` are strictly smallest at ``i = `` the vertex).  With
    ``q s^2 < offset^2`` each has ``w'Mw = offset^2 - q s^2 > 0`` and its plane
    separates the data: a positive point ``(offset, s tau)`` gets
    ``g = offset^2 - 2 s^2 tau'sigma + q s^2 >= offset^2 - q s^2 > 0`` and the
    origin ``-(offset^2 - q s^2) < 0``.  By Prop. 3, case 2 each maps to a local optimum
    of SVM-DU (hard margin), which is Lemma 4.  ``q = 1`` gives the two optima of
    Fig. 3.  The centered kernel has signature ``(1, q)`` (Prop. 1).

    The uniform ``alpha_bar`` (``v = 0``) is also stationary (the gradient is
    constant on the positive class) but it is the global *maximum* of the distance
    over the positive hull, not a local minimum.

    Parameters
    ----------
    q : int >= 1
        Number of imaginary dimensions.
    scale : float, optional
        ``s``; default ``0.5 offset / sqrt(q)`` (so ``w'Mw = 3/4 offset^2``).  Must
        satisfy ``0 < q s^2 < offset^2``.
    offset : float > 0
        Real coordinate of the positive points.

    Returns
    -------
    X : ndarray of shape (2^q + 1, 1 + q)
        Points; the last row is the negative point (the origin).
    y : ndarray of shape (2^q + 1,), int64 in {-1, +1}
        ``+1`` for the ``2^q`` cube vertices, ``-1`` for the origin.

    Raises
    ------
    ValueError
        If ``q < 1`` or ``q > 16``, or ``scale`` violates ``0 < q s^2 < offset^2``.
    """
    q = _check_int(q, "q", 1)
    if q > 16:
        raise ValueError(f"q must be <= 16 (2^q points); got {q}")
    offset = _check_real(offset, "offset", 0.0, low_open=True)
    s = 0.5 * offset / np.sqrt(q) if scale is None else _check_real(scale, "scale", 0.0, low_open=True)
    if not q * s * s < offset * offset:
        raise ValueError(f"scale must satisfy q scale^2 < offset^2 (w'Mw > 0); got scale={s}, "
                         f"q={q}, offset={offset}")
    signs = np.array(np.meshgrid(*([[-1.0, 1.0]] * q), indexing="ij")).reshape(q, -1).T
    pos = np.column_stack([np.full(2 ** q, offset), s * signs])
    X = np.vstack([pos, np.zeros((1, q + 1))])
    y = _labels(2 ** q, 1)
    return X, y
