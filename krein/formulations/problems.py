"""The problems the custom solvers take, as data: one small dataclass per problem class.

:func:`krein.solvers.solve_problem` dispatches ``solve_problem(problem, solver,
**options) -> Solution`` on the solver table (:data:`krein.solvers.SOLVERS`); each
entry lists the problem classes (:data:`krein.solvers.PROBLEM_CLASSES`) it solves and
the problem says which class it is (``problem.problem_class``).  A CVXPY solver takes
a :class:`~krein.formulations.Formulation` (class ``"LP"``, ``"QP"``, ...); the
IndefiniteSVM loops take a :class:`~krein.formulations.indefinite.ProxyKernelProblem`
(``"proxy-kernel"``); krein's other solvers take the problems below, which hold the
data of their model and nothing else (the solvers check it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = ["SVMDualProblem", "SVRDualProblem", "LinearSVMProblem", "KSVMProblem",
           "KSVMFactorProblem", "HullProblem",
           "SparseBayesProblem", "KernelCorrectionProblem", "NearestPSDProblem", "CLCProblem",
           "DCProblem"]


@dataclass(frozen=True)
class SVMDualProblem:
    """The C-SVM dual on a precomputed kernel (e.g. loosli eq. 17).

    ``max 1'alpha - 1/2 (y*alpha)'K (y*alpha)`` over ``y'alpha = 0``, ``0 <= alpha <= C``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel (libsvm reads it as given, PSD or not).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,), default=1.0
        Box bound(s).
    """

    problem_class: ClassVar[str] = "svm-dual"
    K: Any
    y: Any
    C: Any = 1.0


@dataclass(frozen=True)
class SVRDualProblem:
    """The epsilon-SVR dual on a precomputed PSD kernel (ESVR's flipped kernel).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric PSD kernel.
    y : ndarray of shape (n,)
        Real targets.
    C : float, default=1.0
        Box bound.
    epsilon : float, default=0.1
        Half-width of the insensitive tube.
    """

    problem_class: ClassVar[str] = "svr-dual"
    K: Any
    y: Any
    C: Any = 1.0
    epsilon: float = 0.1


@dataclass(frozen=True)
class LinearSVMProblem:
    """The C-SVM on explicit features (the approximate path).

    Parameters
    ----------
    Phi : ndarray of shape (n, r)
        Features.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,), default=1.0
        Box bound(s).
    """

    problem_class: ClassVar[str] = "linear-svm"
    Phi: Any
    y: Any
    C: Any = 1.0


@dataclass(frozen=True)
class KSVMProblem:
    """KSVM's box-constrained least squares (loosli eq. 26), on any symmetric kernel.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel (any signature).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,), default=1.0
        Box bound(s).
    """

    problem_class: ClassVar[str] = "ksvm-ls"
    K: Any
    y: Any
    C: Any = 1.0


@dataclass(frozen=True)
class KSVMFactorProblem:
    """KSVM's least squares (loosli eq. 26) on a kernel given by signed features.

    ``K = Psi diag(signs) Psi'`` (the eigenfeatures of an approximation), never formed.

    Parameters
    ----------
    Psi : ndarray of shape (n, r)
        Features.
    signs : ndarray of shape (r,)
        Their signs (+-1).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,), default=1.0
        Box bound(s).
    """

    problem_class: ClassVar[str] = "ksvm-ls-factor"
    Psi: Any
    signs: Any
    y: Any
    C: Any = 1.0


@dataclass(frozen=True)
class HullProblem:
    """Haasdonk's CH-DU, the closest points of the reduced convex hulls (haasdonk §4).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel (any signature; CH-DU is non-convex in general).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    mu : float, default=1.0
        Reduction bound, ``>= 1 / min(n+, n-)``.
    """

    problem_class: ClassVar[str] = "hull"
    K: Any
    y: Any
    mu: float = 1.0


@dataclass(frozen=True)
class SparseBayesProblem:
    """The RVM's marginal likelihood (Tipping & Faul 2003) of a design matrix.

    Parameters
    ----------
    Phi : ndarray of shape (n, P)
        Design matrix (basis functions as columns).
    t : ndarray of shape (n,)
        Targets (0/1 for the Bernoulli likelihood, real for the Gaussian one; the
        likelihood is a solver option).
    """

    problem_class: ClassVar[str] = "sparse-bayes"
    Phi: Any
    t: Any


@dataclass(frozen=True)
class KernelCorrectionProblem:
    """A PSD kernel near an indefinite one (munoz Algorithm 1 and eq. 13).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The indefinite kernel.
    weights : None or ndarray of shape (n,) or (n, n), optional
        Bending's weighting matrix ``W`` (:func:`krein.solvers.bending.bending`).
    A : ndarray of shape (n, n), optional
        The base kernel of a conformal transformation ``A o (V V')``
        (:func:`krein.solvers.conformal.conformal_fit`); required by those solvers.
    """

    problem_class: ClassVar[str] = "kernel-correction"
    K: Any
    weights: Any = None
    A: Any = None


@dataclass(frozen=True)
class NearestPSDProblem:
    """The nearest PSD matrix with a fixed diagonal (munoz eqs. 9-12; Higham 2002).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric matrix.
    diagonal : None, "keep", float or ndarray of shape (n,), default="keep"
        The fixed diagonal (:func:`krein.formulations.nearest_psd.resolve_diagonal`);
        ``None``: no constraint.
    weights : None or ndarray of shape (n,) or (n, n), optional
        ``W`` of the norm (:func:`krein.formulations.nearest_psd.check_weights`).
    """

    problem_class: ClassVar[str] = "nearest-psd"
    K: Any
    diagonal: Any = "keep"
    weights: Any = None


@dataclass(frozen=True)
class CLCProblem:
    """CLC weights on the simplex (munoz eqs. 15-16): ``min k2 - 2 c'beta + beta'G beta``.

    Parameters
    ----------
    G : ndarray of shape (M, M)
        Gram matrix ``<K_m, K_l>_F`` of the base kernels.
    c : ndarray of shape (M,)
        Inner products ``<K, K_m>_F`` with the target kernel.
    k2 : float, default=0.0
        ``||K||_F^2`` (a constant of the objective).
    """

    problem_class: ClassVar[str] = "clc-simplex"
    G: Any
    c: Any
    k2: float = 0.0


@dataclass(frozen=True)
class DCProblem:
    """IKSVM-DC's primal squared-hinge SVM on an indefinite kernel (Xu et al. 2017).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel (any signature).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,), default=1.0
        Loss weight(s).
    """

    problem_class: ClassVar[str] = "dc-sqhinge"
    K: Any
    y: Any
    C: Any = 1.0
