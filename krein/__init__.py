"""krein: learning with indefinite kernels.

Estimators (scikit-learn compatible):

* :class:`ESVC` — SVM in a Krein space by eigendecomposition (ESVM, ESVM-L) or by
  LDL' (TrIK-SVM, ``decomposition="ldl"``).
* :class:`ESVR` — the Krein SVR (epsilon-SVR stabilized in a Krein space, eigh or LDL').
* :class:`SpectrumSVC` — SVM on a clipped/flipped/shifted/... kernel.
* :class:`DirectSVC` — libsvm directly on the indefinite kernel.
* :class:`LPSVC` — 1-norm LP-SVM.
* :class:`IndefiniteSVC`, :class:`IndefiniteSVR`, :class:`IndefiniteOneClassSVM` —
  IndefiniteSVM with a learned proxy kernel (Luss & d'Aspremont 2009).
* :class:`PerturbSVC` — PerturbSVM for PSD kernels (Luss & d'Aspremont 2009, eq. 22).
* :class:`KSVC` — KSVM, the Krein-space SVM by an active-set method (Loosli et al. 2013, Alg. 2).
* :class:`ConvexHullClassifier` — Haasdonk's convex-hull classifier (CH-DU) in
  pseudo-Euclidean space, convex (CVXPY) or local (nu-SVM, multi-start) solvers.
* :class:`ModSVC` — Lin & Lin's convexified SVM (Luss & d'Aspremont 2009, §5.1).
* :class:`RVC` — Tipping's relevance vector classifier (fast marginal-likelihood updates).
* :class:`DCSVC` — IKSVM-DC, the primal squared-hinge SVM by DCA (Xu et al. 2017).
* :class:`CorrectedKernelSVC` — libsvm after any kernel-correction transformer:
  :class:`Bending`, :class:`NearestPSD`, :class:`ConformalTransformation`,
  :class:`ConformalLinearCombination` (Munoz & de Diego 2006), :class:`SpectrumCorrection`.

Embedding: :class:`PseudoEuclideanPCA`, indefinite kernel PCA (the signed coordinates of
the pseudo-Euclidean embedding, with out-of-sample rows; a Pipeline step before any vector
classifier), and :class:`PseudoEuclideanKNeighbors`, k-NN in it (DisTools ``pe_knnc``).

Large data: :class:`IndefiniteNystroem`, signed low-rank features of an indefinite
kernel from landmarks (never an ``n x n`` array; Oglic & Gärtner 2019).

Tools: :class:`Spectrum` and :class:`SpectrumCorrection` (spectrum corrections),
:mod:`krein.kernels`, :mod:`krein.geometry`, :mod:`krein.formulations` with
:func:`solve`, :mod:`krein.datasets`, and the method registry
(:func:`make_method`, :func:`list_methods`).

Your own data: :func:`load_kernel_file` (a kernel or dissimilarity matrix in
``.npy``, ``.npz``, ``.csv``, text or MATLAB ``.mat``, with a labels file) and
:func:`load_feature_file` (a CSV, text or LIBSVM/svmlight feature file) return
the same :class:`krein.kernel_data.KernelData` as the bundled data sets.

Parameter vocabulary
--------------------
One name per idea across every estimator (an estimator takes the names that apply
to it; each is validated when ``fit`` runs, by the estimator's
``_parameter_constraints`` table, with a ``ValueError`` naming the parameter and
the accepted values):

``kernel``
    ``"precomputed"`` (``fit`` takes the square ``(n, n)`` Gram matrix,
    ``predict``/``decision_function`` an ``(m, n)`` matrix against the training
    points), a name of :data:`krein.kernels.KERNELS` ("gaussian", "sigmoid", ...)
    or a callable ``kernel(X, Z, **kernel_params)``.
``kernel_params``
    None or a dict of the named/callable kernel's parameters (e.g.
    ``{"a": 0.5, "r": -1.0}`` for the sigmoid).
``C``
    Float > 0: the box bound of the dual variables / weight of the slacks.
``class_weight``
    None, ``"balanced"`` or ``{label: weight}``: per-class bounds
    ``C_i = C * weight[y_i]`` as scikit-learn's SVC; ``"balanced"`` is
    ``n_samples / (n_classes * bincount(y))``.  Every classifier with a box bound
    ``C`` takes it (the fitted weights are ``class_weight_``; in LPSVC they scale
    the slacks, in KSVC they bound alpha in problem (26)); RVC and
    ConvexHullClassifier have no ``C``, hence no ``class_weight``.
``rho``
    Float > 0: the penalty ``rho ||K - K0||_F^2`` of the learned proxy kernel
    (IndefiniteSVM, PerturbSVM); large ``rho`` stays close to ``K0``.
``solver``
    Who solves the problem, case-insensitive: ``"libsvm"`` (scikit-learn's SVC),
    the name of any installed CVXPY solver (``krein.installed_solvers()``;
    ``pip install 'krein[solvers]'`` adds more), or the estimator's own algorithm:
    ``"pg"``, ``"apg"``, ``"accpm"``, ``"exchange"`` (IndefiniteSVM, PerturbSVM),
    ``"active-set"`` (KSVC), ``"auto"``, ``"nu-svm"``, ``"multistart"``
    (ConvexHullClassifier); with an ``approximation`` also ``"liblinear"`` (ESVC,
    SpectrumSVC).  Each estimator's docstring lists its values and its default.
``solver_options``
    None or a dict passed to the solver (CVXPY keywords, or the custom
    algorithm's options; unknown keys of a custom algorithm are an error).
``correction``
    The spectrum correction of :class:`SpectrumSVC` (``"clip"``, ``"flip"``,
    ``"shift"``, ``"mds"``, ``"pseudo"``, ``"add_diagonal"``, ``"square"``), or
    the kernel-correction transformer of :class:`CorrectedKernelSVC`.
``out_of_sample``
    How kernel rows of new points are mapped before the expansion is applied:
    ``"auto"``, ``"spectral"``, ``"raw"``, ``"transductive"`` (SpectrumSVC);
    ``"spectral"``, ``"transductive"``, ``"clip"``, ``"raw"`` (IndefiniteSVC/SVR/
    one-class).
``approximation``
    None (the exact path on the ``n x n`` kernel) or a low-rank front end such as
    :class:`IndefiniteNystroem`, cloned and given the estimator's ``kernel`` and
    ``kernel_params``: the model is then fitted on its signed features, or on the
    kernel columns to its landmarks (the reduced-set forms), never on an ``n x n``
    array (:mod:`krein.estimators.approximate`; ``krein methods --large-data`` lists
    each method's path).
``tol``, ``max_iter``
    Stopping tolerance and iteration limit, as in scikit-learn (``max_iter=-1``:
    no limit for libsvm); a ``ConvergenceWarning`` when ``max_iter`` is hit.
``random_state``
    None, an int or a ``RandomState`` (random starts, e.g. ConvexHullClassifier).
``verbose``
    Bool: print progress (RVC; a progress bar over the kernel's row blocks in
    IndefiniteNystroem).

BLAS threads: every ``fit`` on at most 300 rows, and every solver loop on at most
2000 (an active set, a projected gradient, a Newton-CG), runs with one BLAS thread
(threaded BLAS only spins on such work), a large factorization with the libraries'
threads; ``with krein.blas_threads("default"):`` (or ``k`` threads at most, or ``"auto"``)
sets the policy for a block, ``$KREIN_BLAS_THREADS`` for the process.
"""

