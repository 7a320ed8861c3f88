"""Solver swapping: every CVXPY formulation of krein x every installed solver x sizes.

A user who wants to know which CVXPY solver to pick for a krein formulation reads
the table this module builds (``experiments/solver_swap.py`` runs it through the
experiment runner).  For each *cell* (formulation, solver, n, seed) the
formulation is built fresh on a deterministic random problem and solved with
the solver's default options through :func:`krein.solvers.solve`; the row holds
the status, the objective, the primal and dual residuals and the duality gap
computed by *our* code from the returned point (the formulation's
``certificate()``), the objective's deviation from the best objective found by
any solver on the same problem, and the setup (CVXPY compilation) and solve
seconds.

Formulations (:data:`FORMULATIONS`; ``make_formulation(name, n, random_state)``):

=====================  ==================================================  =========
name                   what (source)                                       class
=====================  ==================================================  =========
svm-dual               SVM dual, ``quad_form`` on a checked PSD Gram        QP
svm-primal             SVM primal through a kernel factor                   QP
lp-svm                 1-norm LP-SVM (Mangasarian; loosli §6.1.2)           LP
mod-svm                Lin & Lin's modified SVM (luss §5.1)                 QP
ch-du                  Haasdonk's CH-DU on a Gaussian (cpd) kernel          QP/SOCP
ksvm-ls                KSVM least squares (loosli eq. 26)                   QP
exchange-qclp          exchange subproblem (luss eq. 13), 3 cuts            SOCP
analytic-center        ACCPM centering step (luss Alg. 2), log barrier      EXP
perturb-svm            PerturbSVM (luss eq. 22)                             SOCP
clc-qp                 conformal linear combination (munoz eq. 15), 3       QP
                       base kernels
nearest-psd-sdp        nearest correlation matrix SDP (munoz eq. 9)          SDP
indefinite-svm-sdp     the joint SDP (luss eq. 10)                          SDP
=====================  ==================================================  =========

The names are formulations, not registry methods: ``clc-qp`` is the QP that
finds the combination weights (the registry's ``clc`` is the SVM on the combined
kernel) and ``nearest-psd-sdp`` the SDP with a unit diagonal (the registry's
``nearest-psd`` is the SVM on Qi & Sun's Newton solution).  :func:`make_formulation`
also accepts the registry's names ``clc`` and ``nearest-psd`` for them
(:data:`RENAMED`).

Summaries (:func:`summarize`) follow the qpbenchmark convention (Caron et al.,
``qpsolvers/qpbenchmark``): per solver and formulation, the *success rate*
(status ``optimal`` among the cells the solver accepts) and *shifted geometric
means* ``exp(mean(log(v + sh))) - sh`` of the time (divided by the best
solver's value, so the best is 1.0; a solver with 3.0 is three times slower than
the best on that formulation) and of the residuals (absolute values: many are
exactly zero, so qpbenchmark's ratio to the best would be meaningless).  As in qpbenchmark a
failed cell counts with the time limit (here the slowest successful time of any
solver on that cell's problem class times 10, since the study sets no time limit)
and with residual 1.  Shifts: 10 ms for times (qpbenchmark shifts by 10 s; our
problems solve in milliseconds, so the shift is scaled to them) and ``1e-9`` for
residuals and gaps.
"""

from __future__ import annotations

import time
import warnings

import cvxpy as cp
import numpy as np
import pandas as pd

from ..kernels import gaussian_kernel, sigmoid_kernel
from ..solvers.core import SolverError, installed_solvers, solve

__all__ = ["FORMULATIONS", "SDP_FORMULATIONS", "RENAMED", "make_formulation", "solve_cell", "summarize",
           "shifted_geometric_mean", "plot_times"]


def _data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 5))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0                       # both classes present
    return X, y


def _psd(n, seed):
    X, y = _data(n, seed)
    return gaussian_kernel(X, gamma=0.2), y, X


def _indefinite(n, seed):
    X, y = _data(n, seed)
    return sigmoid_kernel(X, a=0.5, r=-1.0), y, X


def _svm_dual(n, seed):
    from ..formulations.svm import SVMDual, psd_factor

    K, y, _ = _psd(n, seed)
    psd_factor(K)                                 # checks K is PSD (raises otherwise)
    return SVMDual(y, K=K, C=1.0, form="quad_form", psd_checked=True)


