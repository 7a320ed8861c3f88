"""Cost of ``probability=True``: Platt scaling on internal 5-fold CV.

For each method, the fit time with ``probability=True`` as a ratio against the
same estimator's fit with ``probability=False`` and against ESVC's fit
(``probability=False``) on the same kernel, in the same process; plus the
test ROC AUC and log-loss of the probabilities.  Platt scaling fits the model
five times on 4/5 of the data and once on all of it (the full model is the
estimator's fit, not fitted twice), so the expected ratio is about
``1 + 5 * 0.8^p`` for a fit that costs ``n^p``.

Problem: the checkerboard with its catalogue kernel (what ``krein compare``
uses, :func:`krein.kernel_data.load_kernel_data`), ``n`` training points,
``n // 2`` test points.

Usage::

    python benchmarks/probability.py [--n 2000] [--methods esvm,svm,flip,knn]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def _timed_fit(est, K, y):
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(K, y)
    return time.perf_counter() - t0


def main(argv=None):
    """Print the fit-time ratios of ``probability=True`` and the test AUC / log-loss.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments (default: ``sys.argv[1:]``).
    """
    from sklearn.metrics import log_loss, roc_auc_score

    from krein.kernel_data import load_kernel_data
    from krein.registry import make_method

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--methods", default="esvm,svm,flip,knn")
    args = ap.parse_args(argv)

    data = load_kernel_data("checkerboard", n_samples=args.n + args.n // 2, random_state=0)
    y = data.y
    tr, te = np.arange(args.n), np.arange(args.n, y.size)
    K, Kt = data.K[np.ix_(tr, tr)], data.K[np.ix_(te, tr)]
    print(f"checkerboard, kernel {data.kernel} {data.kernel_params}, n = {args.n}, min "
          f"eigenvalue {np.linalg.eigvalsh(K)[0]:.3g}")
    esvc = _timed_fit(make_method("esvm", kernel="precomputed"), K, y[tr])
    print(f"ESVC fit (reference): {esvc:.2f} s")
    print(f"{'method':<10} {'fit s':>8} {'proba s':>8} {'x own':>6} {'x ESVC':>7} "
          f"{'AUC':>6} {'log-loss':>8}")
    for name in args.methods.split(","):
        plain = _timed_fit(make_method(name, kernel="precomputed"), K, y[tr])
        est = make_method(name, kernel="precomputed", probability=True)
        proba = _timed_fit(est, K, y[tr])
        P = est.predict_proba(Kt)
        print(f"{name:<10} {plain:8.2f} {proba:8.2f} {proba / plain:6.1f} {proba / esvc:7.1f} "
              f"{roc_auc_score(y[te] == est.classes_[1], P[:, 1]):6.3f} "
              f"{log_loss(y[te], P, labels=est.classes_):8.3f}")


if __name__ == "__main__":
    main()
