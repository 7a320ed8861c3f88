"""The Formulation contract: WHAT is optimized, as a CVXPY problem built once.

A formulation holds a ``cvxpy.Problem``, its named ``cvxpy.Parameter`` objects
(re-set between solves without recompiling when the problem is DPP) and its named
variables.  It never calls a solver (that is :func:`krein.solvers.solve`).  It
knows how to certify a returned point: :meth:`Formulation.certificate` computes
primal/dual residuals and a duality gap with our own code from the variable (and
dual) values, independent of what the solver reports.
"""

from __future__ import annotations

import collections
import contextlib
import threading

import cvxpy as cp
import numpy as np

__all__ = ["Formulation", "relative_gap", "kernel_unit", "certified_psd_wrap", "psd_tolerance",
           "reusable_formulation", "REUSABLE_MAX_ENTRIES", "check_signed_labels"]

#: Bound of the store of :func:`reusable_formulation` (compiled problems kept per process;
#: measured: 64 LP-SVM / Mod SVM problems of side 87-150 add 193 MiB, of side ~200 375 MiB,
#: which is why :data:`krein.estimators.lpsvm.REUSE_MAX_N` keeps only blocks up to 150).
REUSABLE_MAX_ENTRIES = 64


def check_signed_labels(y):
    """Check two-class labels already coded as ``{-1, +1}`` (the formulations' ``y``).

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels in ``{-1, +1}``, both present.

    Returns
    -------
    ndarray of shape (n,), float
        ``y`` as a flat float array.

    Raises
    ------
    ValueError
        If ``y`` has an entry other than -1 and +1, or lacks one of the two classes.
    """
    y = np.asarray(y, dtype=float).ravel()
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("y must contain only -1 and +1")
    if np.unique(y).size < 2:
        raise ValueError("y must contain both classes -1 and +1")
    return y


def relative_gap(primal, dual):
    """Duality gap relative to the objective values: ``|P - D| / max(|P|, |D|)``.

    Scale-free: under ``K -> s K`` with ``C`` scaled to match, both values scale
    alike and so does an absolute gap; an absolute gap of ``1e-9`` was the whole
    objective of an LP-SVM on a kernel scaled by ``1e8``.  No ``max(1, ...)``:
    ``1`` is not a scale of the data.

    Parameters
    ----------
    primal, dual : float
        Primal and dual objective values at the returned point.

    Returns
    -------
    float
        The relative gap; 0 when both values are 0, ``inf`` when either is not finite.
    """
    P, D = float(primal), float(dual)
    if not (np.isfinite(P) and np.isfinite(D)):
        return float("inf")
    den = max(abs(P), abs(D))
    return 0.0 if den == 0.0 else abs(P - D) / den


