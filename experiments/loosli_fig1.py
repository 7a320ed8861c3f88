"""Loosli et al. (2013) Fig. 1: stabilization versus minimization on two points.

Loosli, Ong & Canu, "Learning SVM in Krein spaces", §3.3, Fig. 1: the SVM dual
objective for two training points and the tanh kernel, with the solution of a
standard C-SVM (libsvm, "minimization") and of ESVM ("stabilization"), and the
decision boundary of each.  The paper gives neither the points, the kernel
parameters nor ``C``; we choose them so that the 2 x 2 kernel is indefinite
and the two solutions differ:

* ``x1 = (1, 0.3)`` with ``y1 = +1``, ``x2 = (1.6, 1.2)`` with ``y2 = -1``;
* ``k(x, z) = tanh(<x, z>)`` (sigmoid, ``a = 1``, ``r = 0``): eigenvalues
  about -0.068 and 1.86, and ``y'Ky < 0``, so the dual is convex along the
  line ``y'alpha = 0`` and libsvm's stationary point sits on the box corner
  ``alpha = (C, C)``;
* ``C = 20`` (the flipped SVM of ESVM is then unconstrained by the box).

The landscape is the dual objective ``J(alpha) = 1'alpha - alpha'YKYalpha / 2``
on the plane of ``(alpha_1, alpha_2)``: a saddle.  Marked: libsvm's
``alpha`` (:class:`sklearn.svm.SVC` with ``kernel="precomputed"``, checked
against :class:`krein.DirectSVC`), ESVM's Krein-space coefficients as
``alpha = Y c`` (:class:`krein.ESVC`), the unconstrained stationary point
``(YKY)^-1 1`` (the saddle; ESVM without bias gives exactly this one) and the
stationary point on the bias line ``y'alpha = 0`` (KKT system of the Krein dual
with ``b``).  With a bias ESVM's point is *not* the stationary point on that
line: Algorithm 1 imposes the equality constraint on the flipped coefficients
``c~`` (``1'c~ = 0``), not on ``c = V S V' c~``; both interpolate the two
points (``f(x_i) = y_i``).  The cell records these numbers; the figure
(``loosli_fig1.png``) is drawn from them.

``--quick``: the same single cell (it takes milliseconds).
"""

from krein.experiment import Experiment, save_png

X_TRAIN = [[1.0, 0.3], [1.6, 1.2]]
Y_TRAIN = [1, -1]


def fig1_cell(params):
    """ESVM and libsvm on the two points; the dual's stationary points."""
    import json

    import numpy as np
    from sklearn.svm import SVC

    from krein import DirectSVC, ESVC
    from krein.kernels import sigmoid_kernel

    X = np.asarray(params["X"], dtype=float)
    y = np.asarray(params["y"], dtype=float)
    C = float(params["C"])
    K = sigmoid_kernel(X, a=params["a"], r=params["r"])
    Y = np.diag(y)
    Q = Y @ K @ Y
    esvm = ESVC(C=C, kernel="precomputed").fit(K, y)
    c = np.zeros(2)
    c[esvm.support_] = esvm.dual_coef_[0]
    svc = SVC(C=C, kernel="precomputed", tol=1e-8).fit(K, y)
    # sklearn orders classes_ = [-1, 1] and its decision is for class +1: y_i alpha_i
    u_svc = np.zeros(2)
    u_svc[svc.support_] = svc.dual_coef_[0]
    direct = DirectSVC(C=C, kernel="precomputed", tol=1e-8).fit(K, y)
    u_dir = np.zeros(2)
    u_dir[direct.support_] = direct.dual_coef_[0]
    saddle = np.linalg.solve(Q, np.ones(2))
    A = np.block([[Q, y[:, None]], [y[None, :], np.zeros((1, 1))]])
    kkt = np.linalg.solve(A, np.array([1.0, 1.0, 0.0]))
    lam = np.linalg.eigvalsh(K)
    f_esvm = K @ c + esvm.intercept_[0]
    f_svc = svc.decision_function(K)
    return {"eigenvalues": json.dumps(lam.tolist()),
            "min_eigenvalue": float(lam[0]),
            "yKy": float(y @ K @ y),
            "esvm_c": json.dumps(c.tolist()), "esvm_b": float(esvm.intercept_[0]),
            "esvm_alpha": json.dumps((y * c).tolist()),
            "esvm_flipped_alpha": json.dumps((y * esvm.flipped_dual_coef_[0]).tolist()),
            "libsvm_alpha": json.dumps((y * u_svc).tolist()), "libsvm_b": float(svc.intercept_[0]),
            "libsvm_vs_directsvc": float(np.max(np.abs(u_svc - u_dir))
                                         + abs(svc.intercept_[0] - direct.intercept_[0])),
            "saddle_alpha": json.dumps(saddle.tolist()),
            "bias_stationary_alpha": json.dumps(kkt[:2].tolist()),
            "bias_stationary_b": float(kkt[2]),
            "esvm_train_decision": json.dumps(f_esvm.tolist()),
            "libsvm_train_decision": json.dumps(f_svc.tolist()),
            "esvm_objective": float(np.sum(y * c) - 0.5 * (y * c) @ Q @ (y * c)),
            "libsvm_objective": float(np.sum(y * u_svc) - 0.5 * (y * u_svc) @ Q @ (y * u_svc))}


