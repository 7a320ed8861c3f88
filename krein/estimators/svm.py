"""SVM classifiers for indefinite kernels: ESVC (Krein space), spectrum-corrected SVC, direct SVC.

Sources: Loosli, Ong & Canu (2013, "loosli") Algorithm 1, §4 and §6.1; Munoz &
de Diego (2006, "munoz") eqs. (1)-(7); Lin & Lin (2003) for the direct SVM.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted

from .._fitting import fit_wrapper
from .._validation import LIBSVM_MAX_ITER, NONNEGATIVE, POSITIVE
from .._vocabulary import declared

from ..formulations.svm import SVMDual, SVMPrimal, preferred_form
from ..solvers import SolverName, resolve_solver, solve
from ..solvers.ldl import LDLFlip
from ..spectrum import (OUT_OF_SAMPLE, TRANSFORMS, Spectrum, check_correction,
                        correct_eigenvalues, row_multipliers, spectral_factor, transductive_rows)
from .approximate import (APPROXIMATION_CONSTRAINT, ApproximationMixin, linear_svm,
                          spectral_features)
from .corrected import landmark_feature_map
from .base import N_JOBS, BinaryModel, KernelClassifierBase, least_eigenvalue, libsvm_solve

#: ``correction_scope`` of a multiclass fit (krein._vocabulary): the pair's block or the
#: whole training kernel, corrected.
CORRECTION_SCOPES = declared("correction_scope", "pair", "training")

__all__ = ["ESVC", "SpectrumSVC", "DirectSVC"]


#: ``solver`` of the SVMs solved by libsvm or CVXPY (liblinear: with an approximation);
#: ``"auto"`` (the default) resolves by :func:`auto_svm_solver`.
_LIBSVM_OR_CVXPY = [SolverName(("auto", "libsvm", "liblinear", "ipm"))]

#: Constraint of ``approximation`` (a low-rank front end such as IndefiniteNystroem).
_APPROXIMATION = APPROXIMATION_CONSTRAINT

#: ``decomposition`` of the Krein-space flip: ESVM's ``eigh``, TrIK's unpivoted ``ldl``
#: or the Bunch-Kaufman ``ldl-pivoted``.
DECOMPOSITIONS = declared("decomposition", "eigh", "ldl", "ldl-pivoted")

#: The ``decomposition`` values that factor ``K = L D L'``, and their pivoting.
LDL_PIVOTING = {"ldl": "none", "ldl-pivoted": "bunch-kaufman"}


def auto_svm_solver(approximation):
    """The solver ``solver="auto"`` runs for :class:`ESVC` and :class:`SpectrumSVC`.

    Parameters
    ----------
    approximation : bool
        Whether the estimator has an ``approximation`` (trains on features).

    Returns
    -------
    str
        ``"liblinear"`` with an approximation (liblinear's dual coordinate descent
        on the features: linear in ``n``; ``benchmarks/`` measures 512 s for libsvm's
        ``SVC(kernel="linear")`` against 8.6 s at 10^5 points, same accuracy),
        ``"libsvm"`` on the exact kernel (SMO on the precomputed kernel).
    """
    return "liblinear" if approximation else "libsvm"


def _row_space_map(M):
    """``(M V, k)``: TrIK's landmark map ``M`` (r, k) on an orthonormal basis ``V`` of its row space.

    The features ``Psi M`` have rank at most ``r`` (the columns of ``Psi``), often far
    below ``k``; with the thin SVD ``M = U diag(S) V'`` (singular values up to
    ``max(r, k) eps max S`` dropped: round-off) the features ``Psi M V = Psi U diag(S)``
    are ``Psi M`` in an orthonormal basis of their row space, so the linear SVM on them
    is the same problem (``||V w|| = ||w||``, the same scores; the weight on ``Psi M``
    is ``V w``), with ``rank(M)`` features instead of ``k``.

    Parameters
    ----------
    M : ndarray of shape (r, k)
        The map of :func:`~krein.estimators.corrected.landmark_feature_map`.

    Returns
    -------
    MV : ndarray of shape (r, rank)
        ``M V``; a binary model's coefficients on ``Psi`` are ``MV w``.
    k : int
        The number of columns of ``M`` (TrIK's components).
    """
    U, S, _ = np.linalg.svd(M, full_matrices=False)
    keep = S > max(M.shape) * np.finfo(float).eps * float(S.max(initial=0.0))
    return U[:, keep] * S[keep], M.shape[1]


def _check_svm_solver(est):
    """``est._solver`` (also recorded as ``est.solver_``): "libsvm", "liblinear" (with an
    approximation only) or a CVXPY name; ``"auto"`` resolved by :func:`auto_svm_solver`."""
    est._check_approximation()          # liblinear: raises without an approximation
    solver = resolve_solver(est.solver, ("auto", "libsvm", "liblinear", "ipm"),
                            approximation=True)
    if solver == "auto":
        solver = auto_svm_solver(est._approximate())
    est.solver_ = solver
    return solver


def _solve_psd_svm(K_psd, y, C, solver, tol, max_iter, solver_options, factor=None,
                   eigenvalues=None):
    """Solve the C-SVM dual on a PSD-by-construction kernel; return (u, b, info).

    ``C`` is a float or per-sample bounds of shape ``(n,)`` (``class_weight``; libsvm
    and the CVXPY dual :class:`~krein.formulations.svm.SVMDual` both take them).
    ``eigenvalues``: those of ``K_psd`` the caller computed (its own spectrum), which
    certify the ``quad_form`` wrap without a second ``eigvalsh``."""
    if solver == "libsvm":
        u, b, sol = libsvm_solve(K_psd, y, C, tol=tol, max_iter=max_iter)
        return u, b, {"n_iter": sol.iterations, "solver": "libsvm", "solution": sol}
    n = y.size
    form = preferred_form(solver, n, None if factor is None else factor.shape[1])
    if form == "factor" and factor is None:
        lam, V = np.linalg.eigh(K_psd)
        factor = spectral_factor(V, lam, lam > 0)
    f = SVMDual(y, K=K_psd, L=factor if form == "factor" else None, C=C, form=form, psd_checked=True,
                eigenvalues=eigenvalues if form == "quad_form" else None)
    sol = solve(f, solver, **(solver_options or {}))
    u, b = f.coefficients()
    return u, b, {"n_iter": sol.iterations or 0, "solver": solver, "solution": sol}


def _spectrum_diagnostics(est, K, models, spec=None):
    """Set ``spectrum_``, ``min_eigenvalue_``, ``signature_`` from the training kernel.

    A partial decomposition (ESVM-L: ``n_components``/``energy``) is not completed
    by a full ``eigh``: ``spectrum_`` is the models' partial spectrum (two classes;
    None for multiclass), ``signature_`` its signature (the components not kept
    count as zero) and ``min_eigenvalue_`` comes from a partial eigensolver.
    ``spec``: the full spectrum of ``K`` when the fit computed it (a multiclass
    fit with ``correction_scope="training"``), not computed again."""
    specs = [m.info.get("spectrum") for m in models]
    if any(s is not None and s.partial for s in specs):
        spec = specs[0] if len(models) == 1 else None
        est.spectrum_ = spec
        est.min_eigenvalue_ = least_eigenvalue(K)
        est.signature_ = None if spec is None else spec.signature
        return
    if spec is None:
        spec = specs[0] if len(models) == 1 else None
    if spec is None:
        spec = Spectrum.from_kernel(K, check=False)
    est.spectrum_ = spec
    est.min_eigenvalue_ = spec.min_eigenvalue
    est.signature_ = spec.signature


class ESVC(ApproximationMixin, KernelClassifierBase):
    """SVM in a Krein space by eigendecomposition: ESVM and ESVM-L (loosli Algorithm 1).

    With ``K = V diag(lam) V'`` the stabilization problem of loosli eq. (2) is
    solved by a standard C-SVM on the flipped kernel ``V |lam| V'``, giving
    ``c~ = y * alpha~``; the Krein-space coefficients are
    ``c = V sign(lam) V' c~`` and the decision function uses the ORIGINAL kernel,
    ``f(x) = k(x, X) c + b``.  On the training set this equals the flipped SVM's
    decision values exactly; on a PSD kernel ESVC is the standard SVM.

    ESVM-L (loosli §4, Table 2 with 90 %) keeps the largest-``|lam|`` eigenpairs,
    by number (``n_components``) or by share of ``sum |lam|`` (``energy``), and
    solves the SVM on ``V_L |lam_L| V_L'`` (partial decomposition by ARPACK).

    TrIK-SVM (``decomposition="ldl"``; Loosli 2019, arXiv 1902.10569) replaces the
    eigendecomposition by the factorization ``K = L D L'``: the SVM is trained on
    ``L |D| L'`` and ``c = L^{-T} sign(D) L' c~``, so that again ``K c = L|D|L' c~``
    on the training set.  The factorization is Loosli's, Gaussian elimination
    without pivoting (:func:`krein.solvers.ldl.ldl_unpivoted`); where it does not
    exist or is unstable, Bunch-Kaufman replaces it with a warning.
    ``decomposition="ldl-pivoted"`` always uses Bunch-Kaufman (LAPACK ``sytrf``
    through :func:`scipy.linalg.ldl`, 1x1 and 2x2 blocks): another PSD kernel
    ``L|D|L'`` wherever it interchanges rows (:mod:`krein.solvers.ldl`).

    Approximate paths
    -----------------
    With ``approximation`` (module :mod:`krein.estimators.approximate`) ESVM is the
    linear SVM on the signed Nyström features ``Psi`` (``|K_approx| = Psi Psi'``;
    Oglic & Gärtner 2019, §3), one-vs-one on each pair's own eigenfeatures.

    * ESVM-L (``n_components`` / ``energy``): the same selection rule on the
      eigenvalues of the approximation (of each pair's sub-kernel, as the exact
      path selects on each pair's block): the ``n_components`` largest ``|lam|``,
      or the fewest largest ``|lam|`` whose sum is at least ``energy`` times the
      approximation's ``sum |lam|``; the linear SVM runs on the kept
      eigenfeatures.  The approximation's eigenvalues approximate the top of the
      exact spectrum and its ``sum |lam|`` is that of ``K_approx``, not of ``K``
      (whose ``n - r`` remaining eigenvalues are unknown without the ``n x n``
      kernel), so the share is of the approximated kernel; at full rank it is the
      exact rule (loosli §4).
    * TrIK-SVM (``decomposition="ldl"`` or ``"ldl-pivoted"``): the landmark block is
      factored, ``W = P L D L' P'`` (:class:`krein.solvers.ldl.LDLFlip` as the
      exact path; ``P`` the identity without pivoting), its flip ``W~ = P L |D| L' P' = F F'`` (1x1 and 2x2 blocks of
      ``D``) is extended by the front end's Nyström map to
      ``K~ ~ C W^+ W~ W^+ C' = Phi Phi'``, ``Phi = C W^+ F``
      (:func:`krein.estimators.corrected.landmark_feature_map`), and the linear SVM
      on ``Phi`` gives ``f(x) = phi(x) w + b`` (solved on ``Phi`` in an orthonormal
      basis of its row space, ``rank(M) <= r`` features: ``_row_space_map``).  With every training point a
      landmark, ``Phi Phi' = K~`` and ``phi(x) w = k(x, X) K^-1 K~ c~ = k(x, X) c``
      with TrIK's Krein coefficients ``c = K^-1 K~ c~``: the exact two-class
      TrIK-SVM.  The factorization is of the whole landmark block, shared by the
      one-vs-one pairs (the exact path factors each pair's block ``K[idx, idx]``,
      an ``n_pair x n_pair`` factorization the approximation cannot form).

    Parameters
    ----------
    C : float > 0
        Box bound.
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
    class_weight : None, "balanced" or dict {label: weight}
        Per-class box bounds ``C * weight`` as scikit-learn's SVC (see
        :class:`~krein.estimators.base.KernelClassifierBase`), with libsvm or a
        CVXPY solver (dual or primal formulation).
    n_components : int, optional
        ESVM-L: number of eigenpairs kept (of the approximation with an
        ``approximation``: "Approximate paths").
    energy : float in (0, 1], optional
        ESVM-L: share of ``sum |lam|`` kept (see
        :meth:`krein.spectrum.Spectrum.from_kernel` for the guarantee; with an
        ``approximation``, of the approximation's ``sum |lam|``).
    decomposition : {"eigh", "ldl", "ldl-pivoted"}, default="eigh"
        How the kernel is flipped: the eigendecomposition ``K = V diag(lam) V'``
        (ESVM, loosli 2013 Alg. 1), the unpivoted ``K = L D L'`` (TrIK-SVM,
        Loosli 2019; about 10 times fewer flops than ``eigh``; Bunch-Kaufman with
        a :class:`krein.solvers.ldl.LDLPivotingWarning` where it does not exist)
        or the Bunch-Kaufman ``K = P' L D L' P`` (``"ldl-pivoted"``).  An ``L D L'``
        takes neither ``n_components``/``energy`` (they keep eigenpairs) nor
        ``formulation="primal"``; with an ``approximation`` it factors the
        landmark block ("Approximate paths").
    solver : str, default="auto"
        ``"auto"`` (default): ``"libsvm"`` on the exact kernel, ``"liblinear"``
        with an ``approximation`` (:func:`auto_svm_solver`; the fitted
        ``solver_`` says which ran).  ``"libsvm"``: scikit-learn's SVC on the
        precomputed flipped kernel; any installed CVXPY solver name
        ("CLARABEL", "SCS", ...); with an ``approximation`` also
        ``"liblinear"`` (the one that scales to millions of points; it
        regularizes the intercept, see :mod:`krein.estimators.approximate`),
        while ``"libsvm"`` then trains ``SVC(kernel="linear")`` on the features
        (exact, ``O(n^2)``: 60 times slower at 10^5 points) and ``"ipm"`` the
        interior-point method of :func:`krein.solvers.linear_ipm.linear_svm_ipm`
        (exact, ``O(n d^2)`` per iteration on ``d`` features; certified duality gap).
    formulation : {"dual", "primal"}
        With a CVXPY solver: the dual QP (:class:`~krein.formulations.SVMDual`) or
        the primal in the feature map ``L = V |lam|^(1/2)``
        (:class:`~krein.formulations.SVMPrimal`), for which
        ``c = V sign(lam) |lam|^(-1/2) w``.  libsvm always solves the dual.
    tol : float > 0
        libsvm stopping tolerance.
    max_iter : int >= 1 or -1
        libsvm iteration limit (-1: none).
    solver_options : dict, optional
        Passed to the CVXPY solver.
    approximation : transformer or None, default=None
        A low-rank front end, e.g.
        :class:`krein.approximation.IndefiniteNystroem`; None keeps the exact
        path.  It is cloned and given the estimator's ``kernel`` and
        ``kernel_params``; ``fit`` trains the linear SVM on its features ``Psi``
        (``|K_approx| = Psi Psi'``, the flipped approximation) and the decision
        is ``f(x) = psi(x) w + b``, which is the Krein-space decision
        ``k_approx(x, X) c + b`` with the Krein weight ``diag(signs) w``
        (derivation in :mod:`krein.estimators.approximate`).  No ``n x n``
        array is formed.  Not with ``n_components``/``energy`` (ESVM-L: use the
        approximation's rank instead).
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation, so that
        ``predict_proba`` / ``predict_log_proba`` exist (as scikit-learn's
        ``SVC(probability=True)``; :class:`krein.estimators.base.ProbabilityMixin`).
    n_jobs : int or None, default=None
        joblib workers (threads: LAPACK and libsvm release the GIL) over the
        one-vs-one pairs; None: joblib's ``parallel_config`` (one outside it,
        and inside ``krein compare``'s workers); -1: all cores.  Changes the
        time, never the result (:func:`krein.estimators.base.fit_pairs`).

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_pairs, n_SV)
        Krein coefficients ``c`` on ``support_`` (dense: ESVM is not sparse).
        Exact path only (also ``support_``, ``flipped_dual_coef_``,
        ``spectrum_``).
    coef_ : ndarray of shape (n_pairs, r)
        With an approximation: the weights on its features, ``f(x) = psi(x)
        coef_ + intercept_``.
    approximation_ : transformer
        With an approximation: the fitted clone.
    eigenvalues_ : ndarray of shape (r,)
        With an approximation: the nonzero eigenvalues of ``K_approx``.
    flipped_dual_coef_ : ndarray of shape (n_pairs, n_train)
        ``c~ = y * alpha~`` of the SVM on the flipped kernel.
    support_, intercept_, classes_, n_iter_ :
        See the base class.
    min_eigenvalue_ : float
        Least eigenvalue of the training kernel.
    signature_ : tuple (p, q, z)
        With ``"ldl"``: the inertia of ``D`` (= the signature of ``K``, Sylvester).
    spectrum_ : krein.spectrum.Spectrum or None
        Full spectrum of the training kernel; with ``n_components``/``energy``
        (ESVM-L) the partial one the model used (None for multiclass), and then
        ``min_eigenvalue_`` comes from a partial eigensolver, not a full ``eigh``.
        None with ``decomposition="ldl"`` (no eigendecomposition is computed;
        ``min_eigenvalue_`` then comes from the partial eigensolver).
    ldl_ : krein.solvers.ldl.LDLFlip or None
        With ``decomposition="ldl"`` and two classes: the factorization used;
        with an approximation, that of the landmark block (any number of
        classes; None with ``"eigh"``).
    solutions_, solution_ :
        One :class:`krein.solvers.Solution` per binary model, with krein's
        certificate (libsvm: SVM-dual stationarity on the flipped kernel); see
        the base class.
    n_components_ : ndarray of shape (n_pairs,)
        Eigenpairs used by each binary model.
    solver_ : str
        The solver that ran (``solver`` with ``"auto"`` resolved).

    Raises
    ------
    ValueError
        See :meth:`fit`; also for ``formulation="primal"`` with libsvm, both
        ``n_components`` and ``energy``.

    References
    ----------
    G. Loosli, C. S. Ong, S. Canu (2013), "Learning SVM in Krein spaces",
    Algorithm 1 and §6.1.3.  G. Loosli (2019), "TrIK-SVM: an alternative
    decomposition for kernel methods in Krein spaces", ESANN, arXiv 1902.10569.

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein import ESVC
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = ESVC(kernel="sigmoid", kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True

    Large data: with an ``approximation`` the default ``solver="auto"`` runs
    liblinear on the features (``solver_`` records it):

    >>> from krein import IndefiniteNystroem
    >>> from krein.datasets import make_checkerboard
    >>> X, y = make_checkerboard(2000, random_state=0)
    >>> est = ESVC(kernel="sigmoid", kernel_params={"a": 3.0, "r": -1.0},
    ...            approximation=IndefiniteNystroem(n_components=100, random_state=0))
    >>> est.fit(X, y).solver_
    'liblinear'
    """

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "energy": [Interval(Real, 0, 1, closed="right"), None],
        "decomposition": [StrOptions(set(DECOMPOSITIONS))],
        "solver": _LIBSVM_OR_CVXPY,
        "formulation": [StrOptions({"dual", "primal"})],
        "tol": [POSITIVE],
        "max_iter": LIBSVM_MAX_ITER,
        "solver_options": [dict, None],
        "approximation": _APPROXIMATION,
        "n_jobs": N_JOBS,
    }

    _parallel_pairs = True

    def __init__(self, *, C=1.0, kernel="gaussian", kernel_params=None, class_weight=None,
                 n_components=None, energy=None, decomposition="eigh", solver="auto",
                 formulation="dual", tol=1e-3, max_iter=-1, solver_options=None,
                 approximation=None, probability=False, n_jobs=None):
        self.C = C
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.n_components = n_components
        self.energy = energy
        self.decomposition = decomposition
        self.solver = solver
        self.formulation = formulation
        self.tol = tol
        self.max_iter = max_iter
        self.solver_options = solver_options
        self.approximation = approximation
        self.probability = probability
        self.n_jobs = n_jobs

    def _check_params(self):
        self._solver = _check_svm_solver(self)
        if self.formulation == "primal" and self._solver == "libsvm" and not self._approximate():
            raise ValueError("formulation='primal' needs a CVXPY solver (e.g. solver='CLARABEL'); "
                             "libsvm solves the dual")
        if self.n_components is not None and self.energy is not None:
            raise ValueError("give at most one of n_components and energy")
        if self.decomposition in LDL_PIVOTING:
            for name, value, why in (
                    ("n_components", self.n_components, "keeps eigenpairs (ESVM-L)"),
                    ("energy", self.energy, "keeps eigenpairs (ESVM-L)")):
                if value is not None:
                    raise ValueError(f"decomposition='ldl' factors the exact kernel; {name} {why}: "
                                     f"leave {name}=None or use decomposition='eigh'")
            if self.formulation == "primal":
                raise ValueError("decomposition='ldl' solves the dual only (formulation='dual'); "
                                 "the primal feature map is the eigendecomposition's")

    def _fit_binary(self, K, y, idx, C):
        if self.decomposition in LDL_PIVOTING:
            return self._fit_binary_ldl(K, y, idx, C)
        n_comp = self.n_components
        if n_comp is not None and isinstance(n_comp, (int, np.integer)) and n_comp > K.shape[0]:
            n_comp = K.shape[0]  # a small one-vs-one block: keep everything it has
        spec = Spectrum.from_kernel(K, n_components=n_comp, energy=self.energy, check=False)
        lam, V = spec.eigenvalues, spec.eigenvectors
        S = spec.signs()
        if self.formulation == "primal":
            keep = S != 0
            L = spec.signed_factor(keep)
            f = SVMPrimal(y, L, C=C)
            sol = solve(f, self._solver, **(self.solver_options or {}))
            w = np.asarray(f.variables["w"].value)
            b = float(f.variables["b"].value)
            c = V[:, keep] @ (S[keep] / np.sqrt(np.abs(lam[keep])) * w)
            # c~ = y * alpha~ with alpha~ the dual value of the margin constraints
            alpha = np.clip(np.asarray(f.constraints["margin"].dual_value, dtype=float), 0.0, C)
            u = y * alpha
            info = {"n_iter": sol.iterations or 0, "solution": sol}
        else:
            K_abs = spec.flipped_kernel(K)
            # thin factor of K_abs: lets preferred_form pick sum_squares(L'u) when rank << n
            factor = spec.signed_factor(S != 0) if self._solver != "libsvm" else None
            u, b, info = _solve_psd_svm(K_abs, y, C, self._solver, self.tol, self.max_iter,
                                        self.solver_options, factor=factor,
                                        # the kept |lam| and zeros (n_components / energy)
                                        eigenvalues=np.r_[np.abs(lam), np.zeros(y.size - lam.size)])
            c = V @ (S * (V.T @ u))
        info.update({"spectrum": spec, "flipped_coef": u, "n_components": lam.size})
        return BinaryModel(idx, c, b, info)

    def _fit_binary_ldl(self, K, y, idx, C):
        """TrIK-SVM: the SVM on ``L|D|L'``, ``c = L^{-T} sign(D) L' c~`` (Loosli 2019)."""
        ldl = LDLFlip.from_kernel(K, pivoting=LDL_PIVOTING[self.decomposition])
        factor = ldl.factor() if self._solver != "libsvm" else None
        u, b, info = _solve_psd_svm(ldl.flipped_kernel(K), y, C, self._solver, self.tol,
                                    self.max_iter, self.solver_options, factor=factor)
        info.update({"ldl": ldl, "flipped_coef": u, "n_components": K.shape[0]})
        return BinaryModel(idx, ldl.krein_coefficients(u), b, info)

    def _fit_approximation(self, X):
        """The front end (:meth:`FrontEndMixin._fit_front_end`); with ``"ldl"`` also the
        map ``M`` of the flipped landmark block's features, ``Phi = Psi M``, on the basis
        of its row space (:func:`_row_space_map`)."""
        approx, rep = self._fit_front_end(X)
        self._ldl_landmarks = None
        if self.decomposition in LDL_PIVOTING:
            ldl = LDLFlip.from_kernel(approx.landmark_block_,
                                      pivoting=LDL_PIVOTING[self.decomposition])
            self._ldl_landmarks = (ldl, _row_space_map(landmark_feature_map(approx,
                                                                            ldl.factor())))
        return approx, rep

    def _fit_features(self, rep, y, C):
        """The approximate path: the linear SVM on the eigenfeatures ``Psi`` of the
        representation ``rep`` (the flipped approximation ``|K| = Psi Psi'``), on those
        ESVM-L keeps, or on TrIK's features ``Psi M`` ("Approximate paths")."""
        if self.decomposition in LDL_PIVOTING:
            MV, m = self._ldl_landmarks[1]
            w, b, sol = linear_svm(rep.Z @ MV, y, C, self._solver, self.tol, self.max_iter,
                                   self.solver_options)
            return MV @ w, b, {"n_iter": sol.iterations or 0, "solution": sol,
                               "n_components": m}
        eig = rep.eigenfeatures()
        keep = _kept_eigenpairs(eig.eigenvalues, self.n_components, self.energy)
        w, b, sol = linear_svm(eig.features[:, keep], y, C, self._solver, self.tol,
                               self.max_iter, self.solver_options)
        coef = np.zeros(eig.eigenvalues.size)
        coef[keep] = w
        return eig.to_rows(coef), b, {"n_iter": sol.iterations or 0, "solution": sol,
                                      "n_components": int(keep.size)}

    def _after_fit_approximate(self):
        self.n_components_ = np.array([m.info["n_components"] for m in self.binary_models_])
        ldl = self.__dict__.pop("_ldl_landmarks", None)
        self.ldl_ = None if ldl is None else ldl[0]

    def _after_fit(self, K):
        models = self.binary_models_
        n = K.shape[0]
        self.flipped_dual_coef_ = np.zeros((len(models), n))
        for r, m in enumerate(models):
            self.flipped_dual_coef_[r, m.idx] = m.info["flipped_coef"]
        self.n_components_ = np.array([m.info["n_components"] for m in models])
        if self.decomposition in LDL_PIVOTING:
            ldl = models[0].info["ldl"] if len(models) == 1 else LDLFlip.from_kernel(
                K, pivoting=LDL_PIVOTING[self.decomposition])
            self.ldl_ = ldl if len(models) == 1 else None
            self.spectrum_ = None
            self.signature_ = ldl.signature
            self.min_eigenvalue_ = least_eigenvalue(K)
            return
        _spectrum_diagnostics(self, K, models)


def _kept_eigenpairs(lam, n_components=None, energy=None):
    """Indices of the eigenpairs ESVM-L keeps among ``lam`` (all without a rule).

    The ``n_components`` largest ``|lam|``, or the fewest largest ``|lam|`` whose sum
    is at least ``energy * sum |lam|`` (the rule of
    :meth:`krein.spectrum.Spectrum.from_kernel` on a full spectrum; loosli §4).

    Parameters
    ----------
    lam : ndarray of shape (q,)
        Eigenvalues.
    n_components : int, optional
        Number kept.
    energy : float in (0, 1], optional
        Share of ``sum |lam|`` kept.

    Returns
    -------
    ndarray of int
        Sorted indices into ``lam``.
    """
    q = lam.size
    if n_components is None and energy is None:
        return np.arange(q)
    a = np.abs(lam)
    order = np.argsort(-a, kind="stable")
    if n_components is not None:
        k = min(int(n_components), q)
    else:
        k = int(np.searchsorted(np.cumsum(a[order]), energy * float(a.sum()) * (1 - 1e-12))) + 1
        k = min(k, q)
    return np.sort(order[:k])


#: Corrections whose raw out-of-sample map is available with an approximation (``g > 0``
#: wherever ``lam != 0``).
_RAW_WITH_FEATURES = ("flip", "square")

#: Corrected eigenvalues of an approximation below ``-_TOL_FEATURES * max|lam|`` are an error.
_TOL_FEATURES = 1e-10


class SpectrumSVC(ApproximationMixin, KernelClassifierBase):
    """C-SVM on a spectrum-corrected kernel, with a chosen out-of-sample map.

    The training kernel is corrected by ``g`` (clip = "Trunc", flip = "Abs",
    shift = "Shift" of loosli §6.1.1; mds, pseudo, add_diagonal, square of munoz
    §2-3), a standard SVM is trained on it, and test rows ``k(x, X)`` are mapped
    by ``out_of_sample`` before the expansion is applied:

    * ``"spectral"``: munoz eqs. (3), (5), (7); folded into the coefficients, so
      ``f(x) = k(x, X) V diag(h) V' c~ + b``.  With ``correction="flip"`` this is
      exactly ESVC (munoz eq. 5 is the pseudo-Euclidean map).
    * ``"raw"``: the uncorrected test kernel, as loosli Table 2 evaluated the
      heuristics ("all performance rates are given using the original kernel").
    * ``"transductive"``: decompose the joint train+test kernel at prediction time
      (with ``kernel="precomputed"``, pass ``(m, n + m)`` rows
      ``[K(test, train), K(test, test)]``).
    * ``"auto"``: raw for shift/add_diagonal (exact for ``k + lambda delta``),
      spectral otherwise; spectral for every correction with an approximation.

    With an ``approximation`` the correction ``g`` is applied to the nonzero
    spectrum ``lam`` of the low-rank approximation and the SVM is the LINEAR SVM
    on the features ``Psi diag(sqrt(g / |lam|))`` (clip: the positive-sign
    columns only; flip: ``Psi``; square: ``Psi |lam|^(1/2)``; shift:
    ``Psi sqrt((lam - lam_min) / |lam|)``); the spectral map applies the same
    scaling to new points, the raw map is ``psi(x) diag(signs) Psi' u``, available
    when no component is zeroed (flip, square).  Derivations in
    :mod:`krein.estimators.approximate`.

    Parameters
    ----------
    correction : {"clip", "mds", "flip", "pseudo", "shift", "add_diagonal", "square"}, \
default="flip"
        Spectrum correction ``g`` of the training kernel (loosli §6.1.1; munoz
        §2-3 eqs. (1), (4), (6), (7); see :mod:`krein.spectrum`).
    out_of_sample : {"auto", "spectral", "raw", "transductive"}, default="auto"
        Map applied to the kernel rows of new points (see above).
    C : float > 0, default=1.0
        Box bound of the SVM on the corrected kernel.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"`` (``fit`` takes the square ``(n, n)`` Gram matrix,
        ``predict``/``decision_function`` an ``(m, n)`` matrix against the
        training points), a name of :data:`krein.kernels.KERNELS` or a callable
        ``kernel(X, Z, **kernel_params)``.
    kernel_params : dict, optional
        Parameters of a named or callable kernel (e.g. ``{"a": 0.5, "r": -1.0}``
        for the sigmoid).
    class_weight : None, "balanced" or dict {label: weight}
        As in :class:`ESVC` (libsvm or a CVXPY solver).
    eps : float >= 0
        Threshold of mds/pseudo.
    shift : float, optional
        Constant of add_diagonal (default ``max(0, -lam_min)``).
    solver : str, default="auto"
        "auto" ("libsvm" on the exact kernel, "liblinear" with an
        ``approximation``: :func:`auto_svm_solver`), "libsvm" or an installed
        CVXPY solver (case-insensitive); with an ``approximation`` also
        "liblinear" and "ipm" (as in :class:`ESVC`).
    tol : float > 0, default=1e-3
        libsvm (liblinear) stopping tolerance.
    max_iter : int >= 1 or -1, default=-1
        libsvm (liblinear) iteration limit (-1: none).
    solver_options : dict, optional
        Passed to the CVXPY solver.
    approximation : transformer or None, default=None
        A low-rank front end (:class:`krein.approximation.IndefiniteNystroem`),
        cloned and given the estimator's ``kernel`` and ``kernel_params``; None
        keeps the exact path.  out_of_sample "transductive" is not available
        with it, "raw" only for flip and square.
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation, so that
        ``predict_proba`` / ``predict_log_proba`` exist (as scikit-learn's
        ``SVC(probability=True)``; :class:`krein.estimators.base.ProbabilityMixin`).
    correction_scope : {"pair", "training"}, default="pair"
        Multiclass only (exact path): ``"pair"`` corrects each one-vs-one block
        ``K[I, I]`` (one eigendecomposition per pair); ``"training"`` corrects
        the training kernel once and trains each pair on the block ``Kc[I, I]``
        of the correction (PSD: a principal submatrix of a PSD matrix), with the
        out-of-sample map of the training correction (``"spectral"``: the
        pair's decision is ``(r V diag(h) V')[I] u``, so its coefficients live on
        every training point; ``"transductive"``: the joint train + test kernel
        corrected once).  The two are different models (``clip(K)[I, I] !=
        clip(K[I, I])``); with two classes they coincide.  The default stays
        ``"pair"`` (the papers' per-problem correction); the measured accuracy
        of both on many-class inputs is in ``benchmarks/README.md``
        (``benchmarks/many_classes.py``).  With an ``approximation`` each pair's
        features are refactored as before (the option does not apply).
    n_jobs : int or None, default=None
        joblib workers (threads: libsvm and LAPACK release the GIL) over the
        one-vs-one pairs; None: joblib's ``parallel_config`` (one outside it,
        and inside ``krein compare``'s workers); -1: all cores.  Changes the time,
        never the result (:func:`krein.estimators.base.fit_pairs`).

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_pairs, n_SV)
        Coefficients applied to the (raw) test rows, the map folded in for
        "spectral" (exact path only, as ``support_`` and ``spectrum_``).
    coef_ : ndarray of shape (n_pairs, r)
        With an approximation: the weights on its features, the map folded in.
    approximation_ : transformer
        With an approximation: the fitted clone.
    eigenvalues_ : ndarray of shape (r,)
        With an approximation: the nonzero eigenvalues of ``K_approx``.
    corrected_dual_coef_ : ndarray of shape (n_pairs, n_train)
        ``y * alpha`` of the SVM on the corrected kernel.
    correction_scope_ : {"pair", "training"}
        Exact path: the scope that ran (``"pair"`` for two classes, whatever
        was asked).
    min_eigenvalue_, signature_, spectrum_ :
        Of the uncorrected training kernel.
    solver_ : str
        The solver that ran (``solver`` with ``"auto"`` resolved).

    References
    ----------
    Loosli et al. (2013) §6.1.1; Munoz & de Diego (2006) eqs. (1)-(7);
    Wu, Chang & Zhang (2005) for the transductive map.

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein import SpectrumSVC
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = SpectrumSVC(correction="clip", kernel="sigmoid",
    ...                   kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        "correction": [StrOptions(set(TRANSFORMS))],
        "out_of_sample": [StrOptions(set(OUT_OF_SAMPLE))],
        "eps": [NONNEGATIVE],
        "shift": [Interval(Real, None, None, closed="neither"), None],
        "solver": _LIBSVM_OR_CVXPY,
        "tol": [POSITIVE],
        "max_iter": LIBSVM_MAX_ITER,
        "solver_options": [dict, None],
        "approximation": _APPROXIMATION,
        "correction_scope": [StrOptions(set(CORRECTION_SCOPES))],
        "n_jobs": N_JOBS,
    }

    _parallel_pairs = True

    def __init__(self, *, correction="flip", out_of_sample="auto", C=1.0, kernel="gaussian",
                 kernel_params=None, class_weight=None, eps=0.0, shift=None, solver="auto",
                 tol=1e-3, max_iter=-1, solver_options=None, approximation=None, probability=False,
                 correction_scope="pair", n_jobs=None):
        self.correction = correction
        self.out_of_sample = out_of_sample
        self.C = C
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.eps = eps
        self.shift = shift
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.solver_options = solver_options
        self.approximation = approximation
        self.probability = probability
        self.correction_scope = correction_scope
        self.n_jobs = n_jobs

    def _check_params(self):
        check_correction(self.correction, self.out_of_sample)
        correct_eigenvalues(np.zeros(1), self.correction, **self._gparams())  # validates eps/shift
        self._solver = _check_svm_solver(self)
        if self._approximate():
            if self.out_of_sample == "transductive":
                raise ValueError("out_of_sample='transductive' decomposes the joint train+test "
                                 "kernel; it is not available with an approximation (use "
                                 "'spectral')")
            if self.out_of_sample == "raw" and self.correction not in _RAW_WITH_FEATURES:
                raise ValueError(
                    f"out_of_sample='raw' with an approximation needs the SVM's dual "
                    f"coefficients on every eigendirection, which correction="
                    f"{self.correction!r} zeroes; available for {list(_RAW_WITH_FEATURES)}, "
                    f"else use out_of_sample='spectral'")

    def _gparams(self):
        p = {"eps": self.eps}
        if self.correction == "add_diagonal":
            p["shift"] = self.shift
        return p

    @property
    def _mode(self):
        return check_correction(self.correction, self.out_of_sample)

    def _fit_features(self, rep, y, C):
        """The approximate path: the linear SVM on ``Psi diag(d)``, ``d = sqrt(g/|lam|)``,
        with ``(Psi, lam)`` the eigenfeatures of the representation ``rep``."""
        eig = rep.eigenfeatures()
        Psi, lam = eig.features, eig.eigenvalues
        g = correct_eigenvalues(lam, self.correction, **self._gparams())
        tol = _TOL_FEATURES * float(np.max(np.abs(lam), initial=0.0))
        if g.min(initial=0.0) < -tol:
            raise ValueError(
                f"the corrected kernel is not PSD (least corrected eigenvalue {g.min():.4g}); "
                f"use a larger shift (> {-lam.min():.4g})")
        d = spectral_features(lam, g)
        keep = d > 0
        w, b, sol = linear_svm(Psi[:, keep] * d[keep], y, C, self._solver, self.tol,
                               self.max_iter, self.solver_options)
        coef = np.zeros(lam.size)
        if self.out_of_sample == "raw":
            coef[keep] = np.sign(lam[keep]) * w / d[keep]      # psi(x) S Psi' u
        else:
            coef[keep] = d[keep] * w                            # phi(x) w
        return eig.to_rows(coef), b, {"n_iter": sol.iterations or 0, "solution": sol,
                                      "n_components": int(keep.sum())}

    def _correct(self, K):
        """``(spec, g, Kc)``: the spectrum of ``K``, its corrected eigenvalues and the
        corrected kernel (ValueError when the correction is not PSD)."""
        spec = Spectrum.from_kernel(K, check=False)
        g = spec.corrected_eigenvalues(self.correction, **self._gparams())
        if g.min() < -spec.tol:
            raise ValueError(
                f"the corrected kernel is not PSD (least corrected eigenvalue {g.min():.4g}); "
                f"use a larger shift (> {-spec.min_eigenvalue:.4g})"
            )
        if self.correction in ("shift", "add_diagonal"):
            s = float(g[0] - spec.eigenvalues[0])
            Kc = K + s * np.eye(K.shape[0])
        elif self.correction == "flip":
            Kc = spec.flipped_kernel(K)
        else:
            Kc = spec.reconstruct(np.maximum(g, 0.0))
            Kc = 0.5 * (Kc + Kc.T)
        return spec, g, Kc

    def _fit(self, X, y):
        try:
            return super()._fit(X, y)
        finally:
            self.__dict__.pop("_training_correction", None)

    def _pair_kernel(self, K, y_idx):
        """``correction_scope="training"`` with more than two classes: the training kernel
        corrected once (its spectrum kept for the pairs' out-of-sample maps)."""
        if self.correction_scope != "training" or np.unique(y_idx).size <= 2:
            return K
        spec, g, Kc = self._correct(K)
        self._training_correction = (spec, g)
        return Kc

    def _fit_binary_block(self, Kc, y, idx, C):
        """A pair of ``correction_scope="training"``: the SVM on the block ``Kc[I, I]`` of
        the training correction; the coefficients on the training kernel's rows."""
        spec, g = self._training_correction
        factor = None
        if self._solver != "libsvm":
            # the block of the correction's factor: Kc[I, I] = F[I] F[I]'
            factor = spec.psd_factor(g, rows=idx)
            if self.correction in ("shift", "add_diagonal") and factor.shape[1] < g.size:
                factor = None
        u, b, info = _solve_psd_svm(Kc, y, C, self._solver, self.tol, self.max_iter,
                                    self.solver_options, factor=factor)
        info.update({"pair_idx": idx, "corrected_coef": u})
        if self._mode != "spectral":
            return BinaryModel(idx, u, b, info)
        # (r V diag(h) V')[I] u = r (V diag(h) V[I]' u): coefficients on every training row
        h = row_multipliers(spec.eigenvalues, g, self.correction, spec.tol)
        V = spec.eigenvectors
        coef = V @ (h * (V[idx].T @ u))
        return BinaryModel(np.arange(V.shape[0]), coef, b, info)

    def _fit_binary(self, K, y, idx, C):
        if "_training_correction" in self.__dict__:
            return self._fit_binary_block(K, y, idx, C)
        spec, g, Kc = self._correct(K)
        factor = None
        if self._solver != "libsvm":
            factor = spec.psd_factor(g)
            if self.correction in ("shift", "add_diagonal") and factor.shape[1] < g.size:
                factor = None  # K + s I is full rank: the eigenbasis above misses the null space
        u, b, info = _solve_psd_svm(Kc, y, C, self._solver, self.tol, self.max_iter,
                                    self.solver_options, factor=factor,
                                    eigenvalues=np.maximum(g, 0.0))
        if self._mode == "spectral":
            h = row_multipliers(spec.eigenvalues, g, self.correction, spec.tol)
            V = spec.eigenvectors
            coef = V @ (h * (V.T @ u))
        else:
            coef = u
        info.update({"spectrum": spec, "corrected_coef": u})
        return BinaryModel(idx, coef, b, info)

    def _after_fit(self, K):
        models = self.binary_models_
        n = K.shape[0]
        self.corrected_dual_coef_ = np.zeros((len(models), n))
        for r, m in enumerate(models):
            self.corrected_dual_coef_[r, m.info.get("pair_idx", m.idx)] = m.info["corrected_coef"]
        training = self.__dict__.get("_training_correction")
        self.correction_scope_ = "training" if training is not None else "pair"
        if self._mode == "transductive":
            self.K_fit_ = K
            # the expansion is on the transductive rows, so every point is needed
            self.support_ = np.arange(n)
            self.dual_coef_ = self.corrected_dual_coef_.copy()
            if hasattr(self, "X_fit_"):
                self.support_vectors_ = self.X_fit_
        _spectrum_diagnostics(self, K, models, None if training is None else training[0])

    # -------------------------------------------------------- transductive
    def _test_rows(self, X):
        if self._mode != "transductive":
            return super()._test_rows(X)
        check_is_fitted(self, "binary_models_")
        n = self.K_fit_.shape[0]
        if self._precomputed():
            X = check_array(X, dtype=np.float64)
            m = X.shape[0]
            if X.shape[1] != n + m:
                raise ValueError(
                    f"with out_of_sample='transductive' and a precomputed kernel, pass (m, n + m) "
                    f"rows [K(test, train), K(test, test)] with n = {n}; got shape {X.shape}"
                )
            return X[:, :n], X[:, n:]
        rows, Xv = super()._test_rows(X)
        return rows, self._gram(Xv)

    def _binary_decisions(self, K_rows, extra=None):
        if self._mode != "transductive":
            return super()._binary_decisions(K_rows, extra)
        K_tt = extra
        if self.correction_scope_ == "training":
            # the joint train + test kernel corrected once; each pair reads its columns
            joint = np.block([[self.K_fit_, K_rows.T], [K_rows, K_tt]])
            rows = transductive_rows(joint, self.K_fit_.shape[0], self.correction,
                                     **self._gparams())
            return np.column_stack([rows[:, m.info["pair_idx"]] @ m.info["corrected_coef"]
                                    + m.intercept for m in self.binary_models_])
        out = []
        for m in self.binary_models_:
            Kb = self.K_fit_[np.ix_(m.idx, m.idx)]
            Rb = K_rows[:, m.idx]
            joint = np.block([[Kb, Rb.T], [Rb, K_tt]])
            rows = transductive_rows(joint, m.idx.size, self.correction, **self._gparams())
            out.append(rows @ m.info["corrected_coef"] + m.intercept)
        return np.column_stack(out)


class DirectSVC(KernelClassifierBase):
    """The C-SVM of libsvm directly on the (possibly indefinite) kernel.

    The dual is then non-convex; libsvm's SMO with Lin & Lin's modification
    still terminates, at a stationary point that need not be optimal (Lin & Lin
    2003; Haasdonk 2005 interprets it as a convex-hull separation in a
    pseudo-Euclidean space).  This is the "SVM" baseline of Luss & d'Aspremont.

    Parameters
    ----------
    C : float > 0, default=1.0
        Box bound of the (non-convex) dual.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"`` (``fit`` takes the square ``(n, n)`` Gram matrix,
        ``predict``/``decision_function`` an ``(m, n)`` matrix against the
        training points), a name of :data:`krein.kernels.KERNELS` or a callable
        ``kernel(X, Z, **kernel_params)``.
    kernel_params : dict, optional
        Parameters of a named or callable kernel (e.g. ``{"a": 0.5, "r": -1.0}``
        for the sigmoid).
    class_weight : None, "balanced" or dict {label: weight}
        Per-class box bounds ``C * weight``, exactly as scikit-learn's SVC.
    tol : float > 0
        libsvm stopping tolerance.
    max_iter : int >= 1 or -1
        -1 for no limit.
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation, so that
        ``predict_proba`` / ``predict_log_proba`` exist (as scikit-learn's
        ``SVC(probability=True)``; :class:`krein.estimators.base.ProbabilityMixin`).
    n_jobs : int or None, default=None
        joblib workers (threads: libsvm releases the GIL) over the one-vs-one
        pairs; None: joblib's ``parallel_config`` (one outside it, and inside
        ``krein compare``'s workers); -1: all cores.  Changes the time, never
        the result (:func:`krein.estimators.base.fit_pairs`).

    Attributes
    ----------
    dual_coef_, support_, intercept_, classes_, n_iter_, class_weight_ :
        As scikit-learn's SVC (binary: ``y_i alpha_i`` on the support vectors).

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein import DirectSVC
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = DirectSVC(kernel="sigmoid", kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        "tol": [POSITIVE],
        "max_iter": LIBSVM_MAX_ITER,
        "n_jobs": N_JOBS,
    }

    _parallel_pairs = True

    def __init__(self, *, C=1.0, kernel="gaussian", kernel_params=None, class_weight=None, tol=1e-3,
                 max_iter=-1, probability=False, n_jobs=None):
        self.C = C
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.tol = tol
        self.max_iter = max_iter
        self.probability = probability
        self.n_jobs = n_jobs

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
            Non-negative weights: sample ``i``'s box bound is ``C * class_weight[y_i]
            * sample_weight[i]``, exactly as scikit-learn's ``SVC`` (a weight of 0
            drops the sample); an integer weight ``k`` fits the model of the sample
            repeated ``k`` times (its row and column of the kernel repeated).  With
            ``probability=True`` the weights also weigh Platt's sigmoid.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            As :meth:`KernelClassifierBase.fit`, and for a negative weight or a
            ``sample_weight`` of the wrong length.
        """
        return self._fit_and_diagnose(X, y, sample_weight)

    def _fit_binary(self, K, y, idx, C):
        if np.ndim(C) and np.any(C == 0):   # zero sample weights: the samples are dropped
            keep = np.flatnonzero(C > 0)
            if np.unique(y[keep]).size < 2:
                raise ValueError("sample_weight is zero on every sample of a class: each class "
                                 "needs a sample of positive weight")
            u_keep, b, sol = libsvm_solve(K[np.ix_(keep, keep)], y[keep], C[keep], tol=self.tol,
                                          max_iter=self.max_iter)
            u = np.zeros(y.shape[0])
            u[keep] = u_keep
        else:
            u, b, sol = libsvm_solve(K, y, C, tol=self.tol, max_iter=self.max_iter)
        return BinaryModel(idx, u, b, {"n_iter": sol.iterations, "solution": sol})

