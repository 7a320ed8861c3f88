"""Regression baselines on an indefinite kernel: corrected kernel ridge and kernel k-NN.

The baselines ``krein compare --task regression`` sets beside the indefinite
regressors (IndefiniteSVR, ESVR, Krein least squares):

* :class:`CorrectedKernelRidge`: kernel ridge regression (Saunders, Gammerman &
  Vovk 1998) on a spectrum-corrected training kernel.  With
  ``K = V diag(lam) V'``, ``correction="flip"`` trains on ``|K| = V diag(|lam|) V'``
  and ``"clip"`` on ``K_+ = V diag(max(lam, 0)) V'`` (Muñoz & de Diego 2006;
  Chen et al. 2009, §3; Loosli, Canu & Ong 2016, §3.1).  With the target mean
  ``b`` as intercept, ``(K_c + alpha I) c~ = y - b``.  The coefficients are mapped
  back through the correction's projection, ``c = V g(lam) V' c~`` with
  ``g = sign`` (flip) or ``g = 1[lam > 0]`` (clip), so that the prediction
  ``f(x) = k(x, X) c + b`` uses the ORIGINAL kernel rows and equals
  ``K_c c~ + b`` on the training points (``K V g V' = V lam g V' = K_c``): the
  Krein-space form of ESVM (Loosli et al. 2016, Algorithm 1), which needs only
  test rows ``k(x, X)``.
* :class:`KernelKNeighborsRegressor`: the mean target of the ``k`` nearest
  training points in the distance the kernel induces,
  ``d(x, x_j)^2 = k(x, x) + K_jj - 2 k(x, x_j)`` (the k-NN baseline of Chen,
  Garcia, Gupta, Rahimi & Cazzanti 2009, for real targets); the order of the
  training points is that of ``K_jj - 2 k(x, x_j)``, so the test rows suffice
  (:mod:`krein.estimators.neighbors`).  Ties go to the lower training index.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._fitting import fit_wrapper
from .._validation import check_square_kernel
from ..spectrum import Spectrum
from .base import KERNEL_CONSTRAINTS, KernelMixin

__all__ = ["CorrectedKernelRidge", "KernelKNeighborsRegressor", "RIDGE_CORRECTIONS",
           "training_kernel", "kernel_rows", "corrected_kernel"]

#: Spectrum corrections of :class:`CorrectedKernelRidge`: the eigenvalue map of the
#: training kernel and the map ``g`` of the coefficients back to the Krein space.
RIDGE_CORRECTIONS = ("flip", "clip")


def training_kernel(est, X, y=None, *, targets=True):
    """The validated training input of a kernel estimator and its square training kernel.

    Parameters
    ----------
    est : KernelMixin
        The estimator (its ``kernel``, ``kernel_params``); with a named kernel its
        ``X_fit_`` is set to ``X``.
    X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
        Training vectors, or the square training kernel.
    y : array of shape (n,) or None
        Real targets (validated as numbers; None refused) with ``targets``.
    targets : bool, default True
        False: an unsupervised fit, ``y`` ignored.

    Returns
    -------
    K : ndarray of shape (n, n)
        The symmetric training kernel.
    y : ndarray of shape (n,) or None
        The targets as floats (None without ``targets``).

    Raises
    ------
    ValueError
        NaN/inf, fewer than two objects, a non-square or asymmetric kernel.
    """
    if not targets:
        X, y = validate_data(est, X, dtype=np.float64, ensure_min_samples=2), None
    else:
        X, y = validate_data(est, X, y, dtype=np.float64, y_numeric=True, ensure_min_samples=2)
        y = np.asarray(y, dtype=np.float64)
    K = (check_square_kernel(X, "X (precomputed kernel)") if est._precomputed()
         else check_square_kernel(est._gram(X), "kernel matrix"))
    if not est._precomputed():
        est.X_fit_ = X
    return K, y


def kernel_rows(est, X):
    """The kernel rows ``k(x, X_train)`` of new points for a fitted kernel estimator.

    Parameters
    ----------
    est : KernelMixin
        A fitted estimator (:func:`training_kernel`).
    X : array of shape (m, n_features), or (m, n) with ``kernel="precomputed"``
        New vectors, or their kernel rows.

    Returns
    -------
    X : ndarray
        The validated input.
    rows : ndarray of shape (m, n)
        Their kernel rows against the training objects.
    """
    X = validate_data(est, X, dtype=np.float64, reset=False)
    return X, (X if est._precomputed() else est._gram(X, est.X_fit_))


def corrected_kernel(K, correction):
    """The flipped or clipped training kernel and the map of its coefficients back.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The symmetric training kernel, ``V diag(lam) V'``.
    correction : {"flip", "clip"}
        ``|K|`` (``g = sign(lam)``) or ``K_+`` (``g = 1[lam > 0]``), eigenvalues within
        the spectrum's null tolerance counted as zero.

    Returns
    -------
    spectrum : krein.spectrum.Spectrum
        The eigendecomposition of ``K``.
    krein_map : callable
        ``a -> V g V' a``: coefficients on the corrected kernel to Krein coefficients,
        ``K (V g V' a) = K_c a``.
    K_c : ndarray of shape (n, n)
        ``V diag(lam g) V'``, symmetrized.
    """
    spec = Spectrum.from_kernel(K)
    lam, V = spec.eigenvalues, spec.eigenvectors
    g = correction_signs(spec, correction)
    K_c = (V * (lam * g)) @ V.T
    return spec, (lambda a: V @ (g * (V.T @ a))), (K_c + K_c.T) / 2.0


def correction_signs(spec, correction):
    """The ``g`` of :func:`corrected_kernel`: ``sign(lam)`` (flip) or ``1[lam > 0]`` (clip).

    Parameters
    ----------
    spec : krein.spectrum.Spectrum
        The full eigendecomposition of the training kernel.
    correction : {"flip", "clip"}
        The spectrum correction.

    Returns
    -------
    ndarray of shape (n,)
        ``g``, zero on the eigenvalues within the spectrum's null tolerance.
    """
    lam = spec.eigenvalues
    return spec.signs() if correction == "flip" else (lam > spec.tol).astype(float)


class _KernelRegressor(KernelMixin, RegressorMixin, BaseEstimator):
    """A regressor on a kernel: ``fit`` validates the input and hands the square training
    kernel to ``_fit_kernel(K, y)``, ``predict`` hands the test rows ``k(x, X)`` to
    ``_predict_rows``."""

    @fit_wrapper
    def fit(self, X, y):
        """Fit on the training kernel.

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            Training vectors, or the square (symmetric) training kernel.
        y : array of shape (n,)
            Real targets.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            Bad parameters, NaN/inf, a non-square or asymmetric kernel, or (k-NN)
            ``n_neighbors`` above ``n``.
        """
        K, y = training_kernel(self, X, y)
        self._fit_kernel(K, y)
        return self

    def predict(self, X):
        """The predicted targets of new points from their kernel rows.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n) with ``kernel="precomputed"``
            New vectors, or their kernel rows ``k(x, X)`` against the training objects.

        Returns
        -------
        ndarray of shape (m,)
            The predicted targets.
        """
        check_is_fitted(self, self._fitted_attribute)
        return self._predict_rows(kernel_rows(self, X)[1])


class CorrectedKernelRidge(_KernelRegressor):
    """Kernel ridge regression on the flipped or clipped kernel, Krein coefficients.

    Solves ``(K_c + alpha I) c~ = y - b`` with ``b`` the mean target and ``K_c``
    the corrected training kernel (``|K|`` or ``K_+``), and predicts
    ``f(x) = k(x, X) c + b`` with ``c = V g(lam) V' c~`` (module docstring).

    Parameters
    ----------
    alpha : float > 0, default=1.0
        The ridge parameter.  ``K -> s K`` is compensated by ``alpha -> s alpha``.
    correction : {"flip", "clip"}, default="flip"
        The spectrum correction of the training kernel.
    kernel : "precomputed", str or callable, default="gaussian"
        A name of :data:`krein.kernels.KERNELS`, a callable, or "precomputed"
        (``fit`` takes the square training kernel, ``predict`` its test rows).
    kernel_params : dict, optional
        Parameters of a named or callable kernel.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n,)
        The Krein coefficients ``c``.
    intercept_ : float
        The mean training target ``b``.
    spectrum_ : krein.spectrum.Spectrum
        The eigendecomposition of the training kernel.
    min_eigenvalue_ : float
        Its least eigenvalue.

    References
    ----------
    Saunders, Gammerman & Vovk (1998), "Ridge regression learning algorithm in dual
    variables", ICML.  Loosli, Canu & Ong (2016), "Learning SVM in Kreĭn spaces",
    IEEE TPAMI 38(6), §3.1.  Chen, Garcia, Gupta, Rahimi & Cazzanti (2009),
    "Similarity-based classification", JMLR 10, §3 (flip and clip).

    Examples
    --------
    >>> import numpy as np
    >>> from krein.estimators.regression import CorrectedKernelRidge
    >>> X = np.linspace(0, 1, 8)[:, None]
    >>> CorrectedKernelRidge(kernel="sigmoid").fit(X, X[:, 0]).predict(X).shape
    (8,)
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "correction": [StrOptions(set(RIDGE_CORRECTIONS))],
        **KERNEL_CONSTRAINTS,
    }

    def __init__(self, *, alpha=1.0, correction="flip", kernel="gaussian", kernel_params=None):
        self.alpha = alpha
        self.correction = correction
        self.kernel = kernel
        self.kernel_params = kernel_params

    _fitted_attribute = "dual_coef_"

    def _fit_kernel(self, K, y):
        """Solve the ridge system on the corrected training kernel (module docstring)."""
        spec = Spectrum.from_kernel(K)
        lam, V = spec.eigenvalues, spec.eigenvectors
        g = correction_signs(spec, self.correction)                       # |K| or K_+
        b = float(np.mean(y))
        # K_c + alpha I = V (lam g + alpha) V': the system is solved in K's eigenvectors
        # (n^2), and c = V g V' c~ (corrected_kernel's map) is V (g a) for c~ = V a
        a = (V.T @ (y - b)) / (lam * g + self.alpha)
        self.dual_coef_ = V @ (g * a)
        self.intercept_ = b
        self.spectrum_ = spec
        self.min_eigenvalue_ = float(spec.min_eigenvalue)

    def _predict_rows(self, rows):
        """``f(x) = k(x, X) c + b`` from the ORIGINAL kernel rows."""
        return rows @ self.dual_coef_ + self.intercept_


