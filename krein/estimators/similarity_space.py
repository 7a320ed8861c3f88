"""The similarity space: the rows of K as feature vectors for a linear or RBF SVM.

Registry "similarity-linear" and "similarity-rbf": a training object ``x_i`` is
represented by its similarities to the ``n`` training objects, the row
``phi(x_i) = K[i, :]`` (Graepel, Herbrich, Bollmann-Sdorra & Obermayer, NIPS 1999,
"classification on pairwise proximity data"; Pekalska & Duin 2005, "The
dissimilarity representation for pattern recognition", the dissimilarity
space; Chen, Garcia, Gupta, Rahimi & Cazzanti 2009, JMLR 10, "similarities as
features"), and a new object by its row ``phi(x) = k(x, X)``.
An ordinary SVM is trained on these vectors: with the linear kernel
``<phi(x), phi(z)>`` (Gram matrix ``K K'``, test rows ``k(x, X) K``) or the RBF
kernel ``exp(-gamma_ ||phi(x) - phi(z)||^2)``.  Both are positive semidefinite
whatever ``K`` is, so the SVM dual is convex and libsvm solves it exactly.

On dissimilarity data the feature vectors are the rows of the kernel krein builds
from the dissimilarities (e.g. the centred ``-1/2 J D^2 J`` of ``--kernel
dissimilarity-linear``, or ``K = D`` itself with ``dissimilarity-raw``, which is
Pekalska & Duin's dissimilarity space), whatever the comparison gives as ``K``.

The linear similarity space is the SVM on ``K^2`` with the test rows
``k(x, X) K`` (Munoz & de Diego's "square" correction with its eq. (7) map,
registry "square"); it is registered again under the name the similarity-based
literature uses.

``gamma`` is relative to the spread of the feature vectors: ``gamma_ = gamma /
(n_features * Var(Phi))`` with ``Var(Phi)`` the variance of all entries of the
training feature matrix and ``n_features = n`` (scikit-learn's ``gamma="scale"``
at ``gamma = 1``), so the same ``gamma`` means the same model on ``K`` and on
``s K``.

Large data: the prototype form
------------------------------
With ``approximation=IndefiniteNystroem(...)`` (``m`` landmark objects) an object is
represented by its similarities to the landmarks only, ``phi(x) = k(x, L)`` (the
fitted front end's :meth:`~krein.approximation.IndefiniteNystroem.columns`, shape
``(n, m)``): the representation set of Pekalska & Duin 2005 (the dissimilarity
space on a set of prototypes; Graepel et al. 1999 likewise train on the
similarities to a subset of the objects), with the same features as above, no
scaling, and ``gamma_ = gamma / (m Var(Phi))``.  No ``n x n`` array is formed.

* ``feature_kernel="linear"``: the linear C-SVM on ``Phi`` (``n x m``), solved by
  :func:`krein.solvers.linear.linear_svm`: ``solver="auto"`` runs liblinear
  (Fan et al. 2008; dual coordinate descent, ``O(n m)`` per pass, but its
  intercept is regularized, :mod:`krein.solvers.linear`), ``solver="libsvm"``
  scikit-learn's ``SVC(kernel="linear")`` on ``Phi``, the exact problem of the
  exact path (``O(n^2)`` kernel evaluations: small ``n``).
* ``feature_kernel="rbf"``: libsvm's RBF SVM on ``Phi`` evaluates ``O(n^2)`` RBF
  kernel values of length ``m`` (measured: two minutes for one fit at ``n = 5000``,
  ``m = 1000``; 16 times that at ``n = 2 10^4``), so the RBF kernel of the features is itself approximated by the Nyström
  method (Williams & Seeger 2001) on the same ``m`` landmark objects: their feature
  vectors are the rows of the landmark block ``W = k(L, L)`` (``landmark_block_``),
  ``R = rbf(W, W) = V diag(D) V'``, and ``phi_rbf(x) = rbf(phi(x), W) V
  diag(D)^(-1/2)`` (eigenvalues ``D <= 10 m eps max D`` dropped), so that
  ``phi_rbf(x) phi_rbf(z)' = rbf(phi(x), W) R^+ rbf(W, phi(z))``; the linear C-SVM on
  ``phi_rbf`` (``n x m``) by the same solvers.  Time ``O(n m^2)``.

The weight of a linear SVM lies in the row space of its training features
(``w = Phi' u``, the representer theorem), so the solvers run on the features
rotated onto it, ``F = Phi V`` with ``Phi' Phi = V diag(s^2) V'`` restricted to
``s^2 > 10 m eps max s^2`` (the numerical rank; :func:`row_space_basis`), and the
weight on the features is ``w = V w_F``: the same problem (a rotation, ``F F' = Phi
Phi'`` up to the dropped round-off), whose liblinear passes cost ``O(n rank)``
instead of ``O(n m)`` (similarities to many landmarks are often of low numerical
rank: 58 of 1000 for the sigmoid kernel on the checkerboard).  liblinear's dual
coordinate descent can need many passes when ``C ||phi||^2`` is large (the
similarities to ``m`` landmarks have ``||phi||^2`` of order ``m``): an approximated
run of ``krein compare`` solves the linear similarity space with ``solver="ipm"``
(the registry's entry; the problem of ``"libsvm"`` by the interior-point method of
:func:`krein.solvers.linear_ipm.linear_svm_ipm`, 12-20 iterations of ``O(n rank^2)``
at ``m = 1000``, certified duality gap), the RBF one with liblinear capped at
``max_iter`` passes.

With every training object a landmark (``Phi = K``, ``W = K``), the linear path
with ``solver="libsvm"`` solves the exact estimator's problem, and so does the RBF
path (``phi_rbf phi_rbf' = rbf(K, K)`` when ``rbf(K, K)`` has no eigenvalue below the
cutoff): the decision values agree to libsvm's tolerance.
"""

