"""The ``approximation=`` path of the kernel classifiers: linear models on signed Nyström features.

With an approximation (e.g. :class:`krein.approximation.IndefiniteNystroem`) the
training kernel is replaced by its low-rank approximation, given as features
``Psi`` of shape ``(n, r)`` and signs ``s`` with the exact eigendecomposition

    ``K_approx = Psi diag(s) Psi' = V diag(lam) V'``,   ``V = Psi |lam|^(-1/2)``,

(``Psi' Psi = diag(|lam|)``, Oglic & Gärtner 2019), and the kernel row of a new
point is the Nyström extension ``k_approx(x, X) = psi(x) diag(s) Psi'``.  No
``n x n`` array is formed.

The methods run on the representation interface of :mod:`krein.representation`:
the approximation's features are a :class:`~krein.representation.SignedFeatures`
(given with their eigenvalues), and each binary model (``_fit_features(rep, y, C)``
of ESVC, SpectrumSVC, KSVC and the Krein least squares) asks its representation for
the signed eigenfeatures ``(Psi, lam, M)``
(:meth:`~krein.representation.KernelRepresentation.eigenfeatures`) and returns
weights on the representation's rows of new points, ``f(x) = psi(x) (M w) + b``
(``M = I`` where the features are the eigenfeatures already, as the approximation's
are; a pair's ``M`` below); it is written once for any representation,
the exact kernel (:class:`~krein.representation.ExactKernel`) and landmark columns
(:class:`~krein.representation.LandmarkColumns`) included.

Spectrum corrections become linear models
-----------------------------------------
A spectrum correction ``g`` (:func:`krein.spectrum.correct_eigenvalues`) applied to
the nonzero spectrum of the approximation gives the PSD kernel

    ``K_g = V diag(g(lam)) V' = Phi Phi'``,   ``Phi = Psi diag(d)``,
    ``d = sqrt(g(lam) / |lam|)``,

so the C-SVM on ``K_g`` (dual coefficients ``u = y * alpha``) is the LINEAR C-SVM on
the features ``Phi``, with weight ``w = Phi' u`` and the same intercept.  Its
out-of-sample maps, with ``h = g / lam`` the row multipliers of munoz eqs. (3),
(5), (7):

* spectral: ``k_approx(x, X) V diag(h) V' u = psi(x) diag(s h) Psi' u
  = psi(x) diag(d) Phi' u = phi(x) w`` with ``phi(x) = psi(x) diag(d)``: the same
  feature map on new points, so ``f(x) = psi(x) (d * w) + b``;
* raw (the uncorrected test rows, loosli Table 2): ``k_approx(x, X) u = psi(x)
  diag(s) Psi' u = psi(x) (s * w / d) + b``, which needs ``d > 0`` on every
  component (flip, square); where ``g`` zeroes a component (clip, shift at
  ``lam_min``, mds, pseudo) ``Psi' u`` is not determined by ``w`` and the raw map
  is not available from a linear solver.

ESVM (loosli Algorithm 1) is the flip: ``d = 1``, the linear SVM on ``Psi`` itself
(``|K_approx| = Psi Psi'``).  Its Krein coefficients ``c = V diag(s) V' u`` give
``f(x) = k_approx(x, X) c + b = psi(x) diag(s) Psi' V diag(s) V' u + b = psi(x) w + b``
(``Psi' V = diag(|lam|^(1/2))``, ``diag(s)^2 = I``): the flipped solution ``w`` mapped
back with ``diag(s)`` is the Krein-space weight ``w_K = diag(s) w`` and the decision is
the Krein inner product ``psi(x) diag(s) w_K``.

The shift (``g = lam - lam_min``) is applied to the NONZERO spectrum of the
approximation: at full rank this is ``K + |lam_min| I`` exactly; at low rank the
``n - r`` null directions of ``K_approx`` stay null (the exact shift would lift
them too, which is not a linear model on ``r`` features).

Full rank
---------
With every training point a landmark and no eigenvalue of ``W = K`` cut,
``K_approx = K`` and ``k_approx(x, X) = k(x, X) K^(-1) K = k(x, X)``: every map above
equals the exact estimator's (tested to 1e-6 on decision values).

One-vs-one
----------
For more than two classes each pair ``idx`` has the sub-kernel
``Psi_idx diag(s) Psi_idx' = F diag(s_p) F'``, whose exact eigendecomposition
``F = Psi_idx T`` comes from an ``r x r`` problem (:func:`signed_refactor`; the
pair's sub-representation ``rep.subset(idx)``, its eigenfeatures), so that
each pair is corrected on its own spectrum, as the exact path corrects
``K[idx, idx]``.  A new point's features for the pair are its Nyström extension
``k_approx(x, X_idx) F |lam_p|^(-1) diag(s_p) = psi(x) M`` with
``M = diag(s) Psi_idx' F |lam_p|^(-1) diag(s_p)`` (``= F`` on the pair's points;
not ``psi(x) T``, which differs off the row space of ``Psi_idx``).

Linear solvers
--------------
``solver="liblinear"``: scikit-learn's ``LinearSVC(loss="hinge", dual=True)``
(liblinear's dual coordinate descent, Hsieh et al. 2008), which scales to millions
of points but REGULARIZES THE INTERCEPT: it solves
``min 1/2 (||w||^2 + b^2 / s^2) + sum_i C_i hinge(y_i (phi_i w + b))`` with the
intercept scaling ``s = max_i ||phi_i||`` (the bias column of liblinear has the
size of the largest feature vector); its certificate is the primal objective
only (liblinear does not return the dual point).  Its coordinate order is drawn
from a fixed seed (``random_state=0``), so a fit is reproducible.  ``solver="libsvm"``: scikit-
learn's ``SVC(kernel="linear")`` on ``Phi``, the same problem as the exact path
(unregularized intercept), ``O(n^2)`` kernel evaluations: small ``n``.  A CVXPY
solver name: the primal :class:`~krein.formulations.SVMPrimal` in the feature map
``Phi`` (exact).  ``solver="ipm"``: the exact problem by the primal-dual
interior-point method of :func:`krein.solvers.linear_ipm.linear_svm_ipm` (Ferris &
Munson 2002; ``O(n r^2)`` per iteration, for ``n >> r`` and collinear features).
libsvm, the interior-point method and CVXPY are certified by the duality gap of the
linear SVM (:func:`linear_svm_certificate`).

References
----------
Oglic & Gärtner (2019), "Scalable learning in reproducing kernel Krein spaces",
ICML, §3.  Loosli, Ong & Canu (2013), Algorithm 1, §6.1.1.  Munoz & de Diego
(2006), eqs. (1)-(7).  Fan, Chang, Hsieh, Wang & Lin (2008), "LIBLINEAR".
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._cache import cached, parameters_token, shared_computations_active
from .._fitting import numpy_output
# signed_refactor lives with the representations; re-exported for its importers
from ..representation import SignedFeatures, signed_refactor

# the linear C-SVM on features lives with the solvers; re-exported for its importers
from ..solvers.linear import linear_svm, linear_svm_certificate

__all__ = ["ApproximationMixin", "APPROXIMATION_CONSTRAINT", "FrontEndMixin", "fit_front_end", "linear_svm", "linear_svm_certificate", "signed_refactor",
           "spectral_features", "APPROXIMATE_SOLVERS"]

#: The constraint of an estimator's ``approximation`` parameter (scikit-learn's
#: ``_parameter_constraints``): a low-rank front end with ``fit_transform`` and ``transform``,
#: or None for the exact path.
APPROXIMATION_CONSTRAINT = [HasMethods(["fit_transform", "transform"]), None]

#: Own solver names of the approximate path (besides the installed CVXPY solvers).
APPROXIMATE_SOLVERS = ("libsvm", "liblinear", "ipm")

class FrontEndMixin:
    """The ``approximation=`` front end of any estimator: fitted, cached, and its rows.

    Mixed in before the estimator's base classes by every estimator with an
    ``approximation`` parameter (an unfitted
    :class:`~krein.approximation.IndefiniteNystroem`, or None for the exact path).
    With an approximation the estimator takes the front end's input instead of a
    square kernel: feature vectors with a named ``kernel``, or, with
    ``kernel="precomputed"``, the kernel columns ``K(objects, landmarks)`` of shape
    ``(n, m)`` (the front end then holds the landmark block ``W``:
    ``IndefiniteNystroem(kernel="precomputed", landmark_block=W)``), and no
    ``n x n`` array is formed.  What it offers:

    * :meth:`_fit_front_end` -- the fitted front end (``approximation_``) and the
      training kernel's representation, :class:`~krein.representation.SignedFeatures`
      ``Psi`` (n, r) with their eigenvalues (``K_approx = Psi diag(s) Psi'``),
      memoized inside :func:`krein._cache.shared_computations`;
    * :meth:`_front_end_rows` -- the features ``psi(x)`` of new points (the
      Nyström extension: ``psi(x) diag(s) Psi'`` are their approximate kernel rows);
    * the fitted front end's :meth:`~krein.approximation.IndefiniteNystroem.columns`
      (``K(x, landmarks)``, the prototype form) and ``landmark_block_`` (``W``), for
      the methods that work on the landmark columns themselves;
    * ``__sklearn_tags__``: the input is not pairwise (cross-validation slices rows
      only), and the check that the front end takes the estimator's kernel.
    """

    def _approximate(self):
        return getattr(self, "approximation", None) is not None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if self._approximate():
            # with kernel="precomputed" X holds kernel values against the LANDMARKS, not a
            # square Gram matrix: cross-validation must not slice its columns
            tags.input_tags.pairwise = False
        return tags

    def _check_approximation(self):
        """Checks shared by every estimator with an ``approximation`` (parameter names)."""
        if not self._approximate():
            name = str(getattr(self, "solver", None)).lower()
            if name in ("liblinear", "ipm"):
                raise ValueError(f"solver='{name}' trains a linear model on features: it "
                                 f"needs approximation=IndefiniteNystroem(...); without one use "
                                 f"'libsvm' or a CVXPY solver")
            return
        if "kernel" not in self.approximation.get_params(deep=False):
            raise ValueError(f"approximation must take the estimator's kernel and "
                             f"kernel_params (a parameter 'kernel'); got {self.approximation!r}")

    def _fit_front_end(self, X):
        """The fitted clone of ``approximation`` (the estimator's kernel) and the training
        kernel's representation: :class:`~krein.representation.SignedFeatures` of its
        features ``Psi`` (n, r), given with their eigenvalues ``lam`` (r,).

        Inside :func:`krein._cache.shared_computations` (every cell of ``krein
        compare``) the result is memoized on the content of ``X`` and the clone's
        parameters (:func:`krein._cache.parameters_token`: kernel, kernel
        parameters, landmarks, landmark block, seed...): the fits of an inner CV
        over ``C`` or ``rho`` on one block, and every method of a fold, compute the
        landmarks, the landmark eigendecomposition and the features once; other
        kernel parameters are another key (they change the features).  A hit
        returns a deep copy of the fitted approximation and the stored, read-only
        ``Psi`` and ``lam``, and emits again the warnings of the fit.  A seed given
        as a generator or a callable kernel is not cached (no key captures it).

        Parameters
        ----------
        X : ndarray of shape (n, d), or (n, m) with kernel="precomputed"
            Validated training input.

        Returns
        -------
        approximation : IndefiniteNystroem
            Fitted.
        rep : krein.representation.SignedFeatures
            ``Psi`` with ``signs = sign(lam)`` and ``eigenvalues = lam``.
        """
        return fit_front_end(self.approximation, self.kernel, self.kernel_params, X)

    # the name the one-vs-one approximate path has always used
    _fit_approximation = _fit_front_end

    def _front_end_rows(self, X):
        """Validated new points and their features ``psi(x)`` (n_new, r) under the fitted
        ``approximation_``."""
        check_is_fitted(self, "approximation_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return np.asarray(self.approximation_.transform(X), dtype=float)


def fit_front_end(approximation, kernel, kernel_params, X):
    """Fit a clone of a front end with a kernel on ``X``; return it and the features'
    representation (:meth:`FrontEndMixin._fit_front_end`, memoized the same way).

    Parameters
    ----------
    approximation : IndefiniteNystroem
        Unfitted front end (cloned; never modified).
    kernel : str or callable
        The estimator's kernel (``"precomputed"``: ``X`` holds landmark columns).
    kernel_params : dict or None
        Its parameters.
    X : ndarray of shape (n, d) or (n, m)
        Training input.

    Returns
    -------
    approximation : IndefiniteNystroem
        The fitted clone.
    rep : krein.representation.SignedFeatures
        Its training features with signs and eigenvalues.
    """
    approx = numpy_output(clone(approximation).set_params(kernel=kernel,
                                                          kernel_params=kernel_params))

    def fit():
        Psi = np.asarray(approx.fit_transform(X), dtype=float)
        return approx, Psi, np.asarray(approx.eigenvalues_, dtype=float)

    token = parameters_token(approx) if shared_computations_active() else None
    if token is None:
        fitted, Psi, lam = fit()
    else:
        fitted, Psi, lam = cached(("approximation-features", token), X, fit,
                                  record_warnings=True)
        fitted = copy.deepcopy(fitted)
    # the transformer's features are its exact eigendecomposition, already checked
    return fitted, SignedFeatures(Psi, np.sign(lam), eigenvalues=lam, check_input=False)


class ApproximationMixin(FrontEndMixin):
    """Fit and predict through ``approximation`` (module docstring), one-vs-one; mixed in
    before :class:`~krein.estimators.base.KernelClassifierBase`.

    Subclasses implement ``_fit_features(rep, y, C)``: train one binary model on the
    kernel representation ``rep`` (:mod:`krein.representation`; the approximation's
    :class:`~krein.representation.SignedFeatures`, or a pair's sub-representation),
    asking it for its signed eigenfeatures, and return ``(coef, intercept, info)``
    with ``f(x) = rep.rows(x) coef + intercept``.  The approximate path splits the
    classes one-vs-one, so a subclass keeps the base's ``_multiclass = "ovo"`` (else
    ``TypeError`` when the class is defined).  Estimators with another multiclass
    strategy, or that need more than signed features, use :class:`FrontEndMixin`.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if getattr(cls, "_multiclass", "ovo") != "ovo":
            raise TypeError(f"{cls.__name__}: the approximation= path fits one-vs-one; "
                            f"_multiclass must be 'ovo', got {cls._multiclass!r}")

    def _fit(self, X, y):
        if not self._approximate():
            return super()._fit(X, y)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        classes, y_idx = self._encode_labels(y)
        approx, rep = self._fit_approximation(X)
        lam = rep.eigenfeatures().eigenvalues
        pairs = [(i, j) for i in range(classes.size) for j in range(i + 1, classes.size)]
        coefs, intercepts, infos = [], [], []
        for i, j in pairs:
            # each pair on its own sub-kernel (its own spectrum, as the exact path's
            # K[idx, idx]); its rows of new points are the same features psi(x)
            idx = None if classes.size == 2 else np.flatnonzero((y_idx == i) | (y_idx == j))
            sub = rep if idx is None else rep.subset(idx)
            y_pm = np.where(y_idx[idx if idx is not None else slice(None)] == j, 1.0, -1.0)
            C = self._per_sample_C(y_idx if idx is None else y_idx[idx])
            coef, b, info = self._fit_features(sub, y_pm, C)
            coefs.append(coef)
            intercepts.append(b)
            infos.append(info)
        # ---- every binary model trained: set the fitted attributes
        from .base import BinaryModel

        self.classes_ = classes
        self.pairs_ = pairs
        self.approximation_ = approx
        self.coef_ = np.vstack(coefs)
        self.intercept_ = np.array(intercepts, dtype=float)
        self.binary_models_ = [BinaryModel(np.arange(0), c, b, info)
                               for c, b, info in zip(coefs, intercepts, infos)]
        self.n_iter_ = np.array([info.get("n_iter", 0) for info in infos])
        self.class_weight_ = self._class_weight
        self.eigenvalues_ = lam
        self.min_eigenvalue_ = float(min(lam.min(initial=0.0), 0.0)) if lam.size < X.shape[0] \
            else float(lam.min())
        p, q = int(np.sum(lam > 0)), int(np.sum(lam < 0))
        self.signature_ = (p, q, X.shape[0] - p - q)
        self.spectrum_ = None
        self._after_fit_approximate()
        return self

    def _after_fit_approximate(self):
        """Hook: estimator-specific attributes of the approximate path."""

    def _test_rows(self, X):
        if not self._approximate():
            return super()._test_rows(X)
        return self._front_end_rows(X), None

    def _binary_decisions(self, K_rows, extra=None):
        if not self._approximate():
            return super()._binary_decisions(K_rows, extra)
        return K_rows @ self.coef_.T + self.intercept_


def spectral_features(lam, g):
    """``d = sqrt(g / |lam|)``: the scaling of the signed features that realizes ``g``.

    Parameters
    ----------
    lam : ndarray of shape (r,)
        Nonzero eigenvalues of the approximation.
    g : ndarray of shape (r,)
        Corrected eigenvalues (>= 0).

    Returns
    -------
    ndarray of shape (r,)
        The scaling ``d`` (0 where ``g = 0``).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.sqrt(np.maximum(g, 0.0) / np.abs(lam))
