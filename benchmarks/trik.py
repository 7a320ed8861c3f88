"""TrIK-SVM (``ESVC(decomposition="ldl")``) and the Krein SVR against Loosli's code; LDL' speed.

Three parts, all in this process:

1. **Agreement with the peer**: Loosli's reference code (``gloosli/SimpleSVM``,
   ``solvers/activeSetSVM.py``; pass its folder with ``--peer``, it is not part of
   krein) is run on Sonar (140 training / 68 test points, a fixed split) with two
   sigmoid kernels: ``a = 0.003`` (one negative eigenvalue; Bunch-Kaufman would
   take only 1x1 pivots and no interchange) and ``a = 0.0333`` (the main job's
   kernel: Bunch-Kaufman would interchange rows and take 2x2 blocks, so only the
   unpivoted ``L|D|L'`` that krein computes is the peer's; the columns ``2x2`` and
   ``swaps`` count what Bunch-Kaufman would do).  For the eigh route (``preKSVM``/``postKSVM`` + her active-set
   ``solve``, seeded) against ``ESVC()``, the LDL route (``preKSVM2``/``postKSVM2``
   + ``solve``) against ``ESVC(decomposition="ldl")``, and her ``solveSVR`` on the
   flipped kernels against ``ESVR`` (targets: the labels +-1): the max relative
   difference of the test decision values (``max |f_peer - f_krein| / max
   |f_krein|``), the test accuracy (MSE for the SVR) of both, and
   ``||K~_peer - K~_krein||_max / ||K~_peer||_max``.  Her ``solve`` adds ``1e-8 I``
   to ``Y K Y`` and stops on its own KKT test; krein's libsvm runs at ``tol=1e-8``.
2. **Speed of LDL' against eigh**: ``ESVC(decomposition="ldl").fit`` time /
   ``ESVC().fit`` time on the checkerboard with the sigmoid kernel of
   ``benchmarks/esvm.py`` at n = 1000, 2000, 4000 (``--sizes``), under one BLAS
   thread (threadpoolctl) and the default threads; at n = 8000 (``--factor-sizes``)
   the flip alone (``LDLFlip.from_kernel`` + ``L|D|L'`` against ``eigh`` +
   ``V|lam|V'``), since a full fit there takes minutes on a 2-core machine.
   Her unpivoted LU (a Python loop, ``O(n^3)`` in Python) is timed at n <= 400 only.
3. **Against ESVC at n = 2000**: trik-svm's and ESVR's fit times / ``ESVC().fit``
   on the same kernel (default threads), and one trik-svm fit at n = 200.

Usage::

    python benchmarks/trik.py [--peer /work/peer/SimpleSVM/solvers] [--sizes 1000,2000,4000]
                              [--factor-sizes 8000] [--repeat 1]
    python benchmarks/trik.py --quick      # n = 300 / 600: to check the script runs
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

from krein import ESVC, ESVR
from krein.datasets import load_dataset, make_checkerboard
from krein.kernels import sigmoid_kernel
from krein.solvers.ldl import LDLFlip

PEER = "/work/peer/SimpleSVM/solvers"


def best_of(fn, repeat):
    """(the least seconds of ``repeat`` runs, the last result)."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def _quiet(fn, *args, **kwargs):
    """Call the peer's code without its prints."""
    with contextlib.redirect_stdout(io.StringIO()):
        return fn(*args, **kwargs)


def _rel(a, b):
    return float(np.max(np.abs(np.ravel(a) - np.ravel(b))) / np.max(np.abs(b)))