class KernelKNeighborsRegressor(_KernelRegressor):
    """The k nearest neighbours regression in the kernel-induced distance.

    The prediction is the mean target of the ``n_neighbors`` training points with
    the smallest ``d(x, x_j)^2 = k(x, x) + K_jj - 2 k(x, x_j)`` (module docstring).

    Parameters
    ----------
    n_neighbors : int >= 1, default=5
        Number of neighbours.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"``: ``fit`` takes the square ``(n, n)`` kernel matrix of the
        training points and the prediction methods the ``(m, n)`` rows ``k(x, X)`` of
        new points against them; a name of :data:`krein.kernels.KERNELS` or a callable
        ``kernel(X, Z, **kernel_params)``, computed from feature rows ``X``.
    kernel_params : dict, optional
        Keyword arguments of the named or callable kernel, e.g. ``{"a": 0.5, "r": -1.0}``
        for the sigmoid.

    Attributes
    ----------
    train_diagonal_ : ndarray of shape (n,)
        ``K_jj`` of the training points.
    y_fit_ : ndarray of shape (n,)
        The training targets.

    References
    ----------
    Chen, Garcia, Gupta, Rahimi & Cazzanti (2009), "Similarity-based classification:
    concepts and algorithms", JMLR 10 (the k-NN baseline).

    Examples
    --------
    >>> import numpy as np
    >>> from krein.estimators.regression import KernelKNeighborsRegressor
    >>> X = np.arange(6.0)[:, None]
    >>> KernelKNeighborsRegressor(n_neighbors=1).fit(X, X[:, 0]).predict(X)
    array([0., 1., 2., 3., 4., 5.])
    """

    _parameter_constraints: dict = {
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        **KERNEL_CONSTRAINTS,
    }

    def __init__(self, *, n_neighbors=5, kernel="gaussian", kernel_params=None):
        self.n_neighbors = n_neighbors
        self.kernel = kernel
        self.kernel_params = kernel_params

    _fitted_attribute = "train_diagonal_"

    def _fit_kernel(self, K, y):
        """Keep the training targets and self-similarities."""
        if self.n_neighbors > K.shape[0]:
            raise ValueError(f"n_neighbors = {self.n_neighbors} exceeds the {K.shape[0]} "
                             "training points")
        self.train_diagonal_ = np.diag(K).copy()
        self.y_fit_ = y

    def _predict_rows(self, rows):
        """The mean target of each row's ``n_neighbors`` nearest training points."""
        # d^2 - k(x, x): the same order as d^2 for each test row
        order = np.argsort(self.train_diagonal_[None, :] - 2.0 * rows, axis=1, kind="stable")
        return self.y_fit_[order[:, :self.n_neighbors]].mean(axis=1)