class Formulation:
    """Base class of all CVXPY formulations.

    A formulation builds its ``cvxpy.Problem`` once and never calls a solver
    (:func:`krein.solvers.solve` does); subclasses build the problem in their
    own constructor and pass it here.

    Parameters
    ----------
    problem : cvxpy.Problem
        The optimization problem.
    parameters : dict of str to cvxpy.Parameter, optional
        Named parameters that :meth:`set` may change between solves.
    variables : dict of str to cvxpy.Variable, optional
        Named variables whose values :meth:`values` returns.
    constraints : dict of str to cvxpy.Constraint, optional
        Named constraints whose dual values are recorded in a solution.

    Attributes
    ----------
    name : str
        Short name of the formulation, for messages.
    problem_class : {"LP", "QP", "SOCP", "SDP"}
        Problem class, for solver compatibility.
    strictly_positive : tuple of str
        Parameter names that :meth:`set` requires > 0 (``C``, ``rho``).
    certificate_kind : str
        What the certificate measures as one number (``"gap"``).
    """

    name = "formulation"
    #: Problem class for solver compatibility ("LP", "QP", "SOCP", "SDP").
    problem_class = "QP"
    #: Parameters that must be > 0 even when declared only non-negative (:meth:`set`).
    strictly_positive = ("C", "rho")
    #: What :meth:`certificate` measures as one number: the ``certificate_kind`` of the
    #: solutions of :func:`krein.solvers.solve` (a key of
    #: ``krein.solvers.core.CERTIFICATE_KINDS``; subclasses with another measure set it).
    certificate_kind = "gap"

    def __init__(self, problem, parameters=None, variables=None, constraints=None):
        self.problem = problem
        self.parameters = dict(parameters or {})
        self.variables = dict(variables or {})
        self.constraints = dict(constraints or {})

    # ------------------------------------------------------------------
    def set(self, **values):
        """Set parameter values by name (e.g. ``set(C=10.0)``, ``set(C=per_sample_C)``).

        Parameters
        ----------
        **values
            ``name=value`` for parameters in :attr:`parameters`: a finite number or
            array of the parameter's shape (per-sample ``C``: shape ``(n,)``); ``>= 0``
            for a non-negative parameter, ``> 0`` for a positive one and for the
            names in :attr:`strictly_positive` (``C``, ``rho``: a box bound or
            penalty of 0 is no model).

        Returns
        -------
        self : Formulation
            The formulation, for chaining.

        Raises
        ------
        ValueError
            For an unknown parameter name, a non-numeric value, a wrong shape,
            NaN/inf or a value out of the parameter's sign (``C <= 0``...).
        """
        for key, value in values.items():
            if key not in self.parameters:
                raise ValueError(
                    f"unknown parameter {key!r} for {self.name}; parameters: {sorted(self.parameters)}"
                )
            param = self.parameters[key]
            ok = not isinstance(value, (bool, np.bool_, str, bytes))
            try:
                arr = np.asarray(value, dtype=float) if ok else None
            except (TypeError, ValueError):
                arr = None
            if arr is None:
                raise ValueError(f"{key} must be a finite number or array of shape "
                                 f"{param.shape}; got {value!r}")
            if arr.shape != tuple(param.shape):
                raise ValueError(f"{key} must have shape {tuple(param.shape)} (the parameter's); "
                                 f"got shape {arr.shape}")
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"{key} must be finite; got {value!r}")
            if param.is_pos() or key in self.strictly_positive:
                if np.any(arr <= 0):
                    raise ValueError(f"{key} must be positive (> 0); got {value!r}")
            elif param.is_nonneg() and np.any(arr < 0):
                raise ValueError(f"{key} must be non-negative (>= 0); got {value!r}")
            param.value = float(arr) if arr.ndim == 0 else arr
        return self

    def is_dpp(self):
        """Whether the problem is disciplined parametrized (re-solves skip recompiling).

        Returns
        -------
        bool
            ``problem.is_dpp()``.
        """
        return self.problem.is_dpp()

    @property
    def size(self):
        """Problem size for messages: numbers of scalar variables and constraints."""
        n_var = sum(int(np.prod(v.shape)) if v.shape else 1 for v in self.problem.variables())
        n_con = sum(int(np.prod(c.shape)) if c.shape else 1 for c in self.problem.constraints)
        return {"n_variables": n_var, "n_constraints": n_con}

    def values(self):
        """Current variable values by name (after a solve).

        Returns
        -------
        values : dict of str to ndarray or None
            A copy of each named variable's value (None before a solve).
        """
        return {k: (None if v.value is None else np.array(v.value)) for k, v in self.variables.items()}

    def dual_values(self):
        """Current dual values of the named constraints (after a solve).

        Returns
        -------
        duals : dict of str to ndarray or None
            A copy of each named constraint's dual value (None before a solve).
        """
        return {
            k: (None if c.dual_value is None else np.array(c.dual_value))
            for k, c in self.constraints.items()
        }

    def certificate(self):
        """Optimality certificate at the current point, computed by our code.

        The default reports the largest constraint violation as the primal
        residual and leaves the dual residual and the gap undefined (NaN);
        formulations with a known dual override it.

        Returns
        -------
        certificate : dict
            Keys ``primal_residual`` (largest constraint violation),
            ``dual_residual`` and ``gap`` (NaN here).
        """
        viol = [float(np.max(np.atleast_1d(c.violation()))) for c in self.problem.constraints]
        return {
            "primal_residual": max(viol, default=0.0),
            "dual_residual": float("nan"),
            "gap": float("nan"),
        }


