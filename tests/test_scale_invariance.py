"""Scale-free iterations: ``K`` and ``s K`` take the same iterations.

Independent checks:
* the registry's scale exponents (``scale_exponents``: ``C -> C/s``,
  ``rho -> rho/s^3``, ``correction__diagonal -> s c``), derived from each
  method's objective, say how the parameters follow ``K -> s K``; with them,
  IndefiniteSVC (``"pg"``, ``"apg"``) and the ``nearest-psd`` method make the
  same number of iterations and the same predictions at ``s`` in {1, 1e4, 1e-4},
  and record ``kernel_scale_ = s kernel_scale(K)``;
* IndefiniteSVM's certified duality gap still holds at every scale, and scaled
  back by ``s`` it is the gap of ``s = 1`` (the objective scales as ``1/s``);
* the Newton method's duality gap (primal ``||K - X||^2 / 2`` minus the dual
  value, both computed from the returned points) relative to the data is the same
  at every scale (it used a ``1 +`` floor: at ``1e-4`` it reported ``1e-12``);
* the issue's reproduction: a unit diagonal imposed on CoilYork's classical-scaling
  kernel (``kernel_scale ~ 2.2e4``; 499 Newton steps before) is refused with a
  message naming ``diagonal`` and the kernel's scale, and the diagonal on K's
  scale takes a handful of Newton steps.
"""

from __future__ import annotations

import numpy as np
import pytest

from krein.estimators import CorrectedKernelSVC, IndefiniteSVC, NearestPSD
from krein.kernel_data import load_kernel_data
from krein.kernels import kernel_scale
from krein.registry import make_method, scale_exponents
from krein.solvers.psd_newton import nearest_psd_newton

SCALES = (1.0, 1e4, 1e-4)


def _toy():
    """A sigmoid kernel (indefinite, diagonal ~0.3-1) on 40 + 20 points, labels by a line."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1, -1)
    K = np.tanh(X @ X.T - 0.5)
    return K[:40, :40], y[:40], K[40:, :40]


def _scaled(method, params, s):
    """``params`` scaled by the registry's exponents of ``method`` for ``K -> s K``."""
    exps = scale_exponents(method)
    return {k: v * s ** exps.get(k, 0) for k, v in params.items()}


@pytest.mark.parametrize("solver", ["pg", "apg"])
def test_indefinite_svc_same_iterations_and_certificate_at_every_scale(solver):
    K, y, Kt = _toy()
    ref = None
    for s in SCALES:
        p = _scaled("indefinite-svm", {"C": 1.0, "rho": 1.0}, s)
        est = IndefiniteSVC(kernel="precomputed", solver=solver, **p).fit(s * K, y)
        sol = est.binary_models_[0].info["solution"]
        assert sol.status == "optimal"
        # the certificate: 0 <= gap <= tol * (its relative scale), at every scale
        assert 0.0 <= est.duality_gap_[0] <= 1e-3 * abs(est.objective_[0]) + 1e-12 / s
        np.testing.assert_allclose(est.kernel_scale_, s * kernel_scale(K), rtol=1e-12)
        got = (est.n_iter_.tolist(), est.predict(s * Kt), s * est.objective_[0])
        if ref is None:
            ref = got
            continue
        assert got[0] == ref[0], f"s = {s:g}: {got[0]} iterations, {ref[0]} at s = 1"
        np.testing.assert_array_equal(got[1], ref[1])
        np.testing.assert_allclose(got[2], ref[2], rtol=1e-6)


def test_nearest_psd_method_same_iterations_at_every_scale():
    K, y, Kt = _toy()
    ref = None
    for s in SCALES:
        p = _scaled("nearest-psd", {"C": 1.0, "correction__C": 1.0,
                                    "correction__diagonal": 1.0}, s)
        est = CorrectedKernelSVC(kernel="precomputed",
                                 correction=NearestPSD(weights="support-vectors"))
        est.set_params(**p).fit(s * K, y)
        corr = est.correction_
        np.testing.assert_allclose(corr.kernel_scale_, s * kernel_scale(K), rtol=1e-12)
        got = (corr.n_iter_, corr.solution_.certificate["eigh"], est.predict(s * Kt),
               corr.solution_.certificate["relative_duality_gap"])
        if ref is None:
            ref = got
            continue
        assert got[:2] == ref[:2], f"s = {s:g}: (Newton steps, eigh) {got[:2]}, {ref[:2]} at s = 1"
        np.testing.assert_array_equal(got[2], ref[2])
        np.testing.assert_allclose(got[3], ref[3], rtol=1e-3)


