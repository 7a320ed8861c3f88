"""Reduced-set expansions on the landmarks: the ``approximation=`` path of LP-SVM, Mod SVM,
the RVM and IKSVM-DC.

These methods learn a kernel EXPANSION ``f(x) = sum_j c_j k(x, x_j) + b`` whose
regularizer is written on the coefficients ``c`` themselves (the 1-norm of the LP
machine, the identity of Mod SVM, the ARD prior of the RVM, ``c'Kc`` of IKSVM-DC);
the kernel enters only through the design matrix of kernel columns.  With an
approximation (:class:`krein.approximation.IndefiniteNystroem`) the expansion points
are the ``m`` landmarks instead of the ``n`` training points:

    ``f(x) = sum_j c_j k(x, l_j) + b = k(x, L) c + b``,

and the design matrix is the rectangular block of landmark columns
``C = K(X, L)`` of shape ``(n, m)`` (:meth:`~krein.approximation.IndefiniteNystroem.columns`),
with the landmark block ``W = K(L, L)`` (``landmark_block_``) where the regularizer
needs the kernel among the expansion points (IKSVM-DC).  This is the reduced-set
or prototype form of a kernel machine: the LP machine on a rectangular "proximity"
matrix (Graepel, Herbrich, Schölkopf, Smola & Obermayer 1999, "Classification on
proximity data with LP-machines", ICANN, §2-3), the reduced SVM whose expansion is
restricted to a random subset of the data while every training point constrains it
(Lee & Mangasarian 2001, "RSVM: reduced support vector machines", SDM, §2, the
rectangular kernel ``K(A, Abar')``), and the RVM, whose basis functions may be any
set of functions (Tipping 2001, JMLR 1, §2: "the basis functions ... need not be
kernels centred on the data").  No ``n x n`` (or ``n x n_test``) array is formed:
fitting holds ``C``, ``(n, m)``; prediction computes ``K(x_new, L)``, ``(n_test, m)``.

Raw columns, not the signed features ``Psi = C T``: the regularizers above are
not invariant under the change of coefficients ``c = T v`` (the 1-norm and the
identity change their meaning, the ARD prior its sparsity pattern), and the
methods' papers state them on the expansion coefficients; the landmark columns are
the natural design matrix.  The Nyström eigendecomposition is not used (the front
end is fitted for its landmarks, ``W`` and ``columns``).

Landmark labels are never used.  A landmark may be any object (with
``kernel="precomputed"`` only its column and ``W`` are known; it may lie in a test
fold): every binary model expands on ALL ``m`` landmarks, while its rows (its
constraints, its likelihood) are its training points.  For one-vs-one this is a
deliberate difference from the exact path, whose pair ``(i, j)`` expands on the
pair's own training points (``K[idx, idx]``): the reduced pair expands on every
landmark (``C[idx, :]``).

Sample weights
--------------
An estimator whose ``fit`` takes ``sample_weight`` (LP-SVM, Mod SVM) weighs the ROWS:
sample ``i``'s slack weight is ``C * class_weight[y_i] * sample_weight[i]`` and a
sample of weight 0 leaves its binary problem.  The landmarks are the expansion points
and carry no weight, so an integer weight ``k`` is the sample's row repeated ``k``
times with the same landmarks (precomputed columns ``K(X, L)`` with
``landmark_block=W``, or landmarks given as points); landmarks that a front end
samples from ``X`` change when rows are repeated.

Full rank
---------
With every training point a landmark, in order (``C = K``, ``W = K``), the problems
are the exact estimator's for two classes and for one-vs-rest (the RVM), so the
decision values agree to the solver's certificate (the same solver on the same
data gives the same numbers); for one-vs-one with more classes each pair is the
exact method's problem on the rectangular block ``K[idx, :]`` (every training
point an expansion point).
"""

from __future__ import annotations

import itertools

import numpy as np
from sklearn.base import clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._cache import shared_computations_active
from .._fitting import numpy_output
from .approximate import FrontEndMixin
from .base import BinaryModel, fit_pairs, pair_indices, positive_weight_rows

__all__ = ["LandmarkExpansionMixin"]