def fig1_table(results):
    """The two solutions and the stationary points, one row per cell."""
    cols = ["C", "min_eigenvalue", "yKy", "esvm_alpha", "esvm_b", "libsvm_alpha", "libsvm_b",
            "saddle_alpha", "bias_stationary_alpha", "esvm_train_decision",
            "libsvm_train_decision"]
    return results[[c for c in cols if c in results.columns]]


def fig1_figures(results, out_dir):
    """Top: the dual landscape with the solutions; bottom: both decision boundaries."""
    import json
    from pathlib import Path

    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from krein.kernels import sigmoid_kernel

    row = results[results["status"] == "ok"].iloc[0]
    X = np.asarray(json.loads(row["X"]), dtype=float)
    y = np.asarray(json.loads(row["y"]), dtype=float)
    a, r, C = float(row["a"]), float(row["r"]), float(row["C"])
    K = sigmoid_kernel(X, a=a, r=r)
    Q = np.diag(y) @ K @ np.diag(y)
    pts = {k: np.asarray(json.loads(row[k])) for k in
           ("esvm_alpha", "libsvm_alpha", "saddle_alpha", "bias_stationary_alpha")}
    span = 1.25 * max(C, np.max(np.abs(np.concatenate(list(pts.values())))))
    g = np.linspace(-span, span, 201)
    A1, A2 = np.meshgrid(g, g)
    AL = np.stack([A1.ravel(), A2.ravel()])
    J = (AL.sum(axis=0) - 0.5 * np.einsum("in,ij,jn->n", AL, Q, AL)).reshape(A1.shape)

    fig = Figure(figsize=(8.0, 8.0))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(2, 1, 1)
    s = pts["saddle_alpha"]
    J_s = s.sum() - 0.5 * s @ Q @ s
    D = J - J_s  # signed log scale around the saddle's value shows the saddle shape
    L = np.sign(D) * np.log1p(np.abs(D))
    cs = ax.contourf(A1, A2, L, levels=30, cmap="viridis")
    ax.contour(A1, A2, L, levels=30, colors="k", linewidths=0.2)
    fig.colorbar(cs, ax=ax, label="sign(J - J*) log(1 + |J - J*|), J* = J(saddle)")
    ax.plot([0, C, C, 0, 0], [0, 0, C, C, 0], "w--", lw=1, label="box [0, C]^2")
    ax.plot(g, g * y[0] / -y[1] if y[1] != 0 else g, "w:", lw=1, label="y'alpha = 0")
    ax.plot(*pts["libsvm_alpha"], "o", ms=11, mfc="none", mec="magenta", mew=2.5,
            label="libsvm (minimization)")
    ax.plot(*pts["esvm_alpha"], "o", ms=11, mfc="none", mec="lime", mew=2.5,
            label="ESVM, alpha = Yc (stabilization)")
    ax.plot(*pts["saddle_alpha"], "k+", ms=12, mew=2, label="saddle of J (no bias)")
    ax.plot(*pts["bias_stationary_alpha"], "rx", ms=9, mew=2, label="stationary on y'alpha=0")
    ax.set_xlim(-span, span)
    ax.set_ylim(-span, span)
    ax.set_xlabel("alpha_1")
    ax.set_ylabel("alpha_2")
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title(f"SVM dual, tanh kernel (a={a:g}, r={r:g}) on 2 points, C={C:g}; "
                 f"eigenvalues {', '.join(f'{v:.3g}' for v in json.loads(row['eigenvalues']))}",
                 fontsize=9)

    lo = X.min(axis=0) - 1.5
    hi = X.max(axis=0) + 1.5
    G0, G1 = np.meshgrid(np.linspace(lo[0], hi[0], 200), np.linspace(lo[1], hi[1], 200))
    P = np.column_stack([G0.ravel(), G1.ravel()])
    KP = sigmoid_kernel(P, X, a=a, r=r)
    sols = [("ESVM (stabilization)", y * pts["esvm_alpha"], float(row["esvm_b"]), "lime"),
            ("libsvm (minimization)", y * pts["libsvm_alpha"], float(row["libsvm_b"]),
             "magenta")]
    for i, (name, coef, b, col) in enumerate(sols):
        ax = fig.add_subplot(2, 2, 3 + i)
        F = (KP @ coef + b).reshape(G0.shape)
        ax.contourf(G0, G1, np.sign(F), levels=[-1.5, 0, 1.5], cmap="coolwarm", alpha=0.35)
        ax.contour(G0, G1, F, levels=[0], colors=col, linewidths=2)
        ax.contour(G0, G1, F, levels=[-1, 1], colors="k", linewidths=0.6, linestyles="--")
        ax.scatter(X[:, 0], X[:, 1], c=y, cmap="coolwarm", s=60, edgecolors="k")
        f_tr = K @ coef + b
        ax.set_title(f"{name}\nf(x1)={f_tr[0]:.2f} (y=+1), f(x2)={f_tr[1]:.2f} (y=-1)",
                     fontsize=8)
    fig.tight_layout()
    out = Path(out_dir) / "loosli_fig1.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    save_png(fig, out, dpi=90)
    return [out]


def experiment(quick=False):
    """One cell (module docstring); ``quick`` is the same cell."""
    grid = [{"X": X_TRAIN, "y": Y_TRAIN, "a": 1.0, "r": 0.0, "C": 20.0}]
    return Experiment("loosli_fig1", grid, cell=fig1_cell, random_state=0,
                      description="Loosli et al. 2013 Fig. 1: stabilization vs minimization "
                                  "on two points, tanh kernel",
                      table=fig1_table, figures=fig1_figures)
