"""One door for data: a data set or a user's matrix plus a kernel -> matrices and fold blocks.

:func:`load_kernel_data` loads a catalogue data set (:func:`krein.datasets.load_dataset`)
and computes its kernel once; :class:`KernelData` hands out the training block
and test rows of any split, with the per-fold rules below.  The kernel
catalogue (:func:`available_kernels`, :func:`default_kernel`,
:func:`default_kernel_params`) lives here too: to add a kernel, add it to
:data:`krein.kernels.KERNELS` (row-wise kernels of feature vectors) or here
(kernels of dissimilarities, label-dependent combinations).

Dissimilarity data sets use the kernels ``"dissimilarity-linear"`` (``K = -1/2
J D^2 J``, classical scaling, Haasdonk 2005 Prop. 1; the "linear kernel on
dissimilarities" of Loosli et al. 2013 §6.3.2 in one reading),
``"dissimilarity-raw"`` (``K = D / unit``, default ``unit = 1``: the
dissimilarities themselves used as an indefinite kernel, the other reading of
that phrase; with ``unit = 1`` its least eigenvalues equal those printed in
Loosli et al.'s Table 3 for the shipped sets, see
:func:`krein.datasets.load_dissimilarity`) or ``"dissimilarity-gaussian"``
(``K = exp(-gamma D^2)``).

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
resulting kernel is more indefinite than the paper's, so classification
results are not comparable with munoz Table 2 line by line.  In particular,
methods that apply their model to the pick-out test rows (``svm``, ``clip``,
``flip``) can do poorly: the training block carries the labels (the widest RBF
within a class, the narrowest or the cosine across), the label-free rows (the
midpoint of max and min) do not; the conformal linear combination's test rows
are ``sum_m beta_m K_m(x, X)`` of the label-free base kernels.  The measured
spectra and accuracies are in ``experiments/README.md``, "Pick-out kernel of
munoz's Ionosphere experiment".

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

A researcher's own files
------------------------
:func:`load_kernel_file` reads a matrix (``.npy``, ``.npz[:key]``, ``.csv``,
whitespace text, MATLAB ``.mat[:key]``; :func:`krein.datasets.read_matrix`)
and labels (:func:`krein.datasets.read_labels`, or an array).  The matrix is
the kernel itself (kind ``"kernel"``, kernel ``"precomputed"``: every fold's
blocks are slices of it) or, with ``dissimilarity=True``, dissimilarities
(kind ``"dissimilarity"``, the kernels above).  :func:`load_feature_file`
reads feature vectors and labels (CSV, whitespace text, LIBSVM/svmlight;
:func:`krein.datasets.read_features`), standardized like the shipped vector
sets (kind ``"vector"``, the vector kernels above).  Both fill in
``KernelData.source`` (where the data came from) and ``KernelData.notes``
(what was done to them, e.g. a symmetrization).

Approximated runs (no n x n kernel)
-----------------------------------
With ``approximation="nystroem:M"`` (:func:`check_approximation`) the loaders
compute no kernel matrix: ``KernelData.K`` is None, :meth:`KernelData.blocks`
refuses, and the cells give the estimators the feature vectors ``X`` with a
named kernel and an :class:`krein.approximation.IndefiniteNystroem` front end
(:func:`make_approximation`), which never forms an ``n x n`` array.
:meth:`KernelData.spectrum` is then the spectrum of the Nyström approximation
of the kernel on all objects (its ``r <= M`` nonzero eigenvalues, the other
``n - r`` counted as zero; :func:`approximation_spectrum`).  Only feature
vectors (shipped vector or synthetic sets, a feature file) with a row-wise
kernel of :data:`krein.kernels.KERNELS` can be approximated: a dissimilarity
or kernel matrix already is ``n x n``, and the pick-out kernels are
label-dependent ``n x n`` combinations (:class:`InvalidArgument` naming
``approximation``).

The checks, each an :class:`InvalidArgument` whose one-line message starts
with the file's path: a square matrix of at least 2 x 2 without NaN or inf;
as many labels as objects, at least two classes, not every object a class of
its own; symmetry up to :data:`FILE_SYMMETRY_RTOL` relative to ``max |K|``
(``(K + K')/2`` is used below it; above it only with ``symmetrize=True``,
recorded in ``notes``); dissimilarities that are ``>= 0`` with a zero
diagonal (up to :data:`FILE_DIAGONAL_RTOL` ``* max |D|``).
"""

from __future__ import annotations

import inspect
import numbers
import os
import warnings
from dataclasses import dataclass, field

import numpy as np

from ._validation import InvalidArgument
from .combinations import (MUNOZ_IONOSPHERE_WIDTHS, munoz_ionosphere_kernels, pick_out,
                           pick_out_rows, projection_kernels)
from .datasets import (FEATURE_SCALES, available_datasets, dataset_kind, load_dataset,
                       read_labels, read_matrix, scale_features)
from .datasets._files import _read_features, _resolve
from .kernels import KERNELS, dissimilarity_kernel, pairwise_kernel
from .spectrum import Spectrum

__all__ = [
    "KernelData",
    "load_kernel_data",
    "check_data_arguments",
    "available_kernels",
    "default_kernel",
    "default_kernel_params",
    "default_kernel_grid",
    "InvalidArgument",
    "DISSIMILARITY_KERNELS",
    "PICK_OUT_KERNELS",
    "FEATURE_SCALES",
    "load_kernel_file",
    "load_feature_file",
    "FILE_SYMMETRY_RTOL",
    "FILE_DIAGONAL_RTOL",
    "APPROXIMATIONS",
    "check_approximation",
    "make_approximation",
    "approximation_spectrum",
]

