"""scikit-learn's estimator checks (``parametrize_with_checks``) on every classifier.

The four estimators with their defaults (Gaussian kernel on feature vectors) pass
every check.  Extra instances cover the precomputed-kernel route (the checks then
feed kernel matrices, ``pairwise`` tag), ESVM-L, and the transductive
out-of-sample map on an indefinite kernel.  Every expected failure is listed in
:func:`expected_failed_checks` with the principled reason it cannot pass; they
run in strict xfail mode, so a check that starts passing is reported.
"""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from krein import (ESVC, KSVC, LPSVC, RVC, ConvexHullClassifier, CorrectedKernelSVC, DirectSVC,
                   IndefiniteOneClassSVM, IndefiniteSVC, IndefiniteSVR, ModSVC, PerturbSVC,
                   SpectrumCorrection, SpectrumSVC)

SIGMOID = {"a": 0.5, "r": -1.0}

ESTIMATORS = [
    # the defaults: kernel="gaussian" on feature vectors
    ESVC(),
    SpectrumSVC(),
    DirectSVC(),
    LPSVC(),
    # precomputed kernels (the checks pass Gram matrices)
    ESVC(kernel="precomputed"),
    SpectrumSVC(kernel="precomputed"),
    DirectSVC(kernel="precomputed"),
    # (LPSVC(kernel="precomputed") also passes every check; left out for run time: the
    # precomputed route lives in the shared base class, covered by the three above)
    # ESVM-L by energy share
    ESVC(energy=0.9),
    # transductive out-of-sample map on an indefinite kernel
    SpectrumSVC(correction="clip", out_of_sample="transductive", kernel="sigmoid", kernel_params=SIGMOID),
    # IndefiniteSVM (Luss & d'Aspremont): classifier, regressor, outlier detector, PerturbSVM
    IndefiniteSVC(),
    IndefiniteSVC(kernel="sigmoid", kernel_params=SIGMOID, solver="apg"),
    IndefiniteSVC(kernel="precomputed"),
    IndefiniteSVR(),
    IndefiniteOneClassSVM(),
    PerturbSVC(),
    # the other classifiers (cheap settings: the whole file must stay fast on 2 cores)
    KSVC(),
    ConvexHullClassifier(n_starts=2),
    ModSVC(solver="libsvm"),   # the CVXPY default runs in tests/test_modsvm.py
    RVC(max_iter=100),
    CorrectedKernelSVC(correction=SpectrumCorrection(correction="clip")),
    # class weights on the libsvm path and on the IndefiniteSVM algorithms
    DirectSVC(class_weight="balanced"),
    IndefiniteSVC(class_weight="balanced", solver="apg"),
]

#: scikit-learn's harness sets ``n_components = 1`` on any estimator that has an
#: ``n_components`` attribute (estimator_checks.py, the check_fit2d_* / invariance /
#: parameter checks).  ESVC refuses ``n_components`` together with ``energy`` by design
#: (they are two exclusive ways to choose ESVM-L's eigenpairs), so with ``energy`` set
#: these checks only see that documented ValueError.  Default ESVC (energy=None) runs
#: them as ESVM-L with one component and passes.
_ENERGY_AND_N_COMPONENTS = (
    "the check forces n_components=1 while energy=0.9 is set; ESVC rejects both "
    "together by design ('give at most one of n_components and energy')"
)

#: A transductive map decomposes the joint train + test kernel at prediction time, so a
#: test point's decision depends on the other points of the batch: predicting a subset
#: cannot equal predicting the whole batch and slicing (on an indefinite kernel; on a
#: PSD one clipping is the identity and the check passes).
_TRANSDUCTIVE = (
    "transductive out-of-sample map: decisions depend on the whole test batch by "
    "definition (joint eigendecomposition), so they are not subset invariant"
)


#: IndefiniteSVR with the default rho = 1 on a PSD (Gaussian) kernel is PerturbSVM's
#: regression analogue: the proxy K0 + alpha alpha'/4 adds the fourth-order penalty
#: |alpha|^4 / 16, which shrinks alpha, and new points use k(x, X) without the rank-one
#: term, so the training R^2 on the check's data is 0.42 (sklearn's SVR: 0.82; ours
#: reaches 0.80 at rho = 100 and tends to SVR as rho grows, tested in test_indefinite).
_SVR_DEFAULT_RHO = (
    "R^2 = 0.42 < 0.5 on the check's data at the default rho = 1: the fourth-order "
    "penalty of the proxy kernel shrinks alpha (luss eq. 17); tends to SVR as rho grows"
)


def expected_failed_checks(estimator):
    """``{check_name: reason}`` of the checks this instance cannot pass, and why."""
    if isinstance(estimator, IndefiniteSVR) and estimator.rho == 1.0:
        return {"check_regressors_train": _SVR_DEFAULT_RHO}
    if isinstance(estimator, ESVC) and estimator.energy is not None:
        return {
            name: _ENERGY_AND_N_COMPONENTS
            for name in (
                "check_dont_overwrite_parameters",
                "check_methods_sample_order_invariance",
                "check_methods_subset_invariance",
                "check_fit2d_1sample",
                "check_fit2d_1feature",
                "check_fit2d_predict1d",
            )
        }
    if (isinstance(estimator, SpectrumSVC) and estimator.out_of_sample == "transductive"
            and estimator.kernel == "sigmoid"):
        return {"check_methods_subset_invariance": _TRANSDUCTIVE}
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks,
                         xfail_strict=True)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
