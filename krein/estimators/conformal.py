"""``ConformalTransformation``: munoz eqs. (13)-(14) as a scikit-learn transformer on kernels."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin, clone
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from .._fitting import fit_wrapper, numpy_output
from .._validation import check_kernel_rows, check_square_kernel
from ..solvers.conformal import CONFORMAL_METHODS, conformal_fit, conformal_rows, conformal_start
from ..solvers.table import SolverName
from ..spectrum import (TRANSFORMS, Spectrum, SpectrumCorrection, input_precision,
                        validate_fit_kernel, validate_kernel_rows)

__all__ = ["ConformalTransformation"]


class ConformalTransformation(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Conformal transformation of a PSD base kernel towards ``K`` (munoz §3.4).

    Fits ``V`` (shape ``(n, r)``; ``r = 1`` is munoz's diagonal ``W = diag(w)``)
    minimizing ``||K - A o (V V')||_F^2`` (eq. 13) for a PSD base kernel ``A`` on
    the same points, and returns ``K* = A o (V V')``, PSD because ``A`` is (Schur
    product theorem).  New points get ``v_x`` by eq. (14) (least squares on their
    kernel row) and rows ``K*(x, X_j) = A(x, X_j) v_x' v_j``
    (:mod:`krein.solvers.conformal`).

    Its output columns are the training objects (``get_feature_names_out``: the
    columns' names of a fitted DataFrame kernel, else ``x0``, ``x1``, ...), so
    ``set_output(transform="pandas")`` returns the kernel rows as DataFrames.

    Parameters
    ----------
    base : str, transformer, or array of shape (n, n)
        The PSD base ("a priori") kernel ``A``.  A transformer only sees kernel
        matrices, so ``A`` must come either from ``K`` itself or from the user:

        * a name of :data:`krein.spectrum.TRANSFORMS` (``"flip"`` default,
          ``"clip"``, ``"square"``, ...): ``A`` is that spectrum correction of the
          training ``K`` (:class:`krein.spectrum.SpectrumCorrection` with its
          default out-of-sample map, which also gives the rows ``A(x, X)`` of new
          points).  Works in a pipeline with cross-validation: each training fold
          gets the correction of its own block.  Note that with ``"clip"`` the
          start ``w = 1`` is already a stationary point of eq. (13)
          (``grad = 4 diag(A (A - K)) = -4 diag(K_+ K_-) = 0``), so for ``r = 1``
          the result is the clipped kernel itself.
        * a scikit-learn transformer on kernel matrices returning a PSD kernel
          (e.g. ``krein.Bending()``): cloned, ``fit_transform(K, y)`` gives ``A``
          and ``transform(K_rows)`` its rows for new points.
        * an array of shape (n, n): a precomputed PSD ``A`` on the training
          points (munoz §4: the average of the kernels, CT_AKM, or an RBF
          kernel, CT_RBF).  For a fixed training set only: ``transform`` then
          needs the rows of ``A`` for new points, so call
          :meth:`transform_rows` ``(K_rows, A_rows)``; plain ``transform``
          raises.
    solver : {"optimize", "search", "lbfgs"}
        The algorithm for eq. (13) (:data:`krein.solvers.conformal.CONFORMAL_METHODS`);
        the model is the same for all three.  ``"search"``: the paper's fixed-step coordinate search
        (:func:`krein.solvers.conformal.conformal_search`); ``"lbfgs"``: L-BFGS-B
        with the analytic gradient from the paper's start ``w = 1``
        (:func:`krein.solvers.conformal.conformal_lbfgs`); ``"optimize"``: the
        better of L-BFGS-B from the start and L-BFGS-B from the search's end
        point -- a stationary point never worse than the search (eq. 13 is not
        convex and plain L-BFGS-B can end in a worse basin than the search;
        :mod:`krein.solvers.conformal`).
    r : int >= 1
        Number of columns of ``V`` (munoz: "a matrix V of r columns of weights").
    step : float > 0
        The fixed step of ``"search"``.
    tol : float >= 0
        Relative tolerance of L-BFGS-B (gradient of ``f / ||K||_F^2``).
    max_iter : int >= 1
        L-BFGS-B iterations or search sweeps, per run (``ConvergenceWarning``
        when reached).
    random_state : int, RandomState or None
        Start of the columns beyond the first when ``r > 1``.

    Attributes
    ----------
    kernel_ : ndarray of shape (n, n)
        ``A o (V V')``, the transformed training kernel.
    V_ : ndarray of shape (n, r)
        Fitted weights.
    w_ : ndarray of shape (n,) or None
        ``diag(W)`` when ``r = 1``.
    base_kernel_ : ndarray of shape (n, n)
        ``A``.
    base_transformer_ : transformer or None
        The fitted transformer giving ``A`` and its rows (None for an array base).
    objective_ : float
        ``||K - A o (V V')||_F^2``.
    n_iter_ : int
        Iterations (summed over the runs of ``"optimize"``).
    trace_ : pandas.DataFrame
        Per iteration/sweep: ``objective, grad_norm, seconds`` (``n_moves`` for
        the search; ``phase`` for ``"optimize"``).
    solution_ : krein.solvers.Solution
    spectrum_ : krein.spectrum.Spectrum
        Spectrum of the input kernel (``r_mm``, ``r_neg``, munoz eq. 2).
    min_eigenvalue_ : float
        Least eigenvalue of the input kernel.
    n_features_in_ : int

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        In ``fit`` (a ``ValueError``): a parameter outside the values above.
    ValueError
        In ``fit``: a bad ``K`` (sparse: ``TypeError``); a base that is not PSD
        (least eigenvalue below ``-max(1e-10, n * eps) * max |lam(A)|``, ``eps``
        the machine precision of the input's dtype) or not of shape (n, n).

    Notes
    -----
    ``transform`` on the training rows reproduces ``kernel_`` up to the
    stationarity residual of the fit (exactly at a stationary point; see
    :mod:`krein.solvers.conformal`) when the base's out-of-sample map
    reproduces ``A`` on training rows (true for ``"flip"``, ``"clip"``,
    ``"square"`` and an array base given its own rows).

    References
    ----------
    A. Munoz and I. Martin de Diego (2006), §3.4, eqs. (13)-(14); Tables 1-2.

    Examples
    --------
    The sigmoid kernel matrix of two Gaussian blobs is indefinite; the corrected one is positive
    semi-definite:

    >>> import numpy as np
    >>> from sklearn.datasets import make_blobs
    >>> from krein import ConformalTransformation
    >>> from krein.kernels import sigmoid_kernel
    >>> X, _ = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> K = sigmoid_kernel(X, X, a=0.05, r=-0.5)
    >>> bool(np.linalg.eigvalsh(K).min() < 0)
    True
    >>> K_psd = ConformalTransformation().fit_transform(K)
    >>> bool(np.linalg.eigvalsh(K_psd).min() >= -1e-8 * np.abs(K_psd).max())
    True
    """

    _parameter_constraints: dict = {
        "base": [StrOptions(set(TRANSFORMS)), HasMethods(["fit_transform", "transform"]),
                 "array-like"],
        "solver": [SolverName(CONFORMAL_METHODS, cvxpy=False)],
        "r": [Interval(numbers.Integral, 1, None, closed="left")],
        "step": [Interval(numbers.Real, 0, None, closed="neither")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, *, base="flip", solver="optimize", r=1, step=0.01, tol=1e-10, max_iter=1000,
                 random_state=None):
        self.base = base
        self.solver = solver
        self.r = r
        self.step = step
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def _base(self, K, y, eps):
        """``(A, fitted transformer or None)``; ``eps``: the input's machine precision."""
        base = self.base
        n = K.shape[0]
        if isinstance(base, str):  # one of TRANSFORMS (_parameter_constraints)
            base = SpectrumCorrection(correction=base)
        if hasattr(base, "fit_transform") and hasattr(base, "transform"):
            tr = numpy_output(clone(base))
            A = check_square_kernel(tr.fit_transform(K, y), "base kernel A")
            if A.shape != K.shape:
                raise ValueError(f"the base transformer returned shape {A.shape}; expected {K.shape}")
        else:
            eps = max(eps, input_precision(base))
            try:
                A = check_square_kernel(base, "base")
            except (ValueError, TypeError) as exc:
                raise ValueError(f"base must be one of {list(TRANSFORMS)}, a transformer or a "
                                 f"PSD array of shape ({n}, {n}): {exc}") from exc
            if A.shape != K.shape:
                raise ValueError(f"base has shape {A.shape} but K has shape {K.shape}")
            tr = None
        lam = np.linalg.eigvalsh(A)
        scale = max(float(np.max(np.abs(lam))), np.finfo(float).tiny)
        if lam[0] < -max(1e-10, n * eps) * scale:  # round-off of the input's precision
            raise ValueError(f"the base kernel A must be PSD (munoz §3.4); its least eigenvalue "
                             f"is {lam[0]:.3g} (max |lam| {scale:.3g})")
        return A, tr

    @fit_wrapper(prefer_skip_nested_validation=False)  # a transformer base is the user's
    def fit(self, K, y=None):
        """Fit the conformal weights ``V``.

        Parameters
        ----------
        K : array of shape (n, n)
            Symmetric training kernel.
        y : array of shape (n,), optional
            Only passed on to a transformer ``base`` (e.g. ``Bending`` with
            support-vector weights); otherwise ignored.

        Returns
        -------
        self : ConformalTransformation
            The fitted transformer (``V_``, ``kernel_`` set).

        Raises
        ------
        ValueError
            Bad ``K``, parameters, or a base that is not PSD or not (n, n).
        """
        eps = input_precision(K)
        K = validate_fit_kernel(self, K)
        n = K.shape[0]
        A, tr = self._base(K, y, eps)
        V0 = conformal_start(n, int(self.r), self.random_state)
        sol = conformal_fit(K, A, V0, solver=self.solver, step=float(self.step),
                            tol=float(self.tol), max_iter=int(self.max_iter))
        V = sol.primal["V"]
        self.V_ = V
        self.w_ = V[:, 0].copy() if V.shape[1] == 1 else None
        self.kernel_ = sol.primal["kernel"]
        self.base_kernel_ = A
        self.base_transformer_ = tr
        self.objective_ = float(sol.objective)
        self.n_iter_ = int(sol.iterations)
        self.trace_ = sol.trace
        self.solution_ = sol
        self.spectrum_ = Spectrum.from_kernel(K, check=False)
        self.min_eigenvalue_ = self.spectrum_.min_eigenvalue
        return self

    def fit_transform(self, K, y=None):
        """Fit and return the transformed training kernel ``A o (V V')``.

        Parameters
        ----------
        K : array of shape (n, n)
            Symmetric training kernel.
        y : array of shape (n,), optional
            Only passed on to a transformer ``base``; otherwise ignored.

        Returns
        -------
        ndarray of shape (n, n)
            A copy of ``kernel_ = A o (V V')`` (munoz eq. 13).
        """
        return self.fit(K, y).kernel_.copy()

    def transform(self, K_rows):
        """Transformed rows of new points: ``A(x, X_j) v_x' v_j`` with ``v_x`` by eq. (14).

        Parameters
        ----------
        K_rows : array of shape (m, n)
            Kernel ``K`` between new and training points.

        Returns
        -------
        ndarray of shape (m, n)
            ``A(x, X_j) v_x' v_j`` for each new point ``x`` and training point ``j``.

        Raises
        ------
        ValueError
            Wrong width or NaN/inf; or the base is an array (use :meth:`transform_rows`).
        """
        K_rows = validate_kernel_rows(self, K_rows, "V_")
        if self.base_transformer_ is None:
            raise ValueError("base was given as an array, so the rows A(x, X) of new points are "
                             "unknown: call transform_rows(K_rows, A_rows)")
        A_rows = np.asarray(self.base_transformer_.transform(K_rows), dtype=float)
        return conformal_rows(K_rows, A_rows, self.V_)

    def transform_rows(self, K_rows, A_rows=None):
        """Transformed rows with explicit base rows ``A(x, X)`` (munoz eq. 14).

        Parameters
        ----------
        K_rows : array of shape (m, n)
            Kernel ``K`` between new and training points.
        A_rows : array of shape (m, n), optional
            Base kernel between new and training points; default from the base
            transformer (required for an array base).

        Returns
        -------
        ndarray of shape (m, n)
            ``A(x, X_j) v_x' v_j`` with ``v_x`` by munoz eq. (14).

        Raises
        ------
        ValueError
            Wrong shapes or NaN/inf; ``A_rows`` missing for an array base.
        """
        if A_rows is None:
            return self.transform(K_rows)
        K_rows = validate_kernel_rows(self, K_rows, "V_")
        A_rows = check_kernel_rows(A_rows, self.n_features_in_, "A_rows")
        if A_rows.shape != K_rows.shape:
            raise ValueError(f"A_rows must have the shape of K_rows {K_rows.shape}; got {A_rows.shape}")
        return conformal_rows(K_rows, A_rows, self.V_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags
