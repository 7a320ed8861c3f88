"""Compare every registered method on one data set and one kernel: ``krein compare``.

:func:`compare` loads a data set, computes the kernel matrix once, runs a
(repeated) stratified K-fold cross-validation with the SAME folds for every
method and returns a per-method summary table; :func:`run_comparison` returns
the per-fold table and the diagnostics as well (the command-line interface
prints them).  :func:`load_kernel_data` is the data-and-kernel step alone
(``krein diagnose``).

Data
----
* Vector data sets (:func:`krein.datasets.load`) are standardized with
  ``scale="standard"`` (zero mean, unit variance per feature, computed on all
  rows, i.e. transductively, as the papers' experiments do), except with the
  kernel ``"pick-out-munoz-ionosphere"``, whose kernel parameter ``scale``
  (default ``"raw"``) chooses the features (below).
* ``"checkerboard"``: :func:`krein.datasets.make_checkerboard` with
  ``n_samples`` (default 300) points, ``overlap=0.1`` (Loosli et al. 2013,
  §6.2) and ``random_state``, then standardized like the vector sets (centered
  on the board's middle: a sigmoid kernel on the raw unit square, which only
  sees inner products with the corner (0, 0), separates it badly).
* ``"munoz-artificial"``: :func:`krein.datasets.make_munoz_artificial` with
  ``n_samples`` (default 400) points and ``random_state``: two normal clouds
  (Munoz & de Diego 2006 §4.1), NOT standardized (the paper's raw
  coordinates).  Its default kernel is ``"pick-out-linear"`` (below).
* Dissimilarity data sets (:func:`krein.datasets.load_dissimilarity`) use the
  kernels ``"dissimilarity-linear"`` (``K = -1/2 J D^2 J``, classical scaling,
  Haasdonk 2005 Prop. 1; the "linear kernel on dissimilarities" of Loosli et al.
  2013 §6.3.2 in one reading), ``"dissimilarity-raw"`` (``K = D / unit``,
  default ``unit = 1``: the dissimilarities themselves used as an indefinite
  kernel, the other reading of that phrase; with ``unit = 1`` its least
  eigenvalues equal those printed in Loosli et al.'s Table 3 for the shipped
  sets, see :func:`krein.datasets.load_dissimilarity`)
  or ``"dissimilarity-gaussian"`` (``K = exp(-gamma D^2)``).
* Regenerated dissimilarity sets (:data:`REGENERATED_DATASETS`):
  ``"gaussm1-regenerated"``, ``"gaussm02-regenerated"`` and
  ``"polydish57-regenerated"`` are NEW draws of
  :func:`krein.datasets.make_gauss_minkowski` (``p = 1`` and ``p = 0.2``, 2000
  objects) and :func:`krein.datasets.make_polygon_hausdorff` (4000 objects),
  stand-ins for Delft sets of which no public copy was found; ``n_samples``
  sets the number of objects and ``random_state`` the draw.

Kernel matrix
-------------
Vector kernels and the dissimilarity-raw and -gaussian kernels are row-wise, so the kernel
is computed once on all points and every fold's blocks are slices of it.  The
dissimilarity-linear kernel depends on the centering, so each fold builds its
training block from the training dissimilarities and its test rows with the
training centering (:func:`krein.kernels.dissimilarity_kernel` with
``D_train``), exactly as a model that never saw the test objects would.

Pick-out kernels (label-dependent)
----------------------------------
``"pick-out-linear"`` and ``"pick-out-gaussian"`` (vector and synthetic data)
are the pick-out combination (Munoz & de Diego 2006 §4.1,
:func:`krein.combinations.pick_out`) of one kernel per coordinate axis
(:func:`krein.combinations.projection_kernels`: ``x_j z_j``, or
``exp(-gamma (x_j - z_j)^2)``): the maximum of the coordinate kernels for two
objects of the same class, the minimum across classes.  The kernel depends on
the labels, so like dissimilarity-linear it is built per fold
(:attr:`KernelData.per_fold_kernel`): the training block from the TRAINING
labels only, the test rows by the label-free rule ``"mean"`` of
:func:`krein.combinations.pick_out_rows` (expected value under a uniformly drawn
label; for two classes ``(max + min) / 2``).  ``KernelData.K`` (spectrum line,
``krein diagnose``, the decision-boundary figure) uses all labels.  The
coordinate kernels themselves are label-free, computed once
(``KernelData.base_kernels``).  ``"pick-out-munoz-ionosphere"`` (next
section) works the same way with other base kernels.

The kernels of Munoz & de Diego's Ionosphere experiment (§4.2)
---------------------------------------------------------------
``"pick-out-munoz-ionosphere"`` (any vector or synthetic data set; Ionosphere
is the paper's case) is the pick-out combination, built per fold exactly as
above, of the twelve normalized kernels of munoz §4.2
(:func:`krein.combinations.munoz_ionosphere_kernels`): ten RBF kernels
``exp(-||x - z||^2 / c_m)``, ``c_m = 10 + 5 (m - 1)``, the linear kernel
``x'z`` and the polynomial kernel ``(1 + x'z)^2``, each normalized as
``K(x, z) / sqrt(K(x, x) K(z, z))``.  The twelve are the base kernels
(``KernelData.base_kernels``, the stacked slices ``1..12`` given to
stacked-input methods such as the conformal linear combination).

*This replaces the paper's combination*: munoz combines the twelve with its KWS
method ("Kernel Weighting Scheme", its reference [9]: kernel values,
neighbourhoods and labels weight each entry), which the paper does not define;
the pick-out rule is the label-dependent combination this library has.  The
resulting kernel is more indefinite than the paper's (on raw Ionosphere: 43.9 %
negative eigenvalues, ``r_mm = 4.1``, ``r_neg = 8.0``; training blocks of ten
60 % splits: 41.4 +- 0.4 %, ``r_mm = 4.23 +- 0.39``, ``r_neg = 7.23 +- 0.35``;
munoz: 19.0 %, ``3.2 +- 0.3``, ``4.6 +- 0.4``), so classification results are
not comparable with munoz Table 2 line by line.  In particular, methods that
apply their model to the pick-out test rows (``svm``, ``clip``, ``flip``) do
poorly here: the training block carries the labels (the widest RBF within a
class, the narrowest or the cosine across), the label-free rows (the midpoint
of max and min) do not, and on Ionosphere (5-fold CV, C = 1) ``svm`` and
``clip`` stay near the majority rate (63 % and 57 % accuracy, ``flip`` 80 %,
``clip-mds`` 87 %), while the conformal linear combination, whose test rows
are ``sum_m beta_m K_m(x, X)`` of the label-free base kernels, reaches 93 %
(munoz Table 2: 94.1 % for CLC with KWS).

Features: the widths ``c_m`` are absolute numbers, and they fit the RAW
Ionosphere features (all in [-1, 1], mean squared distance 18.5 between two
objects; 66 after standardization, where ``exp(-d^2 / 10)`` is mostly
negligible).  munoz does not mention any scaling, so the kernel parameter
``scale`` defaults to ``"raw"``: shipped sets are loaded without scaling
(``krein.datasets.load(name, scale=None)``).  ``scale="minmax"`` (each feature
onto [-1, 1], LIBSVM's ``svm-scale``) puts any other data set on
Ionosphere's range, which gives the widths the same meaning there;
``scale="standard"`` standardizes like the other kernels.  Both are computed on
all rows (transductively); on the synthetic sets they apply after the set's own
preparation above.

Stacked input
-------------
Methods whose estimator has ``accepts_stacked_kernels`` true (a
:class:`~krein.estimators.corrected.CorrectedKernelSVC` with e.g. the conformal
linear combination, which needs the base kernels besides ``K``) get, on data
with base kernels (the pick-out kernels), the stacked blocks
``[K, K_1, ..., K_M]`` of shape ``(n_train, n_train, 1 + M)`` and
``(n_test, n_train, 1 + M)`` (:mod:`krein.combinations`); every other method
gets ``K``.  On data without base kernels they get ``K`` too (and a method
that needs base kernels records an error).

Deviation from Euclideanness
----------------------------
Every fold records the least eigenvalue and ``r_mm``, ``r_neg`` (Munoz & de
Diego 2006 eq. 2, :class:`krein.spectrum.Spectrum`) of its training block;
the summary averages them.
"""

