"""The Krein SVR: epsilon-SVR stabilized in a Krein space (ESVR), by ``eigh`` or ``ldl``.

Loosli, Ong & Canu (2013, "loosli") Algorithm 1 for the SVM, and Loosli (2019,
"TrIK-SVM", arXiv 1902.10569, with the SVR of her reference code
``gloosli/SimpleSVM``, ``solveSVR``): the stabilization problem of the
epsilon-SVR in the Krein space is solved by the standard epsilon-SVR on the
flipped kernel ``K~`` (``V |lam| V'`` or ``L |D| L'``), whose coefficients
``c~ = alpha+ - alpha-`` are mapped back by the same rule as the SVM,
``c = T sign(D) T^{-1} c~`` (``T = V`` or ``L^{-T}``, :mod:`krein.solvers.ldl`),
so that ``K c = K~ c~``: the training predictions are those of the SVR on ``K~``,
and new points use the ORIGINAL kernel, ``f(x) = k(x, X) c + b``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._fitting import fit_wrapper
from .._validation import LIBSVM_MAX_ITER, NONNEGATIVE, POSITIVE, check_square_kernel
from ..solvers.ldl import LDLFlip
from ..solvers.libsvm import libsvm_svr
from ..spectrum import Spectrum
from .base import KERNEL_CONSTRAINTS, KernelMixin, least_eigenvalue
from .svm import DECOMPOSITIONS

__all__ = ["ESVR", "krein_flip"]


def krein_flip(K, decomposition):
    """Flip a symmetric kernel into a PSD one and return the map back to the Krein space.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric (possibly indefinite) kernel.
    decomposition : {"eigh", "ldl"}
        ``"eigh"``: ``K~ = V |lam| V'``, ``c = V sign(lam) V' c~`` (loosli Alg. 1);
        ``"ldl"``: ``K~ = L |D| L'``, ``c = L^{-T} sign(D) L' c~`` (Loosli 2019).

    Returns
    -------
    K_flip : ndarray of shape (n, n)
        The PSD kernel ``K~``.
    back : callable
        ``back(c~) -> c`` with ``K c = K~ c~``.
    factorization : krein.spectrum.Spectrum or krein.solvers.ldl.LDLFlip
        The decomposition used (its ``signature`` is that of ``K``).

    Raises
    ------
    ValueError
        If ``decomposition`` is not one of :data:`krein.estimators.svm.DECOMPOSITIONS`.
    """
    if decomposition == "ldl":
        ldl = LDLFlip.from_kernel(K)
        return ldl.flipped_kernel(K), ldl.krein_coefficients, ldl
    if decomposition != "eigh":
        raise ValueError(f"decomposition must be one of {list(DECOMPOSITIONS)}; "
                         f"got {decomposition!r}")
    spec = Spectrum.from_kernel(K, check=False)
    V, S = spec.eigenvectors, spec.signs()
    return spec.flipped_kernel(K), (lambda u: V @ (S * (V.T @ u))), spec


class ESVR(KernelMixin, RegressorMixin, BaseEstimator):
    """Epsilon-SVR stabilized in a Krein space (the Krein SVR), by ``eigh`` or ``ldl``.

    The epsilon-SVR (libsvm, scikit-learn's ``SVR(kernel="precomputed")``) is
    trained on the flipped kernel ``K~``; its coefficients ``c~ = alpha+ - alpha-``
    become ``c`` with ``K c = K~ c~`` (:func:`krein_flip`), and
    ``f(x) = k(x, X) c + b`` on the original kernel.  On a PSD kernel it is the
    standard SVR.

    Parameters
    ----------
    C : float > 0, default=1.0
        Box bound ``0 <= alpha+-_i <= C`` of the SVR dual.
    epsilon : float >= 0, default=0.1
        Width of the insensitive tube (in the units of ``y``).
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"`` (``fit`` takes the square ``(n, n)`` Gram matrix,
        ``predict`` an ``(m, n)`` matrix against the training points), a name of
        :data:`krein.kernels.KERNELS` or a callable ``kernel(X, Z, **kernel_params)``.
    kernel_params : dict, optional
        Parameters of a named or callable kernel.
    decomposition : {"eigh", "ldl"}, default="eigh"
        The flip: eigendecomposition (ESVM's) or Bunch-Kaufman ``L D L'``
        (TrIK's; :mod:`krein.solvers.ldl`).
    tol : float > 0, default=1e-6
        libsvm stopping tolerance (in the units of ``y``).  Tighter than libsvm's
        1e-3: the SVR's dual doubles every point (``alpha+_i``, ``alpha-_i``), whose
        gradients tie up to ``2 epsilon``, so round-off (``K`` against ``s K``)
        changes SMO's path and the predictions move by up to about ``tol``; at
        1e-6 they agree to 1e-7 (tests/test_scale_covariance.py).
    max_iter : int >= 1 or -1, default=-1
        libsvm iteration limit (-1: none).

    Attributes
    ----------
    dual_coef_ : ndarray of shape (1, n_SV)
        Krein coefficients ``c`` on ``support_`` (dense in general).
    support_ : ndarray of shape (n_SV,)
        Indices of the nonzero ``c``.
    intercept_ : ndarray of shape (1,)
        ``b``.
    flipped_dual_coef_ : ndarray of shape (n,)
        ``c~ = alpha+ - alpha-`` of the SVR on ``K~``.
    solution_ : krein.solvers.Solution
        libsvm's point with krein's certificate
        (:func:`krein.solvers.libsvm.svr_dual_stationarity` on ``K~``).
    n_iter_ : int
        libsvm iterations.
    signature_ : tuple (p, q, z)
        Signature of the training kernel (the inertia of ``D`` with ``"ldl"``).
    min_eigenvalue_ : float
        Least eigenvalue of the training kernel.
    spectrum_ : krein.spectrum.Spectrum or None
        With ``"eigh"``: the spectrum used.
    ldl_ : krein.solvers.ldl.LDLFlip or None
        With ``"ldl"``: the factorization used.
    X_fit_, support_vectors_, shape_fit_ :
        Training inputs (not with a precomputed kernel), the support vectors and
        the training shape.

    Raises
    ------
    ValueError
        From :meth:`fit`: bad parameters, NaN/inf, a non-square or asymmetric
        precomputed kernel.

    References
    ----------
    G. Loosli, C. S. Ong, S. Canu (2013), "Learning SVM in Krein spaces", Alg. 1;
    G. Loosli (2019), "TrIK-SVM: an alternative decomposition for kernel methods in
    Krein spaces", ESANN, arXiv 1902.10569; Smola & Schoelkopf (2004), "A tutorial
    on support vector regression", eq. (10).
    """

    _parameter_constraints: dict = {
        **KERNEL_CONSTRAINTS,
        "C": [POSITIVE],
        "epsilon": [NONNEGATIVE],
        "decomposition": [StrOptions(set(DECOMPOSITIONS))],
        "tol": [POSITIVE],
        "max_iter": LIBSVM_MAX_ITER,
    }

    def __init__(self, *, C=1.0, epsilon=0.1, kernel="gaussian", kernel_params=None,
                 decomposition="eigh", tol=1e-6, max_iter=-1):
        self.C = C
        self.epsilon = epsilon
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.decomposition = decomposition
        self.tol = tol
        self.max_iter = max_iter

    @fit_wrapper
    def fit(self, X, y):
        """Fit the Krein SVR.

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            Training feature vectors, or the square training kernel matrix.
        y : array of shape (n,)
            Targets.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            Bad parameters, NaN/inf, a non-square or asymmetric precomputed kernel;
            the estimator is then left unfitted.
        """
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True, ensure_min_samples=2)
        if self._precomputed():
            K = check_square_kernel(X, "X (precomputed kernel)")
            X_fit = None
        else:
            K = check_square_kernel(self._gram(X), "kernel matrix")
            X_fit = X
        K_flip, back, fac = krein_flip(K, self.decomposition)
        u, b, sol = libsvm_svr(K_flip, y, self.C, self.epsilon, tol=self.tol,
                               max_iter=self.max_iter)
        c = back(u)
        support = np.flatnonzero(c != 0)
        self.flipped_dual_coef_ = u
        self.support_ = support
        self.dual_coef_ = c[support][None, :]
        self.intercept_ = np.array([b])
        self.solution_ = sol
        self.n_iter_ = sol.iterations
        self.signature_ = fac.signature
        if self.decomposition == "ldl":
            self.spectrum_, self.ldl_ = None, fac
            self.min_eigenvalue_ = least_eigenvalue(K)
        else:
            self.spectrum_, self.ldl_ = fac, None
            self.min_eigenvalue_ = fac.min_eigenvalue
        self.shape_fit_ = K.shape if X_fit is None else X_fit.shape
        if X_fit is not None:
            self.X_fit_ = X_fit
            self.support_vectors_ = X_fit[support]
        return self

    def predict(self, X):
        """Predicted targets ``k(x, X) c + b`` on the original kernel.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``.

        Returns
        -------
        ndarray of shape (m,)
            Predictions.
        """
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        rows = X if self._precomputed() else self._gram(X, self.X_fit_)
        return rows[:, self.support_] @ self.dual_coef_[0] + self.intercept_[0]