from __future__ import annotations

import itertools
from numbers import Integral, Real

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._fitting import fit_wrapper
from ..solvers.linear import linear_svm
from .approximate import FrontEndMixin
from .base import (BinaryModel, KernelClassifierBase, fit_pairs, libsvm_solve, pair_indices,
                   positive_weight_rows)
from .neighbors import APPROXIMATION_CONSTRAINT

__all__ = ["SimilaritySpaceSVC", "landmark_columns", "rbf_nystroem_map", "row_space_basis"]

#: ``solver`` of :class:`SimilaritySpaceSVC`: "auto" (libsvm on the exact path,
#: liblinear with an approximation), "libsvm", "liblinear", "ipm" (with an approximation).
SOLVERS = ("auto", "libsvm", "liblinear", "ipm")

#: Kernels on the similarity-space feature vectors.
FEATURE_KERNELS = ("linear", "rbf")

#: Default inner-CV grid of the relative RBF width ``gamma`` (registry "similarity-rbf",
#: crossed with the C grid): a decade either side of scikit-learn's ``gamma="scale"``.
GAMMA_GRID = (0.1, 1.0, 10.0)


def similarity_feature_gamma(Phi, gamma, row_weight=None, column_weight=None):
    """The absolute RBF width on similarity-space features: ``gamma / (n_features * Var(Phi))``.

    With weights, the width of the rows and columns of ``Phi`` repeated as many times
    as their (integer) weights say: ``n_features = sum(column_weight)`` and ``Var``
    the variance of the entries with the weights ``row_weight[i] * column_weight[j]``
    (``sample_weight`` of :class:`SimilaritySpaceSVC`).

    Parameters
    ----------
    Phi : ndarray of shape (n, n_features)
        Training feature vectors (rows of the training kernel).
    gamma : float > 0
        Relative width (1: scikit-learn's ``gamma="scale"``).
    row_weight : ndarray of shape (n,) or None, default=None
        Non-negative weight of each row (None: all ones).
    column_weight : ndarray of shape (n_features,) or None, default=None
        Non-negative weight of each column (None: all ones).

    Returns
    -------
    float
        ``gamma / (n_features * Var(Phi))``; ``gamma`` itself when all entries of
        ``Phi`` are equal (variance 0), as scikit-learn does.
    """
    if row_weight is None and column_weight is None:
        var = float(np.var(Phi))
        n_features = Phi.shape[1]
    else:
        rw = np.ones(Phi.shape[0]) if row_weight is None else np.asarray(row_weight, float)
        cw = np.ones(Phi.shape[1]) if column_weight is None else np.asarray(column_weight, float)
        total = float(rw.sum()) * float(cw.sum())
        mean = float(rw @ Phi @ cw) / total
        var = float(rw @ np.square(Phi - mean) @ cw) / total
        n_features = float(cw.sum())
    return float(gamma) / (n_features * var) if var > 0 else float(gamma)


