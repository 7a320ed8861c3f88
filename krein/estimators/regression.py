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
import scipy.linalg
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._fitting import fit_wrapper
from .._validation import check_square_kernel
from ..spectrum import Spectrum
from .base import KERNEL_CONSTRAINTS, KernelMixin

__all__ = ["CorrectedKernelRidge", "KernelKNeighborsRegressor", "RIDGE_CORRECTIONS"]

#: Spectrum corrections of :class:`CorrectedKernelRidge`: the eigenvalue map of the
#: training kernel and the map ``g`` of the coefficients back to the Krein space.
RIDGE_CORRECTIONS = ("flip", "clip")


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
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True,
                             ensure_min_samples=2)
        K = (check_square_kernel(X, "X (precomputed kernel)") if self._precomputed()
             else check_square_kernel(self._gram(X), "kernel matrix"))
        self._fit_kernel(K, np.asarray(y, dtype=np.float64))
        if not self._precomputed():
            self.X_fit_ = X
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
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._predict_rows(X if self._precomputed() else self._gram(X, self.X_fit_))


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

    def __init__(self, alpha=1.0, *, correction="flip", kernel="gaussian", kernel_params=None):
        self.alpha = alpha
        self.correction = correction
        self.kernel = kernel
        self.kernel_params = kernel_params

    _fitted_attribute = "dual_coef_"

    def _fit_kernel(self, K, y):
        """Solve the ridge system on the corrected training kernel (module docstring)."""
        spec = Spectrum.from_kernel(K)
        lam, V = spec.eigenvalues, spec.eigenvectors
        g = spec.signs() if self.correction == "flip" else (lam > spec.tol).astype(float)
        corrected = (V * (lam * g)) @ V.T            # |K| or K_+
        corrected = (corrected + corrected.T) / 2.0
        corrected[np.diag_indices_from(corrected)] += self.alpha
        b = float(np.mean(y))
        c_corrected = scipy.linalg.solve(corrected, y - b, assume_a="pos")
        self.dual_coef_ = V @ (g * (V.T @ c_corrected))
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
        As :class:`CorrectedKernelRidge`.
    kernel_params : dict, optional
        Parameters of a named or callable kernel.

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