def _svm_primal(n, seed):
    from ..formulations.svm import SVMPrimal, psd_factor

    K, y, _ = _psd(n, seed)
    return SVMPrimal(y, psd_factor(K), C=1.0)


def _lp_svm(n, seed):
    from ..formulations.lpsvm import LPSVM

    K, y, _ = _indefinite(n, seed)
    return LPSVM(K, y, C=1.0)


def _mod_svm(n, seed):
    from ..formulations.modsvm import ModSVM

    K, y, _ = _indefinite(n, seed)
    return ModSVM(K, y, C=1.0)


def _ch_du(n, seed):
    from ..formulations.hull import ConvexHullDual

    K, y, _ = _psd(n, seed)
    return ConvexHullDual(K, y, mu=1.0)


def _ksvm(n, seed):
    from ..formulations.ksvm import KSVMLeastSquares

    K, y, _ = _indefinite(n, seed)
    return KSVMLeastSquares(K, y, C=1.0)


def _problem(n, seed):
    from ..formulations.indefinite import ProxyKernelProblem

    K, y, _ = _indefinite(n, seed)
    return ProxyKernelProblem(K, y, C=1.0, rho=1.0)


def _exchange_qclp(n, seed):
    from ..formulations.indefinite import ExchangeQCLP
    from ..solvers.indefinite.exchange import new_cut
    from ..projections import project_box_hyperplane
    from ..solvers.indefinite import ProxyKernelOracle

    P = _problem(n, seed)
    orc = ProxyKernelOracle(P.K0, P.rho)
    rng = np.random.default_rng(seed + 1)
    points = [np.zeros(P.n)] + [project_box_hyperplane(rng.uniform(0, P.upper.max(), P.m), P.a,
                                                       P.b0, P.upper) for _ in range(2)]
    cuts = [new_cut(P, orc, P.u_of(b), orc.evaluate(P.u_of(b)), 1e-10) for b in points]
    d0 = min(c[1] for c in cuts)
    return ExchangeQCLP(P, [c[0] for c in cuts], [c[1] - d0 for c in cuts])


def _analytic_center(n, seed):
    from ..formulations.indefinite import AnalyticCenter

    P = _problem(n, seed)
    rng = np.random.default_rng(seed + 2)
    m = P.m
    # box 0 <= x <= U and 2 random cuts through an interior point of {a'x = b0}
    x0 = np.full(m, 0.5) * P.upper
    x0 -= P.a * ((P.a @ x0 - P.b0) / (P.a @ P.a))
    rows = [-np.eye(m), np.eye(m)]
    rhs = [np.zeros(m), P.upper.astype(float)]
    G = rng.standard_normal((2, m))
    rows.append(G)
    rhs.append(G @ x0 + 0.1)
    A, b = np.vstack(rows), np.concatenate(rhs)
    form = AnalyticCenter(m, A.shape[0], P.a, P.b0)
    form.set_rows(A, b)
    return form


def _perturb_svm(n, seed):
    from ..formulations.indefinite import PerturbSVM

    K, y, _ = _psd(n, seed)
    return PerturbSVM(K, y, C=1.0, rho=1.0)


def _clc_qp(n, seed):
    from ..formulations.clc import ConformalLinearCombinationQP

    X, y = _data(n, seed)
    kernels = np.stack([gaussian_kernel(X, gamma=g) for g in (0.05, 0.2, 1.0)], axis=2)
    K = sigmoid_kernel(X, a=0.5, r=-1.0)
    return ConformalLinearCombinationQP.from_kernels(K, kernels)


def _nearest_psd_sdp(n, seed):
    from ..formulations.nearest_psd import NearestPSDSDP

    K, _, _ = _indefinite(n, seed)
    return NearestPSDSDP(K, diagonal=1.0)


def _indefinite_svm_sdp(n, seed):
    from ..formulations.indefinite import IndefiniteSVMSDP

    K, y, _ = _indefinite(n, seed)
    return IndefiniteSVMSDP(K, y, C=1.0, rho=1.0)


