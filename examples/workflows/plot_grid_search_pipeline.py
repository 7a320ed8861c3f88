"""
A scikit-learn pipeline with GridSearchCV, and nested cross-validation
======================================================================

Every krein estimator is a scikit-learn estimator: it clones, it takes ``set_params``,
it sits in a :class:`~sklearn.pipeline.Pipeline` and in
:class:`~sklearn.model_selection.GridSearchCV`. This example tunes the Krein-space SVM
:class:`krein.ESVC` with the sigmoid kernel ``tanh(a <x, z> + r)`` on the Sonar data
(208 sonar returns, 60 features), over ``C`` and the kernel's parameters -- which
decide how indefinite the kernel is -- and then estimates the accuracy of the whole
tuning procedure by nested cross-validation. Why nesting matters:
:doc:`/user_guide/comparing`.
"""

# %%
# The pipeline and the grid
# -------------------------
# The features are standardized inside the pipeline, so each fold's scaler sees
# only its training part. ``kernel_params`` is a dict; the grid lists the dicts to
# try.
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import (
    GridSearchCV,
    StratifiedKFold,
    cross_val_score,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from krein import ESVC
from krein.datasets import load

FAST = os.environ.get("KREIN_DOCS_FAST") == "1"
C_VALUES = [0.1, 1.0, 10.0] if FAST else [0.01, 0.1, 1.0, 10.0, 100.0]
SLOPES = [0.01, 0.1] if FAST else [0.005, 0.01, 0.05, 0.1, 0.5]

X, y = load("sonar")
print(
    f"Sonar: {X.shape[0]} objects, {X.shape[1]} features, classes "
    f"{np.unique(y)}"
)

pipe = make_pipeline(StandardScaler(), ESVC(kernel="sigmoid"))
grid = {
    "esvc__C": C_VALUES,
    "esvc__kernel_params": [{"a": a, "r": -1.0} for a in SLOPES],
}
inner = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
search = GridSearchCV(pipe, grid, cv=inner).fit(X, y)
best_C = search.best_params_["esvc__C"]
best_a = search.best_params_["esvc__kernel_params"]["a"]
print(f"best C = {best_C:g}, a = {best_a:g}")
print(
    f"best inner-CV accuracy {search.best_score_:.3f}\n"
    "(a maximum over the grid: biased upwards in expectation)"
)

# %%
# The grid as a heatmap
# ---------------------
scores = search.cv_results_["mean_test_score"].reshape(
    len(C_VALUES), len(SLOPES)
)
fig, ax = plt.subplots(figsize=(5.5, 4))
im = ax.imshow(scores, cmap="viridis", origin="lower")
ax.set_xticks(range(len(SLOPES)), [f"a = {a:g}" for a in SLOPES])
ax.set_yticks(range(len(C_VALUES)), [f"C = {c:g}" for c in C_VALUES])
for i in range(len(C_VALUES)):
    for j in range(len(SLOPES)):
        ax.text(
            j,
            i,
            f"{scores[i, j]:.2f}",
            ha="center",
            va="center",
            color="w",
        )
fig.colorbar(im, ax=ax, label="mean inner-CV accuracy")
ax.set_title("ESVC, sigmoid kernel, r = -1")
fig.tight_layout()
plt.show()

# %%
# Nested cross-validation
# -----------------------
# The best inner score is biased upwards: it is the maximum over the grid. An
# honest estimate tunes inside each outer training part and scores on the outer
# test part -- ``cross_val_score`` over the ``GridSearchCV`` object does exactly
# that. ``krein compare`` runs this protocol for every registered method.
outer = StratifiedKFold(
    n_splits=3 if FAST else 5, shuffle=True, random_state=1
)
nested = cross_val_score(search, X, y, cv=outer)
print(
    f"nested CV accuracy {nested.mean():.3f} +- {nested.std():.3f} "
    f"(outer folds: {np.round(nested, 3)})"
)
