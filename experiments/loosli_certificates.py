"""What Loosli et al.'s tables do not show: did each solver converge, and how far from optimal?

For every data set of Tables 2 and 3 (``loosli_table2.py``, ``loosli_table3.py``:
same data, same kernels) and every method, one fit on the training part of
the first outer fold (repeat 0, fold 0 of a stratified 5-fold split) at the
``C`` (and ``rho``) most often selected by the inner CV in the committed
full-run results (``experiments/results/loosli_table{2,3}.csv``; ``C = 1``,
``rho = 1`` where no result is there), and the certificate that says whether
the reported accuracy belongs to the method or to an unconverged solver.
Every certificate is recomputed here from the returned point, independently
of the solver's own stopping test:

* SVM on a PSD kernel (ESVM and ESVM-L: libsvm on the flipped kernel ``V |lam|
  V'``, loosli Alg. 1; Abs / Trunc / Shift: libsvm on the corrected kernel):
  the relative duality gap ``(P - D) / |P|`` of the C-SVM (``P = 1/2 u'Qu + C
  sum max(0, 1 - y_i f_i)``, ``D = sum alpha - 1/2 u'Qu`` with ``u = y *
  alpha``) -- a true optimality certificate, the problem being convex -- and
  the KKT violation of :func:`krein.geometry.suitability_after`;
* libsvm directly on the indefinite kernel (``svm``): the KKT violation only
  (the problem is not convex: a small violation certifies a stationary point,
  not an optimum), and whether the kernel was indefinite;
* KSVM: the KKT residual of the least-squares stabilization problem (26)
  (:func:`krein.formulations.ksvm.ksvm_kkt_residual`, with the best multiplier);
* IndefiniteSVM: the certified relative duality gap of the convex max-min
  problem (Luss & d'Aspremont eq. (5)): a feasible point's value against the
  best upper bound;
* LP-SVM: the solver status and the LP duality gap (primal minus dual
  objective, relative) and primal residual recomputed by krein from the
  returned primal and dual points;
* RVM: whether the marginal-likelihood updates converged, and the largest
  gradient of the log posterior at the returned weights (its IRLS mode).

``verdict`` summarizes, on each solver's own measure (the one its stopping
test bounds: the KKT violation for libsvm, whose ``tol = 1e-3`` bounds the
gradient gap of the maximal violating pair, not the duality gap; the KKT
residual for KSVM; the relative duality gap for IndefiniteSVM and LP-SVM):
``certified`` (convex problem, measure below 1e-2), ``stationary``
(non-convex problem -- libsvm on an indefinite kernel, RVM -- converged to a
stationary point), ``NOT CONVERGED`` otherwise.  The relative duality gap of
the libsvm fits is reported beside it: libsvm's stopping rule allows a gap
of the order of ``n C tol``, which can be a percent of the objective.

``--quick``: CatCortex and Sonar (subsample 80), three methods.

Run: ``krein experiment run experiments/loosli_certificates.py``; committed
results: ``experiments/results/loosli_certificates.csv``.
"""

import os

from krein.experiment import Experiment, cartesian, import_script, save_png

_HERE = os.path.dirname(os.path.abspath(__file__))
METHODS = ["esvm", "esvm-l", "ksvm", "rvm", "indefinite-svm", "lp-svm", "flip", "clip",
           "shift", "svm"]
THRESHOLD = 1e-2


def _script(name):
    return import_script(os.path.join(_HERE, f"{name}.py"))


def _kernel(table, dataset):
    """Kernel name and parameters of ``dataset`` in Table ``table`` (2 or 3)."""
    if table == 2:
        t2 = _script("loosli_table2")
        return "sigmoid", {"a": 4.0 / t2.N_FEATURES[dataset], "r": t2.SIGMOID_R[dataset]}, None
    t3 = _script("loosli_table3")
    binary = "paper" if dataset in ("balls3d", "catcortex", "protein", "newsgroups") else None
    return "dissimilarity-raw", {"unit": t3.UNITS[dataset]}, binary


def _selected(table, dataset, method):
    """Most often selected C and rho in the committed results (C = rho = 1 if none)."""
    import pandas as pd

    path = os.path.join(_HERE, "results", f"loosli_table{table}.csv")
    out = {"C": 1.0, "rho": 1.0}
    if not os.path.exists(path):
        return out, "default (no committed results)"
    r = pd.read_csv(path)
    r = r[(r["dataset"] == dataset) & (r["method"] == method) & (r["status"] == "ok")]
    for p in ("C", "rho"):
        col = f"best_{p}"
        if col in r and r[col].notna().any():
            out[p] = float(r[col].mode().iloc[0])
    return out, f"mode of the inner-CV choices ({len(r)} cells)"


