"""The kernel catalogue: every kernel name the data door accepts, its defaults and checks.

:func:`available_kernels` lists the names usable with a kind of data,
:func:`default_kernel` and :func:`default_kernel_params` choose a kernel and
its data-scaled parameters, :func:`default_kernel_grid` the inner-CV grid
around them.  To add a kernel, add it to :data:`krein.kernels.KERNELS`
(row-wise kernels of feature vectors) or here (kernels of dissimilarities,
label-dependent combinations).  The matrices themselves are computed by the
data door, :mod:`krein.kernel_data` (:func:`krein.kernel_data.load_kernel_data`,
:class:`krein.kernel_data.KernelData` and its per-fold rules).

Dissimilarity data sets use the kernels ``"dissimilarity-linear"`` (``K = -1/2
J D^2 J``, classical scaling, Haasdonk 2005 Prop. 1; the "linear kernel on
dissimilarities" of Loosli et al. 2013 §6.3.2 in one reading),
``"dissimilarity-raw"`` (``K = D / unit``, default ``unit = 1``: the
dissimilarities themselves used as an indefinite kernel, the other reading of
that phrase; with ``unit = 1`` its least eigenvalues equal those printed in
Loosli et al.'s Table 3 for the shipped sets, see
:func:`krein.datasets.load_dissimilarity`) or ``"dissimilarity-gaussian"``
(``K = exp(-gamma D^2)``).

Similarity data sets (kind ``"similarity"``: the benchmark of Chen et al.,
JMLR 2009, :func:`krein.datasets.load_similarity`) have one kernel,
``"precomputed"``: the published similarity matrix itself, as for a user's
kernel file.

Pick-out kernels (label-dependent)
----------------------------------
``"pick-out-linear"`` and ``"pick-out-gaussian"`` (vector and synthetic data)
are the pick-out combination (Munoz & de Diego 2006 §4.1,
:func:`krein.combinations.pick_out`) of one kernel per coordinate axis
(:func:`krein.combinations.projection_kernels`: ``x_j z_j``, or
``exp(-gamma (x_j - z_j)^2)``): the maximum of the coordinate kernels for two
objects of the same class, the minimum across classes.  The kernel depends on
the labels, so like dissimilarity-linear it is built per fold
(:attr:`krein.kernel_data.KernelData.per_fold_kernel`): the training block from the TRAINING
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
preparation (:func:`krein.kernel_data.load_kernel_data`).
"""

from __future__ import annotations

import inspect
import numbers

import numpy as np

from ._validation import InvalidArgument
from .combinations import MUNOZ_IONOSPHERE_WIDTHS, munoz_ionosphere_kernels, projection_kernels
from .datasets import FEATURE_SCALES
from .kernels import KERNELS