from __future__ import annotations

import inspect
import numbers
import os
import secrets
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .combinations import (MUNOZ_IONOSPHERE_WIDTHS, accepts_stacked_kernels,
                           munoz_ionosphere_kernels, pick_out, pick_out_rows,
                           projection_kernels)
from .kernels import KERNELS, dissimilarity_kernel, pairwise_kernel
from .registry import list_methods, make_method
from .spectrum import Spectrum

__all__ = [
    "compare",
    "run_comparison",
    "load_kernel_data",
    "KernelData",
    "ComparisonResult",
    "InvalidArgument",
    "available_datasets",
    "available_kernels",
    "default_kernel_params",
    "default_kernel",
    "DISSIMILARITY_KERNELS",
    "PICK_OUT_KERNELS",
    "FEATURE_SCALES",
    "SUMMARY_COLUMNS",
    "FOLD_COLUMNS",
]

#: Kernels for dissimilarity data sets.
DISSIMILARITY_KERNELS = ("dissimilarity-linear", "dissimilarity-raw", "dissimilarity-gaussian")

#: Regenerated stand-ins for Delft dissimilarity sets without a public copy (Loosli et
#: al. 2013 Table 3): name -> (generator name, keyword arguments, default size, description).
REGENERATED_DATASETS = {
    "gaussm1-regenerated": (
        "make_gauss_minkowski", {"p": 1.0}, 2000,
        "[dissimilarity] REGENERATED GaussM1: two 20-D Gaussian classes, Minkowski-1 "
        "dissimilarities (krein.datasets.make_gauss_minkowski, p=1); n_samples objects "
        "(default 2000, the paper's), a new draw per random_state, labels -1/+1"),
    "gaussm02-regenerated": (
        "make_gauss_minkowski", {"p": 0.2}, 2000,
        "[dissimilarity] REGENERATED GaussM02: two 20-D Gaussian classes, Minkowski-0.2 "
        "dissimilarities (krein.datasets.make_gauss_minkowski, p=0.2); n_samples objects "
        "(default 2000, the paper's), a new draw per random_state, labels -1/+1"),
    "polydish57-regenerated": (
        "make_polygon_hausdorff", {}, 4000,
        "[dissimilarity] REGENERATED PolyDisH57: pentagons vs heptagons, vertex Hausdorff "
        "distances (krein.datasets.make_polygon_hausdorff); n_samples objects (default 4000, "
        "the paper's), a new draw per random_state, labels -1/+1"),
}

#: Label-dependent pick-out kernels (module docstring): name -> base kernels, either a
#: kernel of the single coordinates ("linear", "gaussian") or "munoz-ionosphere", the
#: twelve normalized kernels of munoz §4.2 (:func:`krein.combinations.munoz_ionosphere_kernels`).
PICK_OUT_KERNELS = {"pick-out-linear": "linear", "pick-out-gaussian": "gaussian",
                    "pick-out-munoz-ionosphere": "munoz-ionosphere"}

#: Feature scalings accepted by the kernel parameter ``scale`` of
#: "pick-out-munoz-ionosphere" (module docstring); "raw" is munoz's.
FEATURE_SCALES = ("raw", "minmax", "standard")

#: Rule for the pick-out rows of test points (labels unknown); see
#: :func:`krein.combinations.pick_out_rows`.
PICK_OUT_TEST_RULE = "mean"

#: Largest stack of per-coordinate kernels (n^2 * n_features doubles) built by compare.
PICK_OUT_MAX_BYTES = 2 * 1024**3

#: Synthetic data sets known to :func:`compare` besides the shipped ones.
SYNTHETIC_DATASETS = {
    "checkerboard": "[synthetic] 2-D 4 x 4 checkerboard, 10 % overlap at cell boundaries "
                    "(Loosli et al. 2013 §6.2); n_samples points (default 300), standardized, "
                    "labels -1/+1",
    "munoz-artificial": "[synthetic] 2-D normal clouds N((3,3), 0.7^2 I), N((5,5), 0.9^2 I) "
                        "(Munoz & de Diego 2006 §4.1); n_samples points (default 400, half per "
                        "class), raw coordinates, labels -1/+1; default kernel pick-out-linear",
}

#: Default number of checkerboard points.
CHECKERBOARD_N = 300

#: Default number of points of the munoz artificial data (the paper's 400).
MUNOZ_N = 400

#: Columns of the summary table returned by :func:`compare`.
SUMMARY_COLUMNS = ["method", "accuracy_mean", "accuracy_std", "fit_seconds_mean",
                   "n_support_mean", "min_eigenvalue_mean", "r_mm_mean", "r_neg_mean",
                   "n_errors"]

#: Columns of the per-cell table (``ComparisonResult.folds``, ``compare_<dataset>_folds.csv``).
FOLD_COLUMNS = ["method", "repeat", "fold", "n_train", "n_test", "accuracy", "fit_seconds",
                "n_support", "min_eigenvalue", "r_mm", "r_neg", "error", "warnings"]

# Default sigmoid kernel on standardized vectors: a = SIGMOID_A_TIMES_D / n_features,
# r = SIGMOID_R.  Chosen by experiment on standardized Sonar (208 x 60, a = 1/15):
# the full kernel has signature p/q = 154/54, least eigenvalue -175 (the training
# blocks of 5-fold CV about -140), second least -5.4, i.e. clearly indefinite beyond
# the near-constant direction, while ESVM reaches about 84 % accuracy in 5-fold CV
# (chance: 53 %).  Smaller a gives fewer negative eigenvalues (a = 0.05: 33); larger
# a or r closer to 0 makes every method, ESVM included, lose accuracy.
SIGMOID_A_TIMES_D = 4.0
SIGMOID_R = -2.0


