"""solver="auto": the approximate path is fast by default.

ESVC, SpectrumSVC and KSVC default to ``solver="auto"``: libsvm (KSVC: the active set)
on the exact kernel, liblinear (KSVC: its low-rank interior point) with an
``approximation``; the fitted ``solver_`` and each binary model's ``solution_.solver``
record which ran.  The check is the solver record, never a timing.
"""

import numpy as np
import pytest
from sklearn.base import clone

from krein import IndefiniteNystroem
from krein.datasets import make_checkerboard
from krein.estimators import ESVC, KSVC, SpectrumSVC

KP = {"a": 3.0, "r": -1.0}


@pytest.fixture(scope="module")
def data():
    X, y = make_checkerboard(300, random_state=0)
    return X, y


def _nystroem(m=40):
    return IndefiniteNystroem(n_components=m, random_state=0)


def _clip(**kw):
    return SpectrumSVC(correction="clip", out_of_sample="spectral", **kw)


@pytest.mark.parametrize("make", [ESVC, _clip], ids=["ESVC", "SpectrumSVC"])
def test_auto_with_an_approximation_runs_liblinear(data, make):
    X, y = data
    auto = make(kernel="sigmoid", kernel_params=KP, approximation=_nystroem()).fit(X, y)
    assert auto.get_params()["solver"] == "auto"          # the parameter is left as given
    assert auto.solver_ == "liblinear"
    assert all(s.solver == "liblinear" for s in auto.solutions_)
    lin = make(kernel="sigmoid", kernel_params=KP, approximation=_nystroem(),
               solver="liblinear").fit(X, y)
    np.testing.assert_array_equal(auto.predict(X), lin.predict(X))
    np.testing.assert_array_equal(auto.decision_function(X), lin.decision_function(X))


@pytest.mark.parametrize("make", [ESVC, _clip], ids=["ESVC", "SpectrumSVC"])
def test_auto_on_the_exact_kernel_keeps_libsvm(data, make):
    X, y = data
    est = make(kernel="sigmoid", kernel_params=KP).fit(X[:120], y[:120])
    assert est.solver_ == "libsvm" and est.solution_.solver == "libsvm"


def test_an_explicit_solver_is_honoured(data):
    X, y = data
    est = ESVC(kernel="sigmoid", kernel_params=KP, approximation=_nystroem(),
               solver="LibSVM").fit(X[:150], y[:150])
    assert est.solver_ == "libsvm" and est.solution_.solver == "libsvm"
    est = ESVC(kernel="sigmoid", kernel_params=KP, solver="clarabel").fit(X[:60], y[:60])
    assert est.solver_ == "CLARABEL" and est.solution_.solver == "CLARABEL"


def test_ksvc_auto(data):
    X, y = data
    approx = KSVC(kernel="sigmoid", kernel_params=KP, approximation=_nystroem(15)).fit(
        X[:80], y[:80])
    assert approx.solver_ == "interior-point"
    assert approx.solution_.solver == "ksvm-interior-point"
    exact = KSVC(kernel="sigmoid", kernel_params=KP).fit(X[:80], y[:80])
    assert exact.solver_ == "active-set"
    # an explicit active set is still refused with an approximation
    with pytest.raises(ValueError, match="CVXPY solver"):
        clone(approx).set_params(solver="active-set").fit(X[:80], y[:80])


@pytest.mark.parametrize("est", [ESVC(), KSVC(), SpectrumSVC()])
def test_auto_is_the_default_and_a_failed_fit_leaves_no_record(est):
    assert est.get_params()["solver"] == "auto"
    X, _ = make_checkerboard(30, random_state=1)
    bad = clone(est)
    with pytest.raises(ValueError, match="one class"):     # fails after the solver is resolved
        bad.fit(X, np.zeros(30))
    assert not hasattr(bad, "solver_")