def rbf_nystroem_map(W, gamma):
    """The Nyström map of the RBF kernel on the landmarks' feature vectors ``W``.

    With ``R = exp(-gamma ||w_a - w_b||^2) = V diag(D) V'`` over the rows of ``W``
    (Williams & Seeger 2001), the features of a vector ``c`` are
    ``rbf(c, W) V diag(D)^(-1/2)``, so that products of features are the Nyström
    approximation ``rbf(c, W) R^+ rbf(W, c')`` of the RBF kernel (exact on the rows
    of ``W``).  Eigenvalues ``D <= 10 m eps max D`` (round-off of the
    eigensolver) are dropped.

    Parameters
    ----------
    W : ndarray of shape (m, m_features)
        The landmarks' feature vectors.
    gamma : float > 0
        The absolute RBF width.

    Returns
    -------
    ndarray of shape (m, q)
        The map ``M = V diag(D)^(-1/2)``: features ``rbf(c, W) M``.
    """
    R = rbf_kernel(W, W, gamma=gamma)
    D, V = np.linalg.eigh(0.5 * (R + R.T))
    keep = D > 10.0 * W.shape[0] * np.finfo(float).eps * max(float(D.max(initial=0.0)), 0.0)
    return V[:, keep] / np.sqrt(D[keep])


def row_space_basis(Phi):
    """An orthonormal basis of the numerical row space of ``Phi``.

    With ``Phi' Phi = V diag(s^2) V'`` the columns of ``V`` with
    ``s^2 > 10 q eps max s^2`` (below it ``s^2`` is round-off of forming
    ``Phi' Phi``), largest first.

    Parameters
    ----------
    Phi : ndarray of shape (n, q)
        Features.

    Returns
    -------
    ndarray of shape (q, k)
        ``V``: ``Phi V`` are the features in the row space (``k`` the numerical rank).
    """
    G = Phi.T @ Phi
    D, V = np.linalg.eigh(0.5 * (G + G.T))
    keep = D > 10.0 * Phi.shape[1] * np.finfo(float).eps * max(float(D.max(initial=0.0)), 0.0)
    return V[:, keep][:, ::-1]


#: Rows of the landmark columns computed at a time by :func:`landmark_columns`.
COLUMN_BLOCK_ROWS = 8192


def landmark_columns(approximation, X):
    """``K(X, landmarks)`` of a fitted front end, written block by block into one array.

    Parameters
    ----------
    approximation : IndefiniteNystroem
        Fitted.
    X : ndarray of shape (n, d), or (n, m) with kernel="precomputed"
        Validated input.

    Returns
    -------
    ndarray of shape (n, m)
        The columns (``X`` itself, checked, with precomputed columns), formed without a
        second ``(n, m)`` array (:meth:`~krein.approximation.IndefiniteNystroem.columns`
        of each block of :data:`COLUMN_BLOCK_ROWS` rows).
    """
    if approximation.get_params()["kernel"] == "precomputed" or X.shape[0] <= COLUMN_BLOCK_ROWS:
        return approximation.columns(X)
    first = approximation.columns(X[:COLUMN_BLOCK_ROWS])
    out = np.empty((X.shape[0], first.shape[1]))
    out[:COLUMN_BLOCK_ROWS] = first
    for a in range(COLUMN_BLOCK_ROWS, X.shape[0], COLUMN_BLOCK_ROWS):
        out[a:a + COLUMN_BLOCK_ROWS] = approximation.columns(X[a:a + COLUMN_BLOCK_ROWS])
    return out