class InvalidArgument(ValueError):
    """A bad argument of :func:`compare` / :func:`load_kernel_data`.

    Parameters
    ----------
    argument : str
        Name of the Python argument (``"dataset"``, ``"kernel"``, ``"C"``...);
        the command-line interface maps it to its option.
    message : str
        What is wrong, with the accepted values.
    """

    def __init__(self, argument, message):
        super().__init__(f"{argument}: {message}")
        self.argument = argument
        self.message = message


# --------------------------------------------------------------------------- catalogues
def available_datasets():
    """Data set names accepted by :func:`compare`.

    Returns
    -------
    dict of str to str
        Name -> one-line description starting with its kind (``[vector]``,
        ``[dissimilarity]`` or ``[synthetic]``): the shipped sets of
        :func:`krein.datasets.list_datasets` plus ``"checkerboard"`` and
        ``"munoz-artificial"``.
    """
    from . import datasets

    out = dict(datasets.list_datasets())
    out.update(SYNTHETIC_DATASETS)
    out.update({k: v[3] for k, v in REGENERATED_DATASETS.items()})
    return dict(sorted(out.items()))


def _dataset_kind(name):
    from . import datasets

    if name in SYNTHETIC_DATASETS:
        return "synthetic"
    if name in REGENERATED_DATASETS or name in datasets.list_datasets("dissimilarity"):
        return "dissimilarity"
    return "vector"


def available_kernels(kind="vector"):
    """Kernel names usable with a kind of data set.

    Parameters
    ----------
    kind : {"vector", "synthetic", "dissimilarity"}

    Returns
    -------
    list of str
        :data:`krein.kernels.KERNELS` and the pick-out kernels
        :data:`PICK_OUT_KERNELS` for feature vectors, or
        :data:`DISSIMILARITY_KERNELS` for dissimilarity matrices.
    """
    if kind == "dissimilarity":
        return list(DISSIMILARITY_KERNELS)
    return sorted(KERNELS) + list(PICK_OUT_KERNELS)


def default_kernel(kind="vector", dataset=None):
    """Default kernel of a kind of data set.

    Parameters
    ----------
    kind : {"vector", "synthetic", "dissimilarity"}
    dataset : str, optional
        Data set name: ``"munoz-artificial"`` has its own default.

    Returns
    -------
    str
        ``"pick-out-linear"`` for ``"munoz-artificial"`` (the pick-out
        combination of the two coordinate kernels, Munoz & de Diego 2006
        §4.1), ``"dissimilarity-linear"`` for dissimilarity data, else
        ``"sigmoid"``.
    """
    if dataset == "munoz-artificial":
        return "pick-out-linear"
    return "dissimilarity-linear" if kind == "dissimilarity" else "sigmoid"


def _kernel_param_names(kernel):
    if kernel in ("dissimilarity-linear", "pick-out-linear"):
        return []
    if kernel == "dissimilarity-raw":
        return ["unit"]
    if kernel == "pick-out-munoz-ionosphere":
        return ["scale"]
    if kernel in ("dissimilarity-gaussian", "pick-out-gaussian"):
        return ["gamma"]
    sig = inspect.signature(KERNELS[kernel])
    return [p for p in sig.parameters if p not in ("X", "Z")]


def default_kernel_params(kernel, n_features=None, D=None):
    """Default parameters of a kernel for :func:`compare` (scaled to the data).

    * ``sigmoid``/``tanh``: ``a = 4 / n_features``, ``r = -2``.  On standardized
      Sonar (``a = 1/15``) this kernel is clearly indefinite (54 negative of 208
      eigenvalues, least -175) while ESVM still classifies well (about 84 %
      accuracy in 5-fold CV); see the comment at ``SIGMOID_A_TIMES_D``.
    * ``gaussian``/``rbf``: ``gamma = 1 / n_features``, ``metric="l2"``.
    * ``epanechnikov``: ``sigma = sqrt(2 n_features)`` (the mean distance of two
      standardized points), ``degree = 1``.
    * ``linear``, ``dissimilarity-linear``, ``pick-out-linear``: no parameters.
    * ``dissimilarity-raw``: ``unit = 1`` (``K = D / unit``; a unit such as
      the mean dissimilarity makes ``C`` grids comparable across data sets
      without changing the problem: the SVM-type methods are equivariant under
      ``K -> K / s`` with ``C -> s C``).
    * ``pick-out-gaussian``: ``gamma = 1`` (of ``exp(-gamma (x_j - z_j)^2)`` on
      each coordinate).
    * ``pick-out-munoz-ionosphere``: ``scale = "raw"`` (the features munoz
      §4.2's RBF widths refer to; module docstring).
    * ``dissimilarity-gaussian``: ``gamma = 1 / mean(D^2)`` over the off-diagonal
      entries.

    Parameters
    ----------
    kernel : str
        Kernel name.
    n_features : int, optional
        Number of features (vector data).
    D : array of shape (n, n), optional
        Dissimilarities (dissimilarity data).

    Returns
    -------
    dict
    """
    d = float(n_features) if n_features else 1.0
    if kernel in ("sigmoid", "tanh"):
        return {"a": SIGMOID_A_TIMES_D / d, "r": SIGMOID_R}
    if kernel in ("gaussian", "rbf"):
        return {"gamma": 1.0 / d, "metric": "l2"}
    if kernel == "pick-out-gaussian":
        return {"gamma": 1.0}
    if kernel == "pick-out-munoz-ionosphere":
        return {"scale": "raw"}
    if kernel == "dissimilarity-raw":
        return {"unit": 1.0}
    if kernel == "epanechnikov":
        return {"sigma": float(np.sqrt(2.0 * d)), "degree": 1.0}
    if kernel == "dissimilarity-gaussian":
        if D is None:
            return {"gamma": 1.0}
        D = np.asarray(D, dtype=float)
        square = D.shape[0] == D.shape[1]
        off = ~np.eye(D.shape[0], dtype=bool) if square else np.ones(D.shape, bool)
        m = float(np.mean(D[off] ** 2)) if off.any() else 0.0
        return {"gamma": 1.0 / m if m > 0 else 1.0}
    return {}


