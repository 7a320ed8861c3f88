"""Shared wiring of the Munoz & de Diego (2006) methods for munoz_table1.py and munoz_table2.py.

Not an experiment (the leading underscore keeps it out of the ``--quick`` test
run).  Every row of munoz Tables 1-2 is "correct the indefinite training
kernel, train an SVM on it, map the test rows": :func:`corrected_blocks` builds
the corrected training block and the mapped test rows of one method with the
krein transformers, and :func:`svm_scores` trains libsvm
(``sklearn.svm.SVC(kernel="precomputed")``) on the corrected block and returns
the paper's measures.  The wiring (munoz §3-4):

==============  ========================================================================
row             krein
==============  ========================================================================
MDS_eps         ``SpectrumCorrection("mds", eps=eps)``, test rows by eq. (3)
MDS_top2        the same with ``eps`` between the 2nd and 3rd eigenvalue of the block
                (munoz: "eps = 5, which implies the selection of the two highest
                eigenvalues"; our eigenvalues are on another scale, see the README)
Pseudo_eps      ``SpectrumCorrection("pseudo", eps=eps)``, test rows by eq. (5)
Adding lambda I ``SpectrumCorrection("add_diagonal")`` (lambda = -lambda_min), raw test rows
ST              ``SpectrumCorrection("square")``, test rows ``k(x, X) K`` (eq. 7)
Bending         ``Bending(weights="support-vectors", C=C)``: W from the support vectors of an
                SVC on the MDS kernel, Algorithm 1, test rows by eq. (8)
AP              ``NearestPSD(diagonal=..., weights="support-vectors", C=C)``: problem (9),
                W from the MDS support vectors (default solver: Qi & Sun's Newton method,
                the nearest point; munoz's plain eq. (10) is ``solver="plain"``)
AKM             the average of the base kernels (``ConformalLinearCombination("average")``)
CT_A            ``ConformalTransformation(base=A)`` with ``A`` the AKM kernel (Table 1) or
                the RBF kernel with c = 55 (Table 2); test rows by eq. (14)
CLC_AKM         ``ConformalLinearCombination()``: eq. (15) over the base kernels
==============  ========================================================================
"""

import numpy as np

#: Positive class of the sensitivity (munoz §4: "True '+' recovered / Total true '+'").
POSITIVE = 1


def _spectral(correction, **params):
    from krein.spectrum import SpectrumCorrection

    return SpectrumCorrection(correction=correction, out_of_sample="auto", **params)


def top2_eps(K):
    """An MDS threshold between the 2nd and 3rd largest eigenvalue of ``K`` (their mean)."""
    lam = np.linalg.eigvalsh(K)[::-1]
    return float(0.5 * (lam[1] + lam[2]))