def _svm_gap(Q, y, u, b, C):
    """Relative duality gap and KKT violation of the C-SVM (u = y * alpha) on a PSD Q."""
    import numpy as np

    from krein.geometry import suitability_after

    alpha = y * u
    quad = float(u @ Q @ u)
    f = Q @ u + b
    primal = 0.5 * quad + C * float(np.sum(np.maximum(0.0, 1.0 - y * f)))
    dual = float(np.sum(alpha)) - 0.5 * quad
    sup = np.flatnonzero(alpha > 0)
    kkt = suitability_after(Q, y, u[sup], sup, b, C)["kkt_violation"]
    return (primal - dual) / max(abs(primal), 1e-300), kkt


def certify(est, K, y_pm, method):
    """Certificate of a fitted binary estimator (module docstring).

    Parameters
    ----------
    est : fitted krein estimator (two classes)
    K : ndarray of shape (n, n)
        The training kernel it was fitted on.
    y_pm : ndarray of shape (n,)
        Labels as +1 (``est.classes_[1]``) / -1.
    method : str
        Registry name.

    Returns
    -------
    dict
        ``solver``, ``solver_status``, ``relative_gap``, ``kkt_residual``,
        ``convex`` and ``verdict`` (module docstring).
    """
    import numpy as np

    nan = float("nan")
    out = {"relative_gap": nan, "kkt_residual": nan, "convex": True}
    m = est.binary_models_[0] if hasattr(est, "binary_models_") else None
    if method in ("esvm", "esvm-l", "flip", "clip", "shift"):
        spec = m.info["spectrum"]
        lam, V = spec.eigenvalues, spec.eigenvectors
        if method in ("esvm", "esvm-l"):
            Q, u = (V * np.abs(lam)) @ V.T, m.info["flipped_coef"]
        else:
            g = spec.corrected_eigenvalues(est.correction, **est._gparams())
            Q = K + (g[0] - lam[0]) * np.eye(len(y_pm)) if method == "shift" else (V * g) @ V.T
            u = m.info["corrected_coef"]
        out["relative_gap"], out["kkt_residual"] = _svm_gap(0.5 * (Q + Q.T), y_pm, u,
                                                            m.intercept, est.C)
        out.update(solver="libsvm", solver_status="ok")
    elif method == "svm":
        from krein.geometry import suitability_after

        out["kkt_residual"] = suitability_after(K, y_pm, est.dual_coef_, est.support_,
                                                est.intercept_, est.C)["kkt_violation"]
        out.update(solver="libsvm", solver_status="ok",
                   convex=bool(np.linalg.eigvalsh(K)[0] >= -1e-10 * abs(K).max()))
    elif method == "ksvm":
        out.update(solver="active-set", solver_status=str(m.info["solution"].status),
                   kkt_residual=float(np.max(est.kkt_residual_)), convex=True)
    elif method == "rvm":
        s = est.solutions_[0]
        out.update(solver=s.solver, solver_status=s.status, convex=False,
                   kkt_residual=float(s.primal_residual))
    elif method == "indefinite-svm":
        s = getattr(est, "solution_", None) or m.info["solution"]
        out.update(solver=s.solver, solver_status=s.status,
                   relative_gap=float(s.certificate["relative_gap"]))
    elif method == "lp-svm":
        s = est.solutions_[0]
        out.update(solver=s.solver, solver_status=s.status,
                   relative_gap=float(s.gap) / max(abs(float(s.objective)), 1e-300),
                   kkt_residual=float(s.primal_residual))
    measure = (out["relative_gap"] if method in ("indefinite-svm", "lp-svm")
               else out["kkt_residual"])
    if method == "rvm":
        ok = out["solver_status"] == "converged"
        out["verdict"] = "stationary" if ok else "NOT CONVERGED"
    elif not np.isfinite(measure) or abs(measure) > THRESHOLD:
        out["verdict"] = "NOT CONVERGED"
    else:
        out["verdict"] = "certified" if out["convex"] else "stationary"
    return out


