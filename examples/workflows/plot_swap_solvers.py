"""
One formulation, several solvers, the same optimum
==================================================

krein separates *what* is optimized (a formulation in :mod:`krein.formulations`, a
CVXPY problem) from *who* optimizes it (:func:`krein.solve` with any solver CVXPY has
installed, or a custom loop). Every :class:`krein.Solution` carries a certificate
computed by krein from the returned point -- primal and dual residuals and the
duality gap -- so two solvers can be compared on the same footing and neither has to
be trusted on its word. Which solver for which problem: :doc:`/user_guide/solvers`.
"""

# %%
# The solvers installed here
# --------------------------
import os
import textwrap
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np

from krein import KSVC, LPSVC, SolverError, installed_solvers, solve
from krein.datasets import make_checkerboard
from krein.formulations import LPSVM, KSVMLeastSquares
from krein.kernels import sigmoid_kernel

FAST = os.environ.get("KREIN_DOCS_FAST") == "1"
N = 80 if FAST else 200

print(
    textwrap.fill(f"installed: {', '.join(installed_solvers())}", 68)
)
# Left out: mixed-integer variants, and HiGHS (prints a banner).
CANDIDATES = [
    s
    for s in installed_solvers()
    if s not in ("GLPK_MI", "ECOS_BB", "HIGHS", "SCIP", "CBC")
]

X, y = make_checkerboard(N, random_state=0)
X = (X - X.mean(axis=0)) / X.std(axis=0)
K = sigmoid_kernel(X, a=1.0, r=-0.95)  # indefinite

# %%
# The 1-norm LP-SVM with every solver
# -----------------------------------
# ``min ||c||_1 + C sum(xi)`` s.t. ``y_i (K_i c + b) >= 1 - xi_i``: a linear program
# that accepts an indefinite ``K`` as it is. A solver that does not take the
# problem class, or stops without an optimal status, raises
# :class:`krein.SolverError` (never a silent ``None``); we print it and go on.
problem = LPSVM(K, y, C=1.0)
rows = []
for solver in CANDIDATES:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            sol = solve(problem, solver=solver)
            seconds = time.perf_counter() - start
    except (SolverError, ValueError) as error:
        message = f"{solver} -> {type(error).__name__}: {error}"
        print(textwrap.fill(message[:200], 68))
        continue
    rows.append(
        (
            solver,
            sol.objective,
            sol.primal_residual,
            abs(sol.gap),
            seconds,
        )
    )

best = min(r[1] for r in rows)
print(
    f"{'solver':9s} {'objective':>14s} {'- best':>9s} "
    f"{'primal res.':>11s} "
    f"{'|gap|':>9s} {'seconds':>8s}"
)
for solver, objective, residual, gap, seconds in rows:
    print(
        f"{solver:9s} {objective:14.8f} {objective - best:9.1e} "
        f"{residual:11.1e} "
        f"{gap:9.1e} {seconds:8.3f}"
    )

# %%
# The objectives agree to within the solvers' tolerances; krein's own residual and
# gap say how far each point is from optimal, independently of the solver's status.
fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.8))
names = [r[0] for r in rows]
axes[0].barh(names, [max(r[1] - best, 1e-16) for r in rows])
axes[0].set_xscale("log")
axes[0].set_xlabel("objective - best objective")
axes[1].barh(names, [r[4] for r in rows])
axes[1].set_xlabel("seconds (setup + solve)")
fig.suptitle(f"LP-SVM, n = {N}, indefinite sigmoid kernel")
fig.tight_layout()

# %%
# At the estimator level
# ----------------------
# The estimators take the same names through their ``solver`` parameter.
# Two solvers, one model: the decision values agree to the solvers' accuracy.
f = {
    s: LPSVC(C=1.0, kernel="precomputed", solver=s)
    .fit(K, y)
    .decision_function(K)
    for s in ("CLARABEL", "ECOS")
    if s in installed_solvers()
}
if len(f) == 2:
    print(
        f"LPSVC: max |f_CLARABEL - f_ECOS| = "
        f"{np.abs(f['CLARABEL'] - f['ECOS']).max():.1e}"
    )

# %%
# A custom loop against CVXPY
# ---------------------------
# KSVM's least-squares stabilization problem (26) of Loosli et al. (2013) is solved
# by their active-set method (:class:`krein.KSVC`, ``solver="auto"``) and is also a
# CVXPY formulation (:class:`krein.formulations.KSVMLeastSquares`). The two are
# independent implementations of the same problem.
ksvc = KSVC(C=1.0, kernel="precomputed").fit(K, y)
print(
    f"KSVC ({ksvc.solver_}): objective {ksvc.objective_[0]:.10f}, "
    f"KKT residual {ksvc.kkt_residual_[0]:.1e}"
)
for solver in ("CLARABEL", "OSQP", "SCS"):
    if solver in installed_solvers():
        sol = solve(KSVMLeastSquares(K, y, C=1.0), solver=solver)
        print(
            f"CVXPY {solver:8s}: objective {sol.objective:.10f}, "
            f"KKT residual {sol.certificate['kkt_residual']:.1e}"
        )
plt.show()