def corrected_blocks(method, K_tr, K_te, B_tr, B_te, y_tr, C, A=None, A_te=None, diagonal="keep"):
    """Corrected training block and mapped test rows of one munoz method.

    Parameters
    ----------
    method : str
        ``"mds-0"``, ``"mds-1"``, ``"mds-5"``, ``"mds-top2"``, ``"pseudo-0"``,
        ``"pseudo-1"``, ``"add-diagonal"``, ``"square"``, ``"bending"``, ``"ap"``,
        ``"ap-plain"`` (AP by munoz's plain alternation, eq. 10), ``"akm"``, ``"ct"``,
        ``"clc"``, or ``"base"`` (the kernel ``A`` itself).
    K_tr : ndarray of shape (n, n)
        The indefinite training kernel (the combination).
    K_te : ndarray of shape (m, n)
        Its test rows.
    B_tr, B_te : ndarray of shape (n, n, M) and (m, n, M)
        The base kernels (AKM, CLC).
    y_tr : ndarray of shape (n,)
        Training labels (Bending and AP weights).
    C : float
        SVM box bound (also the first SVC fit of Bending / AP).
    A, A_te : ndarray, optional
        The a priori PSD kernel of CT (and of ``"base"``) and its test rows.
    diagonal : "keep" or float
        The fixed diagonal of AP.

    Returns
    -------
    Kc_tr : ndarray of shape (n, n)
    Kc_te : ndarray of shape (m, n)
    info : dict
        Method diagnostics (iterations, thresholds).
    """
    from krein.combinations import stack_kernels
    from krein.estimators import (Bending, ConformalLinearCombination, ConformalTransformation,
                                  NearestPSD)

    info = {}
    if method.startswith(("mds-", "pseudo-")):
        kind, eps = method.split("-")
        eps = top2_eps(K_tr) if eps == "top2" else float(eps)
        info["eps"] = eps
        t = _spectral(kind, eps=eps)
    elif method == "add-diagonal":
        t = _spectral("add_diagonal")
    elif method == "square":
        t = _spectral("square")
    elif method == "bending":
        t = Bending(weights="support-vectors", C=C)
    elif method in ("ap", "ap-plain"):
        t = NearestPSD(diagonal=diagonal, weights="support-vectors", C=C,
                       solver="plain" if method == "ap-plain" else "auto")
    elif method in ("akm", "clc"):
        t = ConformalLinearCombination(combination="average" if method == "akm" else "nearest")
        Kc_tr = t.fit_transform(stack_kernels(K_tr, B_tr), y_tr)
        Kc_te = t.transform(stack_kernels(K_te, B_te))
        info["weights"] = [round(float(w), 6) for w in t.weights_]
        return Kc_tr, Kc_te, info
    elif method == "ct":
        t = ConformalTransformation(base=A)
        Kc_tr = t.fit_transform(K_tr, y_tr)
        info["n_iter"] = int(t.n_iter_)
        info["relative_error"] = float(np.sqrt(t.objective_) / np.linalg.norm(K_tr))
        return Kc_tr, t.transform_rows(K_te, A_te), info
    elif method == "base":
        return A, A_te, info
    else:
        raise ValueError(f"unknown method {method!r}")
    Kc_tr = t.fit_transform(K_tr, y_tr)
    Kc_te = t.transform(K_te)
    if hasattr(t, "n_iter_"):
        info["n_iter"] = int(t.n_iter_)
    return Kc_tr, Kc_te, info


def svm_scores(Kc_tr, Kc_te, y_tr, y_te, C):
    """libsvm on the corrected block; the measures of munoz Tables 1-2.

    Returns
    -------
    dict
        ``train_error``, ``test_error`` (percent), ``sensitivity``,
        ``specificity`` (of the test set, class :data:`POSITIVE` as '+'),
        ``sv_percent`` (support vectors, percent of the training points),
        ``corrected_min_eigenvalue`` (relative to the largest |eigenvalue|).
    """
    from sklearn.svm import SVC

    svc = SVC(kernel="precomputed", C=C).fit(Kc_tr, y_tr)
    p_tr, p_te = svc.predict(Kc_tr), svc.predict(Kc_te)
    pos, neg = y_te == POSITIVE, y_te != POSITIVE
    lam = np.linalg.eigvalsh(Kc_tr)
    return {"train_error": 100.0 * float(np.mean(p_tr != y_tr)),
            "test_error": 100.0 * float(np.mean(p_te != y_te)),
            "sensitivity": float(np.mean(p_te[pos] == POSITIVE)),
            "specificity": float(np.mean(p_te[neg] != POSITIVE)),
            "sv_percent": 100.0 * len(svc.support_) / len(y_tr),
            "corrected_min_eigenvalue": float(lam[0] / max(np.abs(lam).max(), 1e-300))}


def deviation(K):
    """``(r_mm, r_neg, share of negative eigenvalues)`` of munoz eq. (2), in percent."""
    from krein.spectrum import Spectrum

    s = Spectrum.from_kernel(K, check=False)
    lam = s.eigenvalues
    return float(s.r_mm), float(s.r_neg), 100.0 * float(np.mean(lam < -s.tol))


def summary_row(h, paper):
    """The printed columns of one method over its runs ``h`` (a results frame), beside the
    paper's ``(train, test, sensitivity, specificity, SV %)`` tuple ``paper`` (or None)."""
    return {"runs": len(h),
            "train": f"{h['train_error'].mean():.1f} ({h['train_error_rows'].mean():.1f})",
            "test": f"{h['test_error'].mean():.1f}",
            "test sd": f"{h['test_error'].std(ddof=1):.1f}" if len(h) > 1 else "",
            "sens.": f"{h['sensitivity'].mean():.3f}",
            "spec.": f"{h['specificity'].mean():.3f}",
            "S.V.": f"{h['sv_percent'].mean():.1f}",
            "paper (train/test/sens/spec/SV)": "/".join(map(str, paper)) if paper else ""}