def kernel_unit(K):
    """A power of two near ``max |K|``: the unit a CVXPY margin problem is solved in.

    Interior-point solvers stop on absolute tolerances (CLARABEL ~1e-8); on a
    kernel scaled by ``1e8`` (``C`` scaled to match) the LP-SVM's whole objective
    was ``1e-9`` and the returned point garbage.  Dividing ``K`` by this unit (and
    multiplying ``C`` to match) solves the same problem at unit scale; a power of
    two makes the division exact in floating point.

    Parameters
    ----------
    K : ndarray
        Kernel matrix (finite).

    Returns
    -------
    float
        ``2**e`` with ``2**(e-1) <= max |K| < 2**e``; 1.0 for a zero matrix.
    """
    m = float(np.max(np.abs(K))) if np.size(K) else 0.0
    if not (np.isfinite(m) and m > 0.0):
        return 1.0
    return float(np.ldexp(1.0, int(np.frexp(m)[1])))


def psd_tolerance(eigenvalues):
    """The round-off bound below zero that a PSD matrix's eigenvalues may reach.

    ``100 n eps max_i |lam_i|``: ``eigh`` returns each eigenvalue of a symmetric
    ``n x n`` matrix to within about ``n eps ||P||_2`` (backward stability), so a PSD
    matrix formed in floating point (``L L'``, ``V |lam| V'``, ``Y K Y``) has its
    zero eigenvalues within this band, whatever the BLAS; the same rule as
    :func:`krein.formulations.svm.psd_factor`.  Relative, so ``P`` and ``s P``
    (``s > 0``) get the same verdict.

    Parameters
    ----------
    eigenvalues : ndarray of shape (n,)
        The eigenvalues of the matrix.

    Returns
    -------
    float
        The tolerance (``>= 0``; 0 for an empty or zero spectrum).
    """
    lam = np.asarray(eigenvalues, dtype=float)
    if lam.size == 0:
        return 0.0
    return float(100 * lam.size * np.finfo(float).eps * np.max(np.abs(lam)))


