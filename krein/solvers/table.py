"""The one solver table: every way krein solves a problem, by name (qpsolvers' model).

:data:`SOLVERS` maps a name to a :class:`SolverEntry`: the callable, the problem
classes it solves (:data:`PROBLEM_CLASSES`), how to install it and one line saying
what it is.  Its entries are

* ``"libsvm"`` and ``"liblinear"`` (scikit-learn's SVC / LinearSVC, in
  :mod:`krein.solvers.libsvm` and :mod:`krein.solvers.liblinear`);
* every CVXPY solver CVXPY knows (generated from CVXPY's solver maps, upper case;
  the callable is :func:`krein.solvers.solve` with that solver; installed or not:
  :meth:`SolverEntry.installed` says, :data:`INSTALL_HINT` how to add it);
* every custom loop of :mod:`krein.solvers` (lower case): the IndefiniteSVM
  algorithms ``"pg"``, ``"apg"``, ``"accpm"``, ``"exchange"``, KSVM's
  ``"active-set"`` and ``"interior-point"``, the hull's ``"nu-svm"`` and ``"multistart"``, the RVM's
  ``"sparse-bayes"``, ``"bending"``, the conformal fits ``"optimize"``, ``"search"``,
  ``"lbfgs"``, the nearest-PSD loops ``"dykstra"``, ``"plain"``, ``"anderson"``,
  ``"newton"``, CLC's ``"closed-form"`` and IKSVM-DC's ``"dca"`` (the names the
  estimators' ``solver`` parameters spell).

Every entry is reached through ONE dispatch, :func:`krein.solvers.solve_problem`
``(problem, solver, **options) -> Solution`` (qpsolvers' ``solve_problem(problem,
solver)``; in :mod:`krein.solvers.core`, beside :class:`~krein.solvers.Solution`): the
problem says its class (``problem.problem_class``: a CVXPY
:class:`~krein.formulations.Formulation`'s ``"LP"``, ``"QP"``...; a
:class:`~krein.formulations.indefinite.ProxyKernelProblem`'s ``"proxy-kernel"``; the
problems of :mod:`krein.formulations.problems`), the entry must list it, and the entry
is called through its adapter (:attr:`SolverEntry.dispatch`; the thin adapters of
:mod:`krein.solvers.adapters` pass the problem's data to the function in its own
signature).  The functions stay callable directly (:attr:`SolverEntry.function`) for
what a Solution does not carry (the multistart's table of local optima, liblinear's
``w, b``).

The callables are imported when first used (``"module:function"`` targets), so this
module imports no backend and every backend may import it.  :func:`resolve_solver` is
the ONE place a ``solver`` argument is checked and normalized (every estimator, the
CVXPY backend, ``solve_problem`` and ``krein compare`` call it); :class:`SolverName` is
the same check as a scikit-learn parameter constraint; :func:`solver_capabilities`
(``krein solvers``) is generated from the table.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field

from sklearn.utils._param_validation import StrOptions

__all__ = ["SolverEntry", "SOLVERS", "PROBLEM_CLASSES", "INSTALL_HINT", "SOLVERS_EXTRA",
           "resolve_solver", "is_solver_name", "SolverName", "solver_capabilities",
           "solver_names", "resolve_comparison_solver", "installed_solvers"]

#: The pip extra that installs more CVXPY solvers.
SOLVERS_EXTRA = "pip install 'krein[solvers]'"

#: How to install the CVXPY solvers that are not there by default.
INSTALL_HINT = {
    "ECOS": "pip install ecos",
    "OSQP": "pip install osqp",
    "SCS": "pip install scs",
    "CLARABEL": "pip install clarabel",
    "MOSEK": "pip install mosek (licence needed)",
    "GUROBI": "pip install gurobipy (licence needed)",
    "HIGHS": "pip install highspy",
    "PIQP": "pip install piqp",
    "PROXQP": "pip install proxsuite",
    "CVXOPT": "pip install cvxopt",
}

#: Problem classes an entry may solve.
PROBLEM_CLASSES = {
    "LP": "linear program",
    "QP": "convex quadratic program",
    "SOCP": "second-order cone program",
    "SDP": "semidefinite program",
    "EXP": "exponential-cone program",
    "MIP": "mixed-integer program",
    "svm-dual": "C-SVM dual on a precomputed kernel (box, one equality; any symmetric kernel)",
    "svr-dual": "epsilon-SVR dual on a precomputed PSD kernel (ESVR's flipped kernel)",
    "linear-svm": "C-SVM on explicit features (approximate path)",
    "proxy-kernel": "IndefiniteSVM, the proxy-kernel saddle problem (luss eq. 7)",
    "ksvm-ls": "KSVM's box-constrained least squares (loosli eq. 26)",
    "ksvm-ls-factor": "KSVM's least squares (loosli eq. 26) on signed features (approximate path)",
    "hull": "Haasdonk's CH-DU, convex-hull separation (non-convex in general)",
    "sparse-bayes": "RVM marginal likelihood (sparse Bayesian learning)",
    "kernel-correction": "a PSD kernel near an indefinite one (bending, conformal maps)",
    "nearest-psd": "nearest PSD matrix with a fixed diagonal (munoz eqs. 9-12)",
    "clc-simplex": "CLC weights on the simplex, two base kernels (munoz eq. 16)",
    "dc-sqhinge": "IKSVM-DC's primal squared-hinge SVM, non-convex (indefinite K; Xu et al. 2017)",
}


@dataclass(frozen=True)
class SolverEntry:
    """One way of solving, as the table lists it.

    Parameters
    ----------
    name : str
        The table key: lower case for krein's own solvers, CVXPY's upper case name.
    target : str
        ``"module:function"`` of the callable (imported when first used).
    problem_classes : tuple of str
        Keys of :data:`PROBLEM_CLASSES` it solves.
    install_hint : str
        How to install it (``""``: installed with krein).
    description : str
        One line.
    backend : {"libsvm", "liblinear", "cvxpy", "custom"}
        Which family it belongs to.
    detail : dict, default={}
        Class -> how it is solved, where not natively (``{"QP": "via SOCP"}``).
    returns : str, default="Solution"
        What the callable returns (a :class:`~krein.solvers.Solution`, possibly
        with other values).
    options : dict, default={}
        Keyword arguments bound to the callable and the adapter (the CVXPY solver
        name, the nearest-PSD loop's variant).
    adapter : str, default=""
        ``"module:function"`` of ``adapter(problem, **options) -> Solution``, through
        which :func:`~krein.solvers.core.solve_problem` calls the entry
        (:mod:`krein.solvers.adapters`);
        ``""``: the callable itself has that signature (the CVXPY solvers on a
        formulation, the IndefiniteSVM loops on a ``ProxyKernelProblem``).
    """

    name: str
    target: str
    problem_classes: tuple
    install_hint: str
    description: str
    backend: str = "custom"
    detail: dict = field(default_factory=dict)
    returns: str = "Solution"
    options: dict = field(default_factory=dict)
    adapter: str = ""

    @property
    def function(self):
        """The callable (imported on first use; CVXPY entries bind ``solver``)."""
        return _bound(self.target, self.options)

    @property
    def dispatch(self):
        """``dispatch(problem, **options) -> Solution``: the adapter, or the callable.

        Imported on first use, with :attr:`options` bound;
        :func:`~krein.solvers.core.solve_problem` calls it.
        """
        return _bound(self.adapter, self.options) if self.adapter else self.function

    def __call__(self, *args, **kwargs):
        """Call the entry's function (:attr:`function`) with these arguments.

        Parameters
        ----------
        *args, **kwargs
            Passed to the function.

        Returns
        -------
        object
            What the function returns (:attr:`returns` says what).
        """
        return self.function(*args, **kwargs)

    def installed(self):
        """Whether it can run here (CVXPY solvers: in ``cvxpy.installed_solvers()``).

        Returns
        -------
        bool
            True for krein's own solvers and the installed CVXPY ones.
        """
        return self.backend != "cvxpy" or self.name in installed_solvers()


def _bound(target, options):
    """The function ``"module:function"`` (imported now), with ``options`` bound."""
    module, name = target.split(":")
    func = getattr(importlib.import_module(module), name)
    return functools.partial(func, **options) if options else func


def installed_solvers():
    """Names of the CVXPY solvers installed here (``cvxpy.installed_solvers()``).

    Asked once per process (CVXPY tries every solver interface on each call, ~5 ms;
    a one-vs-one fit resolves its solver once per pair, 91 times on 14 classes); a
    new list each call.

    Returns
    -------
    list of str
        Solver names in CVXPY's spelling (upper case).
    """
    return list(_installed_cvxpy_once())


@functools.lru_cache(maxsize=1)
def _installed_cvxpy_once():
    import cvxpy as cp

    return tuple(cp.installed_solvers())


def _own(name, target, classes, description, backend="custom", returns="Solution", options=None,
         adapter=""):
    if adapter:
        adapter = f"krein.solvers.adapters:{adapter}"
    return SolverEntry(name, target, tuple(classes), "", description, backend, returns=returns,
                       options=dict(options or {}), adapter=adapter)


_OWN = [
    _own("libsvm", "krein.solvers.libsvm:libsvm_dual", ("svm-dual", "svr-dual"),
         "scikit-learn's SVC / SVR (SMO) on a precomputed kernel, certified by krein "
         "(the SVR: krein.solvers.libsvm.libsvm_svr)", "libsvm", adapter="libsvm"),
    _own("liblinear", "krein.solvers.liblinear:liblinear_solve", ("linear-svm",),
         "scikit-learn's LinearSVC (dual coordinate descent) on features", "liblinear",
         returns="(w, b, Solution)", adapter="liblinear"),
    _own("ipm", "krein.solvers.linear:linear_svm", ("linear-svm",),
         "primal-dual interior-point method on features, n >> d (Ferris & Munson 2002)",
         returns="(w, b, Solution)", options={"solver": "ipm"}, adapter="ipm"),
    _own("pg", "krein.solvers:projected_gradient", ("proxy-kernel",),
         "projected gradient (luss Algorithm 1)"),
    _own("apg", "krein.solvers:accelerated_gradient", ("proxy-kernel",),
         "accelerated projected gradient (FISTA)"),
    _own("accpm", "krein.solvers:accpm", ("proxy-kernel",),
         "analytic center cutting plane method (luss Algorithm 2)"),
    _own("exchange", "krein.solvers:exchange", ("proxy-kernel",),
         "SIQCLP exchange method (luss Algorithm 3, Chen & Ye)"),
    _own("active-set", "krein.solvers.ksvm:ksvm_active_set", ("ksvm-ls",),
         "KSVM active set with incremental QR (loosli Algorithm 2)", adapter="active_set"),
    _own("interior-point", "krein.solvers.ksvm_ipm:ksvm_interior_point", ("ksvm-ls-factor",),
         "KSVM primal-dual interior point, Woodbury steps on the features (Ferris & Munson 2002)",
         adapter="interior_point"),
    _own("nu-svm", "krein.solvers.hull:hull_nu_svm", ("hull",),
         "libsvm's nu-SVM then projected-gradient polish (haasdonk §7.2)", adapter="nu_svm"),
    _own("multistart", "krein.solvers.hull:hull_multistart", ("hull",),
         "multi-start spectral projected gradient on CH-DU (haasdonk §7.2)",
         returns="(Solution, DataFrame of local optima)", adapter="multistart"),
    _own("sparse-bayes", "krein.solvers.rvm:sparse_bayes", ("sparse-bayes",),
         "fast marginal-likelihood maximisation (Tipping & Faul 2003)", adapter="sparse_bayes"),
    _own("bending", "krein.solvers.bending:bending", ("kernel-correction",),
         "eigenvalue bending (munoz Algorithm 1)", adapter="bending"),
    _own("optimize", "krein.solvers.conformal:conformal_fit", ("kernel-correction",),
         "conformal transformation fit by scipy's L-BFGS-B then the search (munoz eq. 13)",
         adapter="conformal_optimize"),
    _own("search", "krein.solvers.conformal:conformal_search", ("kernel-correction",),
         "conformal transformation fit by munoz's gradient search with step halving (eq. 13)",
         adapter="conformal_search_fit"),
    _own("lbfgs", "krein.solvers.conformal:conformal_lbfgs", ("kernel-correction",),
         "conformal transformation fit by scipy's L-BFGS-B (munoz eq. 13)",
         adapter="conformal_lbfgs_fit"),
    _own("dykstra", "krein.solvers.alternating:alternating_projections", ("nearest-psd",),
         "alternating projections with Dykstra's correction (Higham 2002 Alg. 3.3)",
         options={"solver": "dykstra"}, adapter="nearest_psd_alternating"),
    _own("plain", "krein.solvers.alternating:alternating_projections", ("nearest-psd",),
         "plain alternating projections (munoz eq. 10: a point of the intersection)",
         options={"solver": "plain"}, adapter="nearest_psd_alternating"),
    _own("anderson", "krein.solvers.alternating:alternating_projections", ("nearest-psd",),
         "Dykstra's projections with Anderson acceleration (Higham & Strabic 2016)",
         options={"solver": "anderson"}, adapter="nearest_psd_alternating"),
    _own("newton", "krein.solvers.psd_newton:nearest_psd_newton", ("nearest-psd",),
         "semismooth Newton-CG on the dual (Qi & Sun 2006)", adapter="nearest_psd_newton_fit"),
    _own("closed-form", "krein.formulations.clc:clc_closed_form", ("clc-simplex",),
         "CLC weights in closed form, two base kernels (munoz eq. 16)", returns="weights",
         adapter="closed_form"),
    _own("dca", "krein.solvers.dca:dca", ("dc-sqhinge",),
         "DCA with an Armijo step, finite-Newton subproblems (Xu et al. 2017, IKSVM-DC)",
         adapter="dca"),
]


def _cvxpy_entries():
    """One entry per solver CVXPY knows, with the classes read from CVXPY's interfaces."""
    from cvxpy.reductions.solvers import defines

    names = list(dict.fromkeys(list(defines.SOLVER_MAP_CONIC) + list(defines.SOLVER_MAP_QP)))
    out = []
    for name in names:
        conic = defines.SOLVER_MAP_CONIC.get(name)
        qp = defines.SOLVER_MAP_QP.get(name)
        cons = {c.__name__ for c in getattr(conic, "SUPPORTED_CONSTRAINTS", [])} if conic else set()
        quad = bool(qp) or bool(conic and getattr(conic, "supports_quad_obj", lambda: False)())
        mip = any(getattr(s, "MIP_CAPABLE", False) for s in (conic, qp) if s is not None)
        classes, detail = [], {}
        if qp or "NonNeg" in cons:
            classes.append("LP")
        if quad or "SOC" in cons:
            classes.append("QP")
            if not quad:
                detail["QP"] = "via SOCP"
        if "SOC" in cons:
            classes.append("SOCP")
        if cons & {"PSD", "SvecPSD"}:
            classes.append("SDP")
        if "ExpCone" in cons:
            classes.append("EXP")
        if mip:
            classes.append("MIP")
        hint = INSTALL_HINT.get(name, f"pip install cvxpy[{name}] or see the CVXPY solver docs")
        out.append(SolverEntry(name, "krein.solvers.core:solve", tuple(classes), hint,
                               f"CVXPY solver {name} on a krein formulation", "cvxpy", detail,
                               options={"solver": name}))
    return out


#: The one table: name -> :class:`SolverEntry` (krein's own solvers, then CVXPY's).
SOLVERS = {e.name: e for e in _OWN + _cvxpy_entries()}


def solver_names(backend=None, problem_class=None, installed=False):
    """Names of the table, optionally filtered.

    Parameters
    ----------
    backend : str, optional
        Only this backend (``"cvxpy"``, ``"custom"``, ``"libsvm"``, ``"liblinear"``).
    problem_class : str, optional
        Only entries that solve this class.
    installed : bool, default=False
        Only entries that can run here.

    Returns
    -------
    list of str
        In table order (CVXPY names in ``cvxpy.installed_solvers()`` order when
        ``installed``).
    """
    names = list(SOLVERS)
    if installed and backend == "cvxpy":
        names = [n for n in installed_solvers() if n in SOLVERS]
    return [n for n in names
            if (backend is None or SOLVERS[n].backend == backend)
            and (problem_class is None or problem_class in SOLVERS[n].problem_classes)
            and (not installed or SOLVERS[n].installed())]


def _accepted_text(own, cvxpy):
    parts = [repr(n) for n in own]
    if cvxpy:
        parts.append(f"an installed CVXPY solver name (installed here: "
                     f"{sorted(installed_solvers())}; more solvers: {SOLVERS_EXTRA})")
    return ", ".join(parts) if parts else "(none)"


def resolve_solver(solver, accepted=(), *, cvxpy=True, problem_class=None, approximation=False,
                   argument="solver"):
    """Check and normalize a ``solver`` argument: THE resolution of a solver name.

    Case rules: krein's own names (``accepted``, entries of :data:`SOLVERS` or
    ``"auto"``, the caller's choice rule) are matched case-insensitively and
    returned lower case; CVXPY names case-insensitively and returned upper case.

    Parameters
    ----------
    solver : object
        The value given.
    accepted : tuple of str
        The caller's own names (lower case): table names, or ``"auto"``.
    cvxpy : bool, default=True
        Whether any installed CVXPY solver is accepted too.
    problem_class : str, optional
        A CVXPY solver must solve this class (:data:`PROBLEM_CLASSES`).
    approximation : bool, default=False
        Whether an approximation (features) is given: ``"liblinear"`` trains on
        features only.
    argument : str, default="solver"
        The argument's name in messages.

    Returns
    -------
    str
        The normalized name.

    Raises
    ------
    ValueError
        For a non-string or unknown name (the message lists the accepted names and
        the installed CVXPY solvers), a CVXPY solver that is not installed (with how
        to install it) or that does not solve ``problem_class``, ``"liblinear"``
        without an approximation.
    """
    accepted = tuple(accepted)
    if not isinstance(solver, str):
        raise ValueError(f"{argument} must be a solver name (str), one of "
                         f"{_accepted_text(accepted, cvxpy)}; got {solver!r}")
    low = solver.lower()
    if low in accepted:
        if low in ("liblinear", "ipm") and not approximation:
            raise ValueError(f"{low} trains a linear model on features: it needs an "
                             f"approximation (e.g. nystroem:1000)")
        return low
    up = solver.upper()
    entry = SOLVERS.get(up)
    if cvxpy and entry is not None and entry.backend == "cvxpy":
        if not entry.installed():
            raise ValueError(f"{argument} {solver!r} is not installed; installed CVXPY solvers: "
                             f"{installed_solvers()}. To add it: {entry.install_hint}")
        if problem_class is not None and problem_class not in entry.problem_classes:
            raise ValueError(f"{argument} {up} does not solve {problem_class} problems; it "
                             f"solves {list(entry.problem_classes)}")
        return up
    if cvxpy and entry is None and low not in SOLVERS:
        hint = f"pip install cvxpy[{up}] or see the CVXPY solver docs"
        raise ValueError(f"{argument} {solver!r} is not installed; installed CVXPY solvers: "
                         f"{installed_solvers()}; accepted: {_accepted_text(accepted, False)}. "
                         f"To add it: {hint} (more solvers: {SOLVERS_EXTRA})")
    raise ValueError(f"{argument} must be one of {_accepted_text(accepted, cvxpy)}; "
                     f"got {solver!r}")


def is_solver_name(solver, accepted=(), *, cvxpy=True):
    """Whether :func:`resolve_solver` accepts ``solver`` (liblinear's approximation aside).

    Parameters
    ----------
    solver : object
        The value given.
    accepted : tuple of str
        The caller's own names.
    cvxpy : bool, default=True
        Whether installed CVXPY solver names are accepted.

    Returns
    -------
    bool
        True when the name resolves.
    """
    try:
        resolve_solver(solver, accepted, cvxpy=cvxpy, approximation=True)
    except ValueError:
        return False
    return True


def resolve_comparison_solver(solver, approximation=None):
    """The ``solver`` of a comparison (``krein compare --solver``), by :func:`resolve_solver`.

    ``krein.compare`` calls this (one resolution); it turns the ``ValueError`` into its
    one-line ``InvalidArgument("solver", ...)``.

    Parameters
    ----------
    solver : str or None
        None (each method's default), ``"libsvm"``, ``"liblinear"`` (with an
        approximation only) or an installed CVXPY solver (any case).
    approximation : object, optional
        The comparison's approximation (any non-None value: features are trained).

    Returns
    -------
    str or None
        The normalized name ("libsvm", "liblinear", an upper-case CVXPY name), or None.

    Raises
    ------
    ValueError
        As :func:`resolve_solver` (the accepted names and the installed CVXPY solvers,
        or "liblinear ... needs an approximation").
    """
    if solver is None:
        return None
    return resolve_solver(solver, ("libsvm", "liblinear"), approximation=approximation is not None)


class SolverName(StrOptions):
    """Constraint: one of an estimator's own solver names or an installed CVXPY solver.

    The check is :func:`resolve_solver` (the installed CVXPY solvers are looked up
    when a value is validated, so the message names the solvers installed at that
    moment and the pip extra that adds more).  Names are case-insensitive.

    Parameters
    ----------
    custom : tuple of str
        The estimator's own names (``"libsvm"``, ``"pg"``, ``"active-set"``...),
        lower case: names of :data:`SOLVERS`, or ``"auto"``.
    cvxpy : bool
        Whether CVXPY solver names are accepted.
    """

    def __init__(self, custom=(), cvxpy=True):
        super().__init__(set(custom))
        self.custom = tuple(custom)
        self.cvxpy = cvxpy

    def is_satisfied_by(self, val):
        """Whether ``val`` resolves (:func:`is_solver_name`).

        Parameters
        ----------
        val : object
            The parameter's value.

        Returns
        -------
        bool
            True for an accepted name.
        """
        return is_solver_name(val, self.custom, cvxpy=self.cvxpy)

    def __str__(self):
        parts = [repr(c) for c in self.custom]
        if self.cvxpy:
            parts.append(f"an installed CVXPY solver name (installed here: "
                         f"{sorted(installed_solvers())}; more solvers: {SOLVERS_EXTRA})")
        return " or ".join(parts) if len(parts) < 3 else (
            f"one of {', '.join(parts[:-1])} or {parts[-1]}")


def solver_capabilities():
    """Problem classes of each installed CVXPY solver plus the libsvm pseudo-solver.

    Generated from :data:`SOLVERS` (whose CVXPY entries read CVXPY's interfaces:
    ``QP_SOLVERS`` for a native quadratic objective, the conic solvers'
    ``SUPPORTED_CONSTRAINTS`` -- ``NonNeg`` -> LP, ``SOC`` -> SOCP,
    ``PSD``/``SvecPSD`` -> SDP, ``ExpCone`` -- and ``MIP_CAPABLE``; a conic solver
    without a native quadratic objective takes QPs via SOCP).  ``krein solvers``
    prints it.

    Returns
    -------
    list of dict
        One per solver of ``cvxpy.installed_solvers()``, then ``libsvm``: ``name``,
        ``LP``, ``QP``, ``SOCP``, ``SDP``, ``EXP``, ``MIP`` (each ``"yes"``,
        ``"via SOCP"``, ``"SVM dual only"`` or ``"-"``) and ``notes``.
    """
    rows = []
    for name in solver_names("cvxpy", installed=True):
        e = SOLVERS[name]
        row = {"name": name}
        for c in ("LP", "QP", "SOCP", "SDP", "EXP", "MIP"):
            row[c] = e.detail.get(c, "yes") if c in e.problem_classes else "-"
        row["notes"] = ""
        rows.append(row)
    rows.append({"name": "libsvm", "LP": "-", "QP": "SVM dual only", "SOCP": "-", "SDP": "-",
                 "EXP": "-", "MIP": "-",
                 "notes": "pseudo-solver: scikit-learn's SVC (SMO) on a precomputed kernel; the "
                          "default of esvm/flip/clip/shift/square..., not for lp-svm"})
    return rows