__all__ = [
    "available_kernels",
    "default_kernel",
    "default_kernel_params",
    "default_kernel_grid",
    "DISSIMILARITY_KERNELS",
    "PICK_OUT_KERNELS",
    "PICK_OUT_TEST_RULE",
    "KERNEL_GRID_FACTORS",
    "SIGMOID_A_TIMES_D",
    "SIGMOID_R",
    "kernel_param_names",
    "check_kernel",
    "check_kernel_params",
    "base_kernel_stack",
    "n_base_kernels",
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
    kind : {"vector", "synthetic", "dissimilarity", "similarity", "kernel"}
        The data's kind (``"similarity"``: a shipped similarity data set;
        ``"kernel"``: a precomputed kernel matrix).

    Returns
    -------
    list of str or tuple of str
        :data:`krein.kernels.KERNELS` and the pick-out kernels
        :data:`PICK_OUT_KERNELS` for feature vectors,
        :data:`DISSIMILARITY_KERNELS` for dissimilarity matrices,
        ``["precomputed"]`` for a kernel matrix, and the tuple
        ``("precomputed",)`` for a similarity data set (its one kernel is the
        published matrix itself).
    """
    if kind == "similarity":
        return ("precomputed",)
    if kind == "kernel":
        return ["precomputed"]
    if kind == "dissimilarity":
        return list(DISSIMILARITY_KERNELS)
    return sorted(KERNELS) + list(PICK_OUT_KERNELS)


def default_kernel(kind="vector", dataset=None):
    """Default kernel of a kind of data set.

    Parameters
    ----------
    kind : {"vector", "synthetic", "dissimilarity", "similarity", "kernel"}
        The data's kind (``"kernel"``: a precomputed kernel matrix).
    dataset : str, optional
        Data set name: ``"munoz-artificial"`` has its own default.

    Returns
    -------
    str
        ``"pick-out-linear"`` for ``"munoz-artificial"`` (the pick-out
        combination of the two coordinate kernels, Munoz & de Diego 2006
        §4.1), ``"dissimilarity-linear"`` for dissimilarity data,
        ``"precomputed"`` for a kernel matrix or a similarity data set, else
        ``"sigmoid"``.
    """
    if kind in ("kernel", "similarity"):
        return "precomputed"
    if dataset == "munoz-artificial":
        return "pick-out-linear"
    return "dissimilarity-linear" if kind == "dissimilarity" else "sigmoid"


def kernel_param_names(kernel):
    """Names of the parameters a kernel accepts in ``kernel_params``.

    Parameters
    ----------
    kernel : str
        A name of :func:`available_kernels` (any kind).

    Returns
    -------
    list of str
        ``[]`` (precomputed, dissimilarity-linear, pick-out-linear), ``["unit"]``
        (dissimilarity-raw), ``["scale"]`` (pick-out-munoz-ionosphere),
        ``["gamma"]`` (dissimilarity-gaussian, pick-out-gaussian), else the
        keyword parameters of the kernel function of
        :data:`krein.kernels.KERNELS`.
    """
    if kernel in ("precomputed", "dissimilarity-linear", "pick-out-linear"):
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


def base_kernel_stack(kernel, X, Z, params):
    """The label-free base kernels of a pick-out kernel, stacked on the last axis.

    Parameters
    ----------
    kernel : str
        A name of :data:`PICK_OUT_KERNELS`.
    X : ndarray of shape (n_x, d)
        Feature vectors.
    Z : ndarray of shape (n_z, d) or None
        Feature vectors of the other side (None: ``X``).
    params : dict
        The kernel's full parameters (pick-out-gaussian: ``gamma``).

    Returns
    -------
    ndarray of shape (n_x, n_z, M)
        The ``M = d`` per-coordinate kernels
        (:func:`krein.combinations.projection_kernels`), or the ``M = 12``
        kernels of munoz §4.2 (:func:`krein.combinations.munoz_ionosphere_kernels`).
    """
    base = PICK_OUT_KERNELS[kernel]
    if base == "munoz-ionosphere":
        return munoz_ionosphere_kernels(X, Z)
    p = {"gamma": params["gamma"], "metric": "l2"} if base == "gaussian" else {}
    return projection_kernels(X, Z, kernel=base, kernel_params=p)


def n_base_kernels(kernel, n_features):
    """Number ``M`` of base kernels of a pick-out kernel (:func:`base_kernel_stack`).

    Parameters
    ----------
    kernel : str
        A name of :data:`PICK_OUT_KERNELS`.
    n_features : int
        Number of features of the data.

    Returns
    -------
    int
        ``n_features`` (one kernel per coordinate), or 12 for
        pick-out-munoz-ionosphere.
    """
    if PICK_OUT_KERNELS[kernel] == "munoz-ionosphere":
        return len(MUNOZ_IONOSPHERE_WIDTHS) + 2
    return n_features


def check_kernel(kernel, kind):
    """Check a kernel name for a kind of data.

    Parameters
    ----------
    kernel : str
        The kernel name.
    kind : {"vector", "synthetic", "dissimilarity", "similarity", "kernel"}
        The data's kind.

    Returns
    -------
    str
        ``kernel``, one of :func:`available_kernels` ``(kind)``.

    Raises
    ------
    InvalidArgument
        Naming ``kernel`` and the accepted names.
    """
    accepted = available_kernels(kind)
    if not isinstance(kernel, str) or kernel not in accepted:
        what = (f"{kind} data set" if kind in ("dissimilarity", "similarity")
                else "vector data set")
        raise InvalidArgument("kernel", f"unknown kernel {kernel!r} for a {what}; accepted: "
                                        f"{', '.join(accepted)}")
    return kernel


def check_kernel_params(kernel, kernel_params):
    """Check a kernel's parameters: known names (:func:`kernel_param_names`), valid values.

    Parameters
    ----------
    kernel : str
        A checked kernel name (:func:`check_kernel`).
    kernel_params : dict or None
        Its parameters: finite numbers, ``metric`` as given, ``scale`` one of
        :data:`krein.datasets.FEATURE_SCALES`.

    Returns
    -------
    dict
        A copy of ``kernel_params`` (``{}`` for None).

    Raises
    ------
    InvalidArgument
        Naming ``kernel_params``: not a dict, an unknown parameter (listing the
        accepted ones) or a bad value.
    """
    if kernel_params is None:
        return {}
    if not isinstance(kernel_params, dict):
        raise InvalidArgument("kernel_params", f"must be a dict or None; got {kernel_params!r}")
    names = kernel_param_names(kernel)
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
