r"""
Where negative eigenvalues come from
====================================

A kernel matrix ``K`` is positive semi-definite (PSD) exactly when it is a Gram matrix
of vectors in a Hilbert space; an SVM's dual is then concave and everything is
classical. Three common ways to lose that, each measured here on the Sonar data by
the *signature* ``(p, q, z)`` (counts of positive, negative and zero eigenvalues) and
by Munoz & de Diego's eq. (2) measure ``r_neg``, the share of ``sum |lambda|`` held by
the negative eigenvalues (:class:`krein.Spectrum`):

1. a function that is not a positive definite kernel, such as the sigmoid
   :math:`\tanh(a \langle x, z\rangle + r)`, which is not positive definite in
   general;
2. a valid construction applied to the wrong distance: the Gaussian
   :math:`\exp(-\gamma\, d(x, z)^2)` is PSD for the Euclidean ``d`` but not, in general, for
   the city-block (L1) distance (Haasdonk 2005, Fig. 4);
3. a dissimilarity that is not Euclidean, turned into a similarity by classical
   scaling :math:`K = -\tfrac12 J D^{(2)} J`: PSD exactly when ``D`` is a Euclidean distance
   matrix (Schoenberg; Pekalska & Duin).

The user guide's :doc:`/user_guide/spectrum` explains the measures.
"""

# %%
# The sigmoid kernel over its two parameters
# ------------------------------------------
import os

import matplotlib.pyplot as plt
import numpy as np
from scipy.spatial.distance import pdist, squareform

from krein import Spectrum
from krein.datasets import load
from krein.kernels import (
    centering_matrix,
    gaussian_kernel,
    sigmoid_kernel,
)

FAST = os.environ.get("KREIN_DOCS_FAST") == "1"
STEPS = 7 if FAST else 15

X, y = load("sonar", scale="standard")
slopes = np.logspace(-3, 0, STEPS)
offsets = np.linspace(-2.0, 2.0, STEPS)
r_neg = np.array(
    [
        [
            Spectrum.from_kernel(sigmoid_kernel(X, a=a, r=r)).r_neg
            for a in slopes
        ]
        for r in offsets
    ]
)
print(
    f"sigmoid kernel: r_neg from {r_neg.min():.2f} % to "
    f"{r_neg.max():.2f} "
    "% over the grid"
)

# %%
# The Gaussian kernel on L2 and on L1 distances
# ---------------------------------------------
gammas = np.logspace(-5, -1, STEPS)
r_neg_l1 = [
    Spectrum.from_kernel(
        gaussian_kernel(X, gamma=g, metric="l1")
    ).r_neg
    for g in gammas
]
r_neg_l2 = [
    Spectrum.from_kernel(
        gaussian_kernel(X, gamma=g, metric="l2")
    ).r_neg
    for g in gammas
]
print(
    f"Gaussian, L2 distance: largest r_neg {abs(max(r_neg_l2)):.2f} %"
)
print(f"Gaussian, L1 distance: largest r_neg {max(r_neg_l1):.2f} %")

# %%
# Classical scaling of Minkowski distances
# ----------------------------------------
# ``d_p(x, z) = (sum_j |x_j - z_j|^p)^(1/p)``: Euclidean for ``p = 2`` only.
J = centering_matrix(X.shape[0])
minkowski = {}
for p in (1.0, 1.5, 2.0, 3.0, 6.0):
    D = squareform(pdist(X, metric="minkowski", p=p))
    spectrum = Spectrum.from_kernel(-0.5 * J @ (D**2) @ J)
    minkowski[p] = spectrum
    print(
        f"Minkowski p = {p:3.1f}: signature {spectrum.signature}, "
        "r_neg = "
        f"{spectrum.r_neg:.2f} %"
    )

# %%
# The three pictures
# ------------------
# two panels a row, for the width of the page (the fourth place stays empty)
fig, axes = plt.subplots(2, 2, figsize=(8.5, 7.6))
axes = axes.ravel()
axes[3].axis("off")
im = axes[0].pcolormesh(
    slopes, offsets, r_neg, shading="nearest", cmap="magma"
)
axes[0].set_xscale("log")
axes[0].set_xlabel("slope a")
axes[0].set_ylabel("offset r")
axes[0].set_title("sigmoid tanh(a<x,z> + r): r_neg (%)")
fig.colorbar(im, ax=axes[0])
axes[1].semilogx(gammas, r_neg_l1, "o-", label="L1 distance")
axes[1].semilogx(gammas, r_neg_l2, "s-", label="L2 distance")
axes[1].set_xlabel("gamma")
axes[1].set_ylabel("r_neg (%)")
axes[1].set_title("Gaussian exp(-gamma d^2)")
axes[1].legend()
for p, spectrum in minkowski.items():
    lam = spectrum.eigenvalues[::-1] / spectrum.max_eigenvalue
    axes[2].plot(lam[:80], label=f"p = {p:g}")
axes[2].axhline(0.0, color="k", lw=0.6)
axes[2].set_xlabel("index (decreasing), first 80 of 208")
axes[2].set_ylabel("lambda / lambda_max")
axes[2].set_title("classical scaling of Minkowski distances")
axes[2].legend(fontsize=9)
fig.tight_layout()
plt.show()

# %%
# ``r_neg`` of the Euclidean cases (Gaussian on L2, Minkowski ``p = 2``) is zero:
# their negative eigenvalues, if any, are within :class:`~krein.Spectrum`'s
# numerical-zero tolerance; every other construction has negative eigenvalues, and how much
# depends on the parameters as much as on the construction. The spectrum is a
# property of the matrix you train on, so measure it before choosing a method
# (``krein diagnose`` prints these numbers for a data set or a file).
