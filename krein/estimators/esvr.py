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

Large data: the linear SVR on the signed Nyström features
---------------------------------------------------------
With ``approximation=IndefiniteNystroem(...)`` the training kernel is its low-rank
approximation ``K_approx = Psi diag(s) Psi'`` (``Psi'Psi = diag(|lam|)``; Oglic &
Gärtner 2019, §3) and the flip is ``|K_approx| = Psi Psi'``: the epsilon-SVR on it
is the LINEAR epsilon-SVR on ``Psi`` (:func:`krein.solvers.linear_svr.linear_svr`),
with weight ``w = Psi' c~``.  As for ESVM (:mod:`krein.estimators.approximate`), the
Krein coefficients ``c = V sign(lam) V' c~`` (``V = Psi |lam|^(-1/2)``) give
``k_approx(x, X) c = psi(x) diag(s) Psi' V sign(lam) V' c~ = psi(x) w``, so
``f(x) = psi(x) w + b`` on the features of a new point; no ``n x n`` array is
formed.  ``solver="libsvm"`` (``SVR(kernel="linear")``) solves the exact path's
problem (unregularized intercept; ``O(n^2)`` kernel evaluations, small ``n``);
``solver="liblinear"`` (the default with an approximation, liblinear's dual
coordinate descent for the L1-loss SVR, Ho & Lin 2012) REGULARIZES THE INTERCEPT:
``min 1/2 (||w||^2 + b^2 / s^2) + C sum_i max(0, |y_i - psi_i w - b| - epsilon)``
with the intercept scaling ``s = max_i ||psi_i||``.  With every training point a
landmark, ``K_approx = K`` and ``solver="libsvm"`` gives the exact path's
predictions to libsvm's tolerance.
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
from ..solvers.linear_svr import linear_svr
from ..spectrum import Spectrum
from .approximate import FrontEndMixin
from .base import KERNEL_CONSTRAINTS, KernelMixin, least_eigenvalue
from .approximate import APPROXIMATION_CONSTRAINT as _APPROXIMATION
from .svm import DECOMPOSITIONS, LDL_PIVOTING

__all__ = ["ESVR", "krein_flip"]


