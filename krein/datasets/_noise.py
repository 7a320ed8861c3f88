"""Noise generators for perturbed copies of feature data."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["add_uniform_noise"]


def add_uniform_noise(X, low=-1.0, high=1.0, *, feature_range=(0.0, 1.0), random_state=None):
    """Add uniform noise to every entry, then rescale all entries onto ``feature_range``.

    The noisy USPS data of Luss & d'Aspremont (2009), §5.2 and Table 3: "adding
    uniformly distributed noise in [-1, 1] to each pixel before normalizing to
    [0, 1]".  Every entry gets an independent draw from ``U[low, high]``; the
    result is then mapped affinely, with ONE minimum and maximum over the whole
    array (not per column or per row), onto ``feature_range``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite features (e.g. pixels in [-1, 1]).
    low, high : float, default=-1.0, 1.0
        Bounds of the noise, ``low <= high`` (``low == high``: a constant shift,
        so only the rescaling is left).
    feature_range : (float, float), default=(0.0, 1.0)
        ``(a, b)`` with ``a < b``: the range of the returned array.
    random_state : int, RandomState instance or None, default=None
        Seed of the noise draws (the same seed gives the same array).

    Returns
    -------
    X_noisy : ndarray of shape (n_samples, n_features)
        ``a + (b - a) (Z - min Z) / (max Z - min Z)`` with ``Z = X + E``,
        ``E[i, j] ~ U[low, high]`` independent; its minimum is ``a`` and its
        maximum ``b``.

    Raises
    ------
    ValueError
        If ``X`` is not a finite 2-D array, ``low > high``, the bounds are not
        finite, ``feature_range`` is not increasing, or ``Z`` is constant.

    Examples
    --------
    >>> import numpy as np
    >>> from krein.datasets import add_uniform_noise
    >>> X = np.array([[-1.0, 0.0], [0.5, 1.0]])
    >>> Z = add_uniform_noise(X, random_state=0)
    >>> float(Z.min()), float(Z.max())
    (0.0, 1.0)
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.size == 0 or not np.all(np.isfinite(X)):
        raise ValueError(f"X must be a non-empty finite 2-D array; got shape {X.shape}")
    if not (np.isfinite(low) and np.isfinite(high)) or low > high:
        raise ValueError(f"need finite low <= high; got low={low!r}, high={high!r}")
    a, b = (float(v) for v in feature_range)
    if not (np.isfinite(a) and np.isfinite(b)) or a >= b:
        raise ValueError(f"feature_range must be finite (a, b) with a < b; got {feature_range!r}")
    rng = check_random_state(random_state)
    Z = X + rng.uniform(low, high, size=X.shape)
    lo, hi = Z.min(), Z.max()
    if hi <= lo:
        raise ValueError("the noisy array is constant; cannot rescale it onto feature_range")
    return a + (b - a) * (Z - lo) / (hi - lo)
