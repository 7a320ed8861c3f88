"""
Probability estimates and ROC curves
====================================

The decision value ``f(x)`` of a kernel classifier ranks test points, which is all a
ROC curve and its area (AUC) need. Probabilities need more: with ``probability=True``
every krein classifier fits Platt's sigmoid ``P(y = 1 | f) = 1 / (1 + exp(A f + B))``
on decision values from an internal 5-fold cross-validation (as scikit-learn's
``SVC(probability=True)``), so ``predict_proba`` exists and the scores can be used in
scikit-learn's metrics and calibration tools.

Data: the Wisconsin diagnostic breast cancer set (WDBC, 569 objects, 30 features),
with the sigmoid kernel, which is indefinite on it. Which method to use when:
:doc:`/user_guide/choosing`.
"""

# %%
# Three classifiers with probabilities
# ------------------------------------
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.metrics import (
    RocCurveDisplay,
    brier_score_loss,
    roc_auc_score,
)
from sklearn.model_selection import train_test_split

from krein import ESVC, DirectSVC, IndefiniteSVC, Spectrum
from krein.datasets import load
from krein.kernels import sigmoid_kernel

FAST = os.environ.get("KREIN_DOCS_FAST") == "1"

X, y = load("wdbc", scale="standard")
X_train, X_test, y_train, y_test = train_test_split(
    X, y, train_size=150 if FAST else 300, stratify=y, random_state=0
)
common = {
    "kernel": "sigmoid",
    "kernel_params": {"a": 0.1, "r": -1.0},
    "probability": True,
}
spectrum = Spectrum.from_kernel(
    sigmoid_kernel(X_train, a=0.1, r=-1.0)
)
print(
    f"training kernel: signature (p, q, z) = {spectrum.signature}, "
    f"r_neg = {spectrum.r_neg:.1f} %"
)

models = {
    "ESVC": ESVC(C=1.0, **common),
    "DirectSVC (libsvm on K)": DirectSVC(C=1.0, **common),
    "IndefiniteSVC": IndefiniteSVC(C=1.0, rho=1.0, **common),
}
positive = np.unique(y)[1]
for name, model in models.items():
    model.fit(X_train, y_train)
    proba = model.predict_proba(X_test)[
        :, list(model.classes_).index(positive)
    ]
    auc = roc_auc_score(
        y_test == positive, model.decision_function(X_test)
    )
    print(
        f"{name:24s} accuracy {model.score(X_test, y_test):.3f}, "
        f"AUC {auc:.3f}, "
        f"Brier score "
        f"{brier_score_loss(y_test == positive, proba):.3f}"
    )

# %%
# ROC curves and calibration
# --------------------------
# Left: the ROC curve of each model's decision values. Right: the reliability
# diagram of its Platt probabilities (perfect calibration is the diagonal).
fig, axes = plt.subplots(1, 2, figsize=(8.5, 4.4))
for name, model in models.items():
    RocCurveDisplay.from_predictions(
        y_test == positive,
        model.decision_function(X_test),
        name=name,
        ax=axes[0],
    )
    proba = model.predict_proba(X_test)[
        :, list(model.classes_).index(positive)
    ]
    frac, mean = calibration_curve(
        y_test == positive, proba, n_bins=5
    )
    axes[1].plot(mean, frac, "o-", label=name)
axes[1].plot([0, 1], [0, 1], "k:", lw=1)
axes[1].set_xlabel("mean predicted probability")
axes[1].set_ylabel("fraction of positives")
axes[1].legend(fontsize=9)
axes[0].set_title("ROC on the test part")
axes[1].set_title("calibration of predict_proba")
fig.tight_layout()
plt.show()

# %%
# Platt scaling is fitted on cross-validated decision values, so ``predict_proba``
# and ``predict`` can disagree near ``P = 1/2``: ``predict`` uses the sign of ``f``.