#: name -> builder ``(n, seed) -> Formulation``.
FORMULATIONS = {
    "svm-dual": _svm_dual,
    "svm-primal": _svm_primal,
    "lp-svm": _lp_svm,
    "mod-svm": _mod_svm,
    "ch-du": _ch_du,
    "ksvm-ls": _ksvm,
    "exchange-qclp": _exchange_qclp,
    "analytic-center": _analytic_center,
    "perturb-svm": _perturb_svm,
    "clc-qp": _clc_qp,
    "nearest-psd-sdp": _nearest_psd_sdp,
    "indefinite-svm-sdp": _indefinite_svm_sdp,
}

#: Formulations with an n x n PSD variable (run at smaller sizes).
SDP_FORMULATIONS = ("nearest-psd-sdp", "indefinite-svm-sdp")

#: Former names of formulations (they read as the registry's methods of the same name).
RENAMED = {"clc": "clc-qp", "nearest-psd": "nearest-psd-sdp"}


def make_formulation(name, n, random_state=0):
    """Build formulation ``name`` on a random problem of size ``n``.

    Parameters
    ----------
    name : str
        A key of :data:`FORMULATIONS` (or a former name, :data:`RENAMED`).
    n : int >= 4
        Number of points (the problem's size).
    random_state : int
        Seed of the random data (the same seed gives the same problem).

    Returns
    -------
    krein.formulations.Formulation
        A fresh, unsolved instance of the formulation's class (e.g.
        :class:`~krein.formulations.SVMDual` for ``"svm-dual"``) on ``n``
        points of 5 standard normal features with labels +-1, and a
        Gaussian (``gamma=0.2``) or sigmoid (``a=0.5, r=-1``) kernel (the
        table of the module docstring).

    Raises
    ------
    ValueError
        Unknown name or ``n < 4``.
    """
    name = RENAMED.get(name, name)
    if name not in FORMULATIONS:
        raise ValueError(f"unknown formulation {name!r}; known: {list(FORMULATIONS)}")
    if not isinstance(n, (int, np.integer)) or n < 4:
        raise ValueError(f"n must be an integer >= 4; got {n!r}")
    return FORMULATIONS[name](int(n), int(random_state))


def _is_unsupported(exc):
    msg = str(exc).lower()
    return isinstance(exc, ValueError) and ("cannot" in msg or "support" in msg)


def solve_cell(formulation, solver, n, random_state=0):
    """Solve one (formulation, solver, n, seed) cell and return its result row.

    Parameters
    ----------
    formulation : str
        A key of :data:`FORMULATIONS`.
    solver : str
        A CVXPY solver name (installed or not: a missing one gives status
        ``"not-installed"``).
    n : int >= 4
        Number of points of the random problem (:func:`make_formulation`).
    random_state : int, default 0
        Seed of the random problem; every solver of a (formulation, n,
        random_state) cell solves the same problem.

    Returns
    -------
    dict
        ``formulation, problem_class, n, seed`` (``random_state``, stored under
        the study's column name ``seed``), ``solver, status`` (a CVXPY status,
        ``"unsupported"`` when the solver does not accept the problem class,
        ``"solver_error"``, ``"not-installed"`` or ``"error"``), ``objective``,
        ``primal_residual``, ``dual_residual``, ``gap`` (krein's own certificate of
        the returned point; NaN when not defined), ``setup_seconds`` (CVXPY
        compilation and interface), ``solve_seconds`` (the solver's own time; NaN
        when the solver does not report one, its time is then in
        ``setup_seconds``), ``iterations``, ``error``.

    Raises
    ------
    ValueError
        Unknown formulation or ``n < 4`` (from :func:`make_formulation`).
        Errors of the solve itself are not raised: they become the status.
    """
    row = {"formulation": formulation, "problem_class": "", "n": int(n),
           "seed": int(random_state),
           "solver": solver, "status": "", "objective": np.nan, "primal_residual": np.nan,
           "dual_residual": np.nan, "gap": np.nan, "setup_seconds": np.nan,
           "solve_seconds": np.nan, "iterations": np.nan, "error": ""}
    form = make_formulation(formulation, n, random_state)
    row["problem_class"] = form.problem_class
    if solver not in installed_solvers():
        row["status"] = "not-installed"
        return row
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sol = solve(form, solver)
    except SolverError as exc:
        row["status"] = exc.status or "solver_error"
        row["error"] = str(exc)
        row["solve_seconds"] = time.perf_counter() - t0
        if exc.status == cp.OPTIMAL_INACCURATE and form.problem.value is not None:
            row["objective"] = float(form.problem.value)
            cert = form.certificate()
            row.update({k: float(cert.get(k, np.nan))
                        for k in ("primal_residual", "dual_residual", "gap")})
        return row
    except (ValueError, cp.error.DCPError, cp.error.SolverError) as exc:
        row["status"] = "unsupported" if _is_unsupported(exc) else "error"
        row["error"] = f"{type(exc).__name__}: {exc}"
        return row
    row.update({"status": sol.status, "objective": sol.objective,
                "primal_residual": sol.primal_residual, "dual_residual": sol.dual_residual,
                "gap": sol.gap, "setup_seconds": sol.setup_time, "solve_seconds": sol.solve_time,
                "iterations": np.nan if sol.iterations is None else sol.iterations})
    return row