# --------------------------------------------------------------------------- kernel data
@dataclass
class KernelData:
    """A loaded data set with its kernel, ready for cross-validation.

    Build it with :func:`load_kernel_data`.

    Attributes
    ----------
    dataset : str
        Data set name.
    kind : {"vector", "synthetic", "dissimilarity"}
    kernel : str
        Kernel name.
    kernel_params : dict
        The parameters actually used (defaults filled in).
    y : ndarray of shape (n,)
        Labels.
    K : ndarray of shape (n, n)
        Kernel on all objects (for dissimilarity-linear: centered on all objects;
        the folds recompute it with training centering).
    X : ndarray of shape (n, d) or None
        Features (vector and synthetic data).
    D : ndarray of shape (n, n) or None
        Dissimilarities (dissimilarity data).
    description : str
        One line on how the data were prepared.
    base_kernels : ndarray of shape (n, n, M) or None
        Label-free base kernels of a combined kernel (the per-coordinate
        kernels of the pick-out kernels), else None.
    """

    dataset: str
    kind: str
    kernel: str
    kernel_params: dict
    y: np.ndarray
    K: np.ndarray
    X: np.ndarray | None = None
    D: np.ndarray | None = None
    description: str = ""
    base_kernels: np.ndarray | None = field(default=None, repr=False)
    _spectrum: Spectrum | None = field(default=None, repr=False)

    @property
    def n_samples(self):
        """Number of objects."""
        return int(self.y.shape[0])

    @property
    def n_features(self):
        """Number of features, or None for dissimilarity data."""
        return None if self.X is None else int(self.X.shape[1])

    @property
    def classes(self):
        """Sorted class labels and their counts: ``(labels, counts)``."""
        return np.unique(self.y, return_counts=True)

    @property
    def per_fold_kernel(self):
        """True when fold blocks are recomputed (dissimilarity-linear, pick-out), not sliced."""
        return self.kernel == "dissimilarity-linear" or self.kernel in PICK_OUT_KERNELS

    @property
    def label_dependent(self):
        """True for the pick-out kernels, whose fold blocks use the training labels."""
        return self.kernel in PICK_OUT_KERNELS

    def spectrum(self):
        """Eigendecomposition of the full kernel ``K``, computed on the first call.

        Returns
        -------
        krein.spectrum.Spectrum
        """
        if self._spectrum is None:
            self._spectrum = Spectrum.from_kernel(self.K)
        return self._spectrum

    def blocks(self, train, test, stacked=False):
        """Training block and test rows of one fold.

        For the pick-out kernels the training block is the pick-out of the
        base kernels with the training labels ``y[train]`` and the test rows
        follow :data:`PICK_OUT_TEST_RULE`: no test label is used.

        Parameters
        ----------
        train, test : ndarray of int
            Indices.
        stacked : bool
            Return stacked blocks ``[K, K_1, ..., K_M]`` (last axis) when the
            data have base kernels; plain blocks otherwise.

        Returns
        -------
        K_train : ndarray of shape (n_train, n_train) (or (n_train, n_train, 1 + M))
        K_test : ndarray of shape (n_test, n_train) (or (n_test, n_train, 1 + M))
        """
        if self.label_dependent:
            B_tr = self.base_kernels[np.ix_(train, train)]
            B_te = self.base_kernels[np.ix_(test, train)]
            y_tr = self.y[train]
            K_tr = pick_out(B_tr, y_tr)
            K_te = pick_out_rows(B_te, y_tr, rule=PICK_OUT_TEST_RULE)
            if stacked:
                return (np.concatenate([K_tr[:, :, None], B_tr], axis=2),
                        np.concatenate([K_te[:, :, None], B_te], axis=2))
            return K_tr, K_te
        if self.per_fold_kernel:
            D_tr = self.D[np.ix_(train, train)]
            K_tr = dissimilarity_kernel(D_tr, kind="linear")
            K_te = dissimilarity_kernel(self.D[np.ix_(test, train)], kind="linear", D_train=D_tr)
            return 0.5 * (K_tr + K_tr.T), K_te
        return self.K[np.ix_(train, train)], self.K[np.ix_(test, train)]

    def rows(self, Z, stacked=False):
        """Kernel rows ``k(z, X)`` between new feature vectors and all objects.

        Pick-out kernels: the rows of points of unknown label
        (:data:`PICK_OUT_TEST_RULE`) against all objects with their labels.

        Parameters
        ----------
        Z : array of shape (m, d)
        stacked : bool
            Stacked rows ``[k, k_1, ..., k_M]`` when the data have base kernels.

        Returns
        -------
        ndarray of shape (m, n) (or (m, n, 1 + M))

        Raises
        ------
        ValueError
            For dissimilarity data (no feature vectors).
        """
        if self.X is None:
            raise ValueError("kernel rows of new points need feature vectors (vector data)")
        Z = np.asarray(Z, dtype=float)
        if self.label_dependent:
            B = _base_stack(self.kernel, Z, self.X, self.kernel_params)
            R = pick_out_rows(B, self.y, rule=PICK_OUT_TEST_RULE)
            return np.concatenate([R[:, :, None], B], axis=2) if stacked else R
        return pairwise_kernel(self.kernel, Z, self.X, self.kernel_params)

    def stacked_kernel(self):
        """Stacked ``[K, K_1, ..., K_M]`` (n, n, 1 + M) on all objects; ``K`` if no base kernels."""
        if self.base_kernels is None:
            return self.K
        return np.concatenate([self.K[:, :, None], self.base_kernels], axis=2)


def _base_stack(kernel, X, Z, params):
    """Base kernels of a pick-out kernel name: (n_x, n_z, d) per-coordinate kernels, or
    (n_x, n_z, 12) for the munoz §4.2 family."""
    base = PICK_OUT_KERNELS[kernel]
    if base == "munoz-ionosphere":
        return munoz_ionosphere_kernels(X, Z)
    p = {"gamma": params["gamma"], "metric": "l2"} if base == "gaussian" else {}
    return projection_kernels(X, Z, kernel=base, kernel_params=p)


def _n_base_kernels(kernel, n_features):
    if PICK_OUT_KERNELS[kernel] == "munoz-ionosphere":
        return len(MUNOZ_IONOSPHERE_WIDTHS) + 2
    return n_features


def _scale_features(X, scale):
    """Features scaled as ``krein.datasets.load(..., scale=scale)`` does (all rows)."""
    from .datasets._loaders import _scale

    return _scale(np.array(X, dtype=float), scale)


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _check_dataset(dataset):
    names = available_datasets()
    if not isinstance(dataset, str) or dataset not in names:
        raise InvalidArgument("dataset", f"unknown data set {dataset!r}; accepted: "
                                         f"{', '.join(names)}")
    return dataset


def _check_kernel(kernel, kind):
    accepted = available_kernels(kind)
    if not isinstance(kernel, str) or kernel not in accepted:
        what = "dissimilarity data set" if kind == "dissimilarity" else "vector data set"
        raise InvalidArgument("kernel", f"unknown kernel {kernel!r} for a {what}; accepted: "
                                        f"{', '.join(accepted)}")
    return kernel


