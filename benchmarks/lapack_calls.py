"""LAPACK called directly against the library call it replaces, at the sizes the loops meet.

Five places in krein call LAPACK through ``scipy.linalg.lapack`` instead of a NumPy or
SciPy wrapper, inside loops whose iterations are small enough that the wrapper's input
handling is a visible share of the time.  For each, this script times the direct call
and the library call it stands for (same process, same inputs, one BLAS thread, CPU time,
best of ``--repeat`` rounds of ``--number`` calls) and prints the ratio library / direct,
and whether the two give the same bits on these inputs:

* ``face-qr``: the CH-DU face basis (:func:`krein.formulations.hull.hull_face_basis`,
  ``dgeqrf`` + ``dorgqr``) against ``numpy.linalg.qr(B', mode="complete")`` of the
  class indicators, on free sets of ``k`` coefficients (ch's face steps: ``k <=
  max(64, 2 n^(2/3))``, the second-order test: any free set);
* ``face-eigh``: the reduced Hessian's ``dsyevd`` in the face step of
  :func:`krein.solvers.hull.hull_multistart` against ``numpy.linalg.eigh``;
* ``ksvm-trtrs``: the triangular solve of KSVM's active set (``trtrs``) against
  ``scipy.linalg.solve_triangular``, on the free sets of one-vs-one pairs;
* ``dca-potrf``: the finite-Newton system of IKSVM-DC (``dpotrf`` + one ``dpotrs`` with
  two right-hand sides) against ``scipy.linalg.cho_factor`` / ``cho_solve``;
* ``svmqp-potrf``: the Newton system of the certifier's interior-point method
  (``dpotrf`` + two ``dpotrs``) against ``cho_factor`` / two ``cho_solve``.

``--end-to-end`` times the solvers themselves with the direct calls and with the
library calls put in their place (the same modules, patched), on sigmoid kernels of
``n`` points, and compares their results bit for bit: ch (``ConvexHullClassifier``,
multistart, mu = 0.3), ``ksvm_active_set``, ``dca`` and ``box_qp_interior_point`` on the
flipped kernel.

Run: ``python benchmarks/lapack_calls.py [--end-to-end]`` (a minute or two each).
"""

from __future__ import annotations

import argparse
import contextlib
import time
import timeit
import types
import warnings

import numpy as np
import scipy.linalg as sla
from scipy.linalg.lapack import dpotrf, dpotrs, dsyevd
from threadpoolctl import threadpool_limits

import krein.formulations.hull as fhull
import krein.solvers.dca as sdca
import krein.solvers.hull as shull
import krein.solvers.indefinite.svm_qp as sqp
import krein.solvers.ksvm as sksvm
from krein.estimators.hull import ConvexHullClassifier
from krein.formulations.hull import hull_face_basis
from krein.kernels import sigmoid_kernel
from krein.solvers.dca import dca
from krein.solvers.indefinite.svm_qp import box_qp_interior_point
from krein.solvers.ksvm import _TriangularSolve, ksvm_active_set


def _best(fn, number, repeat):
    """Best CPU seconds per call (CPU time: the other processes of a shared machine
    count less than in wall time)."""
    return min(timeit.repeat(fn, number=number, repeat=repeat, timer=time.process_time)) / number


def _same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b))


def face_qr(k, rng):
    yF = np.where(rng.rand(k) < 0.5, 1.0, -1.0)
    yF[:2] = (1.0, -1.0)

    def library():
        return _library_face_basis(yF)

    def direct():
        return hull_face_basis(yF)

    return library, direct


def face_eigh(k, rng):
    A = rng.randn(k, k)
    R = A + A.T

    def library():
        return np.linalg.eigh(R)

    def direct():
        w, V, _ = dsyevd(R, compute_v=1, lower=1)
        return w, V

    return library, direct


def ksvm_trtrs(k, rng):
    R = np.triu(rng.randn(k, k)) + 5.0 * np.eye(k)
    R = np.asfortranarray(R)
    b = rng.randn(k)
    solve = _TriangularSolve()

    def library():
        return (sla.solve_triangular(R, b),)

    def direct():
        return (solve(R, b),)

    return library, direct


def _spd(k, rng):
    A = rng.randn(k, k)
    return A @ A.T + k * np.eye(k)


def dca_potrf(k, rng):
    M = _spd(k, rng)
    rhs = rng.randn(k, 2)

    def library():
        return (sla.cho_solve(sla.cho_factor(M, lower=True), rhs),)

    def direct():
        L, _ = dpotrf(M, lower=1, clean=0)
        return (dpotrs(L, rhs, lower=1)[0],)

    return library, direct


def svmqp_potrf(k, rng):
    H = _spd(k, rng)
    a, r = rng.randn(k), rng.randn(k)

    def library():
        f = sla.cho_factor(H, lower=True)
        return sla.cho_solve(f, a), sla.cho_solve(f, r)

    def direct():
        fac, _ = dpotrf(H, lower=1, clean=0)
        return dpotrs(fac, a, lower=1)[0], dpotrs(fac, r, lower=1)[0]

    return library, direct


CASES = {"face-qr": (face_qr, (8, 32, 64, 128)),
         "face-eigh": (face_eigh, (8, 32, 64)),
         "ksvm-trtrs": (ksvm_trtrs, (16, 32, 64)),
         "dca-potrf": (dca_potrf, (16, 32, 64, 128)),
         "svmqp-potrf": (svmqp_potrf, (16, 32, 64, 128))}


