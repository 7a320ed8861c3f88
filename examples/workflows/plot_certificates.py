"""
Certificates and convergence: how far is a fitted model from optimal?
=====================================================================

With an indefinite kernel the training problems are non-convex or solved by custom
loops, and "the solver returned" says little. Every krein estimator therefore keeps,
for each binary problem, a :class:`krein.Solution` (``solution_``, or ``solutions_``
for one-vs-one) whose ``certificate`` is recomputed by krein from the returned point,
and the iterative ones keep a per-iteration ``trace_`` (a pandas DataFrame). What the
certificate certifies depends on the method -- ``certificate_kind`` names it:

* a KKT residual of a convex problem (KSVM's problem (26), the SVM on a flipped or
  clipped kernel): zero at the optimum;
* a certified duality gap (IndefiniteSVM, see the Luss & d'Aspremont example);
* a global-optimality certificate of a non-convex problem that is solvable exactly
  (least squares in a Krein space, a trust-region problem);
* for a local method on a non-convex objective (IKSVM-DC), a stationarity residual
  and the reason it stopped.

The same kernel for all: the checkerboard with the sigmoid kernel. Which method
certifies what: :doc:`/user_guide/choosing`.
"""

# %%
# Fit four models
# ---------------
import os

import matplotlib.pyplot as plt
import numpy as np

from krein import DCSVC, ESVC, KSVC, KreinLeastSquaresClassifier
from krein.datasets import make_checkerboard

FAST = os.environ.get("KREIN_DOCS_FAST") == "1"
N = 120 if FAST else 300

X, y = make_checkerboard(N, random_state=0)
X = (X - X.mean(axis=0)) / X.std(axis=0)
common = {
    "kernel": "sigmoid",
    "kernel_params": {"a": 1.0, "r": -0.95},
}
models = {
    "ESVC": ESVC(C=10.0, **common),
    "KSVC": KSVC(C=10.0, **common),
    "DCSVC": DCSVC(C=10.0, random_state=0, **common),
    "KreinLeastSquaresClassifier": KreinLeastSquaresClassifier(
        **common
    ),
}
for name, model in models.items():
    model.fit(X, y)
    sol = model.solution_
    scalars = {
        k: v
        for k, v in sol.certificate.items()
        if isinstance(v, (float, np.floating))
        and k
        in (
            "residual",
            "kkt_residual",
            "grad_norm",
            "gap",
            "stationarity",
        )
    }
    text = ", ".join(f"{k} {v:.1e}" for k, v in scalars.items())
    print(
        f"{name}: solver {sol.solver!r}, status {sol.status!r}\n"
        f"    certificate {sol.certificate_kind!r}:\n        {text}"
    )

# %%
# ESVC's certificate is the stationarity residual of the SVM dual on the flipped
# kernel at libsvm's point: small, at the level of libsvm's stopping tolerance
# (``tol = 1e-3`` by default; lower it for a tighter point). KSVC's is the KKT
# residual of problem (26) recomputed from scratch, and the least-squares
# classifier's is the residual of its optimality conditions, which for this
# trust-region-like problem certify a *global* optimum.
#
# IKSVM-DC is different. Its objective ``F`` is unbounded below on a strongly
# indefinite kernel, and DCA stops at the last iterate with ``F >= 0`` (Xu et al.'s
# guard): the certificate's ``stop`` entry says so, and the stationarity residual
# says the point is not a critical point.
dc = models["DCSVC"]
print(
    f"DCSVC stopped by {dc.solution_.certificate['stop']!r} after "
    f"{dc.n_iter_[0]} iterations;\n"
    f"relative stationarity residual {dc.stationarity_[0]:.2f}"
)

# %%
# The traces
# ----------
# KSVC's active set adds or removes one index per iteration; its objective
# ``||G alpha - 1||^2`` and KKT residual are recorded each time. DCA's objective
# never increases (Armijo steps).
ksvm_trace = models["KSVC"].trace_
dc_trace = dc.trace_
# two panels a row, for the width of the page (the fourth place stays empty)
fig, axes = plt.subplots(2, 2, figsize=(8.5, 6.6))
axes = axes.ravel()
axes[3].axis("off")
axes[0].plot(ksvm_trace["iter"], ksvm_trace["objective"])
axes[0].set_title("KSVC: objective of (26)")
axes[1].semilogy(
    ksvm_trace["iter"], ksvm_trace["kkt_residual"].clip(lower=1e-16)
)
axes[1].set_title("KSVC: KKT residual")
axes[2].plot(dc_trace["iter"], dc_trace["objective"], "o-", ms=3)
axes[2].set_title("DCSVC: objective F")
for ax in axes[:3]:
    ax.set_xlabel("iteration")
fig.tight_layout()
plt.show()

# %%
# Independent checks
# ------------------
# A certificate is computed from the point, not taken from the solver. A second,
# independent check is a second algorithm: the swapping-solvers example solves
# KSVM's problem (26) with CVXPY and compares the optimum with the active set; the
# IndefiniteSVM example runs three algorithms to the same certified value.