#: Kernels for dissimilarity data sets.
DISSIMILARITY_KERNELS = ("dissimilarity-linear", "dissimilarity-raw", "dissimilarity-gaussian")

#: Label-dependent pick-out kernels (module docstring): name -> base kernels, either a
#: kernel of the single coordinates ("linear", "gaussian") or "munoz-ionosphere", the
#: twelve normalized kernels of munoz §4.2 (:func:`krein.combinations.munoz_ionosphere_kernels`).
PICK_OUT_KERNELS = {"pick-out-linear": "linear", "pick-out-gaussian": "gaussian",
                    "pick-out-munoz-ionosphere": "munoz-ionosphere"}

#: Rule for the pick-out rows of test points (labels unknown); see
#: :func:`krein.combinations.pick_out_rows`.
PICK_OUT_TEST_RULE = "mean"

#: Largest stack of per-coordinate kernels (n^2 * n_features doubles) built by compare.
PICK_OUT_MAX_BYTES = 2 * 1024**3

# Default sigmoid kernel on standardized vectors: a = SIGMOID_A_TIMES_D / n_features,
# r = SIGMOID_R.  Chosen so that the kernel is clearly indefinite beyond the
# near-constant direction while ESVM still classifies well (smaller a gives fewer
# negative eigenvalues; larger a or r closer to 0 costs every method accuracy).  The
# measurement on standardized Sonar is in experiments/README.md, "Default sigmoid kernel".
SIGMOID_A_TIMES_D = 4.0
SIGMOID_R = -2.0


def available_kernels(kind="vector"):
    """Kernel names usable with a kind of data set.

    Parameters
    ----------
    kind : {"vector", "synthetic", "dissimilarity", "kernel"}
        The data's kind (``"kernel"``: a precomputed kernel matrix).

    Returns
    -------
    list of str
        :data:`krein.kernels.KERNELS` and the pick-out kernels
        :data:`PICK_OUT_KERNELS` for feature vectors,
        :data:`DISSIMILARITY_KERNELS` for dissimilarity matrices, or
        ``["precomputed"]`` for a kernel matrix.
    """
    if kind == "kernel":
        return ["precomputed"]
    if kind == "dissimilarity":
        return list(DISSIMILARITY_KERNELS)
    return sorted(KERNELS) + list(PICK_OUT_KERNELS)


def default_kernel(kind="vector", dataset=None):
    """Default kernel of a kind of data set.

    Parameters
    ----------
    kind : {"vector", "synthetic", "dissimilarity", "kernel"}
        The data's kind (``"kernel"``: a precomputed kernel matrix).
    dataset : str, optional
        Data set name: ``"munoz-artificial"`` has its own default.

    Returns
    -------
    str
        ``"pick-out-linear"`` for ``"munoz-artificial"`` (the pick-out
        combination of the two coordinate kernels, Munoz & de Diego 2006
        §4.1), ``"dissimilarity-linear"`` for dissimilarity data,
        ``"precomputed"`` for a kernel matrix, else ``"sigmoid"``.
    """
    if kind == "kernel":
        return "precomputed"
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

    * ``sigmoid``/``tanh``: ``a = 4 / n_features``, ``r = -2``: clearly
      indefinite on standardized data while ESVM still classifies well
      (measured on Sonar: ``experiments/README.md``, "Default sigmoid kernel").
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
        Parameter name -> default value, as listed above (``{}`` for a kernel
        without parameters or with no scaled default); pass it on as the
        kernel's ``kernel_params``.
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


#: Multiples of a kernel parameter's value tried by the default kernel grid
#: (:func:`default_kernel_grid`): half, the value, double.
KERNEL_GRID_FACTORS = (0.5, 1.0, 2.0)

#: The parameter of each kernel that the default kernel grid varies.
_TUNED_KERNEL_PARAMETER = {"sigmoid": "a", "tanh": "a", "gaussian": "gamma", "rbf": "gamma",
                           "epanechnikov": "sigma", "pick-out-gaussian": "gamma"}


def default_kernel_grid(kernel, kernel_params):
    """Default inner-CV grid of a kernel computed from feature vectors.

    The one scale parameter of the kernel (sigmoid/tanh: ``a``; gaussian/rbf
    and pick-out-gaussian: ``gamma``; epanechnikov: ``sigma``) times
    :data:`KERNEL_GRID_FACTORS` (half, the value, double), around the value in
    ``kernel_params`` (the data-scaled default of :func:`default_kernel_params`
    unless given).  The sigmoid's offset ``r`` stays fixed: it sets how
    indefinite the kernel is (the near-constant direction ``tanh(r)`` adds),
    which is the experiment's choice, not a nuisance parameter.  Kernels of
    dissimilarities and precomputed matrices, and kernels without a scale
    parameter (linear, pick-out-linear, pick-out-munoz-ionosphere), have no
    grid.

    Parameters
    ----------
    kernel : str
        Kernel name.
    kernel_params : dict
        The kernel's full parameters (defaults filled in).

    Returns
    -------
    dict
        ``{parameter: [0.5 v, v, 2 v]}``, or ``{}`` when the kernel has no
        scale parameter to tune.
    """
    name = _TUNED_KERNEL_PARAMETER.get(kernel)
    if name is None or name not in kernel_params:
        return {}
    v = float(kernel_params[name])
    return {name: [f * v for f in KERNEL_GRID_FACTORS]}


#: Low-rank front ends of ``approximation`` (:func:`check_approximation`) and their
#: landmark methods (:data:`krein.approximation.LANDMARK_METHODS`).
APPROXIMATIONS = {"nystroem": ("uniform", "kmeans++")}

