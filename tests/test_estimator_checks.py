"""scikit-learn's estimator checks (``parametrize_with_checks``) on every registered method.

The instances come from the registry (``checks`` of each entry,
:func:`krein.registry.estimator_check_instances`): a new method's entry brings its
own, so this file does not change when a method is added.  They cover the
defaults (Gaussian kernel on feature vectors), the precomputed-kernel route (the
checks then feed kernel matrices, ``pairwise`` tag), ESVM-L, the transductive
out-of-sample map on an indefinite kernel, the IndefiniteSVM algorithms, class
weights, and the regressor and outlier detector.  Every expected failure is
listed in the entry with the principled reason it cannot pass; they run in
strict xfail mode, so a check that starts passing is reported.
"""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from krein.registry import estimator_check_instances

INSTANCES = estimator_check_instances()
ESTIMATORS = [est for _, est, _ in INSTANCES]
_XFAIL = {id(est): xfail for _, est, xfail in INSTANCES}


def expected_failed_checks(estimator):
    """``{check_name: reason}`` of the checks this instance cannot pass (from its entry)."""
    return _XFAIL[id(estimator)]


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks,
                         xfail_strict=True)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
