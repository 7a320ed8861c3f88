"""Least squares in a reproducing kernel Kreĭn space (Oglic & Gärtner 2018): the global optimum.

The learning problem
--------------------
With a (possibly indefinite) kernel ``k``, its Kreĭn space ``K = H_+ (-) H_-`` and the
associated Hilbert space ``H_K`` (same functions, norm ``||f||_H^2 = ||f_+||^2 +
||f_-||^2``), Oglic & Gärtner (2018, ICML, PMLR 80) fix the Hilbert norm of the
hypothesis::

    min_{f in K}  1/n sum_i (f(x_i) - y_i)^2 + lambda <f, f>_K   s.t.  ||f||_H^2 = r^2.   (P)

By their (strong) representer theorem ``f = sum_i alpha_i k(x_i, .)``, so ``(f(x_i))_i
= K alpha``, ``<f, f>_K = alpha' K alpha`` and ``||f||_H^2 = alpha' |K| alpha`` with
``|K| = U |D| U'`` for ``K = U D U'``.  In ``beta = |D|^(1/2) U' alpha`` (the nonzero
spectrum; ``S = sign(D)``) problem (P) is, up to a constant,

    min_beta  beta' A beta - 2 b' beta   s.t.  ||beta||^2 = r^2,
    A = diag(|D| / n + lambda S),   b = S |D|^(1/2) U' y / n,

a quadratic form over a hypersphere with a DIAGONAL ``A``: solved to its global
optimum by the secular equation (:func:`krein.solvers.sphere.sphere_minimize`), one
eigendecomposition (O(n^3)) then O(n) per secular evaluation.  The prediction is
``f(x) = k(x, X) alpha + b0`` with ``alpha = U |D|^(-1/2) beta``; the targets are
centred first (``b0 = mean(y)``, not part of the sphere problem).

What could not be read: only the abstract and the introduction of the paper were
reachable here.  The form above (squared loss, the Kreĭn inner product weighted by
``lambda`` and the Hilbert norm fixed) is the reading of the abstract; ``lambda``
(``krein_penalty``) defaults to 0, the squared loss over the sphere alone.

Sample weights
--------------
With integer weights ``w`` (``N = sum w``) the samples repeated have the kernel ``R K
R'`` (``R`` the ``N x n`` repetition matrix, ``R'R = W = diag(w)``).  With ``S = W^(1/2)``
and ``Q = R S^(-1)`` (orthonormal columns) ``R K R' = Q (S K S) Q'``: the repeated kernel
has the nonzero eigenpairs ``(lam, Q u)`` of those ``(lam, u)`` of ``S K S``.  So the
repeated problem (P) (``b0`` the mean of the ``N`` targets, the loss their mean) is (P)
on ``S K S`` with ``z = |lam|^(1/2) u' S (y - b0)``, ``n = N``, ``b0 = w'y / N`` and
the default radius from the scale of the repeated kernel
(:func:`weighted_kernel_scale`); its coefficients on the rows of ``K`` are ``alpha = S
U |lam|^(-1/2) beta`` (the copies' coefficients summed), the same global optimum.  A
weight of 0 removes the sample (row and column).  The approximate path takes no
weights: its problem is diagonal because ``Psi' Psi = |lam|``, which weighted rows break.

Hyperparameters and their gradient
----------------------------------
``radius_squared`` is ``r^2`` (a squared radius so that ``K -> s K`` maps it to
``r^2 / s``, an integer exponent: the same model, predictions unchanged; ``lambda -> s
lambda``).  The derivative of ``beta`` in ``(r^2, lambda)`` follows from the implicit
function theorem on the optimality conditions (:func:`krein.solvers.sphere.
sphere_sensitivity`; the gradient the abstract announces, derived here since its section
could not be read); :meth:`KreinLeastSquaresRegressor.validation_gradient` chains it to
the mean squared error on held-out points, and, given the derivative of the kernel in one
of its parameters, adds that parameter's gradient (the Daleckii-Krein derivative of
``|K|`` in the constraint; a nonsingular ``K``).

Large n
-------
``approximation=IndefiniteNystroem(...)`` (Oglic & Gärtner 2019): with signed features
``Psi`` (``K_approx = Psi S Psi' = V diag(lam) V'``, ``Psi' Psi = |lam|``) the same
problem has ``A = diag(|lam| / n + lambda S)``, ``b = S Psi' y / n`` and
``f(x) = psi(x) (S beta) + b0``: O(n m^2), never an ``n x n`` array.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .._fitting import fit_wrapper, numpy_output
from .._validation import check_square_kernel
from ..kernels import NEGLIGIBLE_DIAGONAL, kernel_scale
from ..representation import SignedFeatures
from ..solvers.sphere import sphere_minimize, sphere_sensitivity
from .approximate import ApproximationMixin
from .base import (KERNEL_CONSTRAINTS, BinaryModel, KernelClassifierBase, KernelMixin,
                   least_eigenvalue, positive_weight_rows)

__all__ = ["KreinLeastSquaresRegressor", "KreinLeastSquaresClassifier", "krein_least_squares",
           "weighted_kernel_scale", "check_weights"]

#: The parameters of problem (P) shared by both estimators.
_RKKS_CONSTRAINTS = {
    "radius_squared": [Interval(Real, 0, None, closed="neither")],
    "krein_penalty": [Interval(Real, 0, None, closed="left")],
    "approximation": [HasMethods(["fit_transform", "transform"]), None],
}


def krein_least_squares(eigenvalues, z, n_samples, radius_squared, krein_penalty=0.0):
    """Problem (P) in the eigen-coordinates: the global minimizer ``beta`` and its multiplier.

    Oglic & Gärtner (2018): with the nonzero eigenvalues ``lam`` of the kernel
    ``U diag(lam) U'`` and ``z = |lam|^(1/2) U' y`` (``= Psi' y`` for features with
    ``Psi Psi' = |K|``), minimizes ``beta' A beta - 2 b' beta`` over
    ``||beta||^2 = radius_squared`` with ``A = diag(|lam| / n + krein_penalty sign(lam))``
    and ``b = sign(lam) z / n`` (module docstring).

    Parameters
    ----------
    eigenvalues : array of shape (k,)
        Nonzero eigenvalues ``lam`` of the (training) kernel.
    z : array of shape (k,)
        ``|lam|^(1/2) U' y``: the centred targets in the feature coordinates.
    n_samples : int >= 1
        ``n``, the number of training points (the loss is their mean).
    radius_squared : float > 0
        ``r^2 = ||f||_H^2``.
    krein_penalty : float >= 0
        ``lambda``, the weight of ``<f, f>_K``.

    Returns
    -------
    beta : ndarray of shape (k,)
        The global minimizer; ``alpha = U (beta / |lam|^(1/2))``.
    solution : krein.solvers.Solution
        From :func:`~krein.solvers.sphere.sphere_minimize` (certificate included).
    a : ndarray of shape (k,)
        The diagonal of ``A`` (for :func:`~krein.solvers.sphere.sphere_sensitivity`).
    """
    lam = np.asarray(eigenvalues, dtype=float)
    n = float(n_samples)
    s = np.sign(lam)
    a = np.abs(lam) / n + krein_penalty * s
    sol = sphere_minimize(a, s * np.asarray(z, dtype=float) / n, radius_squared)
    return sol.primal["beta"], sol, a


def weighted_kernel_scale(K, weight):
    """:func:`krein.kernels.kernel_scale` of the kernel of the samples repeated.

    With integer weights ``w`` the repeated kernel's diagonal holds ``K_ii`` ``w_i``
    times and its entries ``K_ij`` ``w_i w_j`` times: ``mean |K_ii|`` is ``sum_i w_i
    |K_ii| / N`` and ``mean |K_ij|`` is ``w'|K|w / N^2`` (``N = sum w``), chosen by the
    same rule (:data:`krein.kernels.NEGLIGIBLE_DIAGONAL`).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The kernel.
    weight : ndarray of shape (n,)
        Non-negative weights, positive sum.

    Returns
    -------
    float
        The scale, ``> 0`` (1 for a kernel of zeros on the weighted samples).
    """
    N = float(np.sum(weight))
    diagonal = float(weight @ np.abs(np.diag(K))) / N
    overall = float(weight @ np.abs(K) @ weight) / N ** 2
    if overall == 0.0:
        return 1.0
    return overall if diagonal < NEGLIGIBLE_DIAGONAL * overall else diagonal


def check_weights(sample_weight, X, approximation):
    """Validated ``sample_weight`` of a Kreĭn least-squares fit, or None.

    Parameters
    ----------
    sample_weight : array-like of shape (n,) or None
        The weights.
    X : ndarray of shape (n, ...) or None
        The validated input (None: only the approximation is checked).
    approximation : object or None
        The estimator's ``approximation``.

    Returns
    -------
    ndarray of shape (n,) or None
        The weights as floats.

    Raises
    ------
    ValueError
        ``sample_weight`` with an approximation (the signed features' problem is
        diagonal only for unweighted rows), a negative weight, a wrong length or a
        zero sum.
    """
    if sample_weight is None:
        return None
    if approximation is not None:
        raise ValueError("sample_weight is not supported with approximation=: the problem "
                         "on the signed features Psi is diagonal because Psi'Psi = |lam|, "
                         "which weighted rows break; fit the exact path (approximation=None) "
                         "or drop sample_weight")
    if X is None:
        return None
    weight = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                  ensure_non_negative=True)
    if not np.sum(weight) > 0:
        raise ValueError("sample_weight sums to zero: no sample to fit")
    return weight


def _nonzero_spectrum(K):
    """Eigenpairs of ``K`` with ``|lam|`` above ``n eps max|lam|`` (the null space dropped)."""
    from ..spectrum import Spectrum

    spec = Spectrum.from_kernel(K, check=False)
    keep = np.abs(spec.eigenvalues) > spec.tol
    return spec.eigenvalues[keep], spec.eigenvectors[:, keep], spec


class _KreinLeastSquaresMixin:
    """The exact and the feature paths of problem (P), shared by both estimators."""

    def _fit_kernel(self, K, y, weight=None):
        """(P) on the square kernel ``K`` and targets ``y``: ``(coef, b0, info)``; with
        ``weight`` (non-negative, shape (n,)) the problem of the samples repeated
        (:meth:`_fit_weighted`)."""
        if weight is not None:
            return self._fit_weighted(K, y, weight)
        b0 = float(np.mean(y))
        lam, U, spec = _nonzero_spectrum(K)
        z = np.sqrt(np.abs(lam)) * (U.T @ (y - b0))
        r2 = self._resolve_radius_squared(lam, z, kernel_scale(K))
        beta, sol, a = krein_least_squares(lam, z, y.size, r2, self.krein_penalty)
        coef = U @ (beta / np.sqrt(np.abs(lam)))
        info = {"solution": sol, "n_iter": int(sol.iterations or 1), "beta": beta, "a": a,
                "lam": lam, "vectors": U, "min_eigenvalue": spec.min_eigenvalue,
                "targets": y - b0, "null_dropped": bool(lam.size < K.shape[0])}
        return coef, b0, info

    def _fit_weighted(self, K, y, weight):
        """(P) of the samples repeated ``weight[i]`` times (module docstring, "Sample
        weights"), solved as (P) on ``S K S`` with ``S = diag(sqrt(w))``: ``(coef, b0, info)``.
        """
        keep = np.flatnonzero(weight > 0)
        root = np.sqrt(weight[keep])
        N = float(np.sum(weight))
        b0 = float(weight @ y) / N
        lam, U, spec = _nonzero_spectrum(K[np.ix_(keep, keep)] * root[:, None] * root)
        targets = root * (y[keep] - b0)
        z = np.sqrt(np.abs(lam)) * (U.T @ targets)
        r2 = self._resolve_radius_squared(lam, z, weighted_kernel_scale(K, weight))
        beta, sol, a = krein_least_squares(lam, z, N, r2, self.krein_penalty)
        coef = np.zeros(y.size)
        coef[keep] = root * (U @ (beta / np.sqrt(np.abs(lam))))
        info = {"solution": sol, "n_iter": int(sol.iterations or 1), "beta": beta, "a": a,
                "lam": lam, "vectors": U, "keep": keep, "root": root, "n_train": y.size,
                "min_eigenvalue": least_eigenvalue(K), "targets": targets,
                "null_dropped": bool(lam.size < N)}
        return coef, b0, info

    def _fit_signed(self, rep, y):
        """(P) on the signed eigenfeatures ``Psi`` (``Psi' Psi = |lam|``) of the kernel
        representation ``rep``: ``(coef, b0, info)``, ``f(x) = rep.rows(x) coef + b0``."""
        eig = rep.eigenfeatures()
        Psi, lam = eig.features, eig.eigenvalues
        b0 = float(np.mean(y))
        z = Psi.T @ (y - b0)
        # the scale of K_approx = Psi S Psi': mean |diag| (krein.kernels.kernel_scale)
        diag = np.abs((Psi ** 2) @ np.sign(lam))
        r2 = self._resolve_radius_squared(lam, z, float(np.mean(diag)) if diag.size else 1.0)
        beta, sol, a = krein_least_squares(lam, z, y.size, r2, self.krein_penalty)
        info = {"solution": sol, "n_iter": int(sol.iterations or 1), "beta": beta, "a": a,
                "lam": lam}
        return eig.to_rows(np.sign(lam) * beta), b0, info

    def _resolve_radius_squared(self, lam, z, scale):
        """``radius_squared``, or with None its data-relative default (sets ``radius_squared_``).

        The default is the squared Hilbert norm of kernel ridge regression on ``|K|``
        with the ridge ``kernel_scale(K)``, ``alpha = (|K| + s I)^-1 (y - mean y)``:
        in the eigen-coordinates ``beta_i = z_i / (|lam_i| + s)`` and
        ``r^2 = ||beta||^2``.  On a PSD kernel with ``krein_penalty = 0`` problem (P)
        at this radius IS that ridge regression (the sphere's multiplier is the
        ridge), i.e. ``KernelRidge(alpha=1)`` on the kernel divided by its scale.  It
        follows ``K -> s K`` as ``r^2 / s`` and ``y -> t y`` as ``t^2 r^2``.
        """
        if self.radius_squared is not None:
            self.radius_squared_ = float(self.radius_squared)
            return self.radius_squared_
        scale = scale if scale > 0 else 1.0
        r2 = float(np.sum((z / (np.abs(lam) + scale)) ** 2))
        # constant targets: no norm is needed; a sphere of round-off size
        self.radius_squared_ = r2 if r2 > 0 else float(np.finfo(float).eps) / scale
        return self.radius_squared_

    def _sensitivity(self, info):
        """``{hyperparameter: dbeta}`` at a fitted solution (module docstring)."""
        beta, a, lam = info["beta"], info["a"], info["lam"]
        mu = info["solution"].dual["mu"]
        d_r2, _ = sphere_sensitivity(a, beta, mu, d_radius_squared=1.0)
        d_lam, _ = sphere_sensitivity(a, beta, mu, d_eigenvalues=np.sign(lam))
        return {"radius_squared": d_r2, "krein_penalty": d_lam}

    def _kernel_sensitivity(self, info, dK):
        """``d alpha`` along a direction ``dK`` of the training kernel (exact path).

        The map ``alpha = W beta``, ``W = U |D|^(-1/2)``, is held fixed; in ``beta`` the
        perturbed problem has ``dA = (S|D|^(1/2) E |D|^(-1/2) + its transpose) / n +
        lambda |D|^(-1/2) E |D|^(-1/2)``, ``db = |D|^(-1/2) U' dK y / n`` and the
        constraint ``beta' (I + dB) beta = r^2`` with ``dB = |D|^(-1/2) (Phi o E)
        |D|^(-1/2)`` (``E = U' dK U``; ``Phi``: the divided differences of ``|.|``, the
        Daleckii-Krein derivative of ``|K|``), so that ``(A - mu I) dbeta - beta dmu =
        db - dA beta + mu dB beta`` and ``2 beta' dbeta = -beta' dB beta``.
        """
        lam, U, beta = info["lam"], info["vectors"], info["beta"]
        mu = info["solution"].dual["mu"]
        n = float(U.shape[0])
        s, root = np.sign(lam), np.sqrt(np.abs(lam))
        E = U.T @ dK @ U
        inv = 1.0 / root
        dA_beta = ((s * root) * (E @ (inv * beta)) + inv * (E.T @ (s * root * beta))) / n \
            + self.krein_penalty * inv * (E @ (inv * beta))
        diff = lam[:, None] - lam[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            phi = (np.abs(lam)[:, None] - np.abs(lam)[None, :]) / diff
        same = np.abs(diff) <= 1e-12 * np.abs(lam).max()
        phi[same] = np.broadcast_to(s[:, None], phi.shape)[same]
        dB_beta = inv * ((phi * E) @ (inv * beta))
        db = inv * (U.T @ (dK @ info["targets"])) / n
        dbeta, _ = sphere_sensitivity(info["a"], beta, mu, d_b=db - dA_beta + mu * dB_beta,
                                      d_radius_squared=-float(beta @ dB_beta))
        return U @ (inv * dbeta)


class KreinLeastSquaresRegressor(_KreinLeastSquaresMixin, KernelMixin, RegressorMixin,
                                 BaseEstimator):
    """Least-squares regression in a reproducing kernel Kreĭn space, global optimum.

    Solves problem (P) of the module docstring (Oglic & Gärtner 2018): the squared loss
    plus ``krein_penalty * <f, f>_K`` over the functions of Hilbert norm
    ``||f||_H^2 = alpha' |K| alpha = radius_squared``, to its GLOBAL optimum by the
    secular equation of a quadratic over a hypersphere
    (:func:`krein.solvers.sphere.sphere_minimize`), with a certificate of global
    optimality; ``f(x) = k(x, X) alpha + intercept`` with the ORIGINAL kernel.

    Parameters
    ----------
    radius_squared : float > 0 or None, default=None
        ``r^2``, the squared Hilbert-space norm of the hypothesis (the tuned
        parameter; follows ``K -> s K`` as ``r^2 / s``).  None: relative to the
        data, the squared norm of kernel ridge regression on ``|K|`` with the ridge
        ``kernel_scale(K)`` (:func:`krein.kernels.kernel_scale`), which (P) then
        reproduces on a PSD kernel with ``krein_penalty = 0``; it follows ``r^2 / s``
        under ``K -> s K`` and ``t^2 r^2`` under ``y -> t y`` (a fixed ``r^2 = 10``
        underfits unit-variance targets under a unit-scale kernel: training R^2 =
        0.40 on scikit-learn's regression check data, 0.75 for the rule).
    krein_penalty : float >= 0, default=0.0
        ``lambda``, the weight of the Kreĭn inner product ``<f, f>_K``.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"``: ``fit`` takes the square ``(n, n)`` kernel matrix of the
        training points and ``predict``/``decision_function`` the ``(m, n)`` matrix
        of new points against them. A name of :data:`krein.kernels.KERNELS`:
        ``"gaussian"`` (``exp(-gamma ||x - z||^2)``, parameter ``gamma``),
        ``"sigmoid"`` (``tanh(a <x, z> + r)``, parameters ``a`` and ``r``; indefinite
        for most of them), ``"linear"``, ``"epanechnikov"``, ``"simpson"``,
        ``"tangent-distance"``; the kernel matrices are then computed from feature
        rows ``X``. Or a callable ``kernel(X, Z, **kernel_params)`` returning the
        ``(len(X), len(Z))`` matrix.
    kernel_params : dict, optional
        Keyword arguments of the named or callable kernel, e.g. ``{"gamma": 0.5}``
        for the Gaussian or ``{"a": 0.5, "r": -1.0}`` for the sigmoid; None takes
        the kernel's defaults.
    approximation : transformer or None, default=None
        :class:`krein.approximation.IndefiniteNystroem` (cloned, given ``kernel`` and
        ``kernel_params``): (P) on its signed features (module docstring, "Large n").

    Attributes
    ----------
    radius_squared_ : float
        The ``r^2`` used (``radius_squared``, or its default from the data).
    dual_coef_ : ndarray of shape (n_train,)
        ``alpha`` (exact path).
    coef_ : ndarray of shape (r,)
        Weights of the features (approximate path): ``f(x) = psi(x) coef_ + intercept_``.
    intercept_ : float
        ``mean(y)``.
    beta_ : ndarray of shape (k,)
        The solution in the eigen-coordinates (``||beta_||^2 = radius_squared``).
    solution_ : krein.solvers.Solution
        The sphere problem's solution and certificate (``certificate["kkt_residual"]``,
        ``certificate["hard_case"]``).
    min_eigenvalue_ : float
        Least eigenvalue of the training kernel (of the approximation on that path).
    X_fit_ : ndarray
        Training feature vectors (named kernels or callables, exact path).

    Raises
    ------
    ValueError
        From ``fit``: bad parameters, NaN/inf, a non-square or asymmetric precomputed
        kernel.

    References
    ----------
    Oglic & Gärtner (2018), "Learning in reproducing kernel Kreĭn spaces", ICML, PMLR 80.
    Oglic & Gärtner (2019), "Scalable learning in reproducing kernel Kreĭn spaces", ICML.

    Examples
    --------
    A sine on 40 points under the (indefinite) sigmoid kernel:

    >>> import numpy as np
    >>> from krein import KreinLeastSquaresRegressor
    >>> X = np.linspace(-1, 1, 40)[:, None]
    >>> y = np.sin(3 * X[:, 0])
    >>> reg = KreinLeastSquaresRegressor(kernel="sigmoid",
    ...                                  kernel_params={"a": 1.0, "r": -0.5}).fit(X, y)
    >>> reg.predict(X[:3]).shape
    (3,)
    >>> bool(reg.score(X, y) >= 0.5)
    True
    """

    _parameter_constraints: dict = {**KERNEL_CONSTRAINTS, **_RKKS_CONSTRAINTS,
                                    "radius_squared": [Interval(Real, 0, None, closed="neither"),
                                                       None]}

    def __init__(self, *, radius_squared=None, krein_penalty=0.0, kernel="gaussian",
                 kernel_params=None, approximation=None):
        self.radius_squared = radius_squared
        self.krein_penalty = krein_penalty
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.approximation = approximation

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if self.approximation is not None:
            tags.input_tags.pairwise = False
        return tags

    @fit_wrapper
    def fit(self, X, y, sample_weight=None):
        """Fit problem (P) to its global optimum.

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            Training feature vectors, or the square training kernel.
        y : array of shape (n,)
            Real targets.
        sample_weight : array of shape (n,), optional
            Non-negative weights: problem (P) of the samples repeated (module docstring,
            "Sample weights"; a sample of weight 0 removed, row and column).  Exact
            path only.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            Bad parameters, NaN/inf, a non-square or asymmetric precomputed kernel; a
            negative weight, a ``sample_weight`` of the wrong length or of zero sum,
            or ``sample_weight`` with an ``approximation``.
        """
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True,
                             ensure_min_samples=2)
        y = np.asarray(y, dtype=float)
        weight = check_weights(sample_weight, X, self.approximation)
        if self.approximation is not None:
            if "kernel" not in self.approximation.get_params(deep=False):
                raise ValueError("approximation must take the estimator's kernel and "
                                 f"kernel_params; got {self.approximation!r}")
            approx = numpy_output(clone(self.approximation).set_params(
                kernel=self.kernel, kernel_params=self.kernel_params))
            Psi = np.asarray(approx.fit_transform(X), dtype=float)
            lam = np.asarray(approx.eigenvalues_, dtype=float)
            coef, b0, info = self._fit_signed(
                SignedFeatures(Psi, np.sign(lam), eigenvalues=lam, check_input=False), y)
            self.approximation_ = approx
            self.coef_ = coef
            self.min_eigenvalue_ = float(min(lam.min(initial=0.0), 0.0))
        else:
            K = check_square_kernel(X if self._precomputed() else self._gram(X),
                                    "X (precomputed kernel)" if self._precomputed()
                                    else "kernel matrix")
            coef, b0, info = self._fit_kernel(K, y, weight)
            self.dual_coef_ = coef
            self.min_eigenvalue_ = float(info["min_eigenvalue"])
            if not self._precomputed():
                self.X_fit_ = X
        self.intercept_ = b0
        self.beta_ = info["beta"]
        self.solution_ = info["solution"]
        self.n_iter_ = info["n_iter"]
        self._fit_info_ = info
        return self

    def _rows(self, X):
        check_is_fitted(self, "solution_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.approximation is not None:
            return np.asarray(self.approximation_.transform(X), dtype=float)
        return X if self._precomputed() else self._gram(X, self.X_fit_)

    def predict(self, X):
        """Predicted targets ``f(x) = k(x, X) alpha + intercept_``.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``.

        Returns
        -------
        ndarray of shape (m,)
            The predictions.
        """
        rows = self._rows(X)
        coef = self.coef_ if self.approximation is not None else self.dual_coef_
        return rows @ coef + self.intercept_

    def solution_gradient(self):
        """Derivatives of the fitted coefficients in the hyperparameters (Oglic & Gärtner 2018).

        Returns
        -------
        dict of str to ndarray
            ``{"radius_squared": d coef / d r^2, "krein_penalty": d coef / d lambda}``,
            each of the shape of ``dual_coef_`` (exact path) or ``coef_``
            (approximate path): the coefficients of the kernel rows (or features) in
            the prediction, at fixed kernel.

        Raises
        ------
        ValueError
            In the hard case of the sphere problem (no derivative there in general).
        """
        check_is_fitted(self, "solution_")
        info = self._fit_info_
        d = self._sensitivity(info)
        if self.approximation is not None:
            return {k: np.sign(info["lam"]) * v for k, v in d.items()}
        scale = np.sqrt(np.abs(info["lam"]))
        out = {k: info["vectors"] @ (v / scale) for k, v in d.items()}
        if "root" in info:          # sample weights: alpha = sqrt(w) * (coefficients on S K S)
            for k, v in out.items():
                out[k] = np.zeros(info["n_train"])
                out[k][info["keep"]] = info["root"] * v
        return out

    def validation_gradient(self, X, y, *, kernel_derivative=None):
        """Gradient of the held-out mean squared error in the hyperparameters.

        ``L = mean((f(X) - y)^2)`` with ``f`` the fitted model: ``dL/dtheta =
        2 mean((f(X) - y) * (rows @ dcoef/dtheta))`` by :meth:`solution_gradient`
        (Oglic & Gärtner 2018, abstract: hyperparameters tuned by the gradient of a
        validation loss).

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Validation points (or their kernel rows against the training points).
        y : array of shape (m,)
            Their targets.
        kernel_derivative : tuple of two arrays, optional
            ``(dK, dK_rows)``: the derivatives, in one kernel parameter ``theta``, of
            the training kernel (shape (n, n), symmetric) and of the validation rows
            (shape (m, n)); adds ``"kernel": dL/dtheta`` (exact path, nonsingular
            training kernel: the derivative of ``|K|`` needs no eigenvalue at 0).

        Returns
        -------
        loss : float
            The validation mean squared error.
        gradient : dict of str to float
            ``{"radius_squared": dL/dr^2, "krein_penalty": dL/dlambda}`` (and
            ``"kernel"`` with ``kernel_derivative``).

        Raises
        ------
        ValueError
            In the hard case, when ``y`` does not have one target per row of ``X``,
            or ``kernel_derivative`` is mis-shaped, given on the approximate path or
            on a singular training kernel.
        """
        rows = self._rows(X)
        y = np.asarray(y, dtype=float).ravel()
        if y.shape[0] != rows.shape[0]:
            raise ValueError(f"y must have {rows.shape[0]} targets (one per row of X); got "
                             f"{y.shape[0]}")
        coef = self.coef_ if self.approximation is not None else self.dual_coef_
        res = rows @ coef + self.intercept_ - y
        grads = {k: float(2.0 * np.mean(res * (rows @ v)))
                 for k, v in self.solution_gradient().items()}
        if kernel_derivative is not None:
            dK, dK_rows = (np.asarray(v, dtype=float) for v in kernel_derivative)
            n = coef.shape[0]
            if self.approximation is not None or self._fit_info_["null_dropped"]:
                raise ValueError("kernel_derivative needs the exact path on a nonsingular "
                                 "training kernel")
            if "root" in self._fit_info_:
                raise ValueError("kernel_derivative is not available for a fit with "
                                 "sample_weight")
            if dK.shape != (n, n) or dK_rows.shape != rows.shape:
                raise ValueError(f"kernel_derivative must be arrays of shapes ({n}, {n}) and "
                                 f"{rows.shape}; got {dK.shape} and {dK_rows.shape}")
            d_coef = self._kernel_sensitivity(self._fit_info_, 0.5 * (dK + dK.T))
            grads["kernel"] = float(2.0 * np.mean(res * (dK_rows @ coef + rows @ d_coef)))
        return float(np.mean(res ** 2)), grads


class KreinLeastSquaresClassifier(_KreinLeastSquaresMixin, ApproximationMixin,
                                  KernelClassifierBase):
    """Classification by least squares in a reproducing kernel Kreĭn space, global optimum.

    One-vs-one through :class:`~krein.estimators.base.KernelClassifierBase`: each pair
    of classes is the regression problem (P) of the module docstring (Oglic & Gärtner
    2018) on targets ``y`` in {-1, +1} (positive for the second class), solved to its
    global optimum by the secular equation; the decision is ``f(x) = k(x, X) alpha + b0``
    (``b0``: the mean of the pair's targets).

    Parameters
    ----------
    radius_squared : float > 0, default=10.0
        ``r^2 = alpha' |K| alpha``, the squared Hilbert-space norm of each binary
        hypothesis (the tuned parameter; ``K -> s K`` maps it to ``r^2 / s``).
    krein_penalty : float >= 0, default=0.0
        ``lambda``, the weight of ``<f, f>_K``.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"``: ``fit`` takes the square ``(n, n)`` kernel matrix of the
        training points and ``predict``/``decision_function`` the ``(m, n)`` matrix
        of new points against them. A name of :data:`krein.kernels.KERNELS`:
        ``"gaussian"`` (``exp(-gamma ||x - z||^2)``, parameter ``gamma``),
        ``"sigmoid"`` (``tanh(a <x, z> + r)``, parameters ``a`` and ``r``; indefinite
        for most of them), ``"linear"``, ``"epanechnikov"``, ``"simpson"``,
        ``"tangent-distance"``; the kernel matrices are then computed from feature
        rows ``X``. Or a callable ``kernel(X, Z, **kernel_params)`` returning the
        ``(len(X), len(Z))`` matrix.
    kernel_params : dict, optional
        Keyword arguments of the named or callable kernel, e.g. ``{"gamma": 0.5}``
        for the Gaussian or ``{"a": 0.5, "r": -1.0}`` for the sigmoid; None takes
        the kernel's defaults.
    approximation : transformer or None, default=None
        :class:`krein.approximation.IndefiniteNystroem` (cloned, given ``kernel`` and
        ``kernel_params``): (P) on the pair's signed features
        (:class:`~krein.estimators.approximate.ApproximationMixin`).
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation, so that
        ``predict_proba`` / ``predict_log_proba`` exist (as scikit-learn's
        ``SVC(probability=True)``; :class:`krein.estimators.base.ProbabilityMixin`).

    Attributes
    ----------
    dual_coef_, support_, intercept_, classes_, support_vectors_ :
        As :class:`~krein.estimators.base.KernelClassifierBase` (``dual_coef_``: the
        ``alpha`` of each pair).
    coef_ : ndarray of shape (n_pairs, r)
        Feature weights (approximate path).
    solutions_ : list of krein.solvers.Solution
        Each pair's sphere problem with its global-optimality certificate.
    min_eigenvalue_ : float
        Least eigenvalue of the training kernel.

    Raises
    ------
    ValueError
        From ``fit``: bad parameters, NaN/inf, a non-square or asymmetric precomputed
        kernel, fewer than two classes.

    References
    ----------
    Oglic & Gärtner (2018), "Learning in reproducing kernel Kreĭn spaces", ICML, PMLR 80.

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein import KreinLeastSquaresClassifier
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = KreinLeastSquaresClassifier(kernel="sigmoid",
    ...                                   kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    _parameter_constraints: dict = {
        **{k: v for k, v in KernelClassifierBase._parameter_constraints.items()
           if k not in ("C", "class_weight")},
        **_RKKS_CONSTRAINTS,
    }

    def __init__(self, *, radius_squared=10.0, krein_penalty=0.0, kernel="gaussian",
                 kernel_params=None, approximation=None, probability=False):
        self.radius_squared = radius_squared
        self.krein_penalty = krein_penalty
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.approximation = approximation
        self.probability = probability

    def _check_params(self):
        self._check_approximation()

    @fit_wrapper
    def fit(self, X, y, sample_weight=None):
        """Fit the classifier, with optional per-sample weights.

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            Training feature vectors, or the square training kernel matrix.
        y : array of shape (n,)
            Class labels (at least two classes).
        sample_weight : array of shape (n,), optional
            Non-negative weights: each pair's problem (P) of the samples repeated
            (module docstring, "Sample weights"; a sample of weight 0 removed, row
            and column).  Exact path only.  With ``probability=True`` they also weigh
            Platt's sigmoid.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            As :meth:`KernelClassifierBase.fit`; a negative weight, a ``sample_weight``
            of the wrong length, a class whose weights are all 0, or ``sample_weight``
            with an ``approximation``.
        """
        if sample_weight is not None:
            check_weights(sample_weight, None, self.approximation)
        return self._fit_and_diagnose(X, y, sample_weight)

    def _fit_binary(self, K, y, idx, C):
        weight = self._sample_weight_of(idx)
        if weight is not None:
            positive_weight_rows(weight, y)      # each class needs a positive weight
        coef, b0, info = self._fit_kernel(K, y, weight)
        for key in ("vectors", "targets", "keep", "root"):    # not kept in the model
            info.pop(key, None)
        return BinaryModel(idx, coef, b0, info)

    def _fit_features(self, rep, y, C):
        return self._fit_signed(rep, y)

    def _after_fit(self, K):
        if len(self.binary_models_) == 1:
            self.min_eigenvalue_ = float(self.binary_models_[0].info["min_eigenvalue"])
