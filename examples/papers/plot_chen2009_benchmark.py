"""
The similarity benchmark of Chen et al. (2009): four matrices, a few methods
============================================================================

Chen, Garcia, Gupta, Rahimi & Cazzanti (2009) collected similarity matrices that are
not kernels: they come from people's judgements or from alignment scores, and nothing
makes them positive semi-definite. krein ships four of them
(:func:`krein.datasets.load_similarity`): ``aural-sonar`` (100 sonar echoes judged by
listeners), ``protein-similarity`` (213 proteins, 4 classes), ``voting`` (435
politicians' voting records) and ``yeast`` (200 proteins). Their protocol is 20
random stratified 80/20 splits.

This example looks at their spectra and runs a few of krein's registered methods
(:func:`krein.make_method`) with their **default parameters** on a few of those
splits. It is a first look, not the benchmark: the full protocol, with every method's
parameters chosen by inner cross-validation, is ``experiments/chen2009.py``
(results in ``experiments/results/chen2009.csv``). How to compare methods fairly:
:doc:`/user_guide/comparing`.
"""

# %%
# How indefinite are they?
# ------------------------
# Each matrix ``S`` is used as the kernel, ``K = S`` (``kernel="precomputed"``).
# The eigenvalues, divided by the largest, show how much of the spectrum is
# negative; ``r_neg`` is the share of ``sum |lambda|`` on negative eigenvalues
# (Munoz & de Diego's eq. 2).
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import (
    StratifiedShuffleSplit,
    cross_val_score,
)

from krein import Spectrum, make_method
from krein.datasets import load_similarity

FAST = os.environ.get("KREIN_DOCS_FAST") == "1"
# sphinx_gallery_thumbnail_number = 2
N_SPLITS = 3 if FAST else 10
METHODS = (
    ["svm", "clip", "esvm", "knn"]
    if FAST
    else ["svm", "clip", "flip", "esvm", "knn"]
)
DATASETS = ["aural-sonar", "protein-similarity", "voting", "yeast"]

data = {name: load_similarity(name) for name in DATASETS}

fig, ax = plt.subplots(figsize=(7, 3.6))
for name, (S, y) in data.items():
    spectrum = Spectrum.from_kernel(S)
    lam = spectrum.eigenvalues[::-1] / spectrum.max_eigenvalue
    ax.plot(
        np.linspace(0, 1, lam.size),
        lam,
        label=f"{name} (r_neg {spectrum.r_neg:.1f} %)",
    )
    print(
        f"{name:18s} n {y.size:3d}, {np.unique(y).size} classes, "
        f"(p, q, z) {spectrum.signature}, r_neg {spectrum.r_neg:.1f} %"
    )
ax.axhline(0.0, color="k", lw=0.6)
ax.set_xlabel("eigenvalue rank / n (decreasing)")
ax.set_ylabel("lambda / lambda_max")
ax.set_ylim(-0.15, 0.3)
ax.legend(fontsize=9)
ax.set_title(
    "Spectra of the four similarity matrices (zoom near zero)"
)
fig.tight_layout()

# %%
# A few methods on the same splits
# --------------------------------
# ``svm`` is libsvm directly on ``S``; ``clip`` and ``flip`` repair the spectrum
# first; ``esvm`` is the Krein-space SVM; ``knn`` is k-nearest neighbours in the
# distance that ``S`` induces. scikit-learn's ``cross_val_score`` slices a
# precomputed kernel by rows and columns (the estimators declare the ``pairwise``
# tag), so test rows are ``S(test, train)``. (The small build setting leaves
# ``flip`` out.)
cv = StratifiedShuffleSplit(
    n_splits=N_SPLITS, test_size=0.2, random_state=0
)
scores = {}
for name, (S, y) in data.items():
    for method in METHODS:
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore"
            )  # libsvm's iteration warnings on S
            acc = cross_val_score(
                make_method(method, kernel="precomputed"), S, y, cv=cv
            )
        scores[name, method] = acc
        print(
            f"{name:19s} {method:5s} accuracy {acc.mean():.3f} +- "
            f"{acc.std():.3f}"
        )

width = 0.8 / len(METHODS)
fig, ax = plt.subplots(figsize=(8.5, 4))
for j, method in enumerate(METHODS):
    means = [scores[name, method].mean() for name in DATASETS]
    stds = [scores[name, method].std() for name in DATASETS]
    ax.bar(
        np.arange(len(DATASETS))
        + (j - (len(METHODS) - 1) / 2) * width,
        means,
        width,
        yerr=stds,
        label=method,
        capsize=2,
    )
ax.set_xticks(np.arange(len(DATASETS)), DATASETS)
ax.set_ylabel(f"test accuracy ({N_SPLITS} splits)")
ax.set_ylim(0.4, 1.0)
ax.legend(ncol=len(METHODS), fontsize=9, loc="lower right")
ax.set_title("Default parameters, no tuning")
fig.tight_layout()
plt.show()

# %%
# With untuned ``C`` the ranking depends on the data set, and on ``protein-similarity``
# the methods differ most. Tuning changes the picture: run
# ``krein experiment run experiments/chen2009.py`` for the full protocol with
# significance tests.