_APPROXIMATION_FORM = ("None or 'nystroem:M' (M >= 1 landmarks; 'nystroem:M:kmeans++' "
                       "spreads them by k-means++ seeding)")


def check_approximation(approximation):
    """Check an ``approximation`` argument; return its canonical text.

    Parameters
    ----------
    approximation : str or None
        None (the exact ``n x n`` kernel), ``"nystroem:M"`` (an
        :class:`krein.approximation.IndefiniteNystroem` with ``M`` uniformly
        drawn landmarks) or ``"nystroem:M:LANDMARKS"`` with ``LANDMARKS`` one
        of ``"uniform"``, ``"kmeans++"``.

    Returns
    -------
    str or None
        ``"nystroem:M"`` or ``"nystroem:M:kmeans++"`` (uniform landmarks are
        the default and left out), or None.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) naming ``approximation``, for anything else.
    """
    if approximation is None:
        return None
    if not isinstance(approximation, str):
        raise InvalidArgument("approximation", f"must be {_APPROXIMATION_FORM}; got "
                                               f"{approximation!r}")
    parts = [t.strip() for t in approximation.strip().split(":")]
    name = parts[0].lower()
    if name not in APPROXIMATIONS or len(parts) not in (2, 3):
        raise InvalidArgument("approximation", f"must be {_APPROXIMATION_FORM}; got "
                                               f"{approximation!r}")
    try:
        m = int(parts[1])
    except ValueError:
        m = 0
    if m < 1 or not parts[1].lstrip("+").isdigit():
        raise InvalidArgument("approximation", f"the number of landmarks M of "
                                               f"{approximation!r} must be an integer >= 1")
    landmarks = parts[2].lower() if len(parts) == 3 else "uniform"
    if landmarks not in APPROXIMATIONS[name]:
        raise InvalidArgument("approximation", f"unknown landmark method {parts[2]!r} in "
                                               f"{approximation!r}; accepted: "
                                               f"{', '.join(APPROXIMATIONS[name])}")
    return f"{name}:{m}" + ("" if landmarks == "uniform" else f":{landmarks}")


def make_approximation(approximation, random_state=None, kernel="sigmoid", kernel_params=None):
    """The front end of an ``approximation`` text, unfitted.

    Parameters
    ----------
    approximation : str
        ``"nystroem:M[:LANDMARKS]"`` (:func:`check_approximation`).
    random_state : int, optional
        Seed of the landmark choice.
    kernel : str
        Kernel name (an estimator with ``approximation`` sets its own).
    kernel_params : dict, optional
        Kernel parameters (likewise).

    Returns
    -------
    krein.approximation.IndefiniteNystroem
        With ``n_components = M`` and the landmark method.
    """
    from .approximation import IndefiniteNystroem

    parts = check_approximation(approximation).split(":")
    return IndefiniteNystroem(kernel=kernel, kernel_params=dict(kernel_params or {}),
                              n_components=int(parts[1]),
                              landmarks=parts[2] if len(parts) == 3 else "uniform",
                              random_state=random_state)


def approximation_spectrum(eigenvalues, n):
    """The spectrum of a rank-``r`` approximation of an ``n x n`` kernel.

    Parameters
    ----------
    eigenvalues : array of shape (r,)
        Its nonzero eigenvalues (``IndefiniteNystroem.eigenvalues_``).
    n : int
        Size of the kernel it approximates.

    Returns
    -------
    krein.spectrum.Spectrum
        ``partial=True``: the ``r`` eigenvalues (ascending), the other ``n - r``
        counted as zero in the signature; ``eigenvectors`` is None (the
        ``n x r`` eigenvectors are not kept).
    """
    from .spectrum import _null_tol

    lam = np.sort(np.asarray(eigenvalues, dtype=float))
    return Spectrum(lam, None, int(n), partial=True, total_abs=float(np.abs(lam).sum()),
                    tol=_null_tol(lam, int(n)))


def _check_approximable(approximation, kind, kernel, what):
    """An approximated run needs feature vectors and a row-wise named kernel."""
    if approximation is None:
        return
    if kind in ("dissimilarity", "kernel"):
        matrix = "a dissimilarity" if kind == "dissimilarity" else "a kernel"
        raise InvalidArgument("approximation", f"{what} is {matrix} matrix, already n x n: "
                                               "only feature vectors (a vector or synthetic data "
                                               "set, a feature file) are approximated")
    if kernel not in KERNELS:
        raise InvalidArgument("approximation", f"kernel {kernel!r} is not approximated (the "
                                               "pick-out kernels are label-dependent n x n "
                                               "combinations); accepted: "
                                               f"{', '.join(sorted(KERNELS))}")


def class_labels(y):
    """Labels as categories: non-integer numbers become their shortest text.

    scikit-learn takes float labels for classes only when every value is
    integral (``type_of_target``: otherwise "continuous", refused by every
    classifier and by ``StratifiedKFold``).  A user's labels ``0.5`` / ``1.5``
    are class names all the same, so they are kept as the strings ``"0.5"`` /
    ``"1.5"`` (``repr`` of the float: distinct numbers stay distinct); the
    classes are then ordered as strings.  Integers, integral floats and
    strings are returned unchanged.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels as read.

    Returns
    -------
    ndarray of shape (n,)
        ``y``, or its non-integral float labels as a string array.
    """
    y = np.asarray(y)
    if y.dtype.kind == "f" and y.size and np.all(np.isfinite(y)) and np.any(y != np.round(y)):
        return np.array([repr(float(v)) for v in y])
    return y


