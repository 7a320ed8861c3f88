"""BLAS threads of an estimator's fit follow the problem's size (``krein._threads``).

Checked with threadpoolctl itself (independent of krein's controller): a callable
kernel records the BLAS threads in force while the estimator fits; small problems
fit with one thread under the default policy, large ones (and any problem under
``krein.blas_threads("default")``) with the libraries' own, and the result is the
same model.
"""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from krein import ESVC, blas_threads
from krein._threads import SMALL_KERNEL


def _blas_threads():
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def _recording_kernel(seen):
    def kernel(A, B):
        seen.append(_blas_threads())
        return np.tanh(0.3 * A @ B.T - 0.2)
    return kernel


@pytest.fixture
def two_threads():
    """Run the test with (at most) two BLAS threads as the libraries' default."""
    if not _blas_threads():
        pytest.skip("no BLAS library seen by threadpoolctl")
    with threadpool_limits(limits=2, user_api="blas"):
        if max(_blas_threads()) < 2:
            pytest.skip("the BLAS library runs one thread only")
        yield


def _data(n):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)


def test_small_fits_run_with_one_blas_thread(two_threads):
    X, y = _data(60)
    seen = []
    model = ESVC(kernel=_recording_kernel(seen)).fit(X, y)
    assert seen and all(t == [1] * len(t) for t in seen)
    assert max(_blas_threads()) >= 2                        # restored after the fit
    seen_default = []
    with blas_threads("default"):
        other = ESVC(kernel=_recording_kernel(seen_default)).fit(X, y)
    assert all(max(t) >= 2 for t in seen_default)
    np.testing.assert_allclose(other.decision_function(X), model.decision_function(X),
                               rtol=1e-9, atol=1e-9)


def test_large_fits_keep_the_libraries_threads(two_threads):
    X, y = _data(SMALL_KERNEL + 1)
    seen = []
    with blas_threads("auto"):
        ESVC(kernel=_recording_kernel(seen)).fit(X, y)
    assert seen and all(max(t) >= 2 for t in seen)


def test_a_fixed_number_of_threads_and_the_environment(two_threads, monkeypatch):
    X, y = _data(SMALL_KERNEL + 1)
    seen = []
    monkeypatch.setenv("KREIN_BLAS_THREADS", "1")
    ESVC(kernel=_recording_kernel(seen)).fit(X, y)
    assert seen and all(t == [1] * len(t) for t in seen)
    with pytest.raises(ValueError, match="blas_threads"):
        with blas_threads("many"):
            pass