def shifted_geometric_mean(values, shift):
    """``exp(mean(log(v + shift))) - shift`` (qpbenchmark's ``shgeom``).

    Parameters
    ----------
    values : array-like of shape (m,)
        Finite non-negative values (times, residuals).
    shift : float > 0
        The shift ``sh``; values much smaller than it count about as zero
        (:data:`TIME_SHIFT`, :data:`RESIDUAL_SHIFT` in :func:`summarize`).

    Returns
    -------
    float
        ``exp(mean(log(v + shift))) - shift``, exactly 0.0 for all-zero values
        and NaN for an empty input.

    Raises
    ------
    ValueError
        On a negative value or a non-positive shift.
    """
    v = np.asarray(values, dtype=float)
    if shift <= 0:
        raise ValueError(f"shift must be > 0; got {shift!r}")
    if v.size == 0:
        return float("nan")
    if np.any(v < 0) or not np.all(np.isfinite(v)):
        raise ValueError("values must be finite and non-negative")
    out = float(np.exp(np.mean(np.log(v + shift))) - shift)
    # exp(log(shift)) - shift is round-off, not a value: all-zero input gives 0
    return 0.0 if abs(out) <= 8 * np.finfo(float).eps * shift else out


#: Shifts of :func:`summarize`: seconds (10 ms) and residuals.
TIME_SHIFT = 0.010
RESIDUAL_SHIFT = 1e-9


def summarize(results):
    """Per formulation and solver: success rate and relative shifted geometric means.

    Parameters
    ----------
    results : pandas.DataFrame
        Rows of :func:`solve_cell` (other columns are ignored).  Cells with
        status ``unsupported`` or ``not-installed`` are left out.

    Returns
    -------
    pandas.DataFrame
        One row per (formulation, solver) with ``cells``, ``success_rate``
        (share with status ``optimal``), ``time_shgeom`` (relative to the best
        solver of the formulation: 1.0 is the fastest), ``primal_residual_shgeom``,
        ``gap_shgeom`` (absolute shifted geometric means: exact zeros are common,
        so a ratio to the best would be meaningless), ``objective_error`` (largest
        ``|objective - best| / max(1, |best|)`` over the solver's successful
        cells; ``best`` is the median objective of the successful solvers of the
        cell's problem) and ``median_seconds`` (setup + solve of the successful
        cells).  Failed cells count with 10 x the slowest successful time on that
        problem and residual 1; a certificate the formulation does not define
        (NaN gap) gives NaN.
    """
    df = results[~results["status"].isin(["unsupported", "not-installed"])].copy()
    if df.empty:
        return pd.DataFrame()
    ok = df["status"] == "optimal"
    key = ["formulation", "n", "seed"]
    # setup (compilation) + solve; some solvers report no solve time (then all is "setup")
    df["total_seconds"] = df["setup_seconds"].fillna(0.0) + df["solve_seconds"].fillna(0.0)
    ref = df[ok].groupby(key)["objective"].median().rename("ref_objective")
    worst = df[ok].groupby(key)["total_seconds"].max().rename("worst_seconds")
    df = df.join(ref, on=key).join(worst, on=key)
    df["time_eff"] = np.where(ok, df["total_seconds"], 10.0 * df["worst_seconds"].fillna(1.0))
    for col in ("primal_residual", "gap"):
        v = df[col].abs()
        # a failed cell counts as residual 1; an undefined certificate stays undefined
        df[col + "_eff"] = np.where(ok, v, 1.0)
    df["objective_err"] = np.where(
        ok, (df["objective"] - df["ref_objective"]).abs() / np.maximum(1.0, df["ref_objective"].abs()),
        np.nan)

    def shg(values, shift):
        v = np.asarray(values, dtype=float)
        return shifted_geometric_mean(v, shift) if np.all(np.isfinite(v)) else float("nan")

    rows = []
    for (form, solver), g in df.groupby(["formulation", "solver"], sort=True):
        good = g["status"] == "optimal"
        rows.append({
            "formulation": form, "problem_class": g["problem_class"].iloc[0], "solver": solver,
            "cells": len(g), "success_rate": float(good.mean()),
            "time": shg(g["time_eff"], TIME_SHIFT),
            "primal_residual": shg(g["primal_residual_eff"], RESIDUAL_SHIFT),
            "gap": shg(g["gap_eff"], RESIDUAL_SHIFT),
            "objective_error": float(np.nanmax(g["objective_err"])) if good.any() else np.nan,
            "median_seconds": float(g.loc[good, "total_seconds"].median()) if good.any() else np.nan,
        })
    out = pd.DataFrame(rows)
    best = out.groupby("formulation")["time"].transform("min")
    out["time_shgeom"] = out["time"] / best
    out = out.rename(columns={"primal_residual": "primal_residual_shgeom", "gap": "gap_shgeom"})
    return out.drop(columns=["time"])


