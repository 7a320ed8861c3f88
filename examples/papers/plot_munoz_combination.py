r"""
Munoz & de Diego: two PSD kernels, an indefinite combination, and a repair
==========================================================================

Munoz & de Diego (2006) start from two similarity matrices on the same objects, each
positive semi-definite, and combine them by the *pick-out* rule (their §4.1): for a
pair of the same class take the larger similarity, for a pair of different classes
the smaller one. The combination uses the labels and is in general **indefinite**.
Their §3.5 then repairs it with the *convex linear combination* (CLC, eq. 15): the
weights :math:`\beta` on the simplex such that :math:`\sum_m \beta_m K_m` is closest to the
pick-out kernel in Frobenius norm -- PSD by construction.

This example follows their artificial data set (§4.1): two Gaussian clouds, one
kernel per coordinate axis (:func:`krein.combinations.projection_kernels`). More on
corrections: :doc:`/user_guide/corrections`; on ``r_mm`` and ``r_neg``:
:doc:`/user_guide/spectrum`.
"""

# %%
# Two kernels and their pick-out combination
# ------------------------------------------
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split

from krein import (
    ConformalLinearCombination,
    CorrectedKernelSVC,
    Spectrum,
    SpectrumCorrection,
)
from krein.combinations import (
    pick_out,
    pick_out_rows,
    projection_kernels,
    stack_kernels,
)
from krein.datasets import make_munoz_artificial

FAST = os.environ.get("KREIN_DOCS_FAST") == "1"
# sphinx_gallery_thumbnail_number = 2
N = 200 if FAST else 400

X, y = make_munoz_artificial(N, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, train_size=0.75, stratify=y, random_state=0
)
base = projection_kernels(
    X_train
)  # (n, n, 2): one linear kernel per axis
K_star = pick_out(base, y_train)  # the pick-out kernel, (n, n)

for name, K in (
    ("K_1 (axis 1)", base[..., 0]),
    ("K_2 (axis 2)", base[..., 1]),
    ("pick-out K*", K_star),
):
    s = Spectrum.from_kernel(K)
    print(
        f"{name:13s} (p, q, z) = {str(s.signature):13s} "
        f"r_mm {s.r_mm:5.2f} %  r_neg {s.r_neg:5.2f} %"
    )

# %%
# The spectrum of the pick-out kernel
# -----------------------------------
# As in their Fig. 1, a few large positive eigenvalues carry the structure; many
# eigenvalues are negative but small (``r_neg`` above is the share of ``sum |lambda|``
# they hold, eq. 2).
eigenvalues = np.linalg.eigvalsh(K_star)[::-1]
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.plot(np.arange(1, eigenvalues.size + 1), eigenvalues, ".", ms=4)
ax.axhline(0.0, color="k", lw=0.6)
ax.set_xlabel("index (decreasing)")
ax.set_ylabel("eigenvalue of K*")
ax.set_title(f"Pick-out kernel on {y_train.size} training points")
fig.tight_layout()

# %%
# The convex linear combination closest to K*
# -------------------------------------------
# :class:`krein.ConformalLinearCombination` takes a *stack* ``(n, n, 1 + M)``: slice
# 0 is the kernel to approximate, the others are the PSD base kernels.
stack = stack_kernels(K_star, base)
clc = ConformalLinearCombination().fit(stack)
print(
    f"beta = {np.round(clc.weights_, 4)} (solver {clc.solver_!r}, "
    f"optimality gap {clc.gap_:.1e})\n"
    f"||K* - sum beta_m K_m||_F / ||K*||_F = "
    f"{clc.relative_error_:.3f}"
)

# %%
# An SVM on the repaired kernel
# -----------------------------
# The test rows of the pick-out kernel need the test labels, which are unknown; the
# ``"mean"`` rule of :func:`krein.combinations.pick_out_rows` averages over the
# possible labels (for two kernels and two classes this is the average kernel). We
# compare CLC with clipping the negative eigenvalues of ``K*``.
base_rows = projection_kernels(X_test, X_train)
stack_rows = stack_kernels(
    pick_out_rows(base_rows, y_train), base_rows
)

clc_svm = CorrectedKernelSVC(
    correction=ConformalLinearCombination(),
    C=1.0,
    kernel="precomputed",
).fit(stack, y_train)
clip_svm = CorrectedKernelSVC(
    correction=SpectrumCorrection(correction="clip"),
    C=1.0,
    kernel="precomputed",
).fit(K_star, y_train)
print(
    f"test accuracy: CLC {clc_svm.score(stack_rows, y_test):.3f}, "
    f"clip {clip_svm.score(stack_rows[..., 0], y_test):.3f}"
)

fig, axes = plt.subplots(1, 3, figsize=(8.5, 3.1))
K_clc = clc.transform(stack)
vmax = np.abs(K_star).max()
order = np.argsort(y_train, kind="stable")
for ax, (title, K) in zip(
    axes,
    (
        ("K_1", base[..., 0]),
        ("pick-out K*", K_star),
        ("CLC: sum beta_m K_m", K_clc),
    ),
):
    im = ax.imshow(
        K[np.ix_(order, order)], cmap="RdBu_r", vmin=-vmax, vmax=vmax
    )
    ax.set_title(title)
    ax.set_xticks([])
    ax.set_yticks([])
fig.colorbar(im, ax=axes, shrink=0.8)
plt.show()

# %%
# The heatmaps sort the points by class. Munoz & de Diego's Table 1 compares twelve
# corrections on this data; the reproduction is ``experiments/munoz_table1.py``.