# ------------------------------------------------------------------ end to end
def _library_face_basis(yF):
    B = np.vstack([(yF > 0), (yF < 0)]).astype(float)
    Bt = B[B.sum(axis=1) > 0].T
    return np.linalg.qr(Bt, mode="complete")[0][:, Bt.shape[1]:]


def _library_dsyevd(R, compute_v=1, lower=1):
    w, V = np.linalg.eigh(R)
    return w, V, 0


class _LibraryTriangularSolve:
    def __call__(self, R, b):
        return sla.solve_triangular(R, b)


def _library_potrf(M, lower=1, clean=0, overwrite_a=0):
    try:
        return sla.cho_factor(M, lower=True, overwrite_a=bool(overwrite_a))[0], 0
    except np.linalg.LinAlgError:
        return M, 1


def _library_potrs(L, b, lower=1):
    return sla.cho_solve((L, True), b), 0


#: The library call put in place of each direct one: (module, attribute, replacement).
_LIBRARY = {
    "face-qr": [(fhull, "hull_face_basis", _library_face_basis),
                (shull, "hull_face_basis", _library_face_basis)],
    "face-eigh": [(shull, "dsyevd", _library_dsyevd)],
    "ksvm-trtrs": [(sksvm, "_TriangularSolve", _LibraryTriangularSolve)],
    "dca-potrf": [(sdca, "_potrf", _library_potrf), (sdca, "_potrs", _library_potrs)],
    "svmqp-potrf": [(sqp, "lapack", types.SimpleNamespace(dpotrf=_library_potrf,
                                                          dpotrs=_library_potrs))],
}


@contextlib.contextmanager
def _library_calls(cases=tuple(_LIBRARY)):
    """The library calls in place of the direct ones of ``cases``, in the modules that
    make them."""
    patches = [p for case in cases for p in _LIBRARY[case]]
    old = [getattr(m, a) for m, a, _ in patches]
    for m, a, new in patches:
        setattr(m, a, new)
    try:
        yield
    finally:
        for (m, a, _), v in zip(patches, old):
            setattr(m, a, v)


def _problem(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X @ rng.normal(size=4) + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return sigmoid_kernel(X, a=0.5, r=-0.5), y


def _runs(K, y):
    lam, V = np.linalg.eigh(K)
    Kf = (V * np.abs(lam)) @ V.T
    Q = np.outer(y, y) * Kf

    def ch():
        m = ConvexHullClassifier(kernel="precomputed", solver="multistart", mu=0.3,
                                 random_state=0).fit(K, y)
        return [m.alpha_bar_[0], m.decision_function(K)]

    def ksvm():
        return [ksvm_active_set(K, y, 1.0).primal["alpha"]]

    def dc():
        s = dca(K, y, 1.0, random_state=0)
        return [s.primal["beta"], np.array(s.primal["b"])]

    def svmqp():
        return [box_qp_interior_point(Q, np.ones(y.size), y, 0.0, np.full(y.size, 1.0))[0]]

    return [("ch", ch, ("face-qr", "face-eigh")), ("ch", ch, ("face-qr",)),
            ("ch", ch, ("face-eigh",)), ("ksvm", ksvm, ("ksvm-trtrs",)),
            ("dca", dc, ("dca-potrf",)), ("svm-qp", svmqp, ("svmqp-potrf",))]


def _walls(fn, cases, repeat):
    """Best CPU time of ``fn`` with the direct and with the library calls, interleaved
    (a change of machine load hits both alike); the outputs of the last runs."""
    best = {"direct": np.inf, "library": np.inf}
    out = {}
    for _ in range(repeat):
        for kind in ("direct", "library"):
            with _library_calls(cases) if kind == "library" else contextlib.nullcontext():
                t0 = time.process_time()
                out[kind] = fn()
                best[kind] = min(best[kind], time.process_time() - t0)
    return best, out


def end_to_end(sizes, repeat):
    print(f"{'solver':<6} {'library calls':<20} {'n':>4} {'library (ms CPU)':>16} "
          f"{'direct (ms CPU)':>15} {'ratio':>6}  same bits")
    for n in sizes:
        K, y = _problem(n)
        for name, fn, cases in _runs(K, y):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                best, out = _walls(fn, cases, repeat)
            same = _same(out["library"], out["direct"])
            print(f"{name:<6} {'+'.join(cases):<20} {n:>4} {1e3 * best['library']:>16.1f} "
                  f"{1e3 * best['direct']:>15.1f} {best['library'] / best['direct']:>6.2f}  {same}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--end-to-end", action="store_true",
                        help="time the solvers with the direct and the library calls")
    parser.add_argument("--sizes", type=int, nargs="+", default=[40, 100, 200])
    args = parser.parse_args(argv)
    if args.end_to_end:
        with threadpool_limits(limits=1):
            end_to_end(args.sizes, args.repeat)
        return
    rng = np.random.RandomState(0)
    print(f"{'case':<12} {'k':>4} {'library (us CPU)':>16} {'direct (us CPU)':>15} {'ratio':>6}  same bits")
    with threadpool_limits(limits=1):
        for name, (make, sizes) in CASES.items():
            for k in sizes:
                library, direct = make(k, rng)
                lib = _best(library, args.number, args.repeat)
                dir_ = _best(direct, args.number, args.repeat)
                same = _same([np.asarray(x) for x in library()], [np.asarray(x) for x in direct()])
                print(f"{name:<12} {k:>4} {1e6 * lib:>16.1f} {1e6 * dir_:>15.1f} "
                      f"{lib / dir_:>6.2f}  {same}")


if __name__ == "__main__":
    main()