def plot_times(results, path):
    """Solve time vs n per solver, one panel per formulation (matplotlib, saved to ``path``).

    The time is the solver's own (``solve_seconds``, median over seeds); for a
    solver that reports none (SCIPY) the wall time of the call.

    Parameters
    ----------
    results : pandas.DataFrame
        Rows of :func:`solve_cell`.
    path : str or pathlib.Path
        Output image file (PNG).

    Returns
    -------
    pathlib.Path
        ``path`` (its parent folders are created), written at 90 dpi: up to
        four panels a row, log-log axes, one line per solver of the median
        time over the optimal cells per ``n``.

    Raises
    ------
    ValueError
        If no cell has status ``optimal``.
    """
    from pathlib import Path

    import matplotlib
    import matplotlib.ticker
    from matplotlib.lines import Line2D

    from .._io import atomic_write, new_figure

    df = results[results["status"] == "optimal"].copy()
    # the solver's own time; a solver that reports none (SCIPY) is shown with its wall time
    df["seconds"] = df["solve_seconds"].where(df["solve_seconds"].notna(),
                                              df["setup_seconds"])
    forms = sorted(df["formulation"].unique())
    if not forms:
        raise ValueError("no successful cell to plot")
    ncol = min(4, len(forms))
    nrow = int(np.ceil(len(forms) / ncol))
    # a Figure on the Agg canvas (krein._io): no pyplot state, the backend left alone
    fig = new_figure((3.6 * ncol, 2.9 * nrow))
    axes = fig.subplots(nrow, ncol, squeeze=False)
    solvers = sorted(results["solver"].unique())
    tab10 = matplotlib.colormaps["tab10"]
    colors = {s: tab10(i % 10) for i, s in enumerate(solvers)}
    for ax, form in zip(axes.ravel(), forms):
        g = df[df["formulation"] == form]
        for s, gs in g.groupby("solver"):
            t = gs.groupby("n")["seconds"].median()
            ax.plot(t.index, t.values, "o-", color=colors[s], label=s, ms=3)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xticks(sorted(g["n"].unique()))
        ax.set_title(form, fontsize=9)
        ax.set_xlabel("n", fontsize=8)
        ax.set_ylabel("solve s", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in axes.ravel()[len(forms):]:
        ax.axis("off")
    handles = [Line2D([], [], color=colors[s], marker="o", label=s) for s in solvers]
    fig.legend(handles=handles, loc="lower center", ncol=len(solvers), fontsize=8)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda f: fig.savefig(f, format="png", dpi=90))
    return path