def certificate_cell(params):
    """Fit one method on fold 0 of Table 2/3's data and certify it (module docstring).

    Parameters
    ----------
    params : dict
        ``table`` (2 or 3), ``dataset``, ``method``, ``n_samples`` (None: all
        objects), ``seed``.

    Returns
    -------
    dict
        ``C``, ``rho``, ``selected_from``, ``n_train``, ``min_eigenvalue`` (of
        the training block), ``fit_seconds``, ``test_accuracy`` and the keys of
        :func:`certify`.
    """
    import time
    import warnings

    import numpy as np
    from sklearn.model_selection import StratifiedKFold

    from krein.kernel_data import load_kernel_data
    from krein.experiment import build_estimator, cell_seed

    table, dataset, method = params["table"], params["dataset"], params["method"]
    kernel, kp, binary = _kernel(table, dataset)
    data = load_kernel_data(dataset, kernel, kp, n_samples=params.get("n_samples"),
                            binary=binary, random_state=cell_seed(params, "dataset", salt="data"))
    y = data.y
    tr, te = next(StratifiedKFold(5, shuffle=True, random_state=cell_seed(params, "dataset"))
                  .split(np.zeros((y.size, 1)), y))
    K_tr, K_te = data.blocks(tr, te)
    sel, source = _selected(table, dataset, method)
    fixed = {"out_of_sample": "raw"} if method == "indefinite-svm" else {}
    if method == "lp-svm":
        fixed["solver"] = "HIGHS"
    est = build_estimator(method, {}, None, cell_seed(params, salt="estimator"))
    accepted = est.get_params(deep=False)
    est.set_params(**fixed, **{k: v for k, v in sel.items() if k in accepted})
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(K_tr, y[tr])
    seconds = time.perf_counter() - t0
    y_pm = np.where(y[tr] == est.classes_[1], 1.0, -1.0)
    out = {"C": sel["C"] if "C" in accepted else None,
           "rho": sel["rho"] if "rho" in accepted else None, "selected_from": source,
           "n_train": int(tr.size),
           "min_eigenvalue": float(np.linalg.eigvalsh(K_tr)[0]), "fit_seconds": seconds,
           "test_accuracy": float(np.mean(est.predict(K_te) == y[te]))}
    out.update(certify(est, K_tr, y_pm, method))
    return out


def _measure(row):
    if row["method"] in ("indefinite-svm", "lp-svm"):
        return row["relative_gap"]
    return row["kkt_residual"]


def certificate_table(results):
    """One row per data set and method: solver, status, gap, KKT residual, verdict."""
    ok = results[results["status"] == "ok"]
    cols = ["table", "dataset", "method", "C", "rho", "solver", "solver_status", "relative_gap",
            "kkt_residual", "verdict", "fit_seconds", "test_accuracy"]
    return ok[cols].reset_index(drop=True)


def certificate_figures(results, out_dir):
    """``loosli_certificates.png``: log10 of each solver's measure, data sets x methods.

    Cells not converged are marked with a cross; RVM shows its largest
    log-posterior gradient.
    """
    import os

    import matplotlib
    import numpy as np

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = results[results["status"] == "ok"].copy()
    ok["measure"] = ok.apply(_measure, axis=1).astype(float)
    datasets = list(dict.fromkeys(ok["dataset"]))
    methods = [m for m in METHODS if m in set(ok["method"])]
    M = np.full((len(datasets), len(methods)), np.nan)
    bad = []
    for _, r in ok.iterrows():
        i, j = datasets.index(r["dataset"]), methods.index(r["method"])
        M[i, j] = np.log10(max(abs(r["measure"]), 1e-16))
        if r["verdict"] == "NOT CONVERGED":
            bad.append((j, i))
    fig, ax = plt.subplots(figsize=(1.0 + 0.75 * len(methods), 1.0 + 0.4 * len(datasets)))
    im = ax.imshow(M, cmap="viridis", vmin=-16, vmax=0, aspect="auto")
    for j, i in bad:
        ax.plot(j, i, "rx", ms=10, mew=2)
    ax.set_xticks(range(len(methods)), methods, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(datasets)), datasets, fontsize=8)
    fig.colorbar(im, ax=ax, label="log10 KKT residual / relative gap")
    ax.set_title("Solver certificates (x: not converged)", fontsize=9)
    fig.tight_layout()
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "loosli_certificates.png")
    save_png(fig, path, dpi=80)
    plt.close(fig)
    return [path]


def experiment(quick=False):
    """Certificate cells (module docstring); ``quick`` shrinks them to seconds."""
    if quick:
        grid = (cartesian(table=[3], dataset=["catcortex"], method=["esvm", "ksvm", "lp-svm"],
                          n_samples=[None])
                + cartesian(table=[2], dataset=["sonar"], method=["shift", "indefinite-svm"],
                            n_samples=[80]))
    else:
        t2, t3 = _script("loosli_table2"), _script("loosli_table3")
        grid = (cartesian(table=[2], dataset=list(t2.PAPER_LEAST_EIGENVALUES), method=METHODS,
                          n_samples=[None])
                + cartesian(table=[3], dataset=t3.SHIPPED + t3.REGENERATED, method=METHODS,
                            n_samples=[None]))
    return Experiment("loosli_certificates", grid, cell=certificate_cell, random_state=0,
                      description="Solver certificates for Loosli et al. Tables 2-3: relative "
                                  "duality gap or KKT residual of one fit per data set and method",
                      table=certificate_table,
                      figures=certificate_figures)
