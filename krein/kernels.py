"""Kernel functions, including the indefinite ones the papers use.

Every kernel has the signature ``kernel(X, Z=None, **params) -> K`` with ``X`` of
shape ``(n_x, d)``, ``Z`` of shape ``(n_z, d)`` (``Z=None`` means ``Z = X``) and
``K`` of shape ``(n_x, n_z)``.  Kernels from dissimilarities take a dissimilarity
matrix ``D`` instead of feature vectors.

Sources
-------
* sigmoid ``tanh(a <x, z> + r)``: Loosli, Ong & Canu (2013) §6; Lin & Lin (2003).
* gaussian with l1 distance ``exp(-gamma ||x - z||_1^2)``: Haasdonk (2005) Fig. 4.
* Epanechnikov ``max(0, 1 - ||x - z||^2 / sigma^2)^d``: Luss & d'Aspremont (2009)
  §6 (indefinite for most ``d``).
* Simpson score on binarized features: Luss & d'Aspremont (2007) §4, (2009) §5.1.
* tangent distance ``exp(-gamma d_mn(x, z)^2)``: Simard, LeCun & Denker (1993);
  Simard, LeCun, Denker & Victorri (1998); symmetrized by the mean of Haasdonk &
  Keysers (2002); the "TD1" kernel of Luss & d'Aspremont (2009) §5.1, Table 1.
* ``-1/2 J (D*D) J``: the classical scaling kernel of a dissimilarity
  (Haasdonk 2005, Prop. 1; Loosli et al. 2013 §6.3.2 "linear kernel on
  dissimilarities").
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.ndimage import gaussian_filter
from scipy.spatial.distance import cdist

__all__ = [
    "linear_kernel",
    "gaussian_kernel",
    "sigmoid_kernel",
    "epanechnikov_kernel",
    "simpson_kernel",
    "tangent_vectors",
    "one_sided_tangent_distance",
    "tangent_distance_kernel",
    "dissimilarity_kernel",
    "centering_matrix",
    "get_kernel",
    "KERNELS",
    "pairwise_kernel",
    "kernel_scale",
    "kernel_scale_measure",
    "NEGLIGIBLE_DIAGONAL",
]


def _check_pair(X, Z):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array (n_samples, n_features); got shape {X.shape}")
    if Z is None:
        Z = X
    else:
        Z = np.asarray(Z, dtype=float)
        if Z.ndim != 2:
            raise ValueError(f"Z must be a 2-D array (n_samples, n_features); got shape {Z.shape}")
        if Z.shape[1] != X.shape[1]:
            raise ValueError(
                f"X and Z must have the same number of features; got {X.shape[1]} and {Z.shape[1]}"
            )
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(Z))):
        raise ValueError("X and Z must not contain NaN or inf")
    return X, Z


def _positive(name, value):
    if not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number; got {value!r}")
    return float(value)


def linear_kernel(X, Z=None):
    """Linear kernel ``K = X Z'``.

    Parameters
    ----------
    X : array-like of shape (n_x, d)
        Rows are the first arguments of the kernel.
    Z : array-like of shape (n_z, d), optional
        Rows are the second arguments; ``None`` (default) means ``Z = X``.

    Returns
    -------
    K : ndarray of shape (n_x, n_z)
        ``K[i, j] = <X[i], Z[j]>``.

    Raises
    ------
    ValueError
        On non-2-D input, mismatched feature counts, NaN or inf.
    """
    X, Z = _check_pair(X, Z)
    return X @ Z.T


def gaussian_kernel(X, Z=None, gamma=1.0, metric="l2"):
    """Gaussian kernel on a squared l2 or l1 distance.

    ``k(x, z) = exp(-gamma ||x - z||_2^2)`` (``metric="l2"``, positive definite) or
    ``k(x, z) = exp(-gamma ||x - z||_1^2)`` (``metric="l1"``; indefinite in
    general, Haasdonk 2005 Fig. 4).

    Parameters
    ----------
    X : array-like of shape (n_x, d)
        Rows are the first arguments of the kernel.
    Z : array-like of shape (n_z, d), optional
        Rows are the second arguments; ``None`` (default) means ``Z = X``.
    gamma : float > 0
        Width parameter.
    metric : {"l2", "l1"}
        Which distance is squared.

    Returns
    -------
    K : ndarray of shape (n_x, n_z)
        ``K[i, j] = k(X[i], Z[j])``, entries in (0, 1].

    Raises
    ------
    ValueError
        For ``gamma <= 0``, an unknown ``metric`` or bad arrays.
    """
    X, Z = _check_pair(X, Z)
    gamma = _positive("gamma", gamma)
    if metric == "l2":
        D2 = cdist(X, Z, "sqeuclidean")
    elif metric == "l1":
        D2 = cdist(X, Z, "cityblock") ** 2
    else:
        raise ValueError(f"metric must be 'l2' or 'l1'; got {metric!r}")
    return np.exp(-gamma * D2)


def sigmoid_kernel(X, Z=None, a=1.0, r=0.0):
    """Sigmoid (hyperbolic tangent) kernel ``k(x, z) = tanh(a <x, z> + r)``.

    Indefinite for most ``(a, r)`` (Lin & Lin 2003); the kernel of Loosli et al.
    (2013) Figs. 1, 3-7 and Table 2.

    Parameters
    ----------
    X : array-like of shape (n_x, d)
        Rows are the first arguments of the kernel.
    Z : array-like of shape (n_z, d), optional
        Rows are the second arguments; ``None`` (default) means ``Z = X``.
    a : float
        Scale of the inner product.
    r : float
        Offset.

    Returns
    -------
    K : ndarray of shape (n_x, n_z)
        ``K[i, j] = tanh(a <X[i], Z[j]> + r)``, entries in (-1, 1).

    Raises
    ------
    ValueError
        On non-2-D ``X`` or ``Z``, mismatched feature counts, NaN or inf, or a non-finite ``a`` or ``r``.
    """
    X, Z = _check_pair(X, Z)
    if not np.isfinite(a) or not np.isfinite(r):
        raise ValueError(f"a and r must be finite; got a={a!r}, r={r!r}")
    return np.tanh(a * (X @ Z.T) + r)


def epanechnikov_kernel(X, Z=None, sigma=1.0, degree=1):
    """Epanechnikov kernel ``k(x, z) = max(0, 1 - ||x - z||^2 / sigma^2)^degree``.

    Indefinite for most choices of ``sigma`` and ``degree`` (Luss & d'Aspremont
    2009, §6, "EP" kernel).

    Parameters
    ----------
    X : array-like of shape (n_x, d)
        Rows are the first arguments of the kernel.
    Z : array-like of shape (n_z, d), optional
        Rows are the second arguments; ``None`` (default) means ``Z = X``.
    sigma : float > 0
        Support radius.
    degree : float > 0
        Exponent.

    Returns
    -------
    K : ndarray of shape (n_x, n_z)
        ``K[i, j] = k(X[i], Z[j])``, entries in [0, 1].

    Raises
    ------
    ValueError
        On non-2-D ``X`` or ``Z``, mismatched feature counts, NaN or inf, or ``sigma <= 0`` or ``degree <= 0``.
    """
    X, Z = _check_pair(X, Z)
    sigma = _positive("sigma", sigma)
    degree = _positive("degree", degree)
    D2 = cdist(X, Z, "sqeuclidean")
    return np.maximum(0.0, 1.0 - D2 / sigma**2) ** degree


def simpson_kernel(X, Z=None, threshold=0.5):
    """Simpson score on binarized features, ``k(x, z) = |b(x) & b(z)| / min(|b(x)|, |b(z)|)``.

    ``b(x) = (x > threshold)`` (e.g. the black pixels of a USPS digit); the
    overlap coefficient of the two sets.  Indefinite in general: the kernel of
    Luss & d'Aspremont (2009), §5.1 and Table 1 ("USPS-SS", least eigenvalue
    -70.00 on the full 1540-digit kernel, -34.76 on 767 training digits in
    2007; here -58.3 and -28.3 at threshold 0.5: ``experiments/README.md``,
    "Luss & d'Aspremont").  A point with no feature above the threshold has
    similarity 0 to everything (``0 / 0`` is taken as 0).

    Parameters
    ----------
    X : array-like of shape (n_x, d)
        Rows are the first arguments of the kernel.
    Z : array-like of shape (n_z, d), optional
        Rows are the second arguments; ``None`` (default) means ``Z = X``.
    threshold : float
        Binarization threshold.

    Returns
    -------
    K : ndarray of shape (n_x, n_z)
        Entries in [0, 1]; 1 on the diagonal (for non-empty ``b(x)``).

    Raises
    ------
    ValueError
        On non-2-D ``X`` or ``Z``, mismatched feature counts, NaN or inf, or a non-finite ``threshold``.
    """
    X, Z = _check_pair(X, Z)
    if not np.isfinite(threshold):
        raise ValueError(f"threshold must be finite; got {threshold!r}")
    Bx = (X > threshold).astype(float)
    Bz = (Z > threshold).astype(float)
    inter = Bx @ Bz.T
    den = np.minimum(Bx.sum(axis=1)[:, None], Bz.sum(axis=1)[None, :])
    with np.errstate(invalid="ignore", divide="ignore"):
        K = np.where(den > 0, inter / np.where(den > 0, den, 1.0), 0.0)
    return K


#: The seven transformations of Simard et al. (1998) §3.2, in the column order of
#: :func:`tangent_vectors`.
TANGENT_TRANSFORMATIONS = ("x-translation", "y-translation", "rotation", "scaling",
                           "parallel-hyperbolic", "diagonal-hyperbolic", "thickening")


def _check_images(X, image_shape):
    h, w = (int(v) for v in image_shape)
    if h * w != X.shape[1]:
        raise ValueError(
            f"image_shape {tuple(image_shape)} has {h * w} pixels but the rows have "
            f"{X.shape[1]} features"
        )
    return h, w


def tangent_vectors(X, image_shape=(16, 16), sigma=1.0):
    """Tangent vectors of seven image transformations at each image.

    Simard, LeCun, Denker & Victorri (1998) §3.2 ("Transformation invariance in
    pattern recognition: tangent distance and tangent propagation"): with
    ``Ix``, ``Iy`` the derivatives of the image smoothed by a Gaussian of
    standard deviation ``sigma`` pixels (``scipy.ndimage.gaussian_filter``,
    ``order=(0, 1)`` and ``(1, 0)``, zero background beyond the frame: the
    derivative of the smoothed image, as Simard et al. compute it; the
    distance itself compares the images as given, unsmoothed) and ``(x, y)`` the pixel coordinates
    centred on the image centre (``x`` to the right, ``y`` down), the columns are

    * x- and y-translation: ``Ix``, ``Iy``;
    * rotation: ``y Ix - x Iy``;
    * scaling: ``x Ix + y Iy``;
    * parallel hyperbolic transformation: ``x Ix - y Iy``;
    * diagonal hyperbolic transformation: ``y Ix + x Iy``;
    * thickening: ``Ix^2 + Iy^2``.

    Only the span of the columns matters to the tangent distance, so their
    signs and scales are immaterial.

    Parameters
    ----------
    X : array-like of shape (n, h * w)
        Images, one per row, in row-major order.
    image_shape : tuple of int (h, w)
        Height and width of the images (USPS: 16 x 16).
    sigma : float > 0
        Standard deviation of the Gaussian smoothing, in pixels.

    Returns
    -------
    T : ndarray of shape (n, h * w, 7)
        ``T[i, :, k]``: the tangent of transformation
        ``TANGENT_TRANSFORMATIONS[k]`` at image ``i``.

    Raises
    ------
    ValueError
        On a bad array, an ``image_shape`` that does not match the rows, or
        ``sigma <= 0``.
    """
    X, _ = _check_pair(X, None)
    h, w = _check_images(X, image_shape)
    sigma = _positive("sigma", sigma)
    img = X.reshape(-1, h, w)
    # derivative of the Gaussian-smoothed image along columns (x) and rows (y)
    Ix = gaussian_filter(img, sigma=(0, sigma, sigma), order=(0, 0, 1), mode="constant")
    Iy = gaussian_filter(img, sigma=(0, sigma, sigma), order=(0, 1, 0), mode="constant")
    y, x = np.mgrid[0:h, 0:w].astype(float)
    x -= (w - 1) / 2.0
    y -= (h - 1) / 2.0
    T = np.stack([Ix, Iy, y * Ix - x * Iy, x * Ix + y * Iy, x * Ix - y * Iy,
                  y * Ix + x * Iy, Ix**2 + Iy**2], axis=-1)
    return T.reshape(X.shape[0], h * w, 7)


def _tangent_bases(X, image_shape, sigma, rcond=1e-8):
    """Orthonormal bases of the tangent planes: ``(n, d, 7)``, zero columns where rank-deficient."""
    T = tangent_vectors(X, image_shape, sigma)
    U, s, _ = np.linalg.svd(T, full_matrices=False)  # batched over the images
    keep = s > rcond * np.maximum(s[:, :1], np.finfo(float).tiny)
    return U * keep[:, None, :]


def _one_sided_sq(X, Q, Z, chunk=256):
    """``D2[i, j] = min_a ||X[i] + T_i a - Z[j]||^2`` from orthonormal bases ``Q[i]`` of span(T_i).

    The residual of ``Z[j] - X[i]`` after projection on span(T_i):
    ``||Z[j] - X[i]||^2 - ||Q_i' Z[j] - Q_i' X[i]||^2``.
    """
    D2 = cdist(X, Z, "sqeuclidean")
    QtX = np.einsum("idk,id->ik", Q, X)
    for a in range(0, X.shape[0], chunk):
        b = min(a + chunk, X.shape[0])
        QtZ = np.einsum("idk,jd->ijk", Q[a:b], Z, optimize=True)
        D2[a:b] -= np.sum((QtZ - QtX[a:b, None, :]) ** 2, axis=-1)
    return np.maximum(D2, 0.0)


def one_sided_tangent_distance(X, Z=None, image_shape=(16, 16), sigma=1.0):
    """One-sided tangent distance: the tangent plane of the FIRST argument only.

    ``d_1S(x, z) = min_a ||x + T_x a - z||`` (Simard, LeCun & Denker 1993;
    Simard et al. 1998, "one-sided" tangent distance), with ``T_x`` the seven
    tangents of :func:`tangent_vectors` at ``x``.  The least-squares problem is
    solved once per image ``x`` (a batched SVD of its ``d x 7`` tangent matrix
    gives an orthonormal basis ``Q_x`` of the tangent plane; directions with
    singular value below ``1e-8`` times the largest are dropped), then for all
    pairs by projection: ``d_1S(x, z)^2 = ||z - x||^2 - ||Q_x' (z - x)||^2``.

    Parameters
    ----------
    X : array-like of shape (n_x, h * w)
        Images whose tangent planes are used.
    Z : array-like of shape (n_z, h * w), optional
        Images compared with them; ``None`` (default) means ``Z = X``.
    image_shape : tuple of int (h, w)
        Height and width of the images.
    sigma : float > 0
        Gaussian smoothing (pixels) before differentiation.

    Returns
    -------
    D : ndarray of shape (n_x, n_z)
        ``D[i, j] = d_1S(X[i], Z[j])``; not symmetric in general.

    Raises
    ------
    ValueError
        On bad arrays, a mismatched ``image_shape`` or ``sigma <= 0``.
    """
    X, Z = _check_pair(X, Z)
    _check_images(X, image_shape)
    Q = _tangent_bases(X, image_shape, sigma)
    return np.sqrt(_one_sided_sq(X, Q, Z))


def tangent_distance_kernel(X, Z=None, gamma=0.02, image_shape=(16, 16), sigma=1.0,
                            symmetrize="mean"):
    """Tangent-distance kernel ``k(x, z) = exp(-gamma d(x, z)^2)`` ("TD1").

    The kernel of Luss & d'Aspremont (2009) §5.1 and Table 1 ("USPS-TD1"):
    "Our experiments symmetrize the one-sided tangent distance using the
    square of the mean tangent distance defined in Haasdonk and Keysers [13]
    and make it a similarity measure by negative exponentiation".  With the
    one-sided distance ``d_1S`` of :func:`one_sided_tangent_distance` (seven
    transformations of Simard et al. 1998),

    * ``symmetrize="mean"`` (default): ``d = (d_1S(x, z) + d_1S(z, x)) / 2``,
      the mean tangent distance of Haasdonk & Keysers (2002), squared;
    * ``symmetrize="mean-square"``: ``d^2 = (d_1S(x, z)^2 + d_1S(z, x)^2) / 2``;
    * ``symmetrize="none"``: ``d = d_1S(x, z)`` (not symmetric).

    The kernel is not positive semidefinite in general (a distance substitution
    kernel of a non-Euclidean distance; Haasdonk & Keysers 2002), though on
    USPS it is nearly so (Luss & d'Aspremont 2009, Table 1).

    Parameters
    ----------
    X : array-like of shape (n_x, h * w)
        Images, one per row (USPS: 16 x 16 pixels in [0, 1]).
    Z : array-like of shape (n_z, h * w), optional
        Second arguments; ``None`` (default) means ``Z = X``.
    gamma : float > 0
        Width of the negative exponential.
    image_shape : tuple of int (h, w)
        Height and width of the images.
    sigma : float > 0
        Gaussian smoothing (pixels) before the derivatives of the tangents.
    symmetrize : {"mean", "mean-square", "none"}
        How the two one-sided distances are combined (above).

    Returns
    -------
    K : ndarray of shape (n_x, n_z)
        Entries in (0, 1]; symmetric for ``Z = None`` unless ``symmetrize="none"``.

    Raises
    ------
    ValueError
        On bad arrays, a mismatched ``image_shape``, ``gamma <= 0``,
        ``sigma <= 0`` or an unknown ``symmetrize``.

    References
    ----------
    P. Simard, Y. LeCun, J. Denker (1993), "Efficient pattern recognition using a
    new transformation distance", NIPS 5.  P. Simard, Y. LeCun, J. Denker,
    B. Victorri (1998), "Transformation invariance in pattern recognition --
    tangent distance and tangent propagation", Neural Networks: Tricks of the
    Trade.  B. Haasdonk, D. Keysers (2002), "Tangent distance kernels for
    support vector machines", ICPR.
    """
    if symmetrize not in ("mean", "mean-square", "none"):
        raise ValueError(
            f"symmetrize must be 'mean', 'mean-square' or 'none'; got {symmetrize!r}"
        )
    same = Z is None
    X, Z = _check_pair(X, Z)
    _check_images(X, image_shape)
    gamma = _positive("gamma", gamma)
    Qx = _tangent_bases(X, image_shape, sigma)
    D2xz = _one_sided_sq(X, Qx, Z)
    if symmetrize == "none":
        D2 = D2xz
    else:
        Qz = Qx if same else _tangent_bases(Z, image_shape, sigma)
        D2zx = _one_sided_sq(Z, Qz, X).T
        if symmetrize == "mean":
            D2 = (0.5 * (np.sqrt(D2xz) + np.sqrt(D2zx))) ** 2
        else:
            D2 = 0.5 * (D2xz + D2zx)
        if same:
            D2 = 0.5 * (D2 + D2.T)
    return np.exp(-gamma * D2)


def centering_matrix(n):
    """The centering matrix ``J = I - 1 1' / n``.

    ``J K J`` double-centres a kernel matrix ``K`` (classical scaling; Haasdonk
    2005, eq. (1)).

    Parameters
    ----------
    n : int >= 1
        Number of objects.

    Returns
    -------
    J : ndarray of shape (n, n)
        Symmetric, idempotent, ``J 1 = 0``.

    Raises
    ------
    ValueError
        If ``n`` is not a positive integer.
    """
    if not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n must be a positive integer; got {n!r}")
    return np.eye(n) - np.full((n, n), 1.0 / n)


def _check_dissimilarity(D, square=True):
    D = np.asarray(D, dtype=float)
    if D.ndim != 2:
        raise ValueError(f"D must be a 2-D dissimilarity matrix; got shape {D.shape}")
    if square and D.shape[0] != D.shape[1]:
        raise ValueError(f"D must be square; got shape {D.shape}")
    if not np.all(np.isfinite(D)):
        raise ValueError("D must not contain NaN or inf")
    return D


def dissimilarity_kernel(D, kind="linear", gamma=1.0, center=True, D_train=None):
    """Kernel built from a dissimilarity matrix.

    * ``kind="linear"``: ``K = -1/2 J (D*D) J`` with the centering matrix ``J``
      (classical scaling; Haasdonk 2005, Prop. 1 and eq. (1)); with
      ``center=False``, ``K = -1/2 (D*D)``.
    * ``kind="gaussian"``: ``K = exp(-gamma D*D)``.

    For test rows, pass the ``(m, n)`` dissimilarities to the training objects as
    ``D`` and the training ``(n, n)`` matrix as ``D_train``: the centering then uses
    the training means (the standard out-of-sample formula of classical scaling),
    so that ``D = D_train`` reproduces the training kernel.

    Parameters
    ----------
    D : array of shape (n, n) or (m, n)
        Dissimilarities (not squared).
    kind : {"linear", "gaussian"}
        Which kernel of ``D`` (see above).
    gamma : float > 0
        Width for ``kind="gaussian"``.
    center : bool
        Apply the double centering for ``kind="linear"``.
    D_train : array of shape (n, n), optional
        Training dissimilarities, required for centering test rows.

    Returns
    -------
    K : ndarray of shape (n, n) or (m, n)
        The kernel of the rows of ``D`` against the training objects.

    Raises
    ------
    ValueError
        On an unknown ``kind``, bad shapes, NaN/inf, ``gamma <= 0``.
    """
    if kind not in ("linear", "gaussian"):
        raise ValueError(f"kind must be 'linear' or 'gaussian'; got {kind!r}")
    D = _check_dissimilarity(D, square=(kind == "linear" and center and D_train is None))
    D2 = D * D
    if kind == "gaussian":
        gamma = _positive("gamma", gamma)
        return np.exp(-gamma * D2)
    if not center:
        return -0.5 * D2
    if D_train is None:
        row = D2.mean(axis=1, keepdims=True)
        col = D2.mean(axis=0, keepdims=True)
        return -0.5 * (D2 - row - col + D2.mean())
    Dt = _check_dissimilarity(D_train)
    if D.shape[1] != Dt.shape[0]:
        raise ValueError(
            f"D has {D.shape[1]} columns but D_train is {Dt.shape}: test rows must be "
            "dissimilarities to the training objects"
        )
    Dt2 = Dt * Dt
    col = Dt2.mean(axis=0, keepdims=True)
    row = D2.mean(axis=1, keepdims=True)
    return -0.5 * (D2 - row - col + Dt2.mean())


KERNELS = {
    "linear": linear_kernel,
    "gaussian": gaussian_kernel,
    "rbf": gaussian_kernel,
    "sigmoid": sigmoid_kernel,
    "tanh": sigmoid_kernel,
    "epanechnikov": epanechnikov_kernel,
    "simpson": simpson_kernel,
    "tangent-distance": tangent_distance_kernel,
}
"""Named kernels on feature vectors: name -> function ``(X, Z=None, **params)``."""


def get_kernel(name):
    """Look up a named kernel.

    Parameters
    ----------
    name : str
        One of ``KERNELS`` ("linear", "gaussian"/"rbf", "sigmoid"/"tanh",
        "epanechnikov", "simpson", "tangent-distance").

    Returns
    -------
    callable
        ``kernel(X, Z=None, **params) -> (n_x, n_z)`` array.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the accepted ones).
    """
    try:
        return KERNELS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown kernel {name!r}; accepted: {sorted(KERNELS)}, 'precomputed' or a callable"
        ) from None


def pairwise_kernel(kernel, X, Z=None, params=None):
    """Evaluate a named or callable kernel, with an output check.

    Parameters
    ----------
    kernel : str or callable
        A name from ``KERNELS`` or a callable ``kernel(X, Z, **params)``.
    X : array-like of shape (n_x, d)
        Rows are the first arguments of the kernel.
    Z : array-like of shape (n_z, d), optional
        Rows are the second arguments; ``None`` (default) means ``Z = X``.
    params : dict, optional
        Keyword parameters of the kernel.

    Returns
    -------
    K : ndarray of shape (n_x, n_z)
        ``K[i, j] = kernel(X[i], Z[j])``.

    Raises
    ------
    ValueError
        If ``kernel`` is an unknown name or not callable, or if the callable returns an array of the wrong shape or with NaN/inf.
    """
    params = dict(params or {})
    fn = get_kernel(kernel) if isinstance(kernel, str) else kernel
    if not callable(fn):
        raise ValueError(f"kernel must be a name, 'precomputed' or a callable; got {kernel!r}")
    Zx = X if Z is None else Z
    K = np.asarray(fn(X, Zx, **params), dtype=float)
    n_x = np.shape(X)[0]
    n_z = np.shape(Zx)[0]
    if K.shape != (n_x, n_z):
        raise ValueError(f"kernel returned shape {K.shape}; expected {(n_x, n_z)}")
    if not np.all(np.isfinite(K)):
        raise ValueError("kernel returned NaN or inf values")
    return K


#: A diagonal is negligible when its mean ``|K_ii|`` is below this fraction of the mean
#: ``|K_ij|`` over all entries (a ratio: the same for ``K`` and ``c K``).
NEGLIGIBLE_DIAGONAL = 1e-3


def kernel_scale_measure(K):
    """The scale of a kernel matrix and the measure it was taken with.

    ``s = mean_i |K_ii|`` (the mean squared norm of the objects in the
    kernel's feature space, the quantity libsvm's ``C`` and the penalties of
    Luss & d'Aspremont 2009 eq. 3 are relative to), unless the diagonal is
    negligible, i.e. ``mean |K_ii| < NEGLIGIBLE_DIAGONAL * mean |K_ij|`` (a
    distance matrix given as a kernel: zero diagonal); then ``s = mean_ij
    |K_ij|`` over all entries.  Both are homogeneous of degree one and the
    choice between them depends on a ratio only, so ``s(c K) = c s(K)`` for
    ``c > 0``.

    Parameters
    ----------
    K : array-like of shape (n, n) or (n, n, m)
        A kernel matrix; a stack of base kernels (``K[:, :, 0]`` the combined
        kernel, as the pick-out data sets store it) is measured on the
        combined one.

    Returns
    -------
    s : float
        The scale, ``> 0``; ``1.0`` for a matrix of zeros.
    measure : str
        ``"mean |K_ii|"`` or ``"mean |K_ij|"`` (negligible diagonal), ``"1 (zero
        matrix)"``.

    Raises
    ------
    ValueError
        If ``K`` is not square (per base kernel), empty or holds NaN/inf.
    """
    K = np.asarray(K, dtype=float)
    if K.ndim == 3:
        K = K[:, :, 0]
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
        raise ValueError(f"kernel_scale: K must be a non-empty square matrix; got shape "
                         f"{K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError("kernel_scale: K has NaN or inf values")
    diagonal = float(np.mean(np.abs(np.diag(K))))
    overall = float(np.mean(np.abs(K)))
    if overall == 0.0:
        return 1.0, "1 (zero matrix)"
    if diagonal < NEGLIGIBLE_DIAGONAL * overall:
        return overall, "mean |K_ij|"
    return diagonal, "mean |K_ii|"


def kernel_scale(K):
    """The scale ``s > 0`` of a kernel matrix, ``s(c K) = c s(K)`` for ``c > 0``.

    The default grids of ``krein compare`` are placed relative to it
    (:func:`krein.registry.default_grid`), so that a run on ``K`` and on
    ``c K`` chooses the same models.

    Parameters
    ----------
    K : array-like of shape (n, n) or (n, n, m)
        A kernel matrix, or a stack of base kernels (measured on ``K[:, :, 0]``,
        the combined kernel).

    Returns
    -------
    float
        ``mean |K_ii|``, or ``mean |K_ij|`` when the diagonal is negligible
        (:func:`kernel_scale_measure` says which and why).

    Raises
    ------
    ValueError
        If ``K`` is not square, empty or holds NaN/inf.
    """
    return kernel_scale_measure(K)[0]