def peer_agreement(peer, C=1.0, epsilon=0.1):
    """Part 1: krein against the peer's eigh / LDL routes and SVR on Sonar."""
    ds = load_dataset("sonar")
    X, y = ds.X, np.where(ds.y == ds.y.max(), 1.0, -1.0)
    idx = np.random.default_rng(0).permutation(y.size)
    tr, te = idx[:140], idx[140:]
    print(f"Part 1: agreement with Loosli's activeSetSVM.py on Sonar ({tr.size} train / "
          f"{te.size} test), C = {C}, SVR epsilon = {epsilon}")
    print(f"{'kernel':>16} {'route':>5} {'2x2':>4} {'swaps':>5} {'|K~ diff|':>10} "
          f"{'|f diff|':>9} {'peer acc':>8} {'krein acc':>9} {'peer MSE':>8} "
          f"{'krein MSE':>9} {'|f diff| SVR':>12}")
    for a in (0.003, 0.0333):
        K = sigmoid_kernel(X[tr], X[tr], a=a, r=-1.0)
        Kte = sigmoid_kernel(X[te], X[tr], a=a, r=-1.0)
        bk = LDLFlip.from_kernel(K, pivoting="bunch-kaufman")
        swaps = int(np.count_nonzero(bk.perm != np.arange(tr.size)))
        for route in ("eigh", "ldl"):
            if route == "eigh":
                D, U, Kt = _quiet(peer.preKSVM, K)
                post = lambda al, yy: peer.postKSVM(al, yy, D, U)            # noqa: E731
                Kt_krein = (lambda lam, V: (V * np.abs(lam)) @ V.T)(*np.linalg.eigh(K))
            else:
                L, D, Kt = _quiet(peer.preKSVM2, K)
                post = lambda al, yy: peer.postKSVM2(al, yy, L, D)           # noqa: E731
                Kt_krein = LDLFlip.from_kernel(K).flipped_kernel(K)
            np.random.seed(0)                                   # her random active set
            x, b = _quiet(peer.solve, Kt, y[tr], C)
            f_peer = peer.predict(post(x, y[tr]), b, y[tr], Kte.T).ravel()
            est = ESVC(kernel="precomputed", C=C, tol=1e-8, decomposition=route).fit(K, y[tr])
            f_krein = est.decision_function(Kte)
            np.random.seed(0)
            u, bs = _quiet(peer.solveSVR, Kt, y[tr], C, epsilon)
            g_peer = peer.predictSVR(post(u, np.ones(tr.size)), bs, Kte.T).ravel()
            g_krein = ESVR(kernel="precomputed", C=C, epsilon=epsilon, tol=1e-8,
                           decomposition=route).fit(K, y[tr]).predict(Kte)
            print(f"{'sigmoid a=' + str(a):>16} {route:>5} {bk.n_blocks_2x2:>4} {swaps:>5} "
                  f"{_rel(Kt, Kt_krein):>10.1e} {_rel(f_peer, f_krein):>9.1e} "
                  f"{np.mean(np.sign(f_peer) == y[te]):>8.3f} "
                  f"{np.mean(np.sign(f_krein) == y[te]):>9.3f} "
                  f"{np.mean((g_peer - y[te]) ** 2):>8.3f} {np.mean((g_krein - y[te]) ** 2):>9.3f} "
                  f"{_rel(g_peer, g_krein):>12.1e}")
    print("(2x2, swaps: the 2x2 blocks and interchanged rows Bunch-Kaufman would take, "
          "decomposition='ldl-pivoted'; krein's 'ldl' is unpivoted, as the peer's)")
    print("\nthe peer's unpivoted LU (Python loop) against krein's blocked unpivoted LDL' "
          "(BLAS-3 panels), one BLAS thread, best of 3:")
    print(f"{'n':>5} {'preKSVM2 s':>10} {'LDLFlip s':>9} {'ratio':>7}")
    for n in (100, 200, 400):
        Xc, _ = make_checkerboard(n, overlap=0.1, random_state=0)
        K = sigmoid_kernel(Xc, a=1.0, r=-1.0)
        with threadpool_limits(limits=1):
            t_peer, _ = best_of(lambda: _quiet(peer.preKSVM2, K), 3)
            t_ldl, _ = best_of(lambda: LDLFlip.from_kernel(K).flipped_kernel(K), 3)
        print(f"{n:>5} {t_peer:>10.3f} {t_ldl:>9.4f} {t_peer / t_ldl:>7.0f}")


def _problem(n):
    X, y = make_checkerboard(n, overlap=0.1, random_state=0)
    return sigmoid_kernel(X, a=1.0, r=-1.0), y


def _flip_eigh(K):
    lam, V = np.linalg.eigh(K)
    return (V * np.abs(lam)) @ V.T


