"""BLAS threads of the solver loops follow the size of their steps (``krein._threads.loop_threads``).

Checked with threadpoolctl itself (independent of krein's controller): a function
each loop calls on every iteration is wrapped to record the BLAS threads in force.
Under the default policy ``"auto"`` a loop on at most ``LOOP_KERNEL`` objects runs
with one thread even when the fit around it keeps two (it has more than
``SMALL_KERNEL`` objects); under ``"default"`` the loop keeps the libraries'
threads; either way the solver returns the same point.
"""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from krein import blas_threads
from krein._threads import LOOP_KERNEL, SMALL_KERNEL, loop_threads, loop_threads_of


def _blas_threads():
    return max(lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas")


@pytest.fixture
def two_threads():
    """Run the test with (at most) two BLAS threads as the libraries' default."""
    if not [lib for lib in threadpool_info() if lib["user_api"] == "blas"]:
        pytest.skip("no BLAS library seen by threadpoolctl")
    with threadpool_limits(limits=2, user_api="blas"):
        if _blas_threads() < 2:
            pytest.skip("the BLAS library runs one thread only")
        yield


def _recorder(monkeypatch, module, name, seen):
    func = getattr(module, name)

    def recording(*args, **kwargs):
        seen.append(_blas_threads())
        return func(*args, **kwargs)

    monkeypatch.setattr(module, name, recording)


def _sigmoid(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.2 * rng.normal(size=n) > 0, 1.0, -1.0)
    return np.tanh(0.5 * X @ X.T - 0.5), y


def _dca():
    from krein.solvers import dca as module

    K, y = _sigmoid(SMALL_KERNEL + 20)
    return module, "dc_objective", lambda: module.dca(K, y, C=1.0, random_state=0, max_iter=5).primal


def _sparse_bayes():
    from krein.solvers import rvm as module

    K, y = _sigmoid(SMALL_KERNEL + 20)
    return module, "_statistics", lambda: module.sparse_bayes(K, (y > 0).astype(float)).primal


def _newton():
    from krein.solvers import psd_newton as module

    K, _ = _sigmoid(SMALL_KERNEL + 20)
    return module, "_pcg", lambda: module.nearest_psd_newton(K, diagonal=1.0, tol=1e-6).primal


def _hull():
    from krein.solvers import hull as module

    K, y = _sigmoid(SMALL_KERNEL + 20)
    return module, "_face_descent", lambda: module.hull_multistart(K, y, 0.3, n_starts=3,
                                                                   random_state=0)[0].primal


LOOPS = {"dca": _dca, "sparse_bayes": _sparse_bayes, "nearest_psd_newton": _newton,
         "hull_multistart": _hull}


def _primal(x):
    if isinstance(x, dict):
        return {k: np.asarray(v) for k, v in x.items()}
    return {"": np.asarray(x)}


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_solver_loops_run_on_one_thread_and_give_the_same_point(loop, two_threads, monkeypatch):
    module, name, solve = LOOPS[loop]()
    seen_auto, seen_default = [], []
    _recorder(monkeypatch, module, name, seen_auto)
    with blas_threads("auto"):
        auto = _primal(solve())
    assert seen_auto and set(seen_auto) == {1}, seen_auto
    assert _blas_threads() >= 2                             # restored after the loop
    monkeypatch.undo()
    _recorder(monkeypatch, module, name, seen_default)
    with blas_threads("default"):
        default = _primal(solve())
    assert seen_default and min(seen_default) >= 2, seen_default
    assert auto.keys() == default.keys()
    for key in auto:   # threads change the order of sums only: the same point to round-off
        np.testing.assert_allclose(auto[key], default[key], rtol=1e-6, atol=1e-8, err_msg=key)


def test_loop_threads_rule(two_threads):
    with blas_threads("auto"):
        with loop_threads(LOOP_KERNEL) as limit:
            assert (limit, _blas_threads()) == (1, 1)
        with loop_threads(LOOP_KERNEL + 1) as limit:
            assert limit is None and _blas_threads() >= 2
        with loop_threads(LOOP_KERNEL + 1, up_to=LOOP_KERNEL + 1) as limit:
            assert limit == 1
    for policy in ("default", 2):
        with blas_threads(policy), loop_threads(10) as limit:
            assert limit is None and _blas_threads() >= 2


def test_loop_threads_leave_other_threads_alone(two_threads):
    import threading

    seen = []

    def worker():
        with loop_threads(10) as limit:
            seen.append((limit, _blas_threads()))

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [(None, 2)]


def test_decorated_solver_keeps_its_signature_and_errors(two_threads):
    import inspect

    @loop_threads_of(lambda K, *args, **kwargs: len(K))
    def solver(K, y=None, *, tol=1e-6):
        """A solver."""
        if K is None:
            raise ValueError("K: must be an array")
        return _blas_threads()

    assert solver.__doc__ == "A solver." and "tol" in inspect.signature(solver).parameters
    with pytest.raises(ValueError, match="K: must be an array"):
        solver(None)
    with blas_threads("auto"):
        assert solver(np.zeros((3, 3))) == 1
        assert solver(np.zeros((LOOP_KERNEL + 1, 1))) >= 2