def test_newton_relative_gap_is_relative_to_the_data():
    K, _, _ = _toy()
    gaps = []
    for s in SCALES:
        # tol = 1e-5 stops where the gap is far above rounding (~1e-8 relative here)
        sol = nearest_psd_newton(s * K, np.full(K.shape[0], s), tol=1e-5)
        cert = sol.certificate
        assert cert["duality_gap"] >= 0.0
        gaps.append(cert["relative_duality_gap"])
    assert 1e-12 < gaps[0] <= 1e-5
    np.testing.assert_allclose(gaps, gaps[0], rtol=1e-3)


def test_unit_diagonal_on_coilyork_refused_and_its_scale_fast():
    data = load_kernel_data("coilyork")  # the classical-scaling kernel of `krein compare`
    K, y = data.K, data.y
    s = kernel_scale(K)
    assert s > 1e4
    est = NearestPSD(diagonal=1.0, weights="support-vectors")
    with pytest.raises(ValueError, match=r"diagonal.*kernel_scale\(K\)"):
        est.fit(K, y)
    assert not hasattr(est, "kernel_")  # nothing half-fitted
    svc = CorrectedKernelSVC(kernel="precomputed",
                             correction=NearestPSD(diagonal=1.0, weights="support-vectors"))
    with pytest.raises(ValueError, match="diagonal"):
        svc.fit(K, y)
    # the same request on K's scale: a handful of Newton steps (499 with diagonal=1.0)
    ok = NearestPSD(diagonal=s, weights="support-vectors", C=1.0 / s).fit(K, y)
    assert ok.n_iter_ <= 20
    np.testing.assert_allclose(np.diag(ok.kernel_), s, rtol=1e-6)


def test_compare_places_untuned_scale_parameters_on_the_kernel_scale(tmp_path):
    # krein compare tunes C; nearest-psd's fixed diagonal and its weights' C (exponent -1)
    # are not in the grid.  They move with s = kernel_scale(K) (the diagonal's default
    # "scale" is s, the weights' C is placed at 1 / s), so K and 1e4 K give the same folds
    # (a unit diagonal on 1e4 K would be refused: every fold an error row).
    from krein.compare import run_comparison
    from krein.registry import scaled_defaults

    K, y, _ = _toy()
    (tmp_path / "y.txt").write_text("\n".join(map(str, y)) + "\n")
    runs = {}
    for s in (1.0, 1e4):
        np.save(tmp_path / f"K{s:g}.npy", s * K)
        res = run_comparison(kernel_file=tmp_path / f"K{s:g}.npy", labels=tmp_path / "y.txt",
                             methods=["nearest-psd"], outer_folds=2, inner_folds=2,
                             progress=False, out=tmp_path / f"run{s:g}")
        runs[s] = res.folds
        assert (res.folds["error"].fillna("") == "").all(), res.folds["error"].tolist()
    np.testing.assert_array_equal(runs[1.0]["accuracy"], runs[1e4]["accuracy"])
    s = kernel_scale(1e4 * K)
    placed = scaled_defaults("nearest-psd", s, exclude={"C"})
    # the diagonal's default "scale" is the kernel's scale by definition: nothing to place
    assert placed == {"correction__C": pytest.approx(1 / s)}
    assert scaled_defaults("nearest-psd", 1.0) == {}
    fitted = make_method("nearest-psd", kernel="precomputed").fit(1e4 * K, y).correction_
    np.testing.assert_allclose(fitted.diagonal_, s, rtol=1e-12)


def test_rewritten_kernel_file_is_read_again(tmp_path):
    # The in-process kernel cache sees a rewritten file: a comparison run after the file
    # is rewritten (same path, same size, new matrix) reads the new matrix.
    from krein.compare import run_comparison

    K, y, _ = _toy()
    (tmp_path / "y.txt").write_text("\n".join(map(str, y)) + "\n")
    import os

    seen = []
    for s in (1.0, 1e4):
        np.save(tmp_path / "K.npy", s * K)  # same path, same size: only the time differs
        os.utime(tmp_path / "K.npy", ns=(int(s) * 10**9, int(s) * 10**9))
        res = run_comparison(kernel_file=tmp_path / "K.npy", labels=tmp_path / "y.txt",
                             methods=["svm"], outer_folds=2, progress=False, tune=False,
                             out=tmp_path / f"run{s:g}")
        seen.append(res.kernel_scale)
    assert seen[1] == pytest.approx(1e4 * seen[0], rel=1e-9)
