"""
Methods since the papers: TrIK-SVM, IKSVM-DC, least squares in a Krein space
============================================================================

Three formulations that came after the five papers, on the checkerboard of the
Loosli et al. example:

* **TrIK-SVM** (Loosli 2019): ESVM with the Bunch-Kaufman ``LDL'`` factorization of
  ``K`` in place of its eigendecomposition -- :class:`krein.ESVC` with
  ``decomposition="ldl"``. The inertia of ``D`` is the signature of ``K``
  (Sylvester's law; numerically, eigenvalues within :class:`krein.Spectrum`'s zero
  tolerance are counted as zeros by the eigendecomposition, while ``LDL'`` gives
  each pivot a sign, so the printed counts can differ by those), and flipping the negative blocks of ``D`` gives a different
  PSD kernel than flipping eigenvalues, hence a different model;
* **IKSVM-DC** (Xu et al. 2017): the primal squared-hinge SVM on the indefinite
  kernel, a difference of convex functions minimized by DCA --
  :class:`krein.DCSVC`;
* **Krein least squares** (Oglic & Gärtner 2018): squared loss over hypotheses of
  fixed Hilbert-space norm ``||f||^2 = alpha'|K|alpha = r^2``, solved to its *global*
  optimum through a secular equation -- :class:`krein.KreinLeastSquaresClassifier`,
  tuned by ``radius_squared``.

Where they sit among the other methods: :doc:`/user_guide/choosing`.
"""

# %%
# Fit and compare
# ---------------
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV

from krein import DCSVC, ESVC, KreinLeastSquaresClassifier
from krein.datasets import make_checkerboard

FAST = os.environ.get("KREIN_DOCS_FAST") == "1"
N = 150 if FAST else 300
MESH = 70 if FAST else 140
RADII = np.logspace(-1, 3, 5 if FAST else 9)


def board(n, seed):
    """A checkerboard on [0, 1]^2, standardized by the uniform law."""
    X, y = make_checkerboard(n, random_state=seed)
    return (X - 0.5) / np.sqrt(1 / 12), y


X, y = board(N, seed=0)
X_test, y_test = board(2000, seed=1)
kernel = {
    "kernel": "sigmoid",
    "kernel_params": {"a": 1.0, "r": -0.95},
}

search = GridSearchCV(
    KreinLeastSquaresClassifier(**kernel),
    {"radius_squared": RADII},
    cv=3,
).fit(X, y)
best_r2 = search.best_params_["radius_squared"]
models = {
    "ESVM (eigh)": ESVC(C=10.0, **kernel),
    "TrIK-SVM (ldl)": ESVC(C=10.0, decomposition="ldl", **kernel),
    "IKSVM-DC": DCSVC(C=10.0, random_state=0, **kernel),
    f"Krein LS, r^2 = {best_r2:g}": search.best_estimator_,
}
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    for name, model in models.items():
        if model is not search.best_estimator_:
            model.fit(X, y)
        print(
            f"{name:22s} test accuracy "
            f"{model.score(X_test, y_test):.3f}"
        )

trik = models["TrIK-SVM (ldl)"]
esvm_signature = models["ESVM (eigh)"].spectrum_.signature
print(
    f"TrIK-SVM: inertia of D {trik.signature_}\n"
    f"signature of K by eigh {esvm_signature}"
)
dc = models["IKSVM-DC"]
print(
    f"IKSVM-DC: {dc.n_iter_[0]} DCA iterations, stopped by "
    f"{dc.solution_.certificate['stop']!r},\n"
    f"relative stationarity residual {dc.stationarity_[0]:.2f}"
)

# %%
# ``"negative_objective"`` means DCA stopped at the last iterate with a
# non-negative objective: on a strongly indefinite kernel the squared-hinge
# objective is unbounded below, and the returned point is not a critical point
# (:class:`krein.DCSVC`'s docstring; the certificates example).
#
# The decision boundaries
# -----------------------
grid = np.linspace(-1.9, 1.9, MESH)
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
    ax.contour(g0, g1, f, levels=[0.0], colors="k", linewidths=1.0)
    ax.scatter(
        X[:, 0], X[:, 1], c=y, cmap="coolwarm", s=7, edgecolors="none"
    )
    ax.set_title(
        f"{name}\ntest accuracy {model.score(X_test, y_test):.2f}",
        fontsize=11,
    )
    ax.set_aspect("equal")
fig.tight_layout()

# %%
# The norm constraint of Krein least squares
# ------------------------------------------
# ``r^2`` plays the role of ``C``: a small radius forces a smooth, nearly constant
# hypothesis, a large one lets the squared loss interpolate. Each fit is a global
# optimum (``solution_.certificate``), so the curve reflects the model, not the
# optimizer.
test_accuracy = [
    KreinLeastSquaresClassifier(radius_squared=r2, **kernel)
    .fit(X, y)
    .score(X_test, y_test)
    for r2 in RADII
]
fig, ax = plt.subplots(figsize=(6.5, 3.6))
ax.semilogx(RADII, test_accuracy, "o-", label="test accuracy")
ax.semilogx(
    RADII,
    search.cv_results_["mean_test_score"],
    "s--",
    label="3-fold CV accuracy",
)
ax.axvline(search.best_params_["radius_squared"], color="k", lw=0.6)
ax.set_xlabel("radius_squared r^2")
ax.set_ylabel("accuracy")
ax.legend()
fig.tight_layout()
plt.show()