def _check_kernel_params(kernel, kernel_params):
    if kernel_params is None:
        return {}
    if not isinstance(kernel_params, dict):
        raise InvalidArgument("kernel_params", f"must be a dict or None; got {kernel_params!r}")
    names = _kernel_param_names(kernel)
    bad = [k for k in kernel_params if k not in names]
    if bad:
        acc = ", ".join(names) if names else "none"
        raise InvalidArgument("kernel_params", f"unknown parameter(s) {', '.join(map(str, bad))} "
                                               f"of kernel {kernel!r}; accepted: {acc}")
    for k, v in kernel_params.items():
        if k == "metric":
            continue
        if k == "scale":
            if not isinstance(v, str) or v not in FEATURE_SCALES:
                accepted = ", ".join(FEATURE_SCALES)
                raise InvalidArgument("kernel_params", f"parameter scale of kernel {kernel!r} "
                                                       f"must be one of {accepted}; got {v!r}")
            continue
        if not isinstance(v, numbers.Real) or isinstance(v, bool) or not np.isfinite(v):
            raise InvalidArgument("kernel_params", f"parameter {k} of kernel {kernel!r} must be a "
                                                   f"finite number; got {v!r}")
    return dict(kernel_params)


def _stratified_subsample(y, n, random_state):
    from sklearn.model_selection import train_test_split

    idx = np.arange(y.shape[0])
    keep, _ = train_test_split(idx, train_size=n, stratify=y, random_state=random_state)
    return np.sort(keep)


def load_kernel_data(dataset="sonar", kernel=None, kernel_params=None, *, n_samples=None,
                     binary=None, random_state=0):
    """Load a data set and compute its kernel matrix once.

    Parameters
    ----------
    dataset : str
        A name from :func:`available_datasets`.  Vector data sets are
        standardized (``krein.datasets.load(name, scale="standard")``), except
        with ``"pick-out-munoz-ionosphere"``, whose kernel parameter ``scale``
        (default ``"raw"``: unscaled) decides (module docstring);
        ``"checkerboard"`` is ``make_checkerboard(n_samples or 300,
        overlap=0.1, random_state=random_state)``, standardized;
        ``"munoz-artificial"`` is ``make_munoz_artificial(n_samples or 400,
        random_state=random_state)``, raw coordinates.
    kernel : str, optional
        For vector data a name from :data:`krein.kernels.KERNELS` or
        :data:`PICK_OUT_KERNELS`; for dissimilarity data
        ``"dissimilarity-linear"``, ``"dissimilarity-raw"`` (``K = D``) or
        ``"dissimilarity-gaussian"``.  Default
        (None): ``"pick-out-linear"`` for munoz-artificial, ``"sigmoid"`` for
        other vector data, ``"dissimilarity-linear"`` for dissimilarity data.
    kernel_params : dict, optional
        Kernel parameters; missing ones get :func:`default_kernel_params`.
        ``"pick-out-munoz-ionosphere"`` takes ``scale`` in
        :data:`FEATURE_SCALES`.
    n_samples : int, optional
        Synthetic data: number of points.  Shipped data: a stratified random
        subsample of this size (with ``random_state``); default all objects.
    binary : optional
        Passed to :func:`krein.datasets.load` / :func:`krein.datasets.load_dissimilarity`
        (e.g. ``(3, 5)`` for USPS, ``"paper"`` for the dissimilarity sets);
        must be None for the synthetic sets.
    random_state : int
        Seed of the synthetic data and of the subsample.

    Returns
    -------
    KernelData

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) naming the bad argument and the accepted values:
        unknown data set or kernel, unknown kernel parameter or bad value,
        bad ``n_samples`` or ``binary``.
    """
    from . import datasets

    dataset = _check_dataset(dataset)
    kind = _dataset_kind(dataset)
    if kernel is None:
        kernel = default_kernel(kind, dataset)
    kernel = _check_kernel(kernel, kind)
    params = _check_kernel_params(kernel, kernel_params)
    if n_samples is not None and (not _is_int(n_samples) or n_samples < 4):
        raise InvalidArgument("n_samples", f"must be an integer >= 4; got {n_samples!r}")
    if not _is_int(random_state) or random_state < 0:
        raise InvalidArgument("random_state", f"must be an integer >= 0; got {random_state!r}")

    # feature scaling chosen by the kernel ("pick-out-munoz-ionosphere"), else None
    feature_scale = (params.get("scale", default_kernel_params(kernel)["scale"])
                     if "scale" in _kernel_param_names(kernel) else None)
    X = D = None
    if kind == "synthetic":
        if binary is not None:
            raise InvalidArgument("binary", f"{dataset!r} is already binary; got {binary!r}")
        if dataset == "munoz-artificial":
            n = int(n_samples) if n_samples is not None else MUNOZ_N
            X, y = datasets.make_munoz_artificial(n, random_state=random_state)
            desc = f"make_munoz_artificial({n}, random_state={random_state}), raw coordinates"
        else:
            n = int(n_samples) if n_samples is not None else CHECKERBOARD_N
            X, y = datasets.make_checkerboard(n, overlap=0.1, random_state=random_state)
            X = (X - X.mean(axis=0)) / X.std(axis=0)
            desc = (f"make_checkerboard({n}, overlap=0.1, random_state={random_state}), "
                    "standardized")
        if feature_scale not in (None, "raw"):
            X = _scale_features(X, feature_scale)
            desc += f", then scale={feature_scale!r} (kernel parameter)"
    else:
        try:
            if kind == "vector" and feature_scale is not None:
                X, y = datasets.load(dataset, scale=None if feature_scale == "raw"
                                     else feature_scale, binary=binary)
                desc = {"raw": "raw features (not standardized; kernel parameter scale='raw')",
                        "minmax": "each feature mapped onto [-1, 1] (kernel parameter "
                                  "scale='minmax')",
                        "standard": "standardized: zero mean, unit variance per feature "
                                    "(kernel parameter scale='standard')"}[feature_scale]
            elif kind == "vector":
                X, y = datasets.load(dataset, scale="standard", binary=binary)
                desc = "standardized: zero mean, unit variance per feature"
            elif dataset in REGENERATED_DATASETS:
                if binary is not None:
                    raise InvalidArgument("binary", f"{dataset!r} is already binary; got "
                                                    f"{binary!r}")
                gen, kw, n_default, _ = REGENERATED_DATASETS[dataset]
                n = int(n_samples) if n_samples is not None else n_default
                D, y = getattr(datasets, gen)(n, random_state=random_state, **kw)
                n_samples = None  # the draw has the requested size
                desc = (f"REGENERATED (not the original data): {gen}({n}, "
                        f"random_state={random_state}"
                        + "".join(f", {k}={v!r}" for k, v in kw.items()) + ")")
            else:
                D, y = datasets.load_dissimilarity(dataset, binary=binary)
                desc = "dissimilarity matrix"
        except (ValueError, TypeError) as exc:
            if binary is not None:
                raise InvalidArgument("binary", str(exc)) from None
            raise
        if binary is not None:
            desc += f", binary={binary!r}"
        if n_samples is not None:
            if n_samples > y.shape[0]:
                raise InvalidArgument("n_samples", f"{n_samples} exceeds the {y.shape[0]} objects "
                                                   f"of {dataset!r}")
            if n_samples < y.shape[0]:
                try:
                    keep = _stratified_subsample(y, int(n_samples), random_state)
                except ValueError as exc:
                    raise InvalidArgument("n_samples", str(exc)) from None
                y = y[keep]
                if X is not None:
                    X = X[keep]
                else:
                    D = D[np.ix_(keep, keep)]
                desc += f", stratified subsample of {n_samples} (seed {random_state})"
    if np.unique(y).size < 2:
        raise InvalidArgument("dataset", f"{dataset!r} has a single class here; need at least two")

    full = default_kernel_params(kernel, n_features=None if X is None else X.shape[1], D=D)
    full.update(params)
    B = None
    if kernel in PICK_OUT_KERNELS:
        n_base = _n_base_kernels(kernel, X.shape[1])
        size = 8 * y.shape[0] ** 2 * n_base
        if size > PICK_OUT_MAX_BYTES:
            raise InvalidArgument("kernel", f"{kernel} needs n^2 * {n_base} * 8 bytes = "
                                            f"{size / 1024**3:.1f} GiB for the {n_base} base "
                                            f"kernels of {dataset!r} (limit "
                                            f"{PICK_OUT_MAX_BYTES / 1024**3:.0f} GiB); use "
                                            "n_samples to subsample")
    try:
        if kernel in PICK_OUT_KERNELS:
            B = _base_stack(kernel, X, None, full)
            K = pick_out(B, y)
        elif kind == "dissimilarity":
            if kernel == "dissimilarity-linear":
                K = dissimilarity_kernel(D, kind="linear")
            elif kernel == "dissimilarity-raw":
                unit = full["unit"]
                if not unit > 0:
                    raise ValueError(f"unit must be > 0; got {unit!r}")
                K = np.asarray(D, dtype=float) / float(unit)
            else:
                K = dissimilarity_kernel(D, kind="gaussian", gamma=full["gamma"])
        else:
            K = pairwise_kernel(kernel, X, None, full)
    except (ValueError, TypeError) as exc:
        raise InvalidArgument("kernel_params", f"{exc} (kernel {kernel!r} with {full})") from None
    K = 0.5 * (K + K.T)
    return KernelData(dataset, kind, kernel, full, np.asarray(y), K, X, D, desc, base_kernels=B)


