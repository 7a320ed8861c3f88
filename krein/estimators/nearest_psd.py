"""``NearestPSD``: munoz's nearest PSD kernel with a fixed diagonal (§3.3) as a transformer.

Solved by the semismooth Newton method of Qi & Sun (2006) where it applies, else by
Dykstra's alternating projections (Higham 2002).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions

from .._fitting import fit_wrapper
from .._vocabulary import declared
from ..kernels import kernel_scale_measure
from ..formulations.nearest_psd import DIAGONAL_OPTIONS, check_weights, resolve_diagonal
from ..solvers.alternating import ALTERNATING_METHODS, alternating_projections
from ..solvers.libsvm import libsvm_svc
from ..solvers.psd_newton import nearest_psd_newton
from ..solvers.table import SolverName
from ..spectrum import Spectrum, validate_fit_kernel, validate_kernel_rows

__all__ = ["NearestPSD", "NEAREST_PSD_ROW_MAPS", "NEAREST_PSD_SOLVERS", "DIAGONAL_SCALE_FLOOR",
           "check_diagonal_scale"]

#: Least ratio ``mean(c) / kernel_scale(K)`` of a fixed diagonal ``c`` that
#: :class:`NearestPSD` accepts (:func:`check_diagonal_scale`).  Measured with the
#: Newton method, ``W = I`` (sigmoid kernel n = 60 / CoilYork's classical scaling
#: n = 144): ratio 1 takes 7 / 5 iterations, 1e-2 takes 12 / 14, 1e-3 takes 19 / 22,
#: 1e-4 takes 81 / 110; CoilYork with ``diagonal=1.0`` (ratio 4.5e-5) and
#: support-vector weights took 499 iterations and 2293 ``eigh`` of time.
DIAGONAL_SCALE_FLOOR = 1e-3

#: Out-of-sample maps of :class:`NearestPSD` (``out_of_sample``; names of :mod:`krein._vocabulary`).
NEAREST_PSD_ROW_MAPS = declared("out_of_sample", "spectral", "munoz")

#: Values of :class:`NearestPSD`'s ``solver``: ``"auto"``, Qi & Sun's Newton method and
#: the alternating projections (:data:`krein.solvers.alternating.ALTERNATING_METHODS`).
NEAREST_PSD_SOLVERS = declared("solver", "auto", "newton", *ALTERNATING_METHODS)


def check_diagonal_scale(c, K, name="diagonal"):
    """Refuse a fixed diagonal far below the scale of the kernel it is imposed on.

    The nearest PSD matrix with diagonal ``c`` to ``K`` is a well-posed problem
    for every ``c >= 0``, but with ``c`` orders of magnitude below the scale of
    ``K`` (a unit diagonal imposed on a classical-scaling kernel of scale 2e4)
    its solution is ``K`` shrunk towards 0, of no use to an SVM, and the Newton
    method needs tens to hundreds of eigendecompositions instead of a handful
    (:data:`DIAGONAL_SCALE_FLOOR`).  We refuse rather than rescale: a number
    ``c`` has one meaning (``1.0``: the nearest correlation matrix, Higham 2002)
    whatever the kernel, and a silent rescaling would change the answer of a
    well-defined problem; the message says how to ask for the scaled one.  The
    test is homogeneous (``c -> s c``, ``K -> s K`` keeps it), so ``K`` and
    ``s K`` with ``diagonal`` scaled by ``s`` (the registry's exponent 1 of
    ``correction__diagonal``) are accepted or refused together.

    Parameters
    ----------
    c : ndarray of shape (n,) or None
        The resolved fixed diagonal (:func:`krein.formulations.nearest_psd.resolve_diagonal`);
        None (no constraint) passes.
    K : ndarray of shape (n, n)
        The kernel it is imposed on.
    name : str
        Argument name for the message.

    Returns
    -------
    float
        ``kernel_scale(K)`` (:func:`krein.kernels.kernel_scale`).

    Raises
    ------
    ValueError
        When ``mean(c) < DIAGONAL_SCALE_FLOOR * kernel_scale(K)``.
    """
    s, measure = kernel_scale_measure(K)
    if c is not None and float(np.mean(c)) < DIAGONAL_SCALE_FLOOR * s:
        raise ValueError(
            f"{name}: a fixed diagonal of mean {float(np.mean(c)):.3g} is below "
            f"{DIAGONAL_SCALE_FLOOR:g} x the scale of K (kernel_scale(K) = {measure} = {s:.3g}): "
            f"the nearest PSD matrix with it is K shrunk towards 0 and takes many more "
            f"iterations; use {name}='scale' (c = kernel_scale(K) = {s:.3g}), 'keep', or divide "
            f"K by kernel_scale(K) first")
    return s


class NearestPSD(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Nearest PSD kernel with a fixed diagonal, munoz §3.3 eqs. (9)-(12).

    ``fit_transform(K)`` returns the solution ``X`` of munoz (9),
    ``min ||K - X||_W  s.t.  X PSD, diag(X) = c``, computed by default by the
    semismooth Newton method of Qi & Sun (2006)
    (:func:`krein.solvers.psd_newton.nearest_psd_newton`) for ``W = I`` or a
    diagonal ``W``, and by Dykstra's alternating projections
    (:func:`krein.solvers.alternating.alternating_projections`) for a general
    SPD ``W`` (the solvers' docstrings document the algorithms, the stopping
    rules and the returned matrix); ``transform(K_rows)`` maps ``(m, n)``
    kernel rows of new points.
    So ``make_pipeline(NearestPSD(), SVC(kernel="precomputed"))`` works in
    ``cross_val_score`` on a precomputed kernel.

    The defaults are those of the registered method ``nearest-psd`` (what ``krein
    compare`` runs), except ``weights``: the registered method weights by the
    support vectors of an MDS fit, which needs labels, and this transformer also
    fits without them (``tests/test_registry_rules.py`` lists the difference).

    Its output columns are the training objects (``get_feature_names_out``: the
    columns' names of a fitted DataFrame kernel, else ``x0``, ``x1``, ...), so
    ``set_output(transform="pandas")`` returns the kernel rows as DataFrames.

    Parameters
    ----------
    diagonal : None, "scale", "keep", float or array of shape (n,)
        The fixed diagonal ``c``.  ``"scale"`` (default): ``c = kernel_scale(K)``
        everywhere (:func:`krein.kernels.kernel_scale`, mean ``|K_ii|``), munoz's
        ionosphere setting ("the diagonal elements of the output matrix were fix
        to be 1") for the kernel divided by its scale: positive on any kernel
        (a sigmoid kernel's own diagonal can be negative) and ``s c`` on ``s K``.
        ``"keep"``: ``c = diag(K)``, the input's self-similarities (for a
        normalized kernel the same as ``"scale"``); a number: ``c = diagonal``
        everywhere (``1.0``: the nearest
        correlation matrix of Higham 2002); an array: the values themselves
        (fits one training set only).  ``None``: no diagonal constraint; the
        result is then the ``W``-weighted clip ``P_S(K)`` of munoz eq. (11) (for
        ``W = I`` the clip/MDS kernel, munoz eq. 1 with ``eps = 0``), computed
        in one step.  ``"keep"`` is refused for a kernel with a negative
        diagonal entry (e.g. a sigmoid kernel ``tanh(a <x, x> + r)`` with
        ``r < 0``): no PSD matrix has one.
    weights : None, "support-vectors", array of shape (n,) or (n, n)
        ``W`` of the norm ``||A||_W = ||W^(1/2) A W^(1/2)||_F``; a larger weight
        keeps an entry *closer* to its input value (the squared error of entry
        ``(i, j)`` is weighted by ``w_i w_j`` for ``W = Diag(w)``).

        * ``None``: ``W = I`` (Frobenius norm).
        * ``"support-vectors"``: munoz §4, "The support vectors obtained with the
          MDS method were used to define the weighting matrices needed in the
          Bending and AP methods"; the paper gives no formula.  Our reading: an
          ``SVC(kernel="precomputed", C=C)`` is fitted on the clip/MDS kernel
          (munoz eq. 1, ``eps = 0``) and ``y``; ``W = Diag(w)`` with
          ``w_i = sv_weight`` for its support vectors and 1 otherwise, so the
          entries the decision function rests on move less.  Requires ``y``.
        * a vector of positive weights (``W = Diag(weights)``, munoz: "we suggest
          to use a diagonal matrix W") or a symmetric positive definite matrix
          (Higham 2002's ``W``-norm).  Arrays fit one training set only (their
          size is ``n``); inside a cross-validated pipeline use ``None`` or
          ``"support-vectors"``.
    solver : {"auto", "newton", "dykstra", "plain", "anderson"}
        The algorithm (:data:`NEAREST_PSD_SOLVERS`).  ``"auto"`` (default):
        ``"newton"`` for ``W = I`` or a diagonal ``W`` (``weights`` ``None``, a
        vector or ``"support-vectors"``), ``"dykstra"`` for a general SPD ``W``
        (``solution_.solver`` names the one used).
        ``"newton"``: the dual semismooth Newton-CG method of Qi & Sun (2006,
        Algorithm 5.1), quadratically convergent, a handful of
        eigendecompositions (measured in ``benchmarks/README.md``); diagonal
        ``W`` only (a general ``W`` raises ``ValueError``).
        ``"dykstra"``: Dykstra-corrected alternating projections (Higham 2002,
        Algorithm 3.3), which converge to the solution of (9) at a linear
        rate, for any SPD ``W``; a cross-check of the Newton method.
        ``"plain"``: munoz eq. (10), ``A <- P_U(P_S(A))``, which converges to
        *a* PSD matrix with diagonal ``c`` but in general not the nearest one
        (von Neumann's theorem needs subspaces; the PSD matrices are a cone):
        kept to reproduce munoz.
        ``"anderson"``: Dykstra's iteration with Anderson acceleration (depth 5,
        Higham & Strabic 2016): the same limit in fewer iterations than
        ``"dykstra"``, without a convergence theorem (the certificate in
        ``solution_`` tells).  Every solver but ``"plain"`` solves the problem
        munoz state.
    tol : float in (0, 1)
        Stopping tolerance.  ``"newton"``: relative norm of the dual gradient
        (the diagonal of the dual's primal point within ``tol`` of ``c``); the
        quadratic rate usually takes the last step far below it.  Alternating
        projections: Higham's criterion (relative changes of both iterates
        and their relative distance); their number of iterations grows
        roughly like ``n`` on kernels whose solution has low rank, and
        ``1e-4`` usually gives a kernel indistinguishable for an SVM in far
        fewer iterations.  The returned matrix is feasible at any ``tol``.
    max_iter : int >= 1
        Maximum number of iterations (``ConvergenceWarning`` when reached).
    out_of_sample : {"munoz", "spectral"}
        Map of new kernel rows ``k(x, X)`` (shape ``(m, n)``):

        * ``"spectral"``: ``k(x, X) M`` with ``M = K^+ X`` (the
          pseudo-inverse from the eigendecomposition of ``K``, eigenvalues with
          ``|lam| <= cutoff`` dropped, see ``rcond``): the minimum-norm linear map
          of kernel rows that sends the training rows to the fitted kernel.  For
          a spectral correction ``X = V g(Lam) V'`` it is ``V diag(g/lam) V'``,
          i.e. munoz eq. (3) for clip/MDS and the ``"spectral"`` map of
          :class:`krein.spectrum.SpectrumCorrection`.  On the training rows it
          gives ``K K^+ X``, which is ``X`` exactly when ``K`` has no eigenvalue
          within the cutoff (more generally when ``range(X)`` lies in the span of
          the kept eigenvectors), else the projection of ``X`` onto that span.
          Unlike a spectral correction, ``X`` is not a function of ``K``, so
          ``M`` multiplies a new row's component along an eigenvector of ``K``
          by up to ``1 / |lam|``: on kernels with small eigenvalues (classical
          scaling of many-class data) new rows are mapped far from the training
          rows, and test accuracy can fall to chance (measured in
          experiments/README.md, Chen et al. benchmark).
        * ``"munoz"`` (default, as the registry's ``nearest-psd``): munoz §3.3's
          rule for new points, "calculate ``P_S(K(x, .))`` as in the MDS method
          in (11), and ... ``P_U``", read as the MDS map (eq. 3) in the weighted coordinates,
          ``k(x, X) W^(1/2) U_+ U_+' W^(-1/2)`` with ``U_+`` the eigenvectors of
          ``W^(1/2) K W^(1/2)`` with positive eigenvalues (a new point's own
          weight cancels for a diagonal ``W``, and ``P_U`` only sets ``k*(x, x)``,
          which is not part of the ``(m, n)`` rows).  On the training rows this
          gives ``P_S(K)``, the *first* projection, not the fitted ``X``: it
          does not reproduce the training block unless ``diagonal=None``.
    rcond : float in (0, 1), optional
        Relative cutoff of the ``"spectral"`` pseudo-inverse: eigenvalues
        with ``|lam| <= rcond * max |lam|`` are dropped.  Default: the null
        tolerance of :class:`krein.spectrum.Spectrum` (``n * machine_eps * max |lam|``).
        A larger value damps the amplification ``1 / |lam|`` of rows that are not
        in the span of the training rows, at the price of reproducing the
        training block only approximately.
    sv_weight : float > 0
        Weight ``w_i`` of a support vector with ``weights="support-vectors"``
        (> 1: support-vector entries are kept closer to ``K``).
    C : float > 0
        ``C`` of the SVC with ``weights="support-vectors"``.
    verbose : bool
        Print the progress of the iteration.

    Attributes
    ----------
    kernel_ : ndarray of shape (n, n)
        The corrected training kernel ``X`` (PSD, diagonal ``c``).
    diagonal_ : ndarray of shape (n,) or None
        The fixed diagonal ``c`` used.
    weights_ : ndarray of shape (n,) or (n, n) or None
        ``diag(W)`` (vector weights) or ``W`` (matrix weights); None for ``W = I``.
    support_ : ndarray of int or None
        Support vectors of the SVC with ``weights="support-vectors"``.
    row_map_ : ndarray of shape (n, n)
        ``M`` with ``transform(K_rows) = K_rows @ M``.
    distance_ : float
        ``||K - X||_W``.
    n_iter_ : int
        Number of iterations: Newton steps (0 when the start is optimal, e.g. a
        PSD kernel with ``diagonal="keep"``) or eigendecompositions of the
        alternating projections.
    trace_ : pandas.DataFrame
        Per iteration; columns of the solver used: Newton
        (:data:`krein.solvers.psd_newton.NEWTON_TRACE_COLUMNS`: ``iter, objective,
        dual_value, relative_gap, gradient, step, cg_iterations, n_positive,
        eigh, seconds``) or alternating projections (``iter, objective
        (||K - X_k||_W), change_X, change_Y, gap_XY, criterion, n_negative,
        seconds``).
    solution_ : krein.solvers.Solution
        With the optimality certificate of ``X``
        (:func:`krein.formulations.nearest_psd.nearest_psd_certificate`; for
        the Newton method also the duality gap of its dual);
        ``solution_.solver`` names the algorithm used.
    spectrum_ : krein.spectrum.Spectrum
        Decomposition of the input kernel (``r_mm``, ``r_neg`` of munoz eq. 2).
    min_eigenvalue_ : float
        Least eigenvalue of the input kernel.
    kernel_scale_ : float
        ``kernel_scale(K)`` of the training kernel (:func:`krein.kernels.kernel_scale`),
        the unit a fixed diagonal is checked against (:func:`check_diagonal_scale`).
    n_features_in_ : int
        Number of training points ``n``.

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        In ``fit`` (a ``ValueError``): a parameter outside the values above.
    ValueError
        In ``fit``: a bad ``K`` (sparse: ``TypeError``), ``diagonal`` or
        ``weights`` of the wrong size or sign, ``diagonal="keep"`` on a kernel
        with a negative diagonal entry, ``weights="support-vectors"`` without
        ``y`` of two classes, a fixed diagonal below
        :data:`DIAGONAL_SCALE_FLOOR` times ``kernel_scale(K)``
        (:func:`check_diagonal_scale`).

    Notes
    -----
    A new point's own value ``k*(x, x)`` would be ``c(x)`` (munoz: "only the
    values of c for the new point are needed"); it is not part of the
    ``(m, n)`` rows an SVM needs.

    References
    ----------
    A. Munoz and I. Martin de Diego (2006), §3.3 eqs. (9)-(12), §4.
    N. J. Higham (2002), IMA J. Numer. Anal. 22, 329-343, Algorithm 3.3.
    H. Qi and D. Sun (2006), "A quadratically convergent Newton method for
    computing the nearest correlation matrix", SIAM J. Matrix Anal. Appl. 28,
    360-385, Algorithm 5.1.

    Examples
    --------
    The sigmoid kernel matrix of two Gaussian blobs is indefinite; the corrected one is positive
    semi-definite:

    >>> import numpy as np
    >>> from sklearn.datasets import make_blobs
    >>> from krein import NearestPSD
    >>> from krein.kernels import sigmoid_kernel
    >>> X, _ = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> K = sigmoid_kernel(X, X, a=0.05, r=-0.5)
    >>> bool(np.linalg.eigvalsh(K).min() < 0)
    True
    >>> K_psd = NearestPSD().fit_transform(K)
    >>> bool(np.linalg.eigvalsh(K_psd).min() >= -1e-8 * np.abs(K_psd).max())
    True
    """

    _parameter_constraints: dict = {
        "diagonal": [None, StrOptions(set(DIAGONAL_OPTIONS)),
                     Interval(numbers.Real, 0, None, closed="left"), "array-like"],
        "weights": [None, StrOptions({"support-vectors"}), "array-like"],
        "solver": [SolverName(NEAREST_PSD_SOLVERS, cvxpy=False)],
        "tol": [Interval(numbers.Real, 0, 1, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "out_of_sample": [StrOptions(set(NEAREST_PSD_ROW_MAPS))],
        "rcond": [None, Interval(numbers.Real, 0, 1, closed="neither")],
        "sv_weight": [Interval(numbers.Real, 0, None, closed="neither")],
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "verbose": ["verbose"],
    }

    def __init__(self, *, diagonal="scale", weights=None, solver="auto", tol=1e-6, max_iter=1000,
                 out_of_sample="munoz", rcond=None, sv_weight=10.0, C=1.0, verbose=False):
        self.diagonal = diagonal
        self.weights = weights
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.out_of_sample = out_of_sample
        self.rcond = rcond
        self.sv_weight = sv_weight
        self.C = C
        self.verbose = verbose

    def _weights(self, K, y, spec):
        n = K.shape[0]
        if isinstance(self.weights, str):  # "support-vectors" (_parameter_constraints)
            if y is None:
                raise ValueError("weights='support-vectors' needs the labels y in fit(K, y) "
                                 "(munoz §4: support vectors of an SVC on the MDS kernel)")
            y = np.asarray(y)
            if y.shape != (n,):
                raise ValueError(f"y must have shape ({n},); got {y.shape}")
            if np.unique(y).size < 2:
                raise ValueError("weights='support-vectors' needs y with at least 2 classes")
            K_mds = spec.corrected_kernel("clip")
            svc = libsvm_svc(K_mds, y, self.C)
            support = np.sort(svc.support_)
            w = np.ones(n)
            w[support] = float(self.sv_weight)
            return check_weights(w, n), support
        return check_weights(self.weights, n), None

    # ------------------------------------------------------------ fit
    @fit_wrapper
    def fit(self, K, y=None):
        """Compute the nearest PSD kernel with a fixed diagonal.

        Parameters
        ----------
        K : array of shape (n, n)
            Symmetric training kernel (symmetrized within tolerance).
        y : array of shape (n,), optional
            Labels; required with ``weights="support-vectors"``, else ignored.

        Returns
        -------
        self : NearestPSD
            The fitted transformer (``kernel_``, ``row_map_`` set).

        Raises
        ------
        ValueError
            Bad ``K`` (not square, asymmetric, NaN/inf), bad parameters,
            ``diagonal``/``weights`` of the wrong size, ``diagonal="keep"`` on a
            kernel with a negative diagonal entry, missing ``y`` for
            support-vector weights.

        Warns
        -----
        ConvergenceWarning
            When ``max_iter`` is reached before ``tol``.
        """
        K = validate_fit_kernel(self, K)
        c = resolve_diagonal(self.diagonal, K)
        k_scale = check_diagonal_scale(c, K)
        spec = Spectrum.from_kernel(K, check=False)
        norm, support = self._weights(K, y, spec)
        solver = self.solver
        if solver == "auto":
            solver = "dykstra" if norm.kind == "matrix" else "newton"
        if solver == "newton":
            # the spectrum of K is the first Newton iterate's when that iterate is K
            sol = nearest_psd_newton(K, c, norm, tol=float(self.tol), max_iter=int(self.max_iter),
                                     verbose=bool(self.verbose), check_input=False,
                                     spectrum=(spec.eigenvalues, spec.eigenvectors))
        else:
            sol = alternating_projections(K, c, norm, solver=solver, tol=float(self.tol),
                                          max_iter=int(self.max_iter), verbose=bool(self.verbose),
                                          check_input=False)
        X = sol.primal["X"]
        self.row_map_ = self._row_map(K, X, spec, norm)
        self.kernel_ = X
        self.diagonal_ = c
        self.kernel_scale_ = k_scale
        self.weights_ = (None if norm.kind == "identity"
                         else norm.w.copy() if norm.kind == "diagonal" else norm.W.copy())
        self.support_ = support
        self.distance_ = float(sol.objective)
        self.n_iter_ = int(sol.iterations)
        self.trace_ = sol.trace
        self.solution_ = sol
        self.spectrum_ = spec
        self.min_eigenvalue_ = spec.min_eigenvalue
        return self

    def _row_map(self, K, X, spec, norm):
        lam, V = spec.eigenvalues, spec.eigenvectors
        if self.out_of_sample == "spectral":
            cut = spec.tol if self.rcond is None else float(self.rcond) * float(np.max(np.abs(lam)))
            keep = np.abs(lam) > cut
            Vk = V[:, keep]
            return (Vk / lam[keep]) @ (Vk.T @ X)
        # "munoz": MDS map (eq. 3) in the weighted coordinates
        if norm.kind == "identity":
            mu, U = lam, V
        else:
            Kt = norm.to_scaled(K)
            mu, U = np.linalg.eigh(0.5 * (Kt + Kt.T))
        tol = float(mu.size * np.finfo(float).eps * np.max(np.abs(mu)))
        Up = U[:, mu > tol]
        P = Up @ Up.T
        if norm.kind == "identity":
            return P
        if norm.kind == "diagonal":
            return P * np.outer(norm.sqrt, norm.inv_sqrt)
        return norm.sqrt @ P @ norm.inv_sqrt

    def fit_transform(self, K, y=None):
        """Fit and return the corrected training kernel ``X``.

        Parameters
        ----------
        K : array of shape (n, n)
            Symmetric training kernel (symmetrized within tolerance).
        y : array of shape (n,), optional
            Labels; required with ``weights="support-vectors"``, else ignored.

        Returns
        -------
        ndarray of shape (n, n)
            A copy of ``kernel_``, the solution ``X`` of munoz (9).
        """
        return self.fit(K, y).kernel_.copy()

    def transform(self, K_rows):
        """Map kernel rows between new points and the training points.

        Parameters
        ----------
        K_rows : array of shape (m, n)
            Kernel values between new points and the training points.

        Returns
        -------
        ndarray of shape (m, n)
            ``K_rows @ row_map_`` (see ``out_of_sample``).

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