@dataclass
class KernelData:
    """A loaded data set with its kernel, ready for cross-validation.

    Build it with :func:`load_kernel_data` (a catalogue data set),
    :func:`load_kernel_file` (a kernel or dissimilarity matrix file) or
    :func:`load_feature_file` (a feature file).

    Parameters
    ----------
    dataset : str
        Data set name (for a file: ``name``, default the file's stem).
    kind : {"vector", "synthetic", "dissimilarity", "kernel"}
        The data set's kind (:func:`krein.datasets.dataset_kind`; ``"kernel"``:
        a precomputed kernel matrix, kernel ``"precomputed"``).
    kernel : str
        Kernel name.
    kernel_params : dict
        The parameters actually used (defaults filled in).
    y : ndarray of shape (n,)
        Labels.
    K : ndarray of shape (n, n) or None
        Kernel on all objects (for dissimilarity-linear: centered on all objects;
        the folds recompute it with training centering); None in an
        approximated run (``approximation``: no ``n x n`` array).
    X : ndarray of shape (n, d) or None
        Features (vector and synthetic data).
    D : ndarray of shape (n, n) or None
        Dissimilarities (dissimilarity data).
    description : str
        One line on how the data were prepared.
    base_kernels : ndarray of shape (n, n, M) or None
        Label-free base kernels of a combined kernel (the per-coordinate
        kernels of the pick-out kernels), else None.
    _spectrum : Spectrum or None
        Cache of :meth:`spectrum` (internal: leave None).
    source : str
        One line on where the data came from, e.g. ``"kernel file /abs/K.npy,
        labels /abs/y.txt"``; empty for the catalogue sets.
    notes : tuple of str
        One line each on what was done to the data on loading, e.g.
        ``"symmetrized: max |K - K'| = 0.03 (1.2 % of max |K|) before
        (K + K')/2"``; empty when nothing was.
    approximation : str or None
        None, or the low-rank front end of an approximated run
        (:func:`check_approximation`, e.g. ``"nystroem:1000"``): then ``K`` is
        None, the estimators get feature vectors, and :meth:`spectrum` is the
        approximation's.
    approximation_seed : int
        Seed of the landmarks of :meth:`spectrum` in an approximated run.
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
    source: str = ""
    notes: tuple = ()
    approximation: str | None = None
    approximation_seed: int = 0

    def __post_init__(self):
        self.y = class_labels(self.y)

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
        """True when fold blocks are recomputed (dissimilarity-linear, pick-out), not sliced.

        False for a precomputed kernel matrix (kind ``"kernel"``): its blocks are slices of ``K``.
        """
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
            ``Spectrum.from_kernel(K)``: eigenvalues and eigenvectors of the
            kernel on all objects, cached for later calls.  In an approximated
            run (``approximation``): the nonzero eigenvalues of the Nyström
            approximation of the kernel on all objects
            (:func:`approximation_spectrum`; landmarks seeded by
            ``approximation_seed``), with no ``n x n`` array formed.
        """
        if self._spectrum is None:
            if self.K is None and self.approximation is not None:
                ny = make_approximation(self.approximation, self.approximation_seed,
                                        self.kernel, self.kernel_params)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # M > n is reduced to n
                    ny.fit(self.X)
                self._spectrum = approximation_spectrum(ny.eigenvalues_, self.n_samples)
            else:
                self._spectrum = Spectrum.from_kernel(self._kernel_matrix())
        return self._spectrum

    def _kernel_matrix(self):
        if self.K is None:
            raise ValueError(f"{self.dataset!r}: no n x n kernel in an approximated run "
                             f"(approximation={self.approximation!r}); the estimators take "
                             "the feature vectors X")
        return self.K

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
            Kernel among the training objects: a slice of ``K``, or recomputed
            for the fold (dissimilarity-linear with training centering,
            symmetrized; pick-out with the training labels).
        K_test : ndarray of shape (n_test, n_train) (or (n_test, n_train, 1 + M))
            Kernel rows of the test objects against the training objects,
            computed without the test labels.

        Raises
        ------
        ValueError
            In an approximated run (``K`` is None: the estimators take ``X``).
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
        K = self._kernel_matrix()
        return K[np.ix_(train, train)], K[np.ix_(test, train)]

    def rows(self, Z, stacked=False):
        """Kernel rows ``k(z, X)`` between new feature vectors and all objects.

        Pick-out kernels: the rows of points of unknown label
        (:data:`PICK_OUT_TEST_RULE`) against all objects with their labels.

        Parameters
        ----------
        Z : array of shape (m, d)
            New feature vectors, prepared (scaled) like ``X``.
        stacked : bool
            Stacked rows ``[k, k_1, ..., k_M]`` when the data have base kernels.

        Returns
        -------
        ndarray of shape (m, n) (or (m, n, 1 + M))
            ``k(z_i, x_j)`` with the kernel's parameters of ``kernel_params``
            (pick-out kernels: the label-free rule, plus the base kernels
            on the last axis when ``stacked``).

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
        """The kernel and its base kernels on all objects, stacked on the last axis.

        Returns
        -------
        ndarray of shape (n, n, 1 + M) or (n, n)
            ``[K, K_1, ..., K_M]`` with the base kernels, or ``K`` itself when
            the data have no base kernels.
        """
        if self.base_kernels is None:
            return self._kernel_matrix()
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


def check_data_arguments(dataset, kernel=None, kernel_params=None):
    """Check a data set name, a kernel name for it and the kernel's parameters, loading nothing.

    Parameters
    ----------
    dataset : str
        A name from :func:`krein.datasets.available_datasets`.
    kernel : str, optional
        A kernel for the data set's kind (:func:`available_kernels`); None: the default.
    kernel_params : dict, optional
        Parameters of that kernel.

    Returns
    -------
    kind : {"vector", "synthetic", "dissimilarity"}
        The data set's kind.
    kernel : str
        The kernel name (the default filled in).
    kernel_params : dict
        A copy of the given parameters.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) naming ``dataset``, ``kernel`` or ``kernel_params``
        and the accepted values.
    """
    if not isinstance(dataset, str) or dataset not in available_datasets():
        load_dataset(dataset)  # raises InvalidArgument naming the accepted data sets
    kind = dataset_kind(dataset)
    if kernel is None:
        kernel = default_kernel(kind, dataset)
    kernel = _check_kernel(kernel, kind)
    return kind, kernel, _check_kernel_params(kernel, kernel_params)


def load_kernel_data(dataset="sonar", kernel=None, kernel_params=None, *, n_samples=None,
                     binary=None, random_state=0, approximation=None):
    """Load a data set and compute its kernel matrix once.

    Parameters
    ----------
    dataset : str
        A name from :func:`krein.datasets.available_datasets`.  Vector data sets are
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
        Seed of the synthetic data and of the subsample (and of the landmarks
        of :meth:`KernelData.spectrum` in an approximated run).
    approximation : str, optional
        ``"nystroem:M[:LANDMARKS]"`` (:func:`check_approximation`): compute no
        kernel matrix (``K`` None, module docstring); vector and synthetic
        data with a kernel of :data:`krein.kernels.KERNELS` only.

    Returns
    -------
    KernelData
        The labels, the prepared features or dissimilarities, the symmetrized
        kernel on all objects with its full parameters (defaults filled in;
        None in an approximated run) and, for the pick-out kernels, the base
        kernels.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) naming the bad argument and the accepted values:
        unknown data set or kernel, unknown kernel parameter or bad value,
        bad ``n_samples`` or ``binary``, an ``approximation`` of dissimilarity
        data or a pick-out kernel.
    """
    approximation = check_approximation(approximation)
    kind, kernel, params = check_data_arguments(dataset, kernel, kernel_params)
    _check_approximable(approximation, kind, kernel, f"data set {dataset!r}")
    # feature scaling chosen by the kernel ("pick-out-munoz-ionosphere"), else None
    feature_scale = (params.get("scale", default_kernel_params(kernel)["scale"])
                     if "scale" in _kernel_param_names(kernel) else None)
    data = load_dataset(dataset, n_samples=n_samples, binary=binary, random_state=random_state,
                        feature_scale=feature_scale)
    X, D, y, desc = data.X, data.D, data.y, data.description
    if np.unique(y).size < 2:
        raise InvalidArgument("dataset", f"{dataset!r} has a single class here; need at least two")

    full = default_kernel_params(kernel, n_features=None if X is None else X.shape[1], D=D)
    full.update(params)
    if approximation is not None:
        _check_kernel_values(kernel, full, X)
        return KernelData(dataset, kind, kernel, full, np.asarray(y), None, X, D, desc,
                          approximation=approximation, approximation_seed=int(random_state))
    K, B = _compute_kernel(kind, kernel, full, X, D, y, what=repr(dataset))
    return KernelData(dataset, kind, kernel, full, np.asarray(y), K, X, D, desc, base_kernels=B)


def _check_kernel_values(kernel, full, X):
    """A bad kernel parameter value fails on loading, as it does with the matrix: the kernel
    evaluated on two rows."""
    try:
        pairwise_kernel(kernel, X[:2], None, full)
    except (ValueError, TypeError) as exc:
        raise InvalidArgument("kernel_params", f"{exc} (kernel {kernel!r} with {full})") from None


def _compute_kernel(kind, kernel, full, X, D, y, what, hint="use n_samples to subsample"):
    """Symmetrized kernel ``K`` on all objects and the base kernels (pick-out kernels, else None).

    The one computation behind :func:`load_kernel_data`, :func:`load_kernel_file`
    and :func:`load_feature_file`; ``full`` are the kernel's parameters with
    the defaults filled in, ``what`` names the data in the messages.
    """
    B = None
    if kernel in PICK_OUT_KERNELS:
        n_base = _n_base_kernels(kernel, X.shape[1])
        size = 8 * y.shape[0] ** 2 * n_base
        if size > PICK_OUT_MAX_BYTES:
            raise InvalidArgument("kernel", f"{kernel} needs n^2 * {n_base} * 8 bytes = "
                                            f"{size / 1024**3:.1f} GiB for the {n_base} base "
                                            f"kernels of {what} (limit "
                                            f"{PICK_OUT_MAX_BYTES / 1024**3:.0f} GiB); {hint}")
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
    return 0.5 * (K + K.T), B


# ---------------------------------------------------------------------------- a researcher's files
#: Relative asymmetry ``max |K - K'| / max |K|`` of a matrix file up to which ``(K + K')/2`` is
#: used without a word; above it only with ``symmetrize=True`` (recorded in ``KernelData.notes``).
FILE_SYMMETRY_RTOL = 1e-10
#: Largest ``|D_ii|``, relative to ``max |D|``, of a dissimilarity file read as a zero diagonal.
FILE_DIAGONAL_RTOL = 1e-12


def _py(value):
    """A NumPy scalar as the Python value (for reprs in messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _path_text(path):
    return os.fspath(path) if isinstance(path, (str, os.PathLike)) else repr(path)


def _prefixed(exc, shown):
    """An InvalidArgument of an argument check, its message prefixed by the file's path."""
    return InvalidArgument(exc.argument, f"{shown}: {exc.message}")


def _check_flag(value, argument):
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidArgument(argument, f"must be True or False; got {value!r}")
    return bool(value)


def _check_name(name):
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise InvalidArgument("name", f"must be a non-empty string or None; got {name!r}")
    return name


def _file_source(path):
    """The absolute path of a readable file path, with its ``:key``."""
    file, key, _ = _resolve(path, "path")
    return os.path.abspath(file) + (f":{key}" if key is not None else ""), file.stem


def _check_file_matrix(M, shown, what):
    """Square, at least 2 x 2, finite; returns n."""
    r, c = M.shape
    if r != c:
        raise InvalidArgument("kernel_file", f"{shown}: a {what} must be square; got a {r} x {c} "
                                             "matrix")
    if r < 2:
        raise InvalidArgument("kernel_file", f"{shown}: a {r} x {c} matrix; a {what} needs at "
                                             "least 2 x 2 (two objects)")
    bad = ~np.isfinite(M)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise InvalidArgument("kernel_file", f"{shown}: {int(bad.sum())} NaN or inf entries (the "
                                             f"first, {M[i, j]}, at row {i + 1}, column "
                                             f"{j + 1}); a {what} must be finite")
    return r


def _file_labels(labels):
    """``(y, shown, source)`` of a labels path or array-like."""
    if isinstance(labels, (str, os.PathLike)):
        y = read_labels(labels, argument="labels")
        return y, os.fspath(labels), f"labels {_file_source(labels)[0]}"
    shown = "labels array"
    try:
        y = np.asarray(labels)
    except (ValueError, TypeError) as exc:
        raise InvalidArgument("labels", f"{shown}: not an array of labels ({exc})") from None
    if y.ndim == 2 and 1 in y.shape:
        y = y.ravel()
    if y.ndim != 1:
        raise InvalidArgument("labels", f"{shown}: must be a path or a vector of shape (n,); got "
                                        f"shape {y.shape}")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise InvalidArgument("labels", f"{shown}: {int((~np.isfinite(y)).sum())} labels are NaN "
                                        "or inf")
    return y, shown, "labels given as an array"


def _check_file_labels(y, shown, argument, hint=""):
    """At least two classes, and not every object a class of its own; ``hint`` ends the messages."""
    classes = np.unique(y)
    n = y.shape[0]
    if classes.size < 2:
        raise InvalidArgument(argument, f"{shown}: a single class ({_py(classes[0])!r}) in all "
                                        f"{n} labels; need at least two classes{hint}")
    if classes.size == n and n >= 3:
        first = ", ".join(repr(_py(v)) for v in y[:3])
        raise InvalidArgument(argument, f"{shown}: all {n} labels are different ({first}, ...): "
                                        "every object would be a class of its own; expected one "
                                        f"class label per object{hint}")


def _symmetrized(M, shown, letter, symmetrize, notes):
    """``(M + M')/2``; an error above :data:`FILE_SYMMETRY_RTOL` unless ``symmetrize``."""
    A = np.abs(M - M.T)
    i, j = np.unravel_index(np.argmax(A), A.shape)
    asym = float(A[i, j])
    top = float(np.max(np.abs(M)))
    rel = asym / top if top > 0 else 0.0
    if rel > FILE_SYMMETRY_RTOL:
        how = (f"max |{letter} - {letter}'| = {asym:.3g} ({100 * rel:.3g} % of max |{letter}|)")
        if not symmetrize:
            raise InvalidArgument("kernel_file", f"{shown}: not symmetric: {how}, at row {i + 1}, "
                                                 f"column {j + 1} ({letter}[{i}, {j}] = "
                                                 f"{M[i, j]:.6g}, {letter}[{j}, {i}] = "
                                                 f"{M[j, i]:.6g}); symmetrize=True (--symmetrize "
                                                 f"on the command line) uses ({letter} + "
                                                 f"{letter}')/2")
        notes.append(f"symmetrized: {how} before ({letter} + {letter}')/2")
    return 0.5 * (M + M.T)


def _check_dissimilarities(D, shown):
    """Check ``D >= 0`` and a zero diagonal (:data:`FILE_DIAGONAL_RTOL`), set exactly to 0."""
    hint = "(is it a kernel, i.e. similarity, matrix? then leave out dissimilarity=True)"
    neg = D < 0
    if neg.any():
        i, j = np.unravel_index(np.argmin(D), D.shape)
        raise InvalidArgument("kernel_file", f"{shown}: {int(neg.sum())} negative entries (the "
                                             f"most negative {D[i, j]:.6g} at row {i + 1}, column "
                                             f"{j + 1}); dissimilarities are >= 0 {hint}")
    diag = np.abs(np.diag(D))
    i = int(np.argmax(diag))
    if diag[i] > FILE_DIAGONAL_RTOL * float(np.max(D)):
        nonzero = int(np.count_nonzero(diag))
        raise InvalidArgument("kernel_file", f"{shown}: the diagonal is not zero (max |D_ii| = "
                                             f"{diag[i]:.6g} at row {i + 1}; {nonzero} nonzero); "
                                             f"an object's dissimilarity to itself is 0 {hint}")
    if diag[i] > 0:
        D = D.copy()
        np.fill_diagonal(D, 0.0)
    return D


def load_kernel_file(path, labels, *, dissimilarity=False, kernel=None, kernel_params=None,
                     symmetrize=False, name=None):
    """Load a researcher's kernel or dissimilarity matrix file with its labels.

    The matrix is read by :func:`krein.datasets.read_matrix` (``.npy``,
    ``.npz[:key]``, ``.csv``, whitespace text, MATLAB ``.mat[:key]``).
    Without ``dissimilarity`` it is the kernel itself (kind ``"kernel"``,
    kernel ``"precomputed"``; fold blocks are slices of it).  With
    ``dissimilarity=True`` it holds dissimilarities (kind
    ``"dissimilarity"``) and the kernel is computed exactly as for the
    shipped dissimilarity sets (:func:`load_kernel_data`).

    A matrix whose relative asymmetry ``max |K - K'| / max |K|`` is at most
    :data:`FILE_SYMMETRY_RTOL` is replaced by ``(K + K')/2``; a larger
    asymmetry is an error unless ``symmetrize=True``, which uses ``(K + K')/2``
    and records how asymmetric it was in ``notes``.

    Parameters
    ----------
    path : str or os.PathLike
        The matrix file (``file.npz:key`` / ``file.mat:key`` names an array).
    labels : str, os.PathLike or array-like of shape (n,)
        A labels file (:func:`krein.datasets.read_labels`: one label per line,
        or a vector in ``.npy``, ``.npz``, ``.mat``, ``.csv``), or the labels
        themselves, one per row of the matrix; any type (strings are kept).
    dissimilarity : bool, default=False
        The file holds dissimilarities ``D`` (``>= 0``, zero diagonal), not a
        kernel.
    kernel : str, optional
        Without ``dissimilarity``: None or ``"precomputed"``.  With it: one of
        :data:`DISSIMILARITY_KERNELS`, default ``"dissimilarity-linear"``.
    kernel_params : dict, optional
        Parameters of a dissimilarity kernel; missing ones get
        :func:`default_kernel_params`.  None (or empty) for a kernel matrix.
    symmetrize : bool, default=False
        Use ``(K + K')/2`` even when ``K`` is asymmetric beyond
        :data:`FILE_SYMMETRY_RTOL` (recorded in ``notes``).
    name : str, optional
        The data's name (``KernelData.dataset``); default the file's stem.

    Returns
    -------
    KernelData
        Kind ``"kernel"`` (``K`` the symmetrized matrix, ``X`` and ``D``
        None) or ``"dissimilarity"`` (``D`` the matrix, ``K`` its kernel), the
        labels ``y`` of shape (n,) unchanged, the kernel's full parameters,
        ``source`` (the absolute paths) and ``notes``.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) with a one-line message that starts with the file's
        path, naming ``kernel_file`` (any error of
        :func:`krein.datasets.read_matrix`, a matrix that is not square or
        smaller than 2 x 2, NaN or inf entries, an asymmetric matrix without
        ``symmetrize``, negative dissimilarities or a nonzero diagonal),
        ``labels`` (any error of :func:`krein.datasets.read_labels`, a count
        that does not match the matrix, a single class, every label
        different), ``kernel`` or ``kernel_params`` (a kernel or parameter
        that does not fit the matrix), ``dissimilarity``, ``symmetrize`` or
        ``name`` (wrong type).
    """
    dissimilarity = _check_flag(dissimilarity, "dissimilarity")
    symmetrize = _check_flag(symmetrize, "symmetrize")
    name = _check_name(name)
    shown = _path_text(path)
    if dissimilarity:
        kind = "dissimilarity"
        try:
            kernel = _check_kernel(default_kernel(kind) if kernel is None else kernel, kind)
            params = _check_kernel_params(kernel, kernel_params)
        except InvalidArgument as exc:
            raise _prefixed(exc, shown) from None
    else:
        kind = "kernel"
        if kernel is not None and kernel != "precomputed":
            raise InvalidArgument("kernel", f"{shown}: a kernel matrix file takes the kernel "
                                            f"'precomputed'; got {kernel!r} (a matrix of "
                                            "dissimilarities takes dissimilarity=True and one of "
                                            f"{', '.join(DISSIMILARITY_KERNELS)})")
        if kernel_params is not None and (not isinstance(kernel_params, dict) or kernel_params):
            raise InvalidArgument("kernel_params", f"{shown}: the kernel 'precomputed' takes no "
                                                   f"parameters; got {kernel_params!r}")
        kernel, params = "precomputed", {}
    letter, what = ("D", "dissimilarity matrix") if dissimilarity else ("K", "kernel matrix")

    M = read_matrix(path, argument="kernel_file")
    n = _check_file_matrix(M, shown, what)
    y, labels_shown, labels_source = _file_labels(labels)
    if y.shape[0] != n:
        raise InvalidArgument("labels", f"{labels_shown}: {y.shape[0]} labels for a {n} x {n} "
                                        f"matrix ({shown}); give one label per object")
    _check_file_labels(y, labels_shown, "labels")
    notes = []
    M = _symmetrized(M, shown, letter, symmetrize, notes)
    source, stem = _file_source(path)
    desc = f"{what} read from a file, {n} objects"
    if notes:
        desc += f", symmetrized ({letter} + {letter}')/2"
    if dissimilarity:
        D = _check_dissimilarities(M, shown)
        full = default_kernel_params(kernel, D=D)
        full.update(params)
        try:
            K, _ = _compute_kernel(kind, kernel, full, None, D, y, what="this file")
        except InvalidArgument as exc:
            raise _prefixed(exc, shown) from None
    else:
        K, D, full = M, None, {}
    return KernelData(name or stem, kind, kernel, full, y, K, None, D, desc,
                      source=f"{'dissimilarity' if dissimilarity else 'kernel'} file {source}, "
                             f"{labels_source}",
                      notes=tuple(notes))


_SCALE_TEXT = {None: "raw features (not scaled)",
               "standard": "standardized: zero mean, unit variance per feature",
               "minmax": "each feature mapped onto [-1, 1]"}


def load_feature_file(path, *, label_column=None, kernel=None, kernel_params=None,
                      scale="standard", name=None, approximation=None):
    """Load a researcher's feature file (CSV, text or LIBSVM/svmlight) and compute its kernel.

    The file is read by :func:`krein.datasets.read_features` (a header row is
    detected; the labels are the column ``label_column``, by default the
    last).  The features are scaled like the shipped vector sets
    (:func:`krein.datasets.scale_features`, over all rows) and the kernel is
    computed exactly as for them (:func:`load_kernel_data`): default
    ``"sigmoid"`` with :func:`default_kernel_params` (``a = 4 / n_features``,
    ``r = -2``), any kernel of :func:`available_kernels` ``("vector")``
    including the pick-out kernels.

    Parameters
    ----------
    path : str or os.PathLike
        The feature file.
    label_column : str or int, optional
        The labels' column in a text table: a header name or an index
        (0-based; negative counts from the end).  Default (None): the last
        column.  None for svmlight files.
    kernel : str, optional
        A name of :data:`krein.kernels.KERNELS` or :data:`PICK_OUT_KERNELS`;
        default ``"sigmoid"``.
    kernel_params : dict, optional
        Kernel parameters; missing ones get :func:`default_kernel_params`.
    scale : {"standard", "minmax", None}, default="standard"
        Feature scaling: zero mean and unit variance per feature, each
        feature onto [-1, 1], or None (also ``"raw"``): the features as read.
        With ``"pick-out-munoz-ionosphere"`` the kernel parameter ``scale``
        decides instead (default ``"raw"``, as for the shipped sets); a
        different value here is then an error.
    name : str, optional
        The data's name (``KernelData.dataset``); default the file's stem.
    approximation : str, optional
        ``"nystroem:M[:LANDMARKS]"`` (:func:`check_approximation`): compute no
        kernel matrix (``K`` None; a kernel of :data:`krein.kernels.KERNELS`).

    Returns
    -------
    KernelData
        Kind ``"vector"``: the scaled features ``X`` of shape (n, d), the
        labels ``y`` of shape (n,) with their original values, the
        symmetrized kernel ``K`` of shape (n, n) with its full parameters,
        the base kernels for the pick-out kernels, the scaling in
        ``description``, ``source`` (absolute path, label column) and
        ``notes`` (how the table was read).

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) with a one-line message that starts with the file's
        path, naming ``data`` (any error of :func:`krein.datasets.read_features`
        about the file; a single class or every label different),
        ``label_column`` (an unknown name, an index out of range),
        ``kernel`` or ``kernel_params`` (unknown kernel or parameter, bad
        value, pick-out base kernels above the memory limit), ``scale`` or
        ``name``.
    """
    name = _check_name(name)
    shown = _path_text(path)
    approximation = check_approximation(approximation)
    if scale == "raw":
        scale = None
    if not (scale is None or isinstance(scale, str)) or scale not in _SCALE_TEXT:
        raise InvalidArgument("scale", f"{shown}: scale must be 'standard', 'minmax' or None (raw "
                                       f"features); got {scale!r}")
    try:
        kernel = _check_kernel(default_kernel("vector") if kernel is None else kernel, "vector")
        params = _check_kernel_params(kernel, kernel_params)
        _check_approximable(approximation, "vector", kernel, "this file")
    except InvalidArgument as exc:
        raise _prefixed(exc, shown) from None
    how = ""
    if "scale" in _kernel_param_names(kernel):  # the kernel's own scaling (munoz §4.2)
        kernel_scale = params.get("scale", default_kernel_params(kernel)["scale"])
        feature_scale = None if kernel_scale == "raw" else kernel_scale
        if scale != "standard" and scale != feature_scale:
            raise InvalidArgument("scale", f"{shown}: kernel {kernel!r} scales the features by "
                                           f"its parameter scale ({kernel_scale!r}); set it "
                                           f"there, not scale={scale!r}")
        how = f" (kernel parameter scale={kernel_scale!r})"
    else:
        feature_scale = scale

    X, y, _, info = _read_features(path, label_column=label_column, argument="data")
    n, d = X.shape
    if info["format"] == "svmlight":
        where = "the first field (LIBSVM/svmlight)"
        notes = [f"read as a LIBSVM/svmlight file: {n} objects, {d} features (densified)"]
    else:
        j = info["label_index"]
        where = f"column {j + 1} of {info['width']}" + (
            f" ({info['label_name']!r})" if info["label_name"] is not None else "")
        notes = [f"read as a table {'with' if info['header'] else 'without'} a header row: "
                 f"{n} objects, {d} features, labels from {where}"
                 + (" (the last column by default; label_column chooses another)"
                    if label_column is None else "")]
    _check_file_labels(y, shown, "data", hint=f" (labels from {where}"
                       + ("; label_column chooses the column)" if info["format"] == "table"
                          else ")"))
    X = scale_features(X, feature_scale)
    full = default_kernel_params(kernel, n_features=d)
    full.update(params)
    try:
        if approximation is not None:
            _check_kernel_values(kernel, full, X)
            K = B = None
        else:
            K, B = _compute_kernel("vector", kernel, full, X, None, y, what="this file",
                                   hint="use fewer objects")
    except InvalidArgument as exc:
        raise _prefixed(exc, shown) from None
    source, stem = _file_source(path)
    desc = f"feature file, {n} objects x {d} features, {_SCALE_TEXT[feature_scale]}{how}"
    return KernelData(name or stem, "vector", kernel, full, y, K, X, None, desc, base_kernels=B,
                      source=f"feature file {source}, labels from {where}", notes=tuple(notes),
                      approximation=approximation)
