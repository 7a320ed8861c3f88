"""Checks of the Haasdonk (2005) Figs. 1-4 reproduction (``experiments/haasdonk_fig*.py``).

Each script runs with ``--quick``; its numbers are then checked against what the
paper states and against computations that do not share the script's path:

* Prop. 3/7: libsvm's SVM at ``C = 1e10`` on the separable toy equals the
  projected-gradient CH solution at ``mu = 1`` scaled by ``2 / sum(alpha)``, and
  the two decision functions are positive multiples (two algorithms, one answer);
* the sign of ``w'Mw`` in each panel is the one the paper's text gives
  (Figs. 1a, 1b, 1d, 2a, 2c, 3 positive; 1c, 2b, 2d negative, 2d for every ``C``);
* Prop. 2: at a stationary SVM point only bounded support vectors are misclassified;
* Fig. 3: the two libsvm runs end at different strict local minima of CH-DU;
* Fig. 4: ``n = p + z + q`` with one zero eigenvalue, and the signature from the
  distance route of Prop. 1 (``-1/2 J D2 J``) equals the script's count.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from krein.experiment import import_script

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


@pytest.fixture(scope="module")
def fig13(tmp_path_factory, run_quick_script):
    return run_quick_script("haasdonk_fig13", tmp_path_factory.mktemp("fig13"))


@pytest.fixture(scope="module")
def fig4(tmp_path_factory, run_quick_script):
    return run_quick_script("haasdonk_fig4", tmp_path_factory.mktemp("fig4"))


# --------------------------------------------------------------------------- Figs. 1-3
def test_fig13_quick_draws_three_figures_with_the_papers_panels(fig13):
    df, figs = fig13
    assert figs == ["haasdonk_fig1.png", "haasdonk_fig2.png", "haasdonk_fig3.png"]
    assert sorted(df["panel"]) == ["1a", "1b", "1c", "1d", "2a", "2b", "2c", "2d", "3a", "3b"]


def test_fig13_wMw_signs_are_the_papers(fig13):
    df = fig13[0].set_index("panel")
    positive = {"1a", "1b", "1d", "2a", "2c", "3a", "3b"}
    for panel, row in df.iterrows():
        assert (row["wMw_ch"] > 0) == (panel in positive), panel
        if row["method"] == "svm":          # the SVM normal is a positive multiple of the CH one
            assert np.sign(row["wMw_svm"]) == np.sign(row["wMw_ch"])
    # Fig. 2d: negative class-mean distance, so no C gives w'Mw > 0 (haasdonk §5, §7.3)
    assert df.loc["2d", "dcm"] < 0
    sweep = json.loads(df.loc["2d", "wMw_by_C"])
    assert len(sweep) >= 8 and all(v < 0 for v in sweep.values())
    # Figs. 1c / 2b / 2c share a toy whose class means are at positive distance
    assert df.loc["1c", "dcm"] > 0 and df.loc["2c", "dcm"] > 0


def test_fig13_only_bounded_svs_are_misclassified_by_the_svm_and_1c_breaks_it(fig13):
    df = fig13[0].set_index("panel")
    for panel in ("2a", "2b", "2c", "2d", "3a", "3b", "1a", "1b", "1d"):
        assert df.loc[panel, "n_errors_non_sv"] == 0, panel      # Prop. 2 / Fig. 1 text
    assert df.loc["1c", "n_errors_non_sv"] > 0                    # "cannot be guaranteed"
    # Fig. 1c's CH solution has no SVM counterpart (Prop. 3, case 2 fails: rho <= 0)
    assert df.loc["1c", "prop3_to_svm"].startswith("none: rho")
    # Fig. 2a: C matched to mu = 0.1 (Prop. 3 case 1); the plane is parallel to the CH one
    # but shifted (bounded SVs, Prop. 3, case 3); Fig. 3 (hard margin, none bounded): identical
    assert df.loc["2a", "mu_ch"] == pytest.approx(0.1, rel=1e-6)
    assert df.loc["2a", "n_bounded"] > 0 and abs(df.loc["2a", "plane_offset"]) > 1e-3
    assert df.loc["3a", "n_bounded"] == 0 and abs(df.loc["3a", "plane_offset"]) < 1e-8
    # 2a / 2c: C chosen by Prop. 3, case 1's mu, so their CH points are those of 1b / 1d
    assert df.loc["2a", "wMw_ch"] == pytest.approx(df.loc["1b", "wMw_ch"], rel=1e-6)
    assert df.loc["2c", "mu_ch"] == pytest.approx(0.25, rel=1e-6)
    assert df.loc["2c", "wMw_ch"] == pytest.approx(df.loc["1d", "wMw_ch"], rel=1e-6)
    for panel, row in df.iterrows():       # every CH point (direct or by Prop. 3, case 1) is stationary
        assert row["hull_residual"] < 1e-6, panel


def test_fig3_two_orders_give_two_strict_local_minima(fig13):
    from krein.datasets import make_pe_local_optima, pseudo_euclidean_kernel
    from krein.formulations.hull import hull_local_minimality

    df = fig13[0].set_index("panel")
    a1 = np.asarray(json.loads(df.loc["3a", "alpha_bar"]))
    a2 = np.asarray(json.loads(df.loc["3b", "alpha_bar"]))
    assert np.max(np.abs(a1 - a2)) > 0.5                    # different optima
    X, y = make_pe_local_optima(1)
    K = pseudo_euclidean_kernel(X)
    for a in (a1, a2):
        assert hull_local_minimality(a, K, y, 1.0)["local_min"]
    assert df.loc["3a", "n_local_optima"] >= 2               # the multi-start finds both


def test_prop3_svm_at_huge_C_is_the_scaled_hull_solution():
    """Two algorithms (libsvm's SMO on SVM-DU, projected gradient on CH-DU), one answer."""
    from krein.datasets import make_pe_separable, pseudo_euclidean_kernel
    from krein.estimators.base import libsvm_binary
    from krein.formulations.hull import hull_plane
    from krein.solvers.hull import hull_multistart

    X, y = make_pe_separable(40, random_state=0)
    y = y.astype(float)
    K = pseudo_euclidean_kernel(X)
    u, b, _ = libsvm_binary(K, y, 1e10, tol=1e-10)
    alpha = y * u
    assert alpha.max() < 1e10 * 1e-6                     # hard margin: nothing at the bound
    sol, _ = hull_multistart(K, y, 1.0, n_starts=5, tol=1e-10, random_state=0)
    a_bar = sol.primal["alpha_bar"]
    np.testing.assert_allclose(2.0 * alpha / alpha.sum(), a_bar, atol=1e-6)
    coef, b_ch = hull_plane(a_bar, K, y)                 # g = (4 / sum alpha) f (Prop. 3, case 3)
    s = 4.0 / alpha.sum()
    np.testing.assert_allclose(coef, s * u, atol=1e-6 * np.abs(coef).max())
    assert b_ch == pytest.approx(s * b, abs=1e-6 * max(1.0, abs(b_ch)))
    assert u @ K @ u > 0                                  # Fig. 1a / 2a: w'Mw > 0


# --------------------------------------------------------------------------- Fig. 4
def test_fig4_quick_counts_fit_n_equals_p_plus_z_plus_q(fig4):
    df, figs = fig4
    assert figs == ["haasdonk_fig4.png"]
    assert set(df["panel"]) == {"a", "b"}
    assert (df["p"] + df["z"] + df["q"] == df["n_samples"]).all()
    assert (df["z"] == 1).all()
    assert (df["p"] == df["p_roundoff"]).all() and (df["q"] == df["q_roundoff"]).all()
    a, b = df[df["panel"] == "a"], df[df["panel"] == "b"]
    # (a) separable at C = 1e10: no bounded SV, no error, w'Mw > 0, finite hard margin
    assert (a["n_bounded"] == 0).all() and (a["n_train_errors"] == 0).all()
    assert (a["wMw"] > 0).all() and (a["n_bounded_huge_C"] == 0).all()
    # (b) only bounded SVs are misclassified (Prop. 2); C -> infinity keeps SVs at the bound
    assert (b["n_errors_non_sv"] == 0).all() and (b["n_errors_unbounded"] == 0).all()
    assert (b["n_bounded_huge_C"] > 0).all()
    assert (df["dcm"] > 0).all()


def test_fig4_signature_by_the_distance_route_matches():
    """Prop. 1 from the induced squared distances (-1/2 J D2 J) gives the script's counts."""
    from krein.geometry import pseudo_euclidean_embedding, squared_distances_from_kernel
    from krein.kernels import gaussian_kernel

    mod = import_script(EXPERIMENTS / "haasdonk_fig4.py")
    for panel, spec in mod.PANELS.items():
        X, y = mod.fig4_data(spec["layout"], spec["n_samples"], 0)
        assert X.shape == (spec["n_samples"], 2) and set(np.unique(y)) == {-1.0, 1.0}
        K = gaussian_kernel(X, gamma=spec["gamma"], metric="l1")
        # the L1-Gaussian by its definition, entry by entry
        i, j = 3, 11
        assert K[i, j] == pytest.approx(np.exp(-spec["gamma"] * np.sum(np.abs(X[i] - X[j])) ** 2))
        p, z, q, _ = mod.centered_counts(K, mod.ZERO_RTOL)
        emb = pseudo_euclidean_embedding(D2=squared_distances_from_kernel(K))
        assert (emb.p, emb.q) == (p, q) and p + q == spec["n_samples"] - 1