class LandmarkExpansionMixin(FrontEndMixin):
    """The reduced-set path (module docstring): binary models expanded on the landmarks.

    Mixed in before :class:`~krein.estimators.base.KernelClassifierBase`.  Without an
    approximation every call goes to the exact path unchanged.  With one, ``fit``
    fits the front end, takes the landmark columns ``C = K(X, L)`` and the landmark
    block ``W``, splits the classes by the estimator's ``_multiclass`` (one-vs-one:
    the pair's rows of ``C``; one-vs-rest: all rows) and hands each binary problem to
    the subclass's ``_fit_landmarks(C_rows, W, y_pm, C_box) -> (coef (m,), b, info)``
    with ``f(x) = K(x, L) coef + b``.  The fitted models are
    :class:`~krein.estimators.base.BinaryModel` with ``idx = arange(m)`` (indices of
    landmarks), so the base's ``_set_fitted`` and ``_binary_decisions`` apply on the
    landmark columns: ``support_`` are landmark indices, ``dual_coef_`` their
    coefficients, and ``support_vectors_`` the landmarks themselves (feature vectors
    only).  Prediction takes the front end's rows of new points (feature vectors, or
    ``K(new, landmarks)`` with ``kernel="precomputed"``) and computes their landmark
    columns.
    """

    def _fit_landmark_front_end(self, X):
        """The fitted front end (a clone of ``approximation`` with the estimator's kernel).

        Inside :func:`krein._cache.shared_computations` it comes from the shared,
        memoized :meth:`_fit_front_end` (the other methods of a fold fit the same
        front end); otherwise ``fit`` alone (the signed features are not needed).
        """
        if shared_computations_active():
            return self._fit_front_end(X)[0]
        approx = numpy_output(clone(self.approximation).set_params(
            kernel=self.kernel, kernel_params=self.kernel_params))
        return approx.fit(X)

    def _fit(self, X, y):
        if not self._approximate():
            return super()._fit(X, y)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        classes, y_idx = self._encode_labels(y)
        approx = self._fit_landmark_front_end(X)
        Cmat = np.asarray(approx.columns(X), dtype=float)
        W = np.asarray(approx.landmark_block_, dtype=float)
        m = W.shape[0]
        if self._multiclass == "ovr":
            pairs = None
            positives = [1] if classes.size == 2 else list(range(classes.size))
            every = np.arange(y_idx.size)
            problems = ((Cmat, np.where(y_idx == k, 1.0, -1.0), self._per_sample_C(y_idx, every))
                        for k in positives)
            n_problems = len(positives)
        else:
            pairs = list(itertools.combinations(range(classes.size), 2))

            def gen():
                for i, j in pairs:
                    idx = pair_indices(y_idx, i, j, classes.size)
                    rows = Cmat if classes.size == 2 else Cmat[idx]
                    yield rows, np.where(y_idx[idx] == j, 1.0, -1.0), \
                        self._per_sample_C(y_idx[idx], idx)

            problems, n_problems = gen(), len(pairs)

        def fit_one(rows, y_pm, C_box):
            # a sample of weight 0 leaves the problem (its row: the landmarks stay)
            keep = positive_weight_rows(C_box, y_pm)
            if keep is not None:
                rows, y_pm, C_box = rows[keep], y_pm[keep], C_box[keep]
            coef, b, info = self._fit_landmarks(rows, W, y_pm, C_box)
            return BinaryModel(np.arange(m), np.asarray(coef, dtype=float), float(b), info)

        models = fit_pairs(fit_one, problems, n_problems, n_jobs=getattr(self, "n_jobs", None),
                           parallel=self._parallel_pairs, prefer=self._pair_prefer)
        # ---- every binary model trained: set the fitted attributes (on the m landmarks)
        self._set_fitted(classes, pairs, models, None, W)
        self.approximation_ = approx
        self.shape_fit_ = X.shape
        if getattr(approx, "landmarks_", None) is not None:
            self.support_vectors_ = approx.landmarks_[self.support_]
        lam = np.asarray(approx.eigenvalues_, dtype=float)
        self.min_eigenvalue_ = float(min(lam.min(initial=0.0), 0.0)) if lam.size < X.shape[0] \
            else float(lam.min())
        return self

    def _fit_landmarks(self, C_rows, W, y, C_box):
        """Train one binary model on the landmark columns.

        Parameters
        ----------
        C_rows : ndarray of shape (n_sub, m)
            Kernel values between the problem's training points and the landmarks.
        W : ndarray of shape (m, m)
            Kernel among the landmarks.
        y : ndarray of shape (n_sub,)
            Labels in {-1, +1}.
        C_box : float, ndarray of shape (n_sub,) or None
            Slack weight(s) (None for a method without one).

        Returns
        -------
        coef : ndarray of shape (m,)
            Expansion coefficients on the landmarks.
        b : float
            Intercept.
        info : dict
            ``n_iter``, ``solution`` and method-specific diagnostics.
        """
        raise NotImplementedError

    def _landmark_rows(self, X):
        """Validated new points and their landmark columns ``K(X, L)`` (n_new, m)."""
        check_is_fitted(self, "approximation_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return np.asarray(self.approximation_.columns(X), dtype=float)

    def _test_rows(self, X):
        if not self._approximate():
            return super()._test_rows(X)
        return self._landmark_rows(X), None
