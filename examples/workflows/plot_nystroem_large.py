r"""
100 000 points: the indefinite Nyström approximation
====================================================

The exact Krein-space SVM needs the ``n x n`` kernel and its eigendecomposition:
:math:`O(n^2)` memory and :math:`O(n^3)` time, out of reach at :math:`n = 10^5` (the matrix alone
would take 80 GB). :class:`krein.IndefiniteNystroem` never forms it. From ``m``
landmarks it builds signed features :math:`\Psi` with :math:`K \approx \Psi\,\mathrm{diag}(s)\,\Psi^\top`, :math:`s` the
signs of the approximation's eigenvalues (Oglic & Gärtner 2019); given as the
``approximation`` of :class:`krein.ESVC`, the model becomes a linear one on the
features with the negative directions flipped, and ``solver="auto"`` picks liblinear.

This example trains on checkerboards of growing size with the sigmoid kernel of the
Loosli et al. example, and first checks the approximation against the exact ESVC
where the exact one is cheap. Background: :doc:`/user_guide/large_data`.
"""

# %%
# Check against the exact model at n = 1000
# -----------------------------------------
import os
import time

import matplotlib.pyplot as plt
import numpy as np

from krein import ESVC, IndefiniteNystroem
from krein.datasets import make_checkerboard

FAST = os.environ.get("KREIN_DOCS_FAST") == "1"
SIZES = (
    [2_000, 5_000, 20_000]
    if FAST
    else [2_000, 5_000, 20_000, 100_000]
)
KERNEL = {
    "kernel": "sigmoid",
    "kernel_params": {"a": 1.0, "r": -0.95},
}


def board(n, seed):
    """n points of a checkerboard on [0, 1]^2, standardized by the
    uniform law (mean 1/2, std sqrt(1/12)): one scale for all n."""
    X, y = make_checkerboard(n, random_state=seed)
    return (X - 0.5) / np.sqrt(1 / 12), y


X_test, y_test = board(5_000, seed=1)
X, y = board(1_000, seed=0)
nystroem = IndefiniteNystroem(
    n_components=100, random_state=0, **KERNEL
)
exact = ESVC(C=1.0, **KERNEL).fit(X, y)
approx = ESVC(C=1.0, approximation=nystroem, **KERNEL).fit(X, y)
agree = np.mean(exact.predict(X_test) == approx.predict(X_test))
print(
    f"n = 1000: exact ESVC accuracy "
    f"{exact.score(X_test, y_test):.3f}, "
    f"Nystroem ESVC ({approx.solver_}) "
    f"{approx.score(X_test, y_test):.3f}\n"
    f"the two predict the same class on {100 * agree:.1f} % of the "
    "test points"
)

# %%
# The approximation's spectrum
# ----------------------------
# ``n_components=100`` landmarks; the features keep the numerically nonzero
# eigenvalues of ``C W^+ C'`` (``C`` the kernel columns of the landmarks, ``W`` their
# block), both positive and negative: the approximation is itself indefinite.
lam = approx.approximation_.eigenvalues_
print(
    f"rank {approx.approximation_.n_components_}: {np.sum(lam > 0)} "
    "positive, "
    f"{np.sum(lam < 0)} negative eigenvalues"
)

# %%
# Growing n
# ---------
# Each size: landmarks, features, liblinear, and the test accuracy on the same
# 5000 test points. The time is the whole ``fit``.
accuracy, seconds = [], []
for n in SIZES:
    X, y = board(n, seed=0)
    start = time.perf_counter()
    model = ESVC(C=1.0, approximation=nystroem, **KERNEL).fit(X, y)
    seconds.append(time.perf_counter() - start)
    accuracy.append(model.score(X_test, y_test))
    print(
        f"n = {n:7d}: fit {seconds[-1]:6.2f} s, rank "
        f"{model.approximation_.n_components_:3d}, "
        f"test accuracy {accuracy[-1]:.3f}"
    )

# two panels a row, for the width of the page (the fourth place stays empty)
fig, axes = plt.subplots(2, 2, figsize=(8.5, 7))
axes = axes.ravel()
axes[3].axis("off")
axes[0].plot(np.sort(lam)[::-1], "o", ms=3)
axes[0].axhline(0.0, color="k", lw=0.6)
axes[0].set_yscale("symlog", linthresh=1.0)
axes[0].set_title("eigenvalues of the approximation, n = 1000")
axes[1].semilogx(SIZES, accuracy, "o-")
axes[1].set_xlabel("n (training points)")
axes[1].set_ylabel("test accuracy")
axes[2].loglog(SIZES, seconds, "o-")
axes[2].set_xlabel("n (training points)")
axes[2].set_ylabel("fit seconds")
fig.tight_layout()
plt.show()

# %%
# The features cost ``O(n m)`` kernel evaluations and memory (``m`` landmarks);
# the rest is liblinear's, whose iterations depend on ``C`` and on the data: larger
# ``C`` makes it iterate much longer on these features, and ``C = 1`` keeps the page
# quick to build. The accuracy goes on rising with the data.
