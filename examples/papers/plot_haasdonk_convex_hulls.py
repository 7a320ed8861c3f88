r"""
Haasdonk's geometry: closest points of convex hulls in pseudo-Euclidean space
=============================================================================

Haasdonk (2005) showed what an SVM does with an indefinite kernel: it computes the
closest points :math:`z_+` and :math:`z_-` of the two classes' (reduced) convex hulls in a
pseudo-Euclidean space :math:`\mathbb{R}^{(p,q)}`, where the squared "distance"
:math:`\|w\|^2_{pE} = w^\top M w` with :math:`M = \mathrm{diag}(I_p, -I_q)` can be
negative. The decision rule
is the plane through the midpoint orthogonal to :math:`w = z_+ - z_-`. The problem CH-DU
(his §4, eqs. (4)-(7)) is solved by :class:`krein.ConvexHullClassifier` with the
reduction ``mu`` (``mu = 1``: the full hulls).

To see the geometry we work directly in the plane ``R^(1,1)``: the points are their
own embedding, with the kernel ``k(x, z) = x1 z1 - x2 z2``
(:func:`krein.datasets.pseudo_euclidean_kernel`). The horizontal axis is the
positive ("real") direction, the vertical one the negative direction. Background:
:doc:`/user_guide/krein_spaces`.
"""

# %%
# Three situations of his Fig. 1
# -------------------------------
# (a) separable classes: the closest points of the hulls give ``w'Mw > 0`` and the
# rule separates the data; (b) overlapping classes with ``mu = 1``: the "closest"
# points found are at a *negative* squared distance; (c) the same data with a
# smaller ``mu``: the reduced hulls shrink towards the class means and ``w'Mw`` turns
# positive. The hull problem is not convex when ``K`` is indefinite, so
# :class:`~krein.ConvexHullClassifier` uses a convex solver where CH-DU happens to be
# convex and otherwise the best of ``n_starts`` local solutions.
import os

import matplotlib.pyplot as plt
import numpy as np
from scipy.spatial import ConvexHull

from krein import ConvexHullClassifier
from krein.datasets import (
    make_pe_overlapping,
    make_pe_separable,
    pseudo_euclidean_kernel,
)

FAST = os.environ.get("KREIN_DOCS_FAST") == "1"
N_STARTS = 5 if FAST else 20

panels = [
    (
        "(a) separable, mu = 1",
        make_pe_separable(20, random_state=0),
        1.0,
    ),
    (
        "(b) overlapping, mu = 1",
        make_pe_overlapping(30, random_state=0),
        1.0,
    ),
    (
        "(c) overlapping, mu = 0.25",
        make_pe_overlapping(30, random_state=0),
        0.25,
    ),
]

# for the width of the page: the flat panel (a) on a row of its own, (b) and (c) below
fig = plt.figure(figsize=(8.5, 7.4))
grid = fig.add_gridspec(2, 2, height_ratios=[1, 1.7])
axes = [fig.add_subplot(grid[0, :]), fig.add_subplot(grid[1, 0]),
        fig.add_subplot(grid[1, 1])]
for ax, (title, (X, y), mu) in zip(axes, panels):
    K = pseudo_euclidean_kernel(X)
    model = ConvexHullClassifier(
        mu=mu, kernel="precomputed", n_starts=N_STARTS, random_state=0
    ).fit(K, y)
    alpha_bar = model.alpha_bar_[0]
    # closest points: z+ = sum of alpha_bar_i x_i over class +1, z- too
    plus, minus = y == model.classes_[1], y == model.classes_[0]
    z_plus, z_minus = (
        alpha_bar[plus] @ X[plus],
        alpha_bar[minus] @ X[minus],
    )
    w_mw = model.w_norm_pe_[0]
    print(
        f"{title}: w'Mw = {w_mw:+.3f}, "
        f"training accuracy {model.score(K, y):.2f}\n"
        f"    (solver path {model.solver_[0]!r})"
    )

    lo, hi = X.min(axis=0) - 0.5, X.max(axis=0) + 0.5
    g0, g1 = np.meshgrid(
        np.linspace(lo[0], hi[0], 200), np.linspace(lo[1], hi[1], 200)
    )
    mesh = np.column_stack([g0.ravel(), g1.ravel()])
    f = model.decision_function(
        pseudo_euclidean_kernel(mesh, X)
    ).reshape(g0.shape)
    ax.contourf(
        g0,
        g1,
        np.sign(f),
        levels=[-2, 0, 2],
        colors=["#f4c7c3", "#c6dbef"],
    )
    ax.contour(g0, g1, f, levels=[0.0], colors="k", linewidths=1.2)
    for mask, colour in ((plus, "tab:blue"), (minus, "tab:red")):
        hull = ConvexHull(X[mask])
        ring = np.append(hull.vertices, hull.vertices[0])
        ax.plot(
            X[mask][ring, 0], X[mask][ring, 1], color=colour, lw=0.8
        )
        ax.scatter(X[mask, 0], X[mask, 1], color=colour, s=18)
    support = alpha_bar > 1e-6
    ax.scatter(
        X[support, 0],
        X[support, 1],
        facecolors="none",
        edgecolors="k",
        s=80,
        label="alpha_bar > 0",
    )
    ax.plot(*np.c_[z_minus, z_plus], "k--", lw=1)
    ax.scatter(
        *np.c_[z_plus, z_minus],
        marker="*",
        s=180,
        c=["tab:blue", "tab:red"],
        edgecolors="k",
        zorder=3,
        label="z+, z-",
    )
    ax.set_title(f"{title}\nw'Mw = {w_mw:+.2f}", fontsize=11)
    ax.set_xlabel("positive direction")
    ax.set_aspect("equal")
for ax in axes[:2]:
    ax.set_ylabel("negative direction")
axes[0].legend(loc="lower left", fontsize=9)
fig.tight_layout()
plt.show()

# %%
# Reading the figure
# ------------------
# In panel (b) the segment from ``z-`` to ``z+`` is steeper than 45 degrees: its
# negative component outweighs the positive one, so ``w'Mw < 0``. A negative value
# of ``w'Mw`` is one of Haasdonk's signs that a solution is unsuitable (his §7.4;
# :func:`krein.geometry.suitability_after` computes the criteria). The reduction in
# (c) pulls the closest points towards the class means, whose difference is mostly
# horizontal. The paper's Figs. 1-3 in full: ``experiments/haasdonk_fig13.py``.