def _flip_ldl(K):
    return LDLFlip.from_kernel(K).flipped_kernel(K)


def speed(sizes, factor_sizes, repeat):
    """Part 2: LDL' against eigh, full fits and the flip alone."""
    print("\nPart 2: ESVC(decomposition='ldl').fit / ESVC().fit (checkerboard, sigmoid a=1 r=-1, "
          "C=1)")
    print(f"{'n':>5} {'threads':>7} {'eigh fit s':>10} {'ldl fit s':>9} {'ratio':>6} "
          f"{'eigh flip s':>11} {'ldl flip s':>10} {'ratio':>6}")
    for n in list(sizes) + list(factor_sizes):
        K, y = _problem(n)
        for threads in (1, None):
            with threadpool_limits(limits=threads):
                t_fe, _ = best_of(lambda: _flip_eigh(K), repeat)
                t_fl, _ = best_of(lambda: _flip_ldl(K), repeat)
                if n in sizes:
                    t_e, _ = best_of(lambda: ESVC(kernel="precomputed").fit(K, y), repeat)
                    t_l, _ = best_of(lambda: ESVC(kernel="precomputed",
                                                  decomposition="ldl").fit(K, y), repeat)
                    fits = f"{t_e:>10.2f} {t_l:>9.2f} {t_l / t_e:>6.2f}"
                else:
                    fits = f"{'-':>10} {'-':>9} {'-':>6}"
            label = "1" if threads == 1 else "default"
            print(f"{n:>5} {label:>7} {fits} {t_fe:>11.2f} {t_fl:>10.2f} {t_fl / t_fe:>6.2f}",
                  flush=True)


def against_esvc(n, repeat):
    """Part 3: trik-svm's and ESVR's fit times against ESVC's at ``n``."""
    K, y = _problem(n)
    t_e, _ = best_of(lambda: ESVC(kernel="precomputed").fit(K, y), repeat)
    t_l, _ = best_of(lambda: ESVC(kernel="precomputed", decomposition="ldl").fit(K, y), repeat)
    t_r, _ = best_of(lambda: ESVR(kernel="precomputed").fit(K, y.astype(float)), repeat)
    t_rl, _ = best_of(lambda: ESVR(kernel="precomputed", decomposition="ldl").fit(
        K, y.astype(float)), repeat)
    K2, y2 = _problem(200)
    t_200, _ = best_of(lambda: ESVC(kernel="precomputed", decomposition="ldl").fit(K2, y2), 3)
    print(f"\nPart 3: fit time / ESVC().fit at n = {n} (default threads; ESVC {t_e:.2f} s)")
    print(f"  trik-svm  ESVC(decomposition='ldl')  {t_l:.2f} s  ratio {t_l / t_e:.2f}")
    print(f"  esvr      ESVR()                     {t_r:.2f} s  ratio {t_r / t_e:.2f}")
    print(f"  esvr      ESVR(decomposition='ldl')  {t_rl:.2f} s  ratio {t_rl / t_e:.2f}")
    print(f"  trik-svm at n = 200: {t_200 * 1e3:.0f} ms per fit")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer", default=PEER, help="folder holding Loosli's activeSetSVM.py")
    ap.add_argument("--sizes", default="1000,2000,4000")
    ap.add_argument("--factor-sizes", default="8000")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--skip", default="", help="parts to skip, e.g. 'peer' or 'speed,esvc'")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    sizes = [300] if args.quick else [int(s) for s in args.sizes.split(",") if s]
    factor_sizes = [600] if args.quick else [int(s) for s in args.factor_sizes.split(",") if s]
    if "peer" not in skip:
        if os.path.exists(os.path.join(args.peer, "activeSetSVM.py")):
            sys.path.insert(0, args.peer)
            import activeSetSVM as peer  # the peer, outside krein

            peer_agreement(peer)
        else:
            print(f"Part 1 skipped: no activeSetSVM.py in {args.peer} (--peer)")
    if "speed" not in skip:
        speed(sizes, factor_sizes, args.repeat)
    if "esvc" not in skip:
        against_esvc(300 if args.quick else 2000, args.repeat)


if __name__ == "__main__":
    main()
