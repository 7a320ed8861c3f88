r"""
Stabilization, not minimization: ESVM and KSVM on the checkerboard
==================================================================

Loosli, Ong & Canu (2013) train an SVM with an indefinite kernel by looking for a
*stationary point* (a saddle) of the dual in a Krein space, not for a minimum. This
example draws their checkerboard experiment (their §6.2.2, Figs. 3-4): a 4 x 4 board,
the sigmoid kernel :math:`k(x, z) = \tanh(a \langle x, z\rangle + r)` with
:math:`a = 1`, :math:`r = -0.95`, and :math:`C = 100`, and sets four classifiers side by side:

* :class:`krein.ESVC` -- ESVM, their Algorithm 1: the SVM on the flipped kernel
  :math:`|K| = V|\Lambda|V^\top`, whose coefficients are mapped back to a stationary point of
  the dual on ``K``;
* :class:`krein.KSVC` -- KSVM, their Algorithm 2: the least-squares stabilization
  problem (26) solved by an active-set method;
* :class:`krein.DirectSVC` -- libsvm run directly on the indefinite ``K``: the dual is
  no longer concave, and libsvm stops at some point of a non-convex problem;
* :class:`krein.SpectrumSVC` with ``correction="clip"`` -- make ``K`` positive
  semi-definite first by setting its negative eigenvalues to zero.

The ideas are in the user guide, :doc:`/user_guide/krein_spaces` and
:doc:`/user_guide/corrections`.
"""

# %%
# The data and the kernel's spectrum
# ----------------------------------
# The board is standardized with the training mean and standard deviation (as in
# ``experiments/loosli_fig34.py``). A tanh kernel with these parameters is strongly
# indefinite: its least eigenvalue is of the order of ``-n/2``.
import os

import matplotlib.pyplot as plt
import numpy as np

from krein import ESVC, KSVC, DirectSVC, Spectrum, SpectrumSVC
from krein.datasets import make_checkerboard
from krein.kernels import sigmoid_kernel

FAST = os.environ.get("KREIN_DOCS_FAST") == "1"
N_TRAIN = 150 if FAST else 400
MESH = 80 if FAST else 160

X, y = make_checkerboard(N_TRAIN, random_state=0)
X_test, y_test = make_checkerboard(2000, random_state=1)
mean, std = X.mean(axis=0), X.std(axis=0)
X, X_test = (X - mean) / std, (X_test - mean) / std

kernel_params = {"a": 1.0, "r": -0.95}
spectrum = Spectrum.from_kernel(sigmoid_kernel(X, **kernel_params))
p, q, z = spectrum.signature
print(
    f"n = {N_TRAIN}: signature (p, q, z) = ({p}, {q}, {z}),\n"
    f"least eigenvalue {spectrum.min_eigenvalue:.1f}, "
    f"largest {spectrum.max_eigenvalue:.1f}"
)

# %%
# Four classifiers on the same kernel
# -----------------------------------
# Every estimator takes the kernel by name and its parameters; the test points are
# scored with the kernel rows ``k(x, X)`` of the training points.
common = {
    "C": 100.0,
    "kernel": "sigmoid",
    "kernel_params": kernel_params,
}
models = {
    "ESVM (ESVC)": ESVC(**common),
    "KSVM (KSVC)": KSVC(**common),
    "libsvm on K (DirectSVC)": DirectSVC(**common),
    "clip, then SVM (SpectrumSVC)": SpectrumSVC(
        correction="clip", **common
    ),
}
for name, model in models.items():
    model.fit(X, y)
    print(
        f"{name:30s} test accuracy {model.score(X_test, y_test):.3f}"
    )

# %%
# The decision boundaries
# -----------------------
# The black line is ``f(x) = 0``; the colour is the sign of ``f``. ESVM and KSVM follow
# the cells of the board; libsvm on the indefinite kernel does not (its accuracy is
# near chance). Clipping keeps the eigenvectors of the positive eigenvalues only; how
# much that costs depends on ``n`` (compare the accuracies above with those of the
# full-size run in ``experiments/loosli_fig34.py``).
grid = np.linspace(-2.0, 2.0, MESH)
g0, g1 = np.meshgrid(grid, grid)
mesh = np.column_stack([g0.ravel(), g1.ravel()])

fig, axes = plt.subplots(
    2, 2, figsize=(8, 8.4), sharex=True, sharey=True
)
for ax, (name, model) in zip(axes.ravel(), models.items()):
    f = model.decision_function(mesh).reshape(g0.shape)
    ax.contourf(
        g0,
        g1,
        np.sign(f),
        levels=[-2, 0, 2],
        colors=["#f4c7c3", "#c6dbef"],
    )
    ax.contour(g0, g1, f, levels=[0.0], colors="k", linewidths=1.2)
    ax.scatter(
        X[:, 0], X[:, 1], c=y, cmap="coolwarm", s=8, edgecolors="none"
    )
    ax.set_title(
        f"{name}\naccuracy {model.score(X_test, y_test):.2f}",
        fontsize=11,
    )
    ax.set_aspect("equal")
fig.suptitle(
    f"Checkerboard, n = {N_TRAIN}, sigmoid a = 1, r = -0.95, C = 100"
)
fig.tight_layout()
plt.show()

# %%
# What to take away
# -----------------
# The Krein-space methods keep the negative part of the spectrum and use it; the
# matrix repairs (here clip) change the kernel before solving, and then need a rule
# for the kernel rows of new points. The full
# experiment, with nine methods at 500 and 180 points, is
# ``experiments/loosli_fig34.py`` (its figures: ``figures/loosli_fig3.png`` and
# ``figures/loosli_fig4.png``).
