"""The parameter vocabulary, declared once: one name per idea, one meaning per value.

Every estimator, formulation, solver and client of krein spells a shared idea with
the name declared here (docs/design.md, "Parameter vocabulary"), and where the values of
a parameter are names, each name is declared here with its one meaning.  A module
that accepts a subset (``SpectrumCorrection`` takes every ``correction``,
``Bending`` four of them) builds its constant with :func:`declared`, so a value
that is not declared fails at import; ``tests/test_vocabulary.py`` walks every
estimator, formulation and solver signature and fails on a shared name with a
private value, or on a synonym of a declared name (:data:`SYNONYMS`).

This is the ground floor (docs/design.md, "Layout"): it imports nothing from krein.

References for the meanings: munoz = Munoz & de Diego (2006); loosli = Loosli,
Ong & Canu (2013); luss = Luss & d'Aspremont (2009); haasdonk = Haasdonk (2005).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["Term", "VOCABULARY", "SYNONYMS", "ALGORITHM_SYNONYMS", "declared", "meaning"]


@dataclass(frozen=True)
class Term:
    """One shared parameter name: its meaning and, where its values are names, each value's.

    Parameters
    ----------
    name : str
        The one spelling of the idea.
    meaning : str
        What the parameter means wherever it appears.
    values : dict of str to str
        The declared value names and the one meaning of each (empty when the
        values are numbers, arrays or objects only).
    catalogue : tuple of str
        Dotted names of the catalogues that declare further value names with
        their meanings (e.g. ``"krein.kernels.KERNELS"``; ``"cvxpy"``: the solver
        names CVXPY knows).
    synonyms : tuple of str
        Names that must not be used for this idea anywhere in a public signature.
    algorithm_synonyms : tuple of str
        Names that must not be used for this idea in the algorithm layers
        (estimators, formulations, solvers), where they could only mean it; a
        client layer may use them for another idea (``method``: a registry method).
    """

    name: str
    meaning: str
    values: dict = field(default_factory=dict)
    catalogue: tuple = ()
    synonyms: tuple = ()
    algorithm_synonyms: tuple = ()


_TERMS = (
    Term("kernel",
         "The kernel: 'precomputed' (fit takes the (n, n) Gram matrix, predict the (m, n) rows "
         "against the training points), a name of the kernel catalogue, or a callable "
         "k(X, Z, **kernel_params).",
         {"precomputed": "the input is the kernel matrix itself (square in fit, (m, n) rows after)"},
         catalogue=("krein.kernels.KERNELS", "krein.kernel_data.DISSIMILARITY_KERNELS",
                    "krein.kernel_data.PICK_OUT_KERNELS")),
    Term("kernel_params",
         "None or a dict of the parameters of the named or callable kernel.",
         synonyms=("kernel_args", "kernel_kwargs")),
    Term("C", "Float > 0: the box bound of the dual variables (the weight of the slacks)."),
    Term("class_weight",
         "None, 'balanced' or {label: weight}: per-class box bounds C_i = C * weight[y_i], as "
         "scikit-learn's SVC.",
         {"balanced": "weight = n_samples / (n_classes * bincount(y)) (scikit-learn's rule)"},
         synonyms=("class_weights",)),
    Term("rho",
         "Float > 0: the penalty rho ||K - K0||_F^2 of a learned proxy kernel (luss eq. 7, 22); "
         "None where an estimator sets it from the data (its docstring states the rule)."),
    Term("solver",
         "Who solves the problem: 'libsvm', 'liblinear', the name of an installed CVXPY solver, "
         "or the method's own algorithm.",
         {"libsvm": "scikit-learn's SVC (libsvm's SMO) on the kernel the method trains on",
          "liblinear": "scikit-learn's liblinear on the features of an approximation",
          "ipm": "a primal-dual interior-point method for the linear SVM on the features of "
                 "an approximation (Ferris & Munson 2002)",
          "auto": "the estimator picks one of its algorithms by the rule its docstring states",
          "pg": "projected gradient on the IndefiniteSVM dual (luss Algorithm 1)",
          "apg": "accelerated projected gradient (FISTA) on the IndefiniteSVM dual",
          "accpm": "analytic center cutting plane method (luss Algorithm 2)",
          "exchange": "the exchange (SIQCLP) method (luss Algorithm 3; Chen & Ye)",
          "active-set": "KSVM's active-set method on problem (26) (loosli Algorithm 2)",
          "interior-point": "KSVM's primal-dual interior point on the low-rank factor of an "
                            "approximation (Sherman-Morrison-Woodbury steps)",
          "nu-svm": "the convex-hull dual through libsvm's nu-SVM (haasdonk Prop. 3)",
          "multistart": "a local solver of the convex-hull dual from several starts (haasdonk)",
          "newton": "the semismooth Newton method of Qi & Sun (2006) for the nearest PSD kernel",
          "dykstra": "alternating projections with Dykstra's correction (Higham 2002)",
          "plain": "plain alternating projections, munoz eq. (10) (a point, not the nearest)",
          "anderson": "Dykstra's iteration with Anderson acceleration (Higham & Strabic 2016)",
          "search": "munoz's fixed-step coordinate search on the conformal objective (13)",
          "lbfgs": "L-BFGS-B with the analytic gradient on the conformal objective (13)",
          "optimize": "the better of 'lbfgs' from the start and from the end point of 'search'",
          "dca": "DCA with an Armijo step on IKSVM-DC's squared-hinge primal (Xu et al. 2017)"},
         catalogue=("cvxpy",),
         algorithm_synonyms=("algorithm", "method")),
    Term("solver_options",
         "None or a dict passed to the solver (CVXPY keywords, or the algorithm's own options).",
         synonyms=("solver_opts",)),
    Term("correction",
         "The spectrum correction g applied to the eigenvalues lam of the kernel, "
         "K_c = V diag(g(lam)) V' (munoz §2-3; loosli §6.1.1), or a kernel-correction "
         "transformer where the estimator takes one (CorrectedKernelSVC).  Bending applies g at "
         "every step with its floor eps >= 0 (eps = 0: the g below).",
         {"clip": "g = max(lam, 0): negative eigenvalues set to 0 (loosli 'Trunc'; munoz eq. 1)",
          "mds": "g = lam where lam > eps, else 0 (munoz eq. 1)",
          "flip": "g = |lam|: negative eigenvalues reflected (loosli 'Abs'; munoz eq. 4)",
          "pseudo": "g = |lam| where |lam| >= eps, else 0 (munoz eq. 4)",
          "shift": "g = lam + s with the smallest s >= 0 making g >= 0 (loosli 'Shift'; munoz eq. 6)",
          "add_diagonal": "g = lam + shift, the constant given (default the smallest making g >= 0; "
                          "munoz eq. 6)",
          "square": "g = lam**2, i.e. K_c = K K' (munoz eq. 7)"},
         synonyms=("g",)),
    Term("correction_scope",
         "Which kernel a multiclass (one-vs-one) fit corrects: the pair's principal submatrix "
         "K[I, I], or the whole training kernel once, each pair then training on the principal "
         "submatrix Kc[I, I] of the correction (PSD, as every principal submatrix of a PSD "
         "matrix; not the same matrix: clip(K)[I, I] != clip(K[I, I])).  Two classes: one pair "
         "is the whole kernel, the two agree.",
         {"pair": "each one-vs-one problem corrects its own block K[I, I] (one eigendecomposition "
                  "per pair; the papers' per-problem correction)",
          "training": "the training kernel is corrected once; each pair trains on the block "
                      "Kc[I, I] of the correction and maps new rows by the training "
                      "correction's out-of-sample map (one eigendecomposition per fit)"},
         synonyms=("multiclass_correction",)),
    Term("n_jobs",
         "None or an int: joblib workers over independent sub-problems (the one-vs-one pairs); "
         "None: joblib's active parallel_config, one outside one (scikit-learn's meaning); "
         "-1: all cores.  Changes the time, never the result.",
         synonyms=("n_workers", "workers", "n_threads")),
    Term("out_of_sample",
         "How the kernel rows r = k(x, X) of new points are mapped before the model is applied.",
         {"auto": "'raw' for the corrections 'shift' and 'add_diagonal', 'spectral' otherwise",
          "spectral": "r A^+ A_c: the minimum-norm linear map sending the rows of the matrix A "
                      "that is corrected to those of its correction A_c; for a spectrum "
                      "correction A^+ A_c = V diag(g(lam) / lam) V' (munoz eqs. 3, 5, 7), applied "
                      "at every step of bending, to the proxy kernel X(u) of IndefiniteSVM, and "
                      "as K^+ X to the nearest PSD kernel X",
          "raw": "the rows unchanged (the exact map of a kernel changed only on its diagonal)",
          "transductive": "the test-vs-train block of the correction of the joint train + test "
                          "kernel (needs the test-test block at prediction time)",
          "munoz": "the rule munoz prints: the MDS map of eq. (3), r U_+ U_+' with U_+ the "
                   "eigenvectors of the eigenvalues above the threshold; at every bending step by "
                   "eq. (8) (eq. 5 for 'flip', eq. 7 for 'square', rows unchanged for 'shift'), in "
                   "the W-weighted coordinates for the nearest PSD kernel (§3.3)",
          "clip": "IndefiniteSVM only: the spectral map of the clipped training kernel K0_+ "
                  "instead of the learned proxy X(u) (luss's rho -> infinity limit)"},
         synonyms=("oos",)),
    Term("approximation",
         "None (the exact path on the n x n kernel) or a low-rank front end (IndefiniteNystroem) "
         "whose signed features the model is trained on.",
         {"landmarks": "the data are landmark columns (an n x m block of kernel values or "
                       "dissimilarities to m landmark objects, with the landmarks' rows): the "
                       "front end is built from their landmark block"}),
    Term("tol", "Stopping tolerance, as in scikit-learn.", synonyms=("tolerance",)),
    Term("max_iter",
         "Iteration limit, as in scikit-learn (ConvergenceWarning when it is reached).",
         synonyms=("n_iter", "n_iters", "maxiter", "max_iters", "max_iterations")),
    Term("warm_start",
         "Bool: fit starts the solver at the previous fit's solution, as in scikit-learn "
         "(the same problem's solution up to the solver's certificate; fewer iterations "
         "along a path of C or rho).",
         synonyms=("warm", "warmstart")),
    Term("random_state",
         "None, an int or a numpy RandomState / Generator: every random choice (starts, "
         "landmarks, folds, synthetic data, subsamples).",
         synonyms=("seed", "cv_seed", "random_seed", "rng")),
    Term("probability",
         "Bool: a classifier's fit also fits Platt scaling on internal 5-fold cross-validation of "
         "its decision values (Platt 2000; scikit-learn's SVC(probability=True)), which "
         "predict_proba and predict_log_proba return.",
         synonyms=("probabilities", "calibrate")),
    Term("verbose", "Bool (or int): print the progress.", synonyms=("verbosity",)),
    Term("outer_folds",
         "The outer cross-validation split: an int k >= 2 (stratified k-fold) or 'loo'.",
         {"loo": "leave-one-out: one test point per fold"},
         synonyms=("cv", "folds", "n_folds", "outer_cv")),
    Term("inner_folds",
         "Number of stratified folds of the inner (model-selection) cross-validation; 1: one "
         "stratified validation split of validation_fraction instead.",
         synonyms=("inner_cv",)),
    Term("validation_fraction",
         "Float in (0, 1): the share of an outer training part held out by the one stratified "
         "validation split of the inner model selection (inner_folds = 1)."),
    Term("repeats", "Number of repetitions of the outer split, with another shuffle each.",
         synonyms=("n_repeats",)),
    Term("weights",
         "Weights of the entries (a vector w or a matrix W) in the method's objective or "
         "update; the estimator's docstring states the formula.",
         {"support-vectors": "from the support vectors of an SVC fitted with C on the clip/MDS "
                             "kernel: their entries are kept closer to the input (munoz §4)"}),
    Term("diagonal",
         "The fixed diagonal c of the nearest PSD kernel (munoz eq. 9): None (free), 'keep', "
         "'scale', a number or a vector.",
         {"keep": "c = diag(K), the input's self-similarities",
          "scale": "c = kernel_scale(K) (mean |K_ii|) on every entry: the unit diagonal of the "
                   "kernel divided by its scale"}),
    Term("eps",
         "Float >= 0: the eigenvalue threshold of the corrections 'mds' and 'pseudo' and the "
         "floor of bending (munoz §2-3, Algorithm 1); not the SVR tube (epsilon)."),
    Term("shift", "The constant added to the eigenvalues ('add_diagonal'; bending's 'shift')."),
    Term("epsilon", "Float >= 0: the width of the insensitive tube of a support vector regression; "
         "None where an estimator sets it from the targets (its docstring states the rule)."),
    Term("radius_squared",
         "Float > 0: r^2, the squared norm ||f||_H^2 = alpha' |K| alpha of the hypothesis in the "
         "Hilbert space associated with the Krein space, fixed by the hypersphere constraint of "
         "Oglic & Gaertner (2018); follows K -> s K as r^2 / s.  None where an estimator sets "
         "it from the data (its docstring states the rule).",
         synonyms=("r2", "radius2")),
    Term("krein_penalty",
         "Float >= 0: lambda, the weight of the Krein inner product <f, f>_K = alpha' K alpha "
         "in the regularized risk of Oglic & Gaertner (2018); follows K -> s K as s lambda."),
    Term("decomposition",
         "How a Krein-space method flips the kernel K into a PSD one and maps its coefficients "
         "back (c = T sign(D) T^{-1} c~ with K = T D T').",
         {"eigh": "the eigendecomposition K = V diag(lam) V', flipped to V |lam| V' (ESVM, "
                  "loosli 2013 Alg. 1)",
          "ldl": "the factorization K = L D L' by Gaussian elimination without pivoting, "
                 "flipped to L |D| L' (TrIK-SVM, Loosli 2019, arXiv 1902.10569)",
          "ldl-pivoted": "the Bunch-Kaufman factorization K = P' L D L' P (1x1 and 2x2 "
                         "blocks), flipped to P' L |D| L' P"}),
    Term("model",
         "Which IndefiniteSVM problem (luss): the model, not the estimator kind.",
         {"svc": "classification (luss eq. 7)", "svr": "epsilon-regression",
          "one-class": "one-class (support estimation)"},
         algorithm_synonyms=("task",)),
)

#: Every declared name, read-only: ``VOCABULARY[name]`` is its :class:`Term`.
VOCABULARY = MappingProxyType({t.name: t for t in _TERMS})

#: ``{synonym: declared name}``: names no public signature may use for that idea.
SYNONYMS = MappingProxyType({s: t.name for t in _TERMS for s in t.synonyms})

#: ``{synonym: declared name}`` in the algorithm layers (estimators, formulations, solvers) only.
ALGORITHM_SYNONYMS = MappingProxyType({s: t.name for t in _TERMS for s in t.algorithm_synonyms})


def declared(name, *values):
    """The values of one vocabulary name that a module accepts, checked against the declaration.

    Parameters
    ----------
    name : str
        A name of :data:`VOCABULARY`.
    *values : str
        The values the module accepts, in the order it lists them; none: every
        declared value, in the declared order.

    Returns
    -------
    tuple of str
        ``values`` (or every declared value).

    Raises
    ------
    KeyError
        ``name`` is not declared.
    ValueError
        A value is not declared for ``name`` (a private value set).
    """
    term = VOCABULARY[name]
    if not values:
        return tuple(term.values)
    bad = [v for v in values if v not in term.values]
    if bad:
        raise ValueError(f"{name}: value(s) {bad} are not declared in krein._vocabulary; "
                         f"declared: {list(term.values)}")
    return tuple(values)


def meaning(name, value=None):
    """The declared meaning of a parameter name, or of one of its values.

    Parameters
    ----------
    name : str
        A name of :data:`VOCABULARY`.
    value : str, optional
        One of its declared values.

    Returns
    -------
    str
        The meaning.

    Raises
    ------
    KeyError
        An undeclared name or value.
    """
    term = VOCABULARY[name]
    return term.meaning if value is None else term.values[value]