# --------------------------------------------------------------------------- options
def _check_methods(methods):
    registered = list(list_methods(task="classifier"))
    if methods is None:
        return list(list_methods(task="classifier", compare=True))
    if isinstance(methods, str):
        methods = [m.strip() for m in methods.split(",") if m.strip()]
    try:
        methods = list(methods)
    except TypeError:
        raise InvalidArgument("methods", f"must be a list of names; got {methods!r}") from None
    if not methods:
        raise InvalidArgument("methods", f"no method given; registered: {', '.join(registered)}")
    bad = [m for m in methods if m not in registered]
    if bad:
        raise InvalidArgument("methods", f"unknown method(s) {', '.join(map(repr, bad))}; "
                                         f"registered: {', '.join(registered)}")
    return list(dict.fromkeys(methods))


def _check_solver(solver):
    if solver is None:
        return None
    from .solvers import installed_solvers

    accepted = ["libsvm"] + installed_solvers()
    if isinstance(solver, str):
        if solver.lower() == "libsvm":
            return "libsvm"
        if solver.upper() in installed_solvers():
            return solver.upper()
    raise InvalidArgument("solver", f"unknown or not installed solver {solver!r}; accepted: "
                                    f"{', '.join(accepted)}")


def _check_options(cv, repeats, C):
    if not _is_int(cv) or cv < 2:
        raise InvalidArgument("cv", f"must be an integer >= 2 (number of folds); got {cv!r}")
    if not _is_int(repeats) or repeats < 1:
        raise InvalidArgument("repeats", f"must be an integer >= 1; got {repeats!r}")
    ok = isinstance(C, numbers.Real) and not isinstance(C, bool) and np.isfinite(C) and C > 0
    if not ok:
        raise InvalidArgument("C", f"must be a positive finite number; got {C!r}")
    return int(cv), int(repeats), float(C)


# --------------------------------------------------------------------------- running
@dataclass
class ComparisonResult:
    """Everything one comparison produced.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per method, columns :data:`SUMMARY_COLUMNS`.
    folds : pandas.DataFrame
        One row per (method, repeat, fold) cell, columns :data:`FOLD_COLUMNS`.
    data : KernelData
        The data set and kernel.
    methods : list of str
    cv, repeats : int
    C : float
    solver : str or None
    random_state : int
    files : list of str
        Paths written (empty without ``out``).
    """

    summary: pd.DataFrame
    folds: pd.DataFrame
    data: KernelData
    methods: list
    cv: int
    repeats: int
    C: float
    solver: str | None
    random_state: int
    files: list = field(default_factory=list)


def _build(name, C, solver):
    est = make_method(name, kernel="precomputed")
    if "C" in est.get_params(deep=False):    # methods without a C (RVM) keep their defaults
        est.set_params(C=C)
    if solver and "solver" in est.get_params(deep=False):
        est.set_params(solver=solver)
    return est


def _takes_stacked(name, C, solver):
    """Whether method ``name`` takes stacked kernels (module docstring, "Stacked input")."""
    try:
        return accepts_stacked_kernels(_build(name, C, solver))
    except Exception:  # a method that cannot even be built fails in its cells instead
        return False


def _error_text(exc):
    text = f"{type(exc).__name__}: {exc}".strip()
    return " ".join(text.split())


def _run_cell(name, C, solver, K_tr, y_tr, K_te, y_te):
    row = {"accuracy": np.nan, "fit_seconds": np.nan, "n_support": np.nan, "error": "",
           "warnings": ""}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est = _build(name, C, solver)
            t0 = time.perf_counter()
            est.fit(K_tr, y_tr)
            row["fit_seconds"] = time.perf_counter() - t0
            row["accuracy"] = float(np.mean(est.predict(K_te) == y_te))
            row["n_support"] = int(len(est.support_))
        except Exception as exc:  # a failing method becomes a row, not a crash
            row["error"] = _error_text(exc)
    if caught:
        msgs = list(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))
        row["warnings"] = " | ".join(" ".join(m.split()) for m in msgs)
    return row