def certified_psd_wrap(P, eigenvalues=None, *, name="P"):
    """``cvxpy.psd_wrap(P)`` after certifying ``P`` PSD by its eigenvalues; the only way krein wraps.

    ``cvxpy.psd_wrap`` tells CVXPY to skip its own PSD check of ``quad_form``'s
    matrix.  On an indefinite matrix the problem is then not convex, yet solvers
    return status "optimal" at points that violate the constraints (cvxpy issue
    #2362).  So every formulation wraps through this helper: with the eigenvalues
    it computed itself (``eigenvalues``; e.g. those of ``K`` for ``Y K Y``, which
    has the same spectrum because ``Y = diag(y)``, ``y in {-1, +1}``, is
    orthogonal) or, without them, ``numpy.linalg.eigvalsh(P)`` here.  ``P`` is
    accepted when its least eigenvalue is ``>= -tol`` with the relative tolerance
    ``tol = 100 n eps max|lam|`` (:func:`psd_tolerance`: round-off of a PSD matrix
    with zero eigenvalues, e.g. a rank-deficient ``L L'``, stays inside it).
    ``tests/test_formulations.py`` walks krein's source: no ``psd_wrap`` call
    outside this function, and no ``quad_form(..., assume_PSD=True)`` (the same
    bypass under another name).

    Parameters
    ----------
    P : array-like of shape (n, n)
        Symmetric matrix, to appear as ``quad_form(x, P)``.
    eigenvalues : array-like of shape (n,), optional
        The eigenvalues of ``P`` the caller computed from its own
        eigendecomposition (of ``P`` or of a matrix with the same spectrum);
        default: computed here.
    name : str
        What ``P`` is, for the error message.

    Returns
    -------
    cvxpy.atoms.affine.wraps.psd_wrap
        ``cvxpy.psd_wrap(P)``.

    Raises
    ------
    ValueError
        If ``P`` is not a finite square matrix, ``eigenvalues`` is not ``n``
        finite numbers, or the least eigenvalue is below ``-tol`` (the message
        names ``P`` and gives the least eigenvalue and ``tol``).
    """
    P = np.asarray(P, dtype=float)
    if P.ndim != 2 or P.shape[0] != P.shape[1] or not np.all(np.isfinite(P)):
        raise ValueError(f"{name} must be a finite square matrix; got shape {P.shape}")
    n = P.shape[0]
    if eigenvalues is None:
        lam = np.linalg.eigvalsh(0.5 * (P + P.T))
    else:
        lam = np.asarray(eigenvalues, dtype=float)
        if lam.shape != (n,) or not np.all(np.isfinite(lam)):
            raise ValueError(f"eigenvalues of {name} must be {n} finite numbers; got shape "
                             f"{lam.shape}")
    tol = psd_tolerance(lam)
    least = float(np.min(lam)) if n else 0.0
    if least < -tol:
        raise ValueError(f"{name} is not positive semidefinite: least eigenvalue {least:.6g} < "
                         f"-{tol:.3g} (relative tolerance 100 n eps max|lam|); cvxpy.psd_wrap on "
                         "it would return 'optimal' at infeasible points (cvxpy issue #2362)")
    return cp.psd_wrap(P)


class _Reusable:
    """The process-global LRU of compiled formulations, one lock per entry."""

    def __init__(self):
        self.entries = collections.OrderedDict()   # key -> (formulation, lock)
        self.lock = threading.Lock()

    def entry(self, key, build):
        with self.lock:
            item = self.entries.get(key)
            if item is not None:
                self.entries.move_to_end(key)
                return item
        item = (build(), threading.Lock())        # compiled on its first solve, not here
        with self.lock:
            item = self.entries.setdefault(key, item)
            self.entries.move_to_end(key)
            while len(self.entries) > REUSABLE_MAX_ENTRIES:
                self.entries.popitem(last=False)
            return item

    def clear(self):
        with self.lock:
            self.entries.clear()


_REUSABLE = _Reusable()


@contextlib.contextmanager
def reusable_formulation(key, build):
    """A formulation kept per process for its STRUCTURE, held exclusively while in use.

    A DPP formulation whose data (kernel block, labels, ``C``) are all cvxpy
    Parameters compiles once per structure (e.g. ``("lp-svm", n, m, per_sample)``)
    and is re-solved for every block of that shape: CVXPY then only applies the new
    parameter values (``apply_parameters``) instead of canonicalizing the problem
    again, which dominates the time of the small one-vs-one problems of many
    classes.  The store holds at most :data:`REUSABLE_MAX_ENTRIES`
    formulations (least recently used evicted).  The entry's lock is held for the
    whole ``with`` block, so the caller sets every parameter, solves and copies
    the values out (:func:`krein.solvers.solve` copies them into its Solution)
    before another thread may use the same entry: nothing of one solve is seen by
    another, and a caller must not keep the formulation after the block.

    Parameters
    ----------
    key : hashable
        The structure: everything that changes the compiled problem (formulation,
        shapes, scalar or per-sample ``C``).
    build : callable
        ``build() -> Formulation``, called when the store has no entry for ``key``.

    Yields
    ------
    Formulation
        The stored formulation, locked for this caller.
    """
    formulation, lock = _REUSABLE.entry(key, build)
    with lock:
        yield formulation
