"""``Bending``: munoz Algorithm 1 as a scikit-learn transformer on kernel matrices."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions

from .._fitting import fit_wrapper
from ..solvers.bending import BENDING_FUNCTIONS, BENDING_ROW_MAPS, bending, check_bending_weights
from ..solvers.libsvm import libsvm_svc
from ..spectrum import Spectrum, validate_fit_kernel, validate_kernel_rows

__all__ = ["Bending"]


class Bending(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Bend an indefinite kernel matrix into a PSD one (munoz §3.2, Algorithm 1).

    Iterates ``K_{n+1} = K_n - [K_n - U_n g(Lambda_n) U_n'] o W`` until ``K_n`` is
    PSD (:func:`krein.solvers.bending.bending`, where the choices of ``g``, the
    stopping rule and eq. (8) are documented).  ``fit_transform(K)`` returns the
    bent ``(n, n)`` kernel; ``transform(K_rows)`` carries ``(m, n)`` kernel rows
    of new points through the same steps by eq. (8).  So
    ``make_pipeline(Bending(), SVC(kernel="precomputed"))`` works in
    ``cross_val_score`` on a precomputed kernel.

    Its output columns are the training objects (``get_feature_names_out``: the
    columns' names of a fitted DataFrame kernel, else ``x0``, ``x1``, ...), so
    ``set_output(transform="pandas")`` returns the kernel rows as DataFrames.

    Parameters
    ----------
    correction : {"clip", "flip", "shift", "square"}
        The eigenvalue map ``g`` of each step: ``max(lam, eps)`` (Hayes & Hill,
        the original bending), ``max(|lam|, eps)``, ``lam + shift``, ``lam**2``
        (munoz §3.2; :data:`krein.solvers.bending.BENDING_FUNCTIONS`): with
        ``eps = 0`` and ``weights=None`` one step is the spectrum correction of
        the same name (:mod:`krein._vocabulary`).
    eps : float >= 0
        ``eps`` of Algorithm 1; also the MDS threshold (munoz eq. 1) of the first
        fit when ``weights="support-vectors"``.
    shift : float > 0, optional
        Constant of ``correction="shift"``; default per step ``max(0, eps - lam_min(K_n))``.
    weights : None, "support-vectors", array of shape (n,) or (n, n)
        The weighting matrix ``W`` (entries in ``[0, 1]``: the fraction of the gap
        closed per step; 0 freezes an entry, so entries with a *small* weight
        move *less*):

        * ``None``: every entry 1.  One step then gives ``U g(Lambda) U'``: for
          ``correction="clip"``, ``eps=0`` the clip/MDS kernel ("If the weighting matrix W
          is such that all its elements are equal, then the Bending method is
          equivalent to the MDS method", munoz §3.2).
        * ``"support-vectors"``: munoz §4 ("The support vectors obtained with the
          MDS method were used to define the weighting matrices needed in the
          Bending and AP methods").  The paper does not say how; our reading: an
          ``SVC(kernel="precomputed", C=C)`` is fitted on the MDS kernel
          (munoz eq. 1 with threshold ``eps``) and ``y``; its support vectors
          carry the decision function, so their kernel entries are kept closer
          to the data: ``w_i = sv_weight`` for a support vector, 1 otherwise, and
          ``W = w w'`` (entries among support vectors close ``sv_weight^2`` of
          the gap per step, entries between a support vector and another point
          ``sv_weight``, all others the whole gap).  Requires ``y`` in ``fit``.
        * a vector ``w`` of shape (n,): ``W = w w'``.
        * a symmetric matrix of shape (n, n).

        The arrays fit one training set only (their size is ``n``); inside a
        cross-validated pipeline use ``None`` or ``"support-vectors"``.
    sv_weight : float in (0, 1]
        Weight ``w_i`` of a support vector with ``weights="support-vectors"``.
    C : float > 0
        ``C`` of the first SVC fit with ``weights="support-vectors"``.
    new_weights : None, float in [0, 1] or array of shape (n,)
        The weight row ``W(x, .)`` of every new point in eq. (8) (munoz: "a
        weighting matrix for the new points should be known in advance").
        ``None``: ``W(x, j) = w_j`` for the ``W = w w'`` forms (a new point is
        weighted like a point with ``w_x = 1``, i.e. a non-support vector), and
        ``W(x, j) = 1`` for a user matrix.  A float ``c``: ``c w_j``, resp. ``c``.
        An array: used as is.
    out_of_sample : {"munoz", "spectral"}
        Per-step map ``M_n`` of eq. (8): ``"munoz"`` uses the classical map of
        each ``g`` (eq. 3 for ``"clip"``, i.e. eq. 8 as printed; eq. 5 for
        ``"flip"``; eq. 7 for ``"square"``; rows unchanged for ``"shift"``);
        ``"spectral"`` uses ``U diag(g(lam) / lam) U'``, which reproduces the
        fitted rows exactly (see :mod:`krein.solvers.bending`).
    tol : float >= 0
        Stop when ``lam_min(K_n) >= -tol * max |lam(K_n)|``.
    max_iter : int >= 1
        Maximum number of bending steps (``ConvergenceWarning`` when reached).

    Attributes
    ----------
    kernel_ : ndarray of shape (n, n)
        The bent training kernel (the last iterate).
    weights_ : ndarray of shape (n, n)
        The weighting matrix ``W`` used.
    new_weights_ : ndarray of shape (n,)
        The weight row ``W(x, .)`` used for new points.
    support_ : ndarray of int or None
        Support vectors of the first fit (``weights="support-vectors"``).
    row_map_ : ndarray of shape (n, n)
        ``T`` with ``transform(K_rows) = K_rows @ T`` (eq. 8 composed over the steps).
    n_iter_ : int
        Number of bending steps.
    trace_ : pandas.DataFrame
        One row per eigendecomposition: ``iter, min_eigenvalue, n_negative,
        objective (||K_n - K||_F), residual, change, seconds``.
    solution_ : krein.solvers.Solution
    spectrum_ : krein.spectrum.Spectrum
        Spectrum of the input kernel (``r_mm``, ``r_neg`` of munoz eq. 2).
    min_eigenvalue_ : float
        Least eigenvalue of the input kernel.
    n_features_in_ : int
        Number of training points ``n``.

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        In ``fit`` (a ``ValueError``): a parameter outside the values above.
    ValueError
        In ``fit``: a bad ``K`` (sparse: ``TypeError``), weights of the wrong
        shape, ``weights="support-vectors"`` without ``y``.
    krein.solvers.SolverError
        If the iteration diverges (non-finite entries).

    Notes
    -----
    ``transform`` applied to the training rows reproduces ``kernel_`` exactly when
    every training point has the new-point weight row (``weights=None``, or a
    constant matrix equal to ``new_weights``) and the map is exact
    (``out_of_sample="spectral"``, or ``"munoz"`` with ``eps=0`` for
    ``"clip"``/``"flip"``, and ``"square"``).  Otherwise each training row ``i``
    would need its own weight row ``W(i, .)``; :func:`krein.solvers.bending.bending`
    accepts per-row weights for that.

    References
    ----------
    A. Munoz and I. Martin de Diego (2006), §3.2 Algorithm 1, eq. (8), §4.
    J. F. Hayes and W. G. Hill (1981), Biometrics 37, 483-493.

    Examples
    --------
    The sigmoid kernel matrix of two Gaussian blobs is indefinite; the corrected one is positive
    semi-definite:

    >>> import numpy as np
    >>> from sklearn.datasets import make_blobs
    >>> from krein import Bending
    >>> from krein.kernels import sigmoid_kernel
    >>> X, _ = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> K = sigmoid_kernel(X, X, a=0.05, r=-0.5)
    >>> bool(np.linalg.eigvalsh(K).min() < 0)
    True
    >>> K_psd = Bending(correction="clip").fit_transform(K)
    >>> bool(np.linalg.eigvalsh(K_psd).min() >= -1e-8 * np.abs(K_psd).max())
    True
    """

    _parameter_constraints: dict = {
        "correction": [StrOptions(set(BENDING_FUNCTIONS))],
        "eps": [Interval(numbers.Real, 0, None, closed="left")],
        "shift": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "weights": [None, StrOptions({"support-vectors"}), "array-like"],
        "sv_weight": [Interval(numbers.Real, 0, 1, closed="right")],
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "new_weights": [None, Interval(numbers.Real, 0, 1, closed="both"), "array-like"],
        "out_of_sample": [StrOptions(set(BENDING_ROW_MAPS))],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(self, *, correction="clip", eps=0.0, shift=None, weights=None, sv_weight=0.5, C=1.0,
                 new_weights=None, out_of_sample="munoz", tol=1e-8, max_iter=200):
        self.correction = correction
        self.eps = eps
        self.shift = shift
        self.weights = weights
        self.sv_weight = sv_weight
        self.C = C
        self.new_weights = new_weights
        self.out_of_sample = out_of_sample
        self.tol = tol
        self.max_iter = max_iter

    def _weights(self, K, y):
        n = K.shape[0]
        if isinstance(self.weights, str):  # "support-vectors" (_parameter_constraints)
            if y is None:
                raise ValueError("weights='support-vectors' needs the labels y in fit(K, y) "
                                 "(munoz §4: support vectors of an SVC on the MDS kernel)")
            y = np.asarray(y)
            if y.shape != (n,):
                raise ValueError(f"y must have shape ({n},); got {y.shape}")
            K_mds = Spectrum.from_kernel(K, check=False).corrected_kernel("mds", eps=float(self.eps))
            svc = libsvm_svc(K_mds, y, self.C)
            support = np.sort(svc.support_)
            w = np.ones(n)
            w[support] = float(self.sv_weight)
            return np.outer(w, w), w, support
        W, w = check_bending_weights(self.weights, n)
        return W, w, None

    def _new_weights(self, n, w):
        u = self.new_weights
        base = w if w is not None else np.ones(n)
        if u is None:
            return base.copy()
        if isinstance(u, numbers.Real):  # in [0, 1] (_parameter_constraints)
            return float(u) * base
        arr = np.asarray(u, dtype=float)
        if arr.shape != (n,) or not np.all(np.isfinite(arr)) or arr.min() < 0 or arr.max() > 1:
            raise ValueError(f"new_weights must be None, a number in [0, 1] or an array of shape "
                             f"({n},) with entries in [0, 1]; got {u!r}")
        return arr.copy()

    @fit_wrapper
    def fit(self, K, y=None):
        """Bend the training kernel.

        Parameters
        ----------
        K : array of shape (n, n)
            Symmetric training kernel.
        y : array of shape (n,), optional
            Labels; required with ``weights="support-vectors"``, else ignored.

        Returns
        -------
        self : Bending
            The fitted transformer (``kernel_``, ``row_map_`` set).

        Raises
        ------
        ValueError
            Bad ``K``, parameters or weights; missing ``y`` for support-vector weights.
        krein.solvers.SolverError
            If the iteration diverges (non-finite entries).
        """
        K = validate_fit_kernel(self, K)
        n = K.shape[0]
        W, w, support = self._weights(K, y)
        u = self._new_weights(n, w)
        sol = bending(K, W, correction=self.correction, eps=float(self.eps), shift=self.shift,
                      tol=float(self.tol), max_iter=int(self.max_iter),
                      out_of_sample=self.out_of_sample, rows=np.eye(n), row_weights=u)
        spec = Spectrum.from_kernel(K, check=False)
        self.kernel_ = sol.primal["K"]
        self.row_map_ = sol.primal["rows"]
        self.weights_ = W
        self.new_weights_ = u
        self.support_ = support
        self.n_iter_ = int(sol.iterations)
        self.trace_ = sol.trace
        self.solution_ = sol
        self.spectrum_ = spec
        self.min_eigenvalue_ = spec.min_eigenvalue
        return self

    def fit_transform(self, K, y=None):
        """Fit and return the bent training kernel.

        Parameters
        ----------
        K : array of shape (n, n)
            Symmetric training kernel.
        y : array of shape (n,), optional
            Labels; required with ``weights="support-vectors"``, else ignored.

        Returns
        -------
        ndarray of shape (n, n)
            A copy of ``kernel_``, the PSD bent kernel (munoz §3.2, Algorithm 1).
        """
        return self.fit(K, y).kernel_.copy()

    def transform(self, K_rows):
        """Carry kernel rows of new points through the bending steps (munoz eq. 8).

        Parameters
        ----------
        K_rows : array of shape (m, n)
            Kernel values between new points and the training points.

        Returns
        -------
        ndarray of shape (m, n)
            ``K_rows @ row_map_``.

        Raises
        ------
        ValueError
            On a wrong width or NaN/inf.
        """
        K_rows = validate_kernel_rows(self, K_rows, "row_map_")
        return K_rows @ self.row_map_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags
