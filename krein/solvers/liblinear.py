"""liblinear (scikit-learn's LinearSVC) as a krein solver: the C-SVM on explicit features.

``LinearSVC(loss="hinge", dual=True)`` is liblinear's dual coordinate descent (Hsieh et
al. 2008), which scales to millions of points.  liblinear regularizes the intercept: it
appends a bias column ``s`` to the features, ``s = max_i ||phi_i||`` here, so that the
bias is penalized at the scale of the features.  liblinear does not return its dual
point, so the certificate is the primal objective only.
"""

from __future__ import annotations

import time

import numpy as np

from .core import Solution

__all__ = ["liblinear_solve", "LIBLINEAR_NO_LIMIT"]

#: liblinear iteration limit standing for ``max_iter=-1`` (no limit).
LIBLINEAR_NO_LIMIT = 1_000_000


def liblinear_solve(Phi, y, C, tol=1e-3, max_iter=-1):
    """Train the linear C-SVM (hinge loss) on features ``Phi`` with liblinear.

    Parameters
    ----------
    Phi : ndarray of shape (n, r)
        Features.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float > 0 or ndarray of shape (n,)
        Box bound, or one bound per sample (``C = 1`` with ``sample_weight = C_i``).
    tol : float
        liblinear stopping tolerance.
    max_iter : int
        Iteration limit, -1 for none (:data:`LIBLINEAR_NO_LIMIT`).

    Returns
    -------
    w : ndarray of shape (r,)
        Weight, ``f(x) = phi(x) w + b``.
    b : float
        Intercept.
    solution : krein.solvers.Solution
        ``solver="liblinear"``, status ``"converged"`` or ``"max_iter"``, ``objective``
        the primal ``1/2 ||w||^2 + sum_i C_i max(0, 1 - y_i f_i)``, ``primal``
        ``{"w"}``, ``intercept`` ``b``; no dual point, so no certificate kind.
    """
    from sklearn.svm import LinearSVC

    y = np.asarray(y, dtype=float)
    per_sample = np.ndim(C) != 0
    t0 = time.perf_counter()
    scale = float(np.sqrt(np.max(np.einsum("ij,ij->i", Phi, Phi), initial=0.0)))
    svc = LinearSVC(loss="hinge", dual=True, C=1.0 if per_sample else float(C), tol=tol,
                    max_iter=LIBLINEAR_NO_LIMIT if max_iter == -1 else int(max_iter),
                    intercept_scaling=max(scale, 1e-12), random_state=0)
    svc.fit(Phi, y, sample_weight=np.asarray(C, dtype=float) if per_sample else None)
    # classes_ = [-1, 1]: the decision is positive for +1
    w = np.asarray(svc.coef_[0], dtype=float)
    b = float(svc.intercept_[0])
    n_iter = int(np.max(svc.n_iter_))
    seconds = time.perf_counter() - t0
    status = "max_iter" if max_iter != -1 and n_iter >= max_iter else "converged"
    P = 0.5 * float(w @ w) + float(np.sum(C * np.maximum(0.0, 1.0 - y * (Phi @ w + b))))
    sol = Solution(solver="liblinear", status=status, objective=P, primal={"w": w},
                   dual={"intercept": b}, setup_time=0.0, solve_time=seconds,
                   iterations=n_iter, primal_residual=float("nan"),
                   dual_residual=float("nan"), gap=float("nan"),
                   certificate={"objective": P}, intercept=b)
    return w, b, sol