def krein_flip(K, decomposition):
    """Flip a symmetric kernel into a PSD one and return the map back to the Krein space.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric (possibly indefinite) kernel.
    decomposition : {"eigh", "ldl", "ldl-pivoted"}
        ``"eigh"``: ``K~ = V |lam| V'``, ``c = V sign(lam) V' c~`` (loosli Alg. 1);
        ``"ldl"``: ``K~ = L |D| L'``, ``c = L^{-T} sign(D) L' c~`` (Loosli 2019),
        the unpivoted factorization (Bunch-Kaufman with a warning where it does
        not exist); ``"ldl-pivoted"``: the Bunch-Kaufman one
        (:mod:`krein.solvers.ldl`).

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
    if decomposition in LDL_PIVOTING:
        ldl = LDLFlip.from_kernel(K, pivoting=LDL_PIVOTING[decomposition])
        return ldl.flipped_kernel(K), ldl.krein_coefficients, ldl
    if decomposition != "eigh":
        raise ValueError(f"decomposition must be one of {list(DECOMPOSITIONS)}; "
                         f"got {decomposition!r}")
    spec = Spectrum.from_kernel(K, check=False)
    V, S = spec.eigenvectors, spec.signs()
    return spec.flipped_kernel(K), (lambda u: V @ (S * (V.T @ u))), spec


class ESVR(FrontEndMixin, KernelMixin, RegressorMixin, BaseEstimator):
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
    decomposition : {"eigh", "ldl", "ldl-pivoted"}, default="eigh"
        The flip: eigendecomposition (ESVM's), TrIK's unpivoted ``L D L'``, or
        the Bunch-Kaufman ``L D L'`` (:mod:`krein.solvers.ldl`).
    tol : float > 0, default=1e-6
        libsvm stopping tolerance (in the units of ``y``).  Tighter than libsvm's
        1e-3: the SVR's dual doubles every point (``alpha+_i``, ``alpha-_i``), whose
        gradients tie up to ``2 epsilon``, so round-off (``K`` against ``s K``)
        changes SMO's path and the predictions move by up to about ``tol``; at
        1e-6 they agree to 1e-7 (tests/test_scale_covariance.py).
    max_iter : int >= 1 or -1, default=-1
        libsvm iteration limit (-1: none).
    solver : {"auto", "libsvm", "liblinear"}, default="auto"
        ``"libsvm"``: the SVR dual by libsvm (on the flipped kernel, or with an
        approximation ``SVR(kernel="linear")`` on its features, the same problem);
        ``"liblinear"``: only with an approximation, liblinear's linear SVR, which
        regularizes the intercept (module docstring); ``"auto"``: liblinear with an
        approximation, else libsvm.
    approximation : transformer or None, default=None
        A low-rank front end (:class:`krein.approximation.IndefiniteNystroem`);
        None keeps the exact path.  It is cloned and given the estimator's
        ``kernel`` and ``kernel_params``; ``fit`` then takes its input (feature
        vectors, or with ``kernel="precomputed"`` the kernel columns against the
        landmarks) and trains the linear epsilon-SVR on its features ``Psi``
        (``|K_approx| = Psi Psi'``); ``predict`` is ``psi(x) w + b``.  No
        ``n x n`` array is formed.  ``decomposition`` does not apply (the
        features are the eigendecomposition of ``K_approx`` already).

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
    approximation_ : transformer
        With an approximation: the fitted clone.
    coef_ : ndarray of shape (r,)
        With an approximation: the weight ``w`` on its features.
    eigenvalues_ : ndarray of shape (r,)
        With an approximation: the nonzero eigenvalues of ``K_approx``.
    solver_ : str
        The solver used ("libsvm" or "liblinear").

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
    on support vector regression", eq. (10); Oglic & Gärtner (2019), "Scalable learning
    in reproducing kernel Krein spaces", ICML, §3 (the signed Nyström features); Ho &
    Lin (2012), "Large-scale linear support vector regression", JMLR 13 (liblinear).

    Examples
    --------
    A sine on 40 points under the (indefinite) sigmoid kernel:

    >>> import numpy as np
    >>> from krein import ESVR
    >>> X = np.linspace(-1, 1, 40)[:, None]
    >>> y = np.sin(3 * X[:, 0])
    >>> reg = ESVR(kernel="sigmoid", kernel_params={"a": 1.0, "r": -0.5}).fit(X, y)
    >>> reg.predict(X[:3]).shape
    (3,)
    >>> bool(reg.score(X, y) >= 0.5)
    True
    """

    _parameter_constraints: dict = {
        **KERNEL_CONSTRAINTS,
        "C": [POSITIVE],
        "epsilon": [NONNEGATIVE],
        "decomposition": [StrOptions(set(DECOMPOSITIONS))],
        "tol": [POSITIVE],
        "max_iter": LIBSVM_MAX_ITER,
        "solver": [StrOptions({"auto", "libsvm", "liblinear"})],
        "approximation": _APPROXIMATION,
    }

    def __init__(self, *, C=1.0, epsilon=0.1, kernel="gaussian", kernel_params=None,
                 decomposition="eigh", tol=1e-6, max_iter=-1, solver="auto",
                 approximation=None):
        self.C = C
        self.epsilon = epsilon
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.decomposition = decomposition
        self.tol = tol
        self.max_iter = max_iter
        self.solver = solver
        self.approximation = approximation

    def _check_params(self):
        self._check_approximation()

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
        if self._approximate():
            return self._fit_approximate(X, y)
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
        self.solver_ = "libsvm"
        self.support_ = support
        self.dual_coef_ = c[support][None, :]
        self.intercept_ = np.array([b])
        self.solution_ = sol
        self.n_iter_ = sol.iterations
        self.signature_ = fac.signature
        if self.decomposition in LDL_PIVOTING:
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
        if self._approximate():
            return self._front_end_rows(X) @ self.coef_ + self.intercept_[0]
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        rows = X if self._precomputed() else self._gram(X, self.X_fit_)
        return rows[:, self.support_] @ self.dual_coef_[0] + self.intercept_[0]

    def _fit_approximate(self, X, y):
        """The linear epsilon-SVR on the approximation's features (module docstring)."""
        approx, rep = self._fit_front_end(X)
        Psi, lam = rep.Z, rep.eigenvalues
        solver = "liblinear" if self.solver == "auto" else self.solver
        w, b, sol = linear_svr(Psi, y, self.C, self.epsilon, solver=solver, tol=self.tol,
                               max_iter=self.max_iter)
        n, r = Psi.shape
        p, q = int(np.sum(lam > 0)), int(np.sum(lam < 0))
        self.approximation_ = approx
        self.coef_ = w
        self.intercept_ = np.array([b])
        self.solution_ = sol
        self.solver_ = solver
        self.n_iter_ = sol.iterations
        self.eigenvalues_ = lam
        self.signature_ = (p, q, n - p - q)
        self.min_eigenvalue_ = float(min(lam.min(initial=0.0), 0.0)) if r < n \
            else float(lam.min())
        self.spectrum_, self.ldl_ = None, None
        self.shape_fit_ = X.shape
        return self