from ._threads import blas_threads
from .approximation import IndefiniteNystroem
from .estimators import (ESVC, KSVC, LPSVC, RVC, Bending, ConformalLinearCombination,
                         ConformalTransformation, ConvexHullClassifier, CorrectedKernelSVC, DCSVC,
                         DirectSVC, ESVR, IndefiniteOneClassSVM, IndefiniteSVC, IndefiniteSVR,
                         ModSVC, NearestPSD, PerturbSVC, PseudoEuclideanKNeighbors,
                         PseudoEuclideanPCA, SpectrumSVC)
from .estimators.rkks import KreinLeastSquaresClassifier, KreinLeastSquaresRegressor
from .kernel_data import load_feature_file, load_kernel_file
from .registry import list_methods, make_method, register_method
from .solvers import Solution, SolverError, installed_solvers, solve
from .spectrum import Spectrum, SpectrumCorrection

__version__ = "0.1.0"

__all__ = [
    "ESVC",
    "ESVR",
    "SpectrumSVC",
    "DirectSVC",
    "LPSVC",
    "IndefiniteSVC",
    "IndefiniteSVR",
    "IndefiniteOneClassSVM",
    "PerturbSVC",
    "KSVC",
    "ConvexHullClassifier",
    "ModSVC",
    "RVC",
    "CorrectedKernelSVC",
    "Bending",
    "ConformalTransformation",
    "ConformalLinearCombination",
    "NearestPSD",
    "PseudoEuclideanPCA",
    "PseudoEuclideanKNeighbors",
    "DCSVC",
    "KreinLeastSquaresClassifier",
    "KreinLeastSquaresRegressor",
    "IndefiniteNystroem",
    "Spectrum",
    "SpectrumCorrection",
    "solve",
    "Solution",
    "SolverError",
    "installed_solvers",
    "make_method",
    "list_methods",
    "register_method",
    "load_kernel_file",
    "load_feature_file",
    "blas_threads",
]
