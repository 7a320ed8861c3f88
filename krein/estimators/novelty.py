"""Novelty-detection baselines on an indefinite kernel: corrected one-class SVM, k-NN score.

The baselines ``krein compare --task novelty`` sets beside the indefinite one-class SVM
of Luss & d'Aspremont (2009, eq. 20):

* :class:`CorrectedOneClassSVM`: scikit-learn's one-class SVM (Schölkopf et al. 2001) on
  the flipped ``|K| = V diag(|lam|) V'`` or clipped ``K_+ = V diag(max(lam, 0)) V'``
  training kernel.  Its dual coefficients ``a`` (on the corrected kernel) are mapped back
  through the correction, ``c = V g(lam) V' a`` with ``g = sign`` (flip) or
  ``g = 1[lam > 0]`` (clip), so that the score of a new point is ``k(x, X) c`` from its
  ORIGINAL kernel row and equals ``K_c a`` on the training points (``K V g V' = K_c``):
  the Krein-space map of ESVM (Loosli et al. 2016, Algorithm 1).  ``decision_function =
  score_samples - offset_`` is scikit-learn's, positive for inliers.  libsvm solves on
  ``K_c / s`` with ``s`` the mean ``|K_ii|`` of the training kernel and the scores are
  multiplied back by ``s``: its stopping tolerance is absolute, and so the model of
  ``c K`` is that of ``K`` (the nu-problem's ``a`` does not change with the kernel's
  scale; its ``rho`` scales with it).
* :class:`KernelKNeighborsOutlier`: the distance-based score of the k-NN baseline: minus
  the mean squared kernel-induced distance ``d(x, x_j)^2 = k(x, x) + K_jj - 2 k(x, x_j)``
  to the ``n_neighbors`` nearest training points (Ramaswamy, Rastogi & Shim 2000, with
  the mean of the k distances; Chen et al. 2009's kernel-induced distance).  A
  precomputed test row holds ``k(x, X)`` only, not ``k(x, x)``: the score then takes the
  training points' mean ``K_jj`` in its place, which is exact on a kernel with a constant
  diagonal (normalized similarities, Gaussian kernels); a named kernel computes
  ``k(x, x)``.  ``offset_`` is the ``nu`` quantile of the training points' scores with
  each point left out of its own neighbours, so that a fraction ``nu`` of the training
  points scores below it.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.svm import OneClassSVM
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._fitting import fit_wrapper
from ..kernels import pairwise_kernel
from .base import KERNEL_CONSTRAINTS, KernelMixin
from .regression import RIDGE_CORRECTIONS, corrected_kernel, kernel_rows, training_kernel

__all__ = ["CorrectedOneClassSVM", "KernelKNeighborsOutlier"]


class _KernelOutlier(KernelMixin, OutlierMixin, BaseEstimator):
    """A novelty detector on a kernel: ``fit`` hands the square training kernel to
    ``_fit_kernel(K)``, ``score_samples`` the test rows ``k(x, X)`` to ``_score_rows``;
    ``decision_function = score_samples - offset_``, ``predict`` its sign (+1 inlier)."""

    @fit_wrapper
    def fit(self, X, y=None):
        """Fit on the training kernel of inliers (``y`` is ignored).

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            Training vectors, or the square (symmetric) training kernel.
        y : ignored
            Present for scikit-learn's API.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            Bad parameters, NaN/inf, a non-square or asymmetric kernel, or (k-NN)
            ``n_neighbors`` of at least ``n``.
        """
        self._fit_kernel(training_kernel(self, X, targets=False)[0])
        return self

    def score_samples(self, X):
        """The score of new points (higher: more normal), without the offset.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n) with ``kernel="precomputed"``
            New vectors, or their kernel rows ``k(x, X)`` against the training objects.

        Returns
        -------
        ndarray of shape (m,)
            The scores.
        """
        check_is_fitted(self, "offset_")
        return self._score_rows(*kernel_rows(self, X))

    def decision_function(self, X):
        """``score_samples(X) - offset_``: positive for inliers, negative for outliers.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n) with ``kernel="precomputed"``
            New vectors, or their kernel rows against the training objects.

        Returns
        -------
        ndarray of shape (m,)
            The signed scores.
        """
        return self.score_samples(X) - self.offset_

    def predict(self, X):
        """+1 for inliers (``decision_function >= 0``), -1 for outliers.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n) with ``kernel="precomputed"``
            New vectors, or their kernel rows against the training objects.

        Returns
        -------
        ndarray of shape (m,)
            The labels.
        """
        return np.where(self.decision_function(X) >= 0, 1, -1)


class CorrectedOneClassSVM(_KernelOutlier):
    """One-class SVM on the flipped or clipped kernel, Krein coefficients for new points.

    Parameters
    ----------
    nu : float in (0, 1], default=0.5
        Scikit-learn's ``nu``: an upper bound on the fraction of training points outside
        the boundary and a lower bound on the fraction of support vectors.
    correction : {"flip", "clip"}, default="flip"
        The spectrum correction of the training kernel.
    kernel : "precomputed", str or callable, default="gaussian"
        A name of :data:`krein.kernels.KERNELS`, a callable, or "precomputed".
    kernel_params : dict, optional
        Parameters of a named or callable kernel.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n,)
        The Krein coefficients ``c`` (every training point).
    offset_ : float
        Minus scikit-learn's intercept times ``kernel_scale_``:
        ``decision_function = score_samples - offset_``.
    svm_ : sklearn.svm.OneClassSVM
        The fitted one-class SVM on the corrected kernel over ``kernel_scale_``.
    kernel_scale_ : float
        The mean ``|K_ii|`` of the training kernel (module docstring).
    spectrum_ : krein.spectrum.Spectrum
        The eigendecomposition of the training kernel.

    References
    ----------
    Schölkopf, Platt, Shawe-Taylor, Smola & Williamson (2001), "Estimating the support of
    a high-dimensional distribution", Neural Computation 13(7).  Loosli, Canu & Ong
    (2016), "Learning SVM in Kreĭn spaces", IEEE TPAMI 38(6), §3.1.

    Examples
    --------
    >>> import numpy as np
    >>> from krein.estimators.novelty import CorrectedOneClassSVM
    >>> X = np.random.default_rng(0).standard_normal((20, 2))
    >>> CorrectedOneClassSVM(kernel="sigmoid").fit(X).predict(X).shape
    (20,)
    """

    _parameter_constraints: dict = {
        "nu": [Interval(Real, 0, 1, closed="right")],
        "correction": [StrOptions(set(RIDGE_CORRECTIONS))],
        **KERNEL_CONSTRAINTS,
    }

    def __init__(self, *, nu=0.5, correction="flip", kernel="gaussian", kernel_params=None):
        self.nu = nu
        self.correction = correction
        self.kernel = kernel
        self.kernel_params = kernel_params

    def _fit_kernel(self, K):
        spec, krein_map, corrected = corrected_kernel(K, self.correction)
        scale = float(np.mean(np.abs(np.diag(K))))
        scale = scale if np.isfinite(scale) and scale > 0 else 1.0
        svm = OneClassSVM(kernel="precomputed", nu=self.nu).fit(corrected / scale)
        a = np.zeros(K.shape[0])
        a[svm.support_] = svm.dual_coef_[0]
        self.dual_coef_ = krein_map(a)
        self.offset_ = float(-svm.intercept_[0]) * scale
        self.kernel_scale_ = scale
        self.svm_ = svm
        self.spectrum_ = spec

    def _score_rows(self, X, rows):
        return rows @ self.dual_coef_


class KernelKNeighborsOutlier(_KernelOutlier):
    """Minus the mean squared kernel-induced distance to the ``n_neighbors`` nearest.

    Parameters
    ----------
    n_neighbors : int >= 1, default=5
        Number of neighbours (fewer than the training points).
    nu : float in (0, 1), default=0.1
        The fraction of training points (each scored without itself) below ``offset_``.
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
    offset_ : float
        The ``nu`` quantile of the left-out training scores.

    References
    ----------
    Ramaswamy, Rastogi & Shim (2000), "Efficient algorithms for mining outliers from large
    data sets", SIGMOD.  Chen, Garcia, Gupta, Rahimi & Cazzanti (2009), "Similarity-based
    classification: concepts and algorithms", JMLR 10.

    Examples
    --------
    >>> import numpy as np
    >>> from krein.estimators.novelty import KernelKNeighborsOutlier
    >>> X = np.r_[np.zeros((5, 1)), [[10.0]]]
    >>> det = KernelKNeighborsOutlier(n_neighbors=2, kernel="linear").fit(X[:5])
    >>> det.predict(X[-1:])
    array([-1])
    """

    _parameter_constraints: dict = {
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "nu": [Interval(Real, 0, 1, closed="neither")],
        **KERNEL_CONSTRAINTS,
    }

    def __init__(self, *, n_neighbors=5, nu=0.1, kernel="gaussian", kernel_params=None):
        self.n_neighbors = n_neighbors
        self.nu = nu
        self.kernel = kernel
        self.kernel_params = kernel_params

    def _fit_kernel(self, K):
        n = K.shape[0]
        if self.n_neighbors >= n:
            raise ValueError(f"n_neighbors = {self.n_neighbors} must be below the {n} training "
                             "points (each is scored without itself)")
        self.train_diagonal_ = np.diag(K).copy()
        d2 = self.train_diagonal_[:, None] + self.train_diagonal_[None, :] - 2.0 * K
        np.fill_diagonal(d2, np.inf)                   # each point left out of its neighbours
        left_out = -np.sort(d2, axis=1)[:, :self.n_neighbors].mean(axis=1)
        self.offset_ = float(np.quantile(left_out, self.nu))

    def _score_rows(self, X, rows):
        if self._precomputed():
            # k(x, x) is not in a test row: the mean K_jj stands for it (module docstring)
            self_similarity = float(np.mean(self.train_diagonal_))
        else:
            self_similarity = np.array([pairwise_kernel(self.kernel, x[None, :], None,
                                                        self.kernel_params)[0, 0] for x in X])
            self_similarity = self_similarity[:, None]
        d2 = self_similarity + self.train_diagonal_[None, :] - 2.0 * rows
        return -np.sort(d2, axis=1)[:, :self.n_neighbors].mean(axis=1)
