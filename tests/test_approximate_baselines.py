"""The approximation= paths of the similarity-based baselines: knn, weighted-knn, pe-knn,
pe-nearest-mean, similarity-linear and similarity-rbf on signed Nyström features or on
the landmark columns.

* every training point a landmark: the approximation is the kernel, and each path
  gives the exact estimator's predictions (the neighbour rules, on the test rows whose
  k-th and (k+1)-th distances are not tied to round-off), its decision values to
  round-off (the nearest mean) or to libsvm's tolerance (the similarity space,
  ``solver="libsvm"``), binary and multiclass, with named kernels and with
  precomputed columns and landmark block;
* at low rank, against an independent computation: the exact estimators on the dense
  approximate kernel ``Psi S Psi'`` (small n), scikit-learn's SVC on the landmark
  columns and on the dense Nyström RBF kernel, a stable argsort for the blockwise
  neighbour search (ties included);
* no n x n or n_test x n array: tracemalloc's peak at n = 6000 under a memory budget;
* ``krein compare --approximation nystroem:M`` runs all six.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from sklearn.svm import SVC

from krein._memory import memory_budget
from krein.approximation import IndefiniteNystroem
from krein.cli import main
from krein.compare import run_comparison
from krein.estimators import (AffinityKNeighborsClassifier, KernelKNeighborsClassifier,
                              PseudoEuclideanKNeighbors, PseudoEuclideanNearestMean,
                              SimilaritySpaceSVC)
from krein.estimators.neighbors import nearest_in_signature
from krein.estimators.similarity_space import similarity_feature_gamma
from krein.kernels import pairwise_kernel
from krein.registry import approximation_defaults, method_entry

SIG = {"a": 0.5, "r": -0.5}
N, N_TEST = 90, 50
METHODS = ("knn", "weighted-knn", "pe-knn", "pe-nearest-mean", "similarity-linear",
           "similarity-rbf")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, 3))
    Xt = rng.normal(size=(N_TEST, 3))
    y3 = (X[:, 0] + 0.5 * rng.normal(size=N) > 0).astype(int) + (X[:, 1] > 0.8)
    K = pairwise_kernel("sigmoid", X, X, SIG)
    Kt = pairwise_kernel("sigmoid", Xt, X, SIG)
    lam = np.linalg.eigvalsh(K)
    assert lam[0] < -0.1 * lam[-1]                      # strongly indefinite
    return {"X": X, "Xt": Xt, "y3": y3, "y2": (y3 > 0).astype(int), "K": K, "Kt": Kt}


def _full_rank():
    return IndefiniteNystroem(landmarks=np.arange(N), rcond=1e-12)


def _pair(cls, data, **kw):
    exact = cls(kernel="sigmoid", kernel_params=SIG, **kw)
    approx = cls(kernel="sigmoid", kernel_params=SIG, approximation=_full_rank(), **kw)
    return exact, approx


def _untied_rows(scores, k, gap=1e-8):
    """Rows whose k-th and (k+1)-th smallest scores differ by more than round-off."""
    s = np.sort(scores, axis=1)
    scale = np.max(np.abs(scores))
    return np.flatnonzero(s[:, k] - s[:, k - 1] > gap * scale)


# ---------------------------------------------------------------------------- full rank
@pytest.mark.parametrize("labels", ["y2", "y3"])
@pytest.mark.parametrize("cls", [KernelKNeighborsClassifier, AffinityKNeighborsClassifier])
def test_knn_with_every_point_a_landmark_is_the_exact_knn(data, labels, cls):
    y, k = data[labels], 5
    exact, approx = _pair(cls, data, n_neighbors=k)
    exact.fit(data["X"], y)
    approx.fit(data["X"], y)
    np.testing.assert_allclose(approx.train_diagonal_, exact.train_diagonal_, atol=1e-10)
    rows = _untied_rows(np.diag(data["K"])[None, :] - 2 * data["Kt"], k)
    assert rows.size > 0.8 * N_TEST
    Xt = data["Xt"][rows]
    np.testing.assert_array_equal(approx._nearest(Xt)[0], exact._nearest(Xt)[0])
    pe, pa = exact.predict_proba(Xt), approx.predict_proba(Xt)
    np.testing.assert_allclose(pa, pe, atol=1e-9)
    clear = np.sort(pe, axis=1)[:, -1] - np.sort(pe, axis=1)[:, -2] > 1e-9
    np.testing.assert_array_equal(approx.predict(Xt)[clear], exact.predict(Xt)[clear])
    assert approx.approximation_.n_components_ == N and not hasattr(approx, "X_fit_")


@pytest.mark.parametrize("labels", ["y2", "y3"])
@pytest.mark.parametrize("kw", [{}, {"energy": 0.9}, {"n_components": 3}])
def test_pe_knn_with_every_point_a_landmark_is_the_exact_embedding(data, labels, kw):
    y, k = data[labels], 3
    exact, approx = _pair(PseudoEuclideanKNeighbors, data, n_neighbors=k, **kw)
    exact.fit(data["X"], y)
    approx.fit(data["X"], y)
    assert approx.signature_ == exact.signature_
    np.testing.assert_allclose(approx.eigenvalues_, exact.embedding_.eigenvalues_,
                               rtol=1e-9, atol=1e-9 * abs(exact.embedding_.eigenvalues_).max())
    D_exact = exact.squared_distances(data["Xt"])
    D_approx = approx.squared_distances(data["Xt"])
    np.testing.assert_allclose(D_approx, D_exact, atol=1e-8 * np.abs(D_exact).max())
    rows = _untied_rows(D_exact, k)
    assert rows.size > 0.8 * N_TEST
    Xt = data["Xt"][rows]
    np.testing.assert_array_equal(approx._nearest(Xt)[0], exact._nearest(Xt)[0])
    votes = exact.predict_proba(Xt)
    clear = np.sort(votes, axis=1)[:, -1] - np.sort(votes, axis=1)[:, -2] > 1e-9
    np.testing.assert_array_equal(approx.predict(Xt)[clear], exact.predict(Xt)[clear])


@pytest.mark.parametrize("labels", ["y2", "y3"])
def test_nearest_mean_with_every_point_a_landmark_is_exact(data, labels):
    exact, approx = _pair(PseudoEuclideanNearestMean, data)
    exact.fit(data["X"], data[labels])
    approx.fit(data["X"], data[labels])
    de, da = exact.decision_function(data["Xt"]), approx.decision_function(data["Xt"])
    np.testing.assert_allclose(da, de, atol=1e-9 * np.abs(de).max())
    np.testing.assert_allclose(approx.mean_norms_, exact.mean_norms_, atol=1e-10)


@pytest.mark.parametrize("labels", ["y2", "y3"])
@pytest.mark.parametrize("feature_kernel", ["linear", "rbf"])
def test_similarity_space_with_every_point_a_landmark_is_exact(data, labels, feature_kernel):
    """The prototype form on all n objects IS the similarity space: libsvm on the same
    problem, decision values to its tolerance (tol=1e-8 here)."""
    exact, approx = _pair(SimilaritySpaceSVC, data, feature_kernel=feature_kernel, C=2.0,
                          tol=1e-8)
    approx.set_params(solver="libsvm")
    exact.fit(data["X"], data[labels])
    approx.fit(data["X"], data[labels])
    assert approx.solver_ == "libsvm" and exact.solver_ == "libsvm"
    if feature_kernel == "rbf":
        assert approx.gamma_ == pytest.approx(exact.gamma_, rel=1e-12)
    de, da = exact.decision_function(data["Xt"]), approx.decision_function(data["Xt"])
    np.testing.assert_allclose(da, de, atol=1e-6 * np.abs(de).max())
    np.testing.assert_array_equal(approx.predict(data["Xt"]), exact.predict(data["Xt"]))


@pytest.mark.parametrize("method", METHODS)
def test_precomputed_columns_and_landmark_block_give_the_named_kernels_model(data, method):
    """kernel="precomputed" with the columns K(objects, landmarks) and landmark_block=W:
    the same model as the named kernel on feature vectors (every point a landmark)."""
    from krein.registry import make_method

    y = data["y3"]
    named = make_method(method, kernel="sigmoid", kernel_params=SIG,
                        approximation=_full_rank())
    pre = make_method(method, kernel="precomputed", approximation=IndefiniteNystroem(
        kernel="precomputed", landmark_block=data["K"], rcond=1e-12))
    for est in (named, pre):
        if "solver" in est.get_params():
            est.set_params(solver="libsvm", tol=1e-8)
    named.fit(data["X"], y)
    pre.fit(data["K"], y)
    assert pre.n_features_in_ == N
    if hasattr(named, "decision_function") and method.startswith(("similarity", "pe-near")):
        dn, dp = named.decision_function(data["Xt"]), pre.decision_function(data["Kt"])
        np.testing.assert_allclose(dp, dn, atol=1e-6 * np.abs(dn).max())
    else:
        pn, pp = named.predict_proba(data["Xt"]), pre.predict_proba(data["Kt"])
        rows = np.flatnonzero(np.all(np.abs(pp - pn) < 1e-9, axis=1))
        assert rows.size > 0.8 * N_TEST     # the others: neighbours tied to round-off


# ---------------------------------------------------------------------------- low rank
def _low_rank(data, m=25):
    ny = IndefiniteNystroem(kernel="sigmoid", kernel_params=SIG, n_components=m,
                            random_state=0, rcond=1e-10)
    Psi = ny.fit_transform(data["X"])
    Pt = ny.transform(data["Xt"])
    s = ny.signs_
    return ny, (Psi * s) @ Psi.T, (Pt * s) @ Psi.T


@pytest.mark.parametrize("cls, kw", [(KernelKNeighborsClassifier, {"n_neighbors": 5}),
                                     (AffinityKNeighborsClassifier, {"n_neighbors": 5}),
                                     (PseudoEuclideanKNeighbors, {"n_neighbors": 3}),
                                     (PseudoEuclideanKNeighbors,
                                      {"n_neighbors": 3, "energy": 0.9})])
def test_low_rank_neighbours_are_the_exact_rule_on_the_dense_approximate_kernel(data, cls, kw):
    """At rank 25 the path equals the exact estimator run on the dense K_approx and its
    Nyström test rows (formed here, small n)."""
    ny, Ka, Kta = _low_rank(data)
    y = data["y3"]
    dense = cls(kernel="precomputed", **kw).fit(Ka, y)
    approx = cls(kernel="sigmoid", kernel_params=SIG, approximation=ny, **kw).fit(data["X"], y)
    if cls is PseudoEuclideanKNeighbors:
        scores = dense.squared_distances(Kta)
        np.testing.assert_allclose(approx.squared_distances(data["Xt"]), scores,
                                   atol=1e-8 * np.abs(scores).max())
        assert approx.signature_ == dense.signature_
    else:
        scores = np.diag(Ka)[None, :] - 2 * Kta
    rows = _untied_rows(scores, kw["n_neighbors"])
    assert rows.size > 0.8 * N_TEST
    np.testing.assert_array_equal(approx._nearest(data["Xt"][rows])[0],
                                  dense._nearest(Kta[rows])[0])
    np.testing.assert_allclose(approx.predict_proba(data["Xt"][rows]),
                               dense.predict_proba(Kta[rows]), atol=1e-9)


def test_low_rank_nearest_mean_is_the_exact_rule_on_the_dense_approximate_kernel(data):
    ny, Ka, Kta = _low_rank(data)
    dense = PseudoEuclideanNearestMean(kernel="precomputed").fit(Ka, data["y3"])
    approx = PseudoEuclideanNearestMean(kernel="sigmoid", kernel_params=SIG,
                                        approximation=ny).fit(data["X"], data["y3"])
    de = dense.decision_function(Kta)
    np.testing.assert_allclose(approx.decision_function(data["Xt"]), de,
                               atol=1e-9 * np.abs(de).max())


def test_low_rank_similarity_linear_is_scikit_learns_svm_on_the_landmark_columns(data):
    """The prototype form with m = 25 landmarks: scikit-learn's SVC on the columns
    K(objects, landmarks) (a precomputed linear kernel C C'), decision values to libsvm's
    tolerance; liblinear (the default) gives a primal objective within 1e-3 of it."""
    ny, _, _ = _low_rank(data)
    y = np.where(data["y2"] == 1, 1.0, -1.0)
    Z = ny.landmarks_
    C, Ct = (pairwise_kernel("sigmoid", A, Z, SIG) for A in (data["X"], data["Xt"]))
    ref = SVC(kernel="precomputed", C=2.0, tol=1e-8).fit(C @ C.T, y)
    est = SimilaritySpaceSVC(kernel="sigmoid", kernel_params=SIG, C=2.0, tol=1e-8,
                             solver="libsvm", approximation=ny).fit(data["X"], y)
    dr = ref.decision_function(Ct @ C.T)
    np.testing.assert_allclose(est.decision_function(data["Xt"]), dr,
                               atol=1e-6 * np.abs(dr).max())
    lin = SimilaritySpaceSVC(kernel="sigmoid", kernel_params=SIG, C=2.0, tol=1e-6,
                             approximation=ny).fit(data["X"], y)
    assert lin.solver_ == "liblinear" and lin.coef_.shape == (1, C.shape[1])
    primal = est.solution_.objective
    assert lin.solution_.objective == pytest.approx(primal, rel=1e-3)


def test_low_rank_similarity_rbf_is_an_svm_on_the_dense_nystroem_rbf_kernel(data):
    """The RBF path: scikit-learn's SVC on the dense Nyström RBF kernel
    rbf(C, W) pinv(rbf(W, W)) rbf(W, C), formed here; decision values to libsvm's
    tolerance."""
    ny, _, _ = _low_rank(data)
    y = data["y2"]
    Z = ny.landmarks_
    C, Ct, W = (pairwise_kernel("sigmoid", A, Z, SIG) for A in (data["X"], data["Xt"], Z))
    g = similarity_feature_gamma(C, 1.0)
    from sklearn.metrics.pairwise import rbf_kernel

    Rp = np.linalg.pinv(rbf_kernel(W, W, gamma=g), rcond=1e-12, hermitian=True)
    B, Bt = rbf_kernel(C, W, gamma=g), rbf_kernel(Ct, W, gamma=g)
    ref = SVC(kernel="precomputed", C=2.0, tol=1e-8).fit(B @ Rp @ B.T, y)
    est = SimilaritySpaceSVC(kernel="sigmoid", kernel_params=SIG, feature_kernel="rbf",
                             C=2.0, tol=1e-8, solver="libsvm", approximation=ny).fit(data["X"], y)
    assert est.gamma_ == pytest.approx(g, rel=1e-12)
    dr = ref.decision_function(Bt @ Rp @ B.T)
    np.testing.assert_allclose(est.decision_function(data["Xt"]), dr,
                               atol=1e-6 * np.abs(dr).max())


@pytest.mark.parametrize("block_rows", [1, 7, None])
def test_blockwise_neighbours_are_a_stable_argsort_ties_included(block_rows):
    """Integer features with repeated training rows: many exact ties, which go to the
    lower training index (the first k of a stable argsort), whatever the blocks."""
    rng = np.random.default_rng(1)
    B = rng.integers(-2, 3, size=(40, 4)).astype(float)
    B = np.vstack([B, B[:15]])                       # exact duplicates: tied distances
    A = rng.integers(-2, 3, size=(30, 4)).astype(float)
    signs = np.array([1.0, 1.0, -1.0, 1.0])
    for k in (1, 4, 9, B.shape[0]):
        nearest, inner = nearest_in_signature(A, B, signs, k, block_rows=block_rows)
        D = np.sum(B ** 2 * signs, axis=1)[None, :] - 2 * (A * signs) @ B.T
        ref = np.argsort(D, axis=1, kind="stable")[:, :k]
        np.testing.assert_array_equal(nearest, ref)
        np.testing.assert_allclose(inner, np.take_along_axis((A * signs) @ B.T, ref, axis=1))


# ---------------------------------------------------------------------------- no n x n
def test_no_n_by_n_array_at_n_6000():
    """n = 6000 training and 2000 test points, m = 40 landmarks: a training kernel would
    be 288 MB and the test rows 96 MB; fitting and predicting with each of the six paths
    under a 32 MiB budget (the neighbour search's blocks follow it) peaks below 40 MB of
    NumPy allocations (tracemalloc)."""
    from krein.registry import make_method

    rng = np.random.default_rng(2)
    X = rng.normal(size=(6000, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int) + (X[:, 0] > 1)
    Xt = rng.normal(size=(2000, 2))
    peaks = {}
    for method in METHODS:
        est = make_method(method, kernel="sigmoid", kernel_params=SIG,
                          approximation=IndefiniteNystroem(n_components=40, random_state=0))
        tracemalloc.start()
        try:
            with memory_budget(32 * 1024 ** 2):
                est.fit(X, y)
                pred = est.predict(Xt)
            peaks[method] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert pred.shape == (2000,)
    assert max(peaks.values()) < 40e6, {k: f"{v / 1e6:.0f} MB" for k, v in peaks.items()}


# ---------------------------------------------------------------------------- krein compare
def test_registry_entries_declare_the_paths():
    assert all(method_entry(m).approximate is not None
               and not isinstance(method_entry(m).approximate, str) for m in METHODS)
    for m in ("knn", "weighted-knn", "pe-knn", "pe-nearest-mean"):
        assert approximation_defaults(m) == ({}, [])
    params, notes = approximation_defaults("similarity-linear")
    assert params == {"solver": "ipm"}
    assert "prototype form" in notes[0] and "interior-point" in notes[0]
    params, notes = approximation_defaults("similarity-rbf")
    assert params == {"solver": "liblinear", "max_iter": 1000}
    assert "prototype form" in notes[0] and "max_iter=1000" in notes[1]


def test_krein_compare_runs_the_six_approximate_paths(tmp_path, capsys):
    out = tmp_path / "run"
    rc = main(["compare", "--dataset", "checkerboard", "--n-samples", "300", "--kernel",
               "sigmoid", "--approximation", "nystroem:40", "--methods", ",".join(METHODS),
               "--cv", "2", "--no-tune", "--n-jobs", "1", "--no-progress", "--out", str(out)])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    import pandas as pd

    summary = pd.read_csv(out / "summary.csv", keep_default_na=False).set_index("method")
    assert (summary.loc[list(METHODS[:4]), "status"] == "ok").all(), summary["note"].to_dict()
    # the linear similarity space by the interior-point method; the RBF one by liblinear,
    # whose passes are capped at 1000 in an approximated run: a warning when reached
    assert summary.loc[list(METHODS[4:]), "status"].isin(["ok", "warning"]).all()
    assert "interior-point" in summary.loc["similarity-linear", "note"]
    assert "max_iter=1000" in summary.loc["similarity-rbf", "note"]
    assert summary.loc[list(METHODS), "accuracy_mean"].between(0, 1).all()
    folds = pd.read_csv(out / "folds.csv", keep_default_na=False)
    assert (folds["error"] == "").all()
    used = folds.groupby("method")["solver_used"].agg(set).to_dict()
    assert used["similarity-linear"] == {"ipm"} and used["similarity-rbf"] == {"liblinear"}


def test_approximate_run_is_close_to_the_exact_run_with_many_landmarks():
    """600 points (400 per training fold), 200 landmarks: each approximate path within 5
    accuracy points of the exact run on the same folds."""
    kw = dict(dataset="checkerboard", n_samples=600, kernel="sigmoid", outer_folds=3,
              progress=False, tune=False, methods=list(METHODS))
    exact = run_comparison(**kw).summary.set_index("method")
    approx = run_comparison(approximation="nystroem:200", **kw).summary.set_index("method")
    gap = (exact["accuracy_mean"] - approx["accuracy_mean"]).loc[list(METHODS)]
    assert (gap.abs() < 0.05).all(), gap.to_dict()


def test_similarity_space_pairs_on_threads_give_the_serial_fit():
    """The prototype form's one-vs-one linear problems run on two threads with the serial
    fit's models."""
    import joblib

    from krein.approximation import IndefiniteNystroem
    from krein.estimators import SimilaritySpaceSVC

    rng = np.random.default_rng(1)
    X = rng.standard_normal((150, 4))
    y = np.digitize(X[:, 0] - 0.4 * X[:, 2], [-0.5, 0.5])       # three classes
    kw = dict(kernel="sigmoid", kernel_params={"a": 0.5, "r": -1.0}, solver="ipm",
              approximation=IndefiniteNystroem(n_components=30, random_state=0))
    serial = SimilaritySpaceSVC(**kw).fit(X, y)
    with joblib.parallel_config(n_jobs=2, prefer="threads"):
        threaded = SimilaritySpaceSVC(**kw).fit(X, y)
    np.testing.assert_array_equal(threaded.decision_function(X), serial.decision_function(X))
    np.testing.assert_array_equal(threaded.intercept_, serial.intercept_)