class SimilaritySpaceSVC(FrontEndMixin, KernelClassifierBase):
    """C-SVM on the similarity-space feature vectors ``phi(x) = k(x, X_train)`` (the rows of K).

    Module docstring: Graepel et al. 1999; Pekalska & Duin 2005; Chen et al. 2009
    (similarities as features).  The training objects' feature vectors are the rows of the ``(n, n)``
    training kernel, a test object's the row ``k(x, X)`` of its ``(m, n)`` test
    block: the test rows suffice (no ``k(x, x)``).  The SVM kernel on the features
    is ``feature_kernel``; libsvm solves each binary problem (convex: the feature
    kernel is PSD), one-vs-one for more classes, and krein certifies it
    (:func:`krein.solvers.libsvm.libsvm_solve`).

    Sample weights
    --------------
    ``fit(X, y, sample_weight=w)`` fits the model of the samples repeated ``w_i``
    times.  Repeating training object ``j`` repeats its row (a training point) AND its
    column (a feature, the similarity to ``x_j``): ``k`` equal features contribute ``k
    K[x, j] K[z, j]`` to the linear feature kernel and ``k (K[x, j] - K[z, j])^2`` to
    the squared distance of the RBF one, which is feature ``j`` scaled by ``sqrt(k)``.
    So the features are ``phi_w(x) = k(x, X) diag(sqrt(w))`` (``feature_scale_``;
    feature kernels ``K W K'`` and ``exp(-gamma_ ||(phi(x) - phi(z)) sqrt(w)||^2)``),
    the box bounds ``C * class_weight[y_i] * w_i`` (the C-SVM's weighted hinge loss),
    and ``gamma_`` is computed on the repeated features (:func:`similarity_feature_gamma`
    with the weights).  A sample of weight 0 is removed (its row and its feature).
    With an approximation the features are the similarities to the landmarks, which
    carry no weight: the weights are box bounds of the rows (and weigh the rows in
    ``gamma_``).

    Parameters
    ----------
    C : float > 0, default=1.0
        Box bound of the SVM on the features.  ``K -> s K`` multiplies the linear
        feature kernel by ``s^2`` (scale exponent of ``C``: -2) and leaves the RBF
        feature kernel unchanged (exponent 0).
    feature_kernel : {"linear", "rbf"}, default="linear"
        ``"linear"``: ``<phi(x), phi(z)>``; ``"rbf"``: ``exp(-gamma_ ||phi(x) -
        phi(z)||^2)``.
    gamma : float > 0, default=1.0
        RBF only: relative width, ``gamma_ = gamma / (n * Var(Phi))``
        (:func:`similarity_feature_gamma`); the registry tunes it in {0.1, 1, 10}.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"``: ``fit`` takes the ``(n, n)`` training kernel (the
        similarity matrix) and ``predict`` the ``(m, n)`` rows ``K(test,
        train)``; a name of :data:`krein.kernels.KERNELS` or a callable is
        evaluated on feature vectors first.
    kernel_params : dict, optional
        Parameters of the named or callable kernel.
    class_weight : None, "balanced" or dict, default=None
        As scikit-learn's SVC (box bound ``C * class_weight_[c]``).
    tol : float > 0, default=1e-3
        Stopping tolerance of libsvm (or liblinear).
    max_iter : int, default=-1
        libsvm's iteration limit (liblinear: passes over the data), -1 for none.
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation, so that
        ``predict_proba`` / ``predict_log_proba`` exist (as scikit-learn's
        ``SVC(probability=True)``; :class:`krein.estimators.base.ProbabilityMixin`).
    solver : {"auto", "libsvm", "liblinear", "ipm"}, default="auto"
        ``"auto"``: libsvm on the exact path, liblinear with an approximation.
        ``"libsvm"``: scikit-learn's SVC (libsvm's SMO): on the precomputed
        feature kernel (exact path), on the features with an approximation
        (``SVC(kernel="linear")``, ``O(n^2)`` kernel evaluations).
        ``"liblinear"``: with an approximation only (module docstring, "Large
        data"; the intercept is regularized).  ``"ipm"``: with an approximation
        only, the exact problem of ``"libsvm"`` by the interior-point method of
        :func:`krein.solvers.linear_ipm.linear_svm_ipm` (``O(n m^2)`` per iteration,
        certified duality gap at most ``min(tol, 1e-6)``).
    approximation : transformer or None, default=None
        A low-rank front end, e.g. :class:`krein.approximation.IndefiniteNystroem`
        (cloned, given the estimator's ``kernel`` and ``kernel_params``); None:
        the exact path.  With it the features are the similarities to its ``m``
        landmarks (the prototype form; module docstring, "Large data"), and
        ``fit`` and ``predict`` take the front end's input (feature vectors with a
        named kernel, or with ``kernel="precomputed"`` the columns
        ``K(objects, landmarks)``).

    Attributes
    ----------
    features_ : ndarray of shape (n, n)
        The training feature vectors (the training kernel's rows, their columns scaled
        by ``feature_scale_`` with sample weights); not with an approximation.
    feature_scale_ : ndarray of shape (n,) or None
        ``sqrt(sample_weight)``, the scale of each feature (class docstring, "Sample
        weights"); None without sample weights.  Not with an approximation.
    gamma_ : float
        The absolute RBF width used (``feature_kernel="rbf"``; NaN for linear).
    solver_ : str
        The solver that ran (``solver`` with ``"auto"`` resolved).
    classes_, support_, dual_coef_, intercept_, n_iter_, solutions_, solution_,
    min_eigenvalue_
        As :class:`~krein.estimators.KernelClassifierBase`; ``dual_coef_`` are
        the coefficients ``y_i alpha_i`` of the SVM on the feature kernel and
        ``min_eigenvalue_`` is that of the input training kernel (with an
        approximation: no ``support_`` nor ``dual_coef_``, and the least
        eigenvalue of ``K_approx``, or 0 when its rank is below ``n``).
    approximation_ : transformer
        With an approximation: the fitted clone.
    coef_ : ndarray of shape (n_models, q)
        With an approximation: the weights of the binary linear models on the
        features (``m`` similarities, or the ``q`` RBF Nyström features), one row
        per one-vs-one pair.
    rbf_map_ : ndarray of shape (m, q)
        With an approximation and ``feature_kernel="rbf"``: the map
        :func:`rbf_nystroem_map` of the landmarks' feature vectors.
    landmark_features_ : ndarray of shape (m, m)
        With an approximation and ``feature_kernel="rbf"``: the landmarks' feature
        vectors (the landmark block ``W``).

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein.estimators import SimilaritySpaceSVC
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = SimilaritySpaceSVC(kernel="sigmoid",
    ...                          kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        "feature_kernel": [StrOptions(set(FEATURE_KERNELS))],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, -1, None, closed="left")],
        "solver": [StrOptions(set(SOLVERS))],
        "approximation": APPROXIMATION_CONSTRAINT,
    }

    def __init__(self, *, C=1.0, feature_kernel="linear", gamma=1.0, kernel="gaussian",
                 kernel_params=None, class_weight=None, tol=1e-3, max_iter=-1, probability=False,
                 solver="auto", approximation=None):
        self.C = C
        self.feature_kernel = feature_kernel
        self.gamma = gamma
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.tol = tol
        self.max_iter = max_iter
        self.probability = probability
        self.solver = solver
        self.approximation = approximation

    def _check_params(self):
        self._check_approximation()     # liblinear: raises without an approximation

    def _resolved_solver(self):
        if self.solver == "auto":
            return "liblinear" if self._approximate() else "libsvm"
        return self.solver

    @fit_wrapper
    def fit(self, X, y, sample_weight=None):
        """Fit the classifier, with optional per-sample weights.

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            Training feature vectors, or the square training kernel matrix (with an
            approximation: the front end's input, e.g. the landmark columns).
        y : array of shape (n,)
            Class labels (at least two classes).
        sample_weight : array of shape (n,), optional
            Non-negative weights ``w``: the model of the samples repeated ``w_i`` times
            (class docstring, "Sample weights"): box bounds ``C * class_weight[y_i] *
            w_i`` and feature ``j`` (the similarity to training object ``j``) scaled
            by ``sqrt(w_j)``; a sample of weight 0 leaves the problem (its row and its
            feature).  With an approximation the weights weigh the rows only (the
            features are the similarities to the landmarks).  With
            ``probability=True`` they also weigh Platt's sigmoid.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            As :meth:`KernelClassifierBase.fit`, and for a negative weight, a
            ``sample_weight`` of the wrong length, or a class whose weights are all 0.
        """
        return self._fit_and_diagnose(X, y, sample_weight)

    def _feature_gram(self, rows):
        """The SVM kernel between feature vectors ``rows`` (m, n) and the training ones
        (features scaled by ``feature_scale_`` when fitted with sample weights)."""
        if self.feature_scale_ is not None:
            rows = rows * self.feature_scale_
        if self.feature_kernel == "linear":
            return rows @ self.features_.T
        return rbf_kernel(rows, self.features_, gamma=self.gamma_)

    def _fit_input(self, X, y):
        X_fit, K, classes, y_idx = super()._fit_input(X, y)
        sw = getattr(self, "_sample_weight", None)
        # a sample repeated w_j times repeats feature j: sqrt(w_j) on column j gives the
        # same inner products and distances (class docstring, "Sample weights")
        self.feature_scale_ = None if sw is None else np.sqrt(sw)
        self.features_ = K.copy() if sw is None else K * self.feature_scale_
        self.gamma_ = (similarity_feature_gamma(K, self.gamma, sw, sw)
                       if self.feature_kernel == "rbf" else float("nan"))
        G = self._feature_gram(K)
        return X_fit, 0.5 * (G + G.T), classes, y_idx

    def _fit_binary(self, K, y, idx, C):
        keep = positive_weight_rows(C, y)
        if keep is None:
            u, b, sol = libsvm_solve(K, y, C, tol=self.tol, max_iter=self.max_iter)
        else:
            # weight 0: the sample repeated 0 times, its row of the feature kernel removed
            u_keep, b, sol = libsvm_solve(K[np.ix_(keep, keep)], y[keep], C[keep], tol=self.tol,
                                          max_iter=self.max_iter)
            u = np.zeros(y.size)
            u[keep] = u_keep
        return BinaryModel(idx, u, b, {"n_iter": sol.iterations, "solution": sol})

    def _fit(self, X, y):
        self.solver_ = self._resolved_solver()
        if not self._approximate():
            return super()._fit(X, y)
        return self._fit_approximate(X, y)

    def _approximate_features(self, columns):
        """The features of the approximate path from the landmark columns ``(n, m)``:
        the columns themselves, or their RBF Nyström features (module docstring)."""
        if self.feature_kernel == "linear":
            return columns
        out = np.empty((columns.shape[0], self.rbf_map_.shape[1]))
        for a in range(0, columns.shape[0], COLUMN_BLOCK_ROWS):
            out[a:a + COLUMN_BLOCK_ROWS] = rbf_kernel(
                columns[a:a + COLUMN_BLOCK_ROWS], self.landmark_features_,
                gamma=self.gamma_) @ self.rbf_map_
        return out

    def _fit_approximate(self, X, y):
        """The prototype form: linear models on the landmark columns or their RBF
        Nyström features, one-vs-one (module docstring, "Large data")."""
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        classes, y_idx = self._encode_labels(y)
        approx, rep = self._fit_front_end(X)
        columns = landmark_columns(approx, X)
        sw = getattr(self, "_sample_weight", None)
        if self.feature_kernel == "rbf":
            self.gamma_ = similarity_feature_gamma(columns, self.gamma, sw)
            self.landmark_features_ = np.asarray(approx.landmark_block_, dtype=float)
            self.rbf_map_ = rbf_nystroem_map(self.landmark_features_, self.gamma_)
        else:
            self.gamma_ = float("nan")
        Phi = self._approximate_features(columns)
        del columns
        basis = row_space_basis(Phi)
        F = Phi @ basis
        del Phi
        pairs = list(itertools.combinations(range(classes.size), 2))

        def problems():
            for i, j in pairs:
                idx = pair_indices(y_idx, i, j, classes.size)
                yield (F if classes.size == 2 else F[idx], np.where(y_idx[idx] == j, 1.0, -1.0),
                       self._per_sample_C(y_idx[idx], idx))

        def fit_one(sub, y_pm, C_box):
            keep = positive_weight_rows(C_box, y_pm)
            if keep is not None:      # weight 0: the sample's row removed
                sub, y_pm, C_box = sub[keep], y_pm[keep], C_box[keep]
            w_F, b, sol = linear_svm(sub, y_pm, C_box,
                                     solver=self.solver_, tol=self.tol, max_iter=self.max_iter)
            return BinaryModel(np.arange(0), basis @ w_F, b,
                               {"n_iter": sol.iterations, "solution": sol})

        # the pairs concurrently when joblib allows (the linear solvers read their
        # arguments only): the same models as in turn
        models = fit_pairs(fit_one, problems(), len(pairs), prefer=self._pair_prefer)
        coefs = [m.coef for m in models]
        intercepts = [m.intercept for m in models]
        lam = np.asarray(rep.eigenvalues, dtype=float)
        # ---- every binary model trained: set the fitted attributes
        self.approximation_ = approx
        self.classes_ = classes
        self.pairs_ = pairs
        self.coef_ = np.vstack(coefs)
        self.intercept_ = np.array(intercepts, dtype=float)
        self.binary_models_ = models
        self.n_iter_ = np.array([m.info["n_iter"] for m in models])
        self.class_weight_ = self._class_weight
        self.min_eigenvalue_ = float(min(lam.min(initial=0.0), 0.0)) \
            if lam.size < X.shape[0] else float(lam.min())
        return self

    def _test_rows(self, X):
        if self._approximate():
            check_is_fitted(self, "approximation_")
            X = validate_data(self, X, dtype=np.float64, reset=False)
            return self._approximate_features(landmark_columns(self.approximation_, X)), None
        rows, Xv = super()._test_rows(X)
        return self._feature_gram(rows), Xv

    def _binary_decisions(self, K_rows, extra=None):
        if self._approximate():
            return K_rows @ self.coef_.T + self.intercept_
        return super()._binary_decisions(K_rows, extra)