def _summarize(folds, methods):
    rows = []
    for m in methods:
        f = folds[folds["method"] == m]
        ok = f[f["error"] == ""]
        rows.append({
            "method": m,
            "accuracy_mean": ok["accuracy"].mean() if len(ok) else np.nan,
            "accuracy_std": ok["accuracy"].std() if len(ok) > 1 else (0.0 if len(ok) else np.nan),
            "fit_seconds_mean": ok["fit_seconds"].mean() if len(ok) else np.nan,
            "n_support_mean": ok["n_support"].mean() if len(ok) else np.nan,
            "min_eigenvalue_mean": f["min_eigenvalue"].mean(),
            "r_mm_mean": f["r_mm"].mean(),
            "r_neg_mean": f["r_neg"].mean(),
            "n_errors": int((f["error"] != "").sum()),
        })
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def run_comparison(dataset="sonar", kernel=None, kernel_params=None, methods=None, cv=5,
                   repeats=1, C=1.0, solver=None, random_state=0, out=None, progress=True,
                   n_samples=None, binary=None):
    """Run :func:`compare` and return all its results (summary, folds, data, files).

    Parameters
    ----------
    dataset, kernel, kernel_params, methods, cv, repeats, C, solver :
        As in :func:`compare`.
    random_state, out, progress, n_samples, binary :
        As in :func:`compare`.

    Returns
    -------
    ComparisonResult

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) for a bad argument, before any model is fitted.
    """
    from sklearn.model_selection import StratifiedKFold

    methods = _check_methods(methods)
    solver = _check_solver(solver)
    cv, repeats, C = _check_options(cv, repeats, C)
    data = load_kernel_data(dataset, kernel, kernel_params, n_samples=n_samples, binary=binary,
                            random_state=random_state)
    y = data.y
    _, counts = data.classes
    if cv > counts.min():
        raise InvalidArgument("cv", f"{cv} folds but the smallest class of {data.dataset!r} has "
                                    f"{counts.min()} objects; use cv <= {counts.min()}")
    data.spectrum()
    stacked = {name: data.base_kernels is not None and _takes_stacked(name, C, solver)
               for name in methods}

    cells = []
    total = repeats * cv * len(methods)
    bar = _progress_bar(total, f"compare {data.dataset}", progress)
    try:
        for r in range(repeats):
            skf = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state + r)
            for k, (tr, te) in enumerate(skf.split(np.zeros((y.shape[0], 1)), y)):
                K_tr, K_te = data.blocks(tr, te)
                spec = Spectrum.from_kernel(K_tr)
                fold_spec = {"min_eigenvalue": spec.min_eigenvalue, "r_mm": spec.r_mm,
                             "r_neg": spec.r_neg}
                S_tr = S_te = None
                for name in methods:
                    if bar is not None:
                        bar.set_postfix_str(f"repeat {r} fold {k} {name}", refresh=False)
                    if stacked[name]:
                        if S_tr is None:
                            S_tr, S_te = data.blocks(tr, te, stacked=True)
                        row = _run_cell(name, C, solver, S_tr, y[tr], S_te, y[te])
                    else:
                        row = _run_cell(name, C, solver, K_tr, y[tr], K_te, y[te])
                    cells.append({"method": name, "repeat": r, "fold": k, "n_train": len(tr),
                                  "n_test": len(te), **fold_spec, **row})
                    if bar is not None:
                        bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    folds = pd.DataFrame(cells, columns=FOLD_COLUMNS)
    summary = _summarize(folds, methods)
    result = ComparisonResult(summary, folds, data, methods, cv, repeats, C, solver, random_state)
    if out is not None:
        result.files = _write_outputs(result, out)
    summary.attrs.update({
        "dataset": data.dataset, "kernel": data.kernel, "kernel_params": dict(data.kernel_params),
        "n_samples": data.n_samples, "cv": cv, "repeats": repeats, "C": C,
        "files": list(result.files),
    })
    return result


def compare(dataset="sonar", kernel=None, kernel_params=None, methods=None, cv=5, repeats=1,
            C=1.0, solver=None, random_state=0, out=None, progress=True, n_samples=None,
            binary=None):
    """Cross-validate registered methods on one data set with one (indefinite) kernel.

    The kernel matrix is computed once (see the module docstring for the
    dissimilarity-linear exception); for each repeat ``r`` a
    ``StratifiedKFold(cv, shuffle=True, random_state=random_state + r)`` gives
    the folds, the SAME for every method; each method is
    ``krein.make_method(name, kernel="precomputed", C=C)`` (with ``solver`` if
    given and the estimator has one), fitted on the training block and scored
    on the test rows.  A method that raises is recorded as an error, not a crash.

    Parameters
    ----------
    dataset : str
        A name from :func:`available_datasets`: a shipped vector data set,
        standardized with ``scale="standard"`` (zero mean, unit variance per
        feature over all rows; with ``"pick-out-munoz-ionosphere"`` raw by
        default, see its ``scale`` parameter); a dissimilarity data set; or
        ``"checkerboard"`` (``make_checkerboard(n_samples or 300, overlap=0.1,
        random_state=random_state)``, also standardized); or
        ``"munoz-artificial"`` (``make_munoz_artificial(n_samples or 400,
        random_state=random_state)``, raw coordinates, default kernel
        ``"pick-out-linear"``, built per fold from the training labels).
    kernel : str, optional
        Vector data: a name from :data:`krein.kernels.KERNELS` (default
        ``"sigmoid"``) or a pick-out kernel of :data:`PICK_OUT_KERNELS`
        (``"pick-out-munoz-ionosphere"``: the twelve normalized kernels of
        Munoz & de Diego §4.2, combined by pick-out instead of the paper's KWS).
        Dissimilarity data: ``"dissimilarity-linear"``
        (``-1/2 J D^2 J``, the default), ``"dissimilarity-raw"`` (``K = D``,
        Loosli et al. Table 3) or ``"dissimilarity-gaussian"``.
    kernel_params : dict, optional
        Kernel parameters; missing ones get :func:`default_kernel_params`
        (sigmoid: ``a = 4 / n_features``, ``r = -2``).
    methods : list of str, optional
        Names from :func:`krein.list_methods`; default all of them.
    cv : int >= 2
        Number of folds.
    repeats : int >= 1
        Number of repetitions of the K-fold split (different shuffles).
    C : float > 0
        Box bound / slack weight passed to every method.
    solver : str, optional
        ``"libsvm"`` or an installed CVXPY solver, passed to the methods that
        have a ``solver`` parameter (a method that rejects it records errors).
    random_state : int >= 0
        Seed of the folds (``random_state + r`` for repeat ``r``), of the
        synthetic data and of an ``n_samples`` subsample.
    out : str or path-like, optional
        Directory (created if needed) for ``compare_<dataset>.csv`` (summary),
        ``compare_<dataset>_folds.csv`` (every cell), ``compare_<dataset>.png``
        (accuracy mean ± std per method) and, for 2-D vector data,
        ``compare_<dataset>_boundaries.png`` (decision boundaries of every
        method trained on all the data, as Loosli et al. 2013 Fig. 3).  Files
        are written atomically (temporary file, then ``os.replace``).
    progress : bool
        Show a tqdm progress bar over the (repeat, fold, method) cells (stderr).
    n_samples : int, optional
        Size of a synthetic data set, or a stratified subsample of a shipped one.
    binary : optional
        Binary task of the data set (see :func:`load_kernel_data`).

    Returns
    -------
    pandas.DataFrame
        One row per method with columns ``method``, ``accuracy_mean``,
        ``accuracy_std`` (sample standard deviation over the repeat x fold cells),
        ``fit_seconds_mean``, ``n_support_mean`` (``len(est.support_)``: support
        or expansion vectors), ``r_mm_mean``, ``r_neg_mean`` (Munoz & de Diego
        eq. 2 of the training block, in percent, averaged over folds),
        ``min_eigenvalue_mean`` (least eigenvalue of the
        training kernel block, averaged over folds) and ``n_errors``.
        ``attrs`` holds the data set, kernel, parameters used and the files written.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) naming the bad argument and the accepted values, before
        any model is fitted: unknown data set, kernel, kernel parameter, method or
        solver, ``C <= 0``, ``cv < 2`` or more folds than the smallest class.

    See Also
    --------
    run_comparison : the same, returning the per-fold table and diagnostics too.

    Examples
    --------
    >>> from krein.compare import compare
    >>> table = compare("checkerboard", kernel_params={"a": 1.0, "r": -0.5}, n_samples=80,
    ...                 methods=["esvm", "clip"], cv=3, progress=False)  # doctest: +SKIP
    """
    return run_comparison(dataset, kernel, kernel_params, methods, cv, repeats, C, solver,
                          random_state, out, progress, n_samples, binary).summary


