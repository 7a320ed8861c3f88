"""
Your own matrix from a file
===========================

A researcher's data often arrive as a matrix, not as feature vectors: alignment
scores, edit distances, human judgements. :func:`krein.load_kernel_file` reads such a
matrix (``.npy``, ``.npz``, ``.csv``, whitespace text or MATLAB ``.mat``) with a labels
file and returns the same :class:`krein.kernel_data.KernelData` as the bundled data
sets, ready for any estimator or for ``krein compare --kernel-file``.

This example writes two small files into a temporary directory -- a dissimilarity
matrix as CSV and its labels as text -- loads them, looks at the kernel that krein
derives from the dissimilarities, and cross-validates two classifiers on it. How to
read the spectrum: :doc:`/user_guide/spectrum`; which method to pick from it:
:doc:`/user_guide/choosing`.
"""

# %%
# Write the files
# ---------------
# The dissimilarities are city-block (L1) distances between points of two noisy
# spirals. L1 distances are not Euclidean distances, so the similarity that classical
# scaling makes of them, ``K = -1/2 J D^2 J`` with ``J = I - 11'/n``, is indefinite
# (Pekalska & Duin's dissimilarity representation).
import os
import tempfile
import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from scipy.spatial.distance import pdist, squareform
from sklearn.model_selection import StratifiedKFold, cross_val_score

from krein import ESVC, SpectrumSVC, load_kernel_file

FAST = os.environ.get("KREIN_DOCS_FAST") == "1"
N = 120 if FAST else 300

rng = np.random.default_rng(0)
t = rng.uniform(0.5, 3.0 * np.pi, N)
labels = np.where(np.arange(N) % 2 == 0, "spiral-a", "spiral-b")
sign = np.where(labels == "spiral-a", 1.0, -1.0)
points = np.column_stack([sign * t * np.cos(t), sign * t * np.sin(t)])
points += rng.normal(scale=0.4, size=points.shape)
D = squareform(pdist(points, metric="cityblock"))

folder = Path(tempfile.mkdtemp())
np.savetxt(folder / "distances.csv", D, delimiter=",", fmt="%.6f")
(folder / "labels.txt").write_text("\n".join(labels) + "\n")
print(sorted(p.name for p in folder.iterdir()))

# %%
# Load them
# ---------
# ``dissimilarity=True`` says the file holds distances (zero diagonal,
# non-negative); the default kernel for them is ``"dissimilarity-linear"``, the
# classical-scaling similarity above. Labels may be any strings. ``notes`` records
# anything done to the matrix on loading: a matrix asymmetric within a small
# tolerance is replaced by ``(D + D')/2``; beyond it krein refuses unless
# ``symmetrize=True``.
data = load_kernel_file(
    folder / "distances.csv",
    folder / "labels.txt",
    dissimilarity=True,
)
print(
    f"name {data.dataset!r}, kind {data.kind!r}, kernel "
    f"{data.kernel!r},\n"
    f"n = {data.y.size}, classes "
    f"{sorted(str(c) for c in set(data.y))}"
)
print("notes:", data.notes or "none")
summary = data.spectrum().summary()
print(
    f"signature (p, q, z) = ({summary['p']}, {summary['q']}, "
    f"{summary['z']}), r_neg {summary['r_neg']:.1f} %\n"
    f"least eigenvalue {summary['min_eigenvalue']:.1f}, "
    f"largest {summary['max_eigenvalue']:.1f}"
)

# %%
# Bad input is refused with a message that names the argument, e.g. a labels file
# of the wrong length:
(folder / "short.txt").write_text("\n".join(labels[:-3]) + "\n")
try:
    load_kernel_file(
        folder / "distances.csv",
        folder / "short.txt",
        dissimilarity=True,
    )
except ValueError as error:
    print(textwrap.fill(f"ValueError: {error}", 68))

# %%
# Cross-validate two estimators on the kernel
# -------------------------------------------
# ``data.K`` is the kernel on all objects. Centering it on all objects uses no
# labels, but for a strict protocol each fold recomputes it from the training
# distances (``data.blocks(train, test)``), as ``krein compare`` does; here we use the
# blocks for every fold.
cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
models = {
    "ESVC (Krein space)": ESVC(C=1.0, kernel="precomputed"),
    "SpectrumSVC clip": SpectrumSVC(
        correction="clip", C=1.0, kernel="precomputed"
    ),
}
for name, model in models.items():
    accuracy = []
    for train, test in cv.split(data.y, data.y):
        K_train, K_test = data.blocks(train, test)
        model.fit(K_train, data.y[train])
        accuracy.append(model.score(K_test, data.y[test]))
    print(
        f"{name:20s} accuracy {np.mean(accuracy):.3f} +- "
        f"{np.std(accuracy):.3f}"
    )

# sklearn's cross_val_score on the all-objects kernel, for comparison:
score = cross_val_score(
    ESVC(C=1.0, kernel="precomputed"), data.K, data.y, cv=cv
)
print(f"ESVC on the transductively centred K: {score.mean():.3f}")

# %%
# The data and the spectrum
# -------------------------
lam = data.spectrum().eigenvalues
fig, axes = plt.subplots(1, 2, figsize=(8.5, 4.4))
for label, marker in (("spiral-a", "o"), ("spiral-b", "^")):
    mask = labels == label
    axes[0].scatter(*points[mask].T, s=10, marker=marker, label=label)
axes[0].set_title(
    "the objects\n(the file holds only their L1 distances)"
)
axes[0].legend()
axes[0].set_aspect("equal")
axes[1].plot(np.sort(lam)[::-1], ".", ms=4)
axes[1].axhline(0.0, color="k", lw=0.6)
axes[1].set_yscale("symlog", linthresh=1.0)
axes[1].set_xlabel("index (decreasing)")
axes[1].set_ylabel("eigenvalue of K (symlog)")
axes[1].set_title(
    f"signature (p, q, z) = ({summary['p']}, {summary['q']}, "
    f"{summary['z']})"
)
fig.tight_layout()
plt.show()

# %%
# From the command line the same files run through every method:
# ``krein compare --kernel-file distances.csv --labels labels.txt --dissimilarity``.