def _progress_bar(total, desc, enabled):
    if not enabled:
        return None
    import sys

    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="fit", file=sys.stderr, leave=False)


# --------------------------------------------------------------------------- output files
def _atomic_write(path, write):
    """Call ``write(tmp_path)`` then move the temporary file onto ``path``."""
    directory = os.path.dirname(os.path.abspath(path))
    # a fresh name in the same directory (so os.replace is atomic); the writer creates the
    # file itself, so it gets the usual permissions (mkstemp would make it 0600)
    tmp = os.path.join(directory,
                       f".{os.path.basename(path)}.{os.getpid()}.{secrets.token_hex(6)}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _write_outputs(result, out):
    out = os.fspath(out)
    os.makedirs(out, exist_ok=True)
    name = result.data.dataset
    files = []

    def add(path, write):
        _atomic_write(path, write)
        files.append(path)

    add(os.path.join(out, f"compare_{name}.csv"),
        lambda p: result.summary.to_csv(p, index=False))
    add(os.path.join(out, f"compare_{name}_folds.csv"),
        lambda p: result.folds.to_csv(p, index=False))
    fig = _accuracy_figure(result)
    add(os.path.join(out, f"compare_{name}.png"),
        lambda p: fig.savefig(p, format="png", dpi=120, bbox_inches="tight"))
    if result.data.X is not None and result.data.X.shape[1] == 2:
        fig = _boundary_figure(result)
        add(os.path.join(out, f"compare_{name}_boundaries.png"),
            lambda p: fig.savefig(p, format="png", dpi=110, bbox_inches="tight"))
    return files


def _kernel_label(data):
    params = ", ".join(f"{k}={_fmt(v)}" for k, v in data.kernel_params.items())
    return f"{data.kernel}({params})" if params else data.kernel


def _fmt(v):
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def _new_figure(figsize):
    # Agg canvas directly: no pyplot, no change of the global backend.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig


def _accuracy_figure(result):
    s = result.summary
    data = result.data
    fig = _new_figure((max(5.0, 0.75 * len(s) + 2.0), 4.0))
    ax = fig.add_subplot(1, 1, 1)
    x = np.arange(len(s))
    mean = s["accuracy_mean"].to_numpy(dtype=float)
    std = np.nan_to_num(s["accuracy_std"].to_numpy(dtype=float))
    colors = ["tab:red" if e else "tab:blue" for e in s["n_errors"]]
    ax.bar(x, np.nan_to_num(mean), yerr=std, capsize=3, color=colors, alpha=0.85)
    _, counts = data.classes
    ax.axhline(counts.max() / counts.sum(), color="grey", ls="--", lw=1, label="majority class")
    ax.set_xticks(x)
    ax.set_xticklabels(s["method"], rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("accuracy (mean ± std)")
    ax.set_title(f"{data.dataset} (n={data.n_samples}), {_kernel_label(data)}\n"
                 f"{result.cv}-fold CV x {result.repeats}, C={result.C:g}", fontsize=9)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def _boundary_figure(result, grid=120):
    """Decision regions of every method trained on all the data (Loosli et al. 2013, Fig. 3)."""
    data = result.data
    X, y = data.X, data.y
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.05 * (hi - lo)
    g0 = np.linspace(lo[0] - pad[0], hi[0] + pad[0], grid)
    g1 = np.linspace(lo[1] - pad[1], hi[1] + pad[1], grid)
    G0, G1 = np.meshgrid(g0, g1)
    grid_points = np.column_stack([G0.ravel(), G1.ravel()])
    rows = data.rows(grid_points)
    stacked_rows = None
    classes = np.unique(y)
    m = len(result.methods)
    ncol = min(m, 3 if m <= 9 else 4)
    nrow = int(np.ceil(m / ncol))
    fig = _new_figure((3.2 * ncol, 3.0 * nrow))
    for i, name in enumerate(result.methods):
        ax = fig.add_subplot(nrow, ncol, i + 1)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = _build(name, result.C, result.solver)
                K_all, R = data.K, rows
                if data.base_kernels is not None and accepts_stacked_kernels(est):
                    if stacked_rows is None:
                        stacked_rows = data.rows(grid_points, stacked=True)
                    K_all, R = data.stacked_kernel(), stacked_rows
                est.fit(K_all, y)
                pred = est.predict(R)
                acc = float(np.mean(est.predict(K_all) == y))
            Z = np.searchsorted(classes, pred).reshape(G0.shape)
            ax.contourf(G0, G1, Z, levels=np.arange(len(classes) + 1) - 0.5, cmap="coolwarm",
                        alpha=0.35)
            if len(classes) == 2:
                ax.contour(G0, G1, Z, levels=[0.5], colors="k", linewidths=0.8)
            title = f"{name} (train acc {100 * acc:.0f}%)"
        except Exception as exc:
            ax.text(0.5, 0.5, _error_text(exc)[:80], ha="center", va="center", wrap=True,
                    fontsize=7, transform=ax.transAxes)
            title = f"{name} (failed)"
        ax.scatter(X[:, 0], X[:, 1], c=np.searchsorted(classes, y), cmap="coolwarm", s=8,
                   edgecolors="k", linewidths=0.3)
        ax.set_title(title, fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle(f"{data.dataset} (n={data.n_samples}), {_kernel_label(data)}, C={result.C:g}",
                 fontsize=10)
    fig.tight_layout()
    return fig
