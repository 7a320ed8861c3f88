"""The data-set catalogue: every name ``krein compare`` and the experiments accept.

The shipped real sets (:func:`krein.datasets.list_datasets`), the synthetic
sets (:data:`SYNTHETIC_DATASETS`) and the regenerated stand-ins for Delft
dissimilarity sets without a public copy (:data:`REGENERATED_DATASETS`), each
prepared the one way :func:`load_dataset` does.  To add a data set, add it
here (and, if shipped, to ``scripts/convert_datasets.py``).

Preparation
-----------
* Vector data sets (:func:`krein.datasets.load`) are standardized
  (zero mean, unit variance per feature, computed on all rows, i.e.
  transductively, as the papers' experiments do) unless ``feature_scale``
  says otherwise.
* ``"checkerboard"``: :func:`krein.datasets.make_checkerboard` with
  ``n_samples`` (default 300) points, ``overlap=0.1`` (Loosli et al. 2013,
  §6.2) and ``random_state``, then standardized (centered on the board's
  middle: a sigmoid kernel on the raw unit square, which only sees inner
  products with the corner (0, 0), separates it badly).
* ``"munoz-artificial"``: :func:`krein.datasets.make_munoz_artificial` with
  ``n_samples`` (default 400) points and ``random_state``: two normal clouds
  (Munoz & de Diego 2006 §4.1), NOT standardized (the paper's raw
  coordinates).
* Dissimilarity data sets: :func:`krein.datasets.load_dissimilarity`.
* Similarity data sets (kind ``"similarity"``: ``"aural-sonar"``,
  ``"protein-similarity"``, ``"voting"``, ``"yeast"``, the benchmark of Chen
  et al., JMLR 2009): :func:`krein.datasets.load_similarity`, the published
  matrix unchanged (``Dataset.S``); their one kernel is the matrix itself
  (``"precomputed"``).
* Regenerated sets ``"gaussm1-regenerated"``, ``"gaussm02-regenerated"``,
  ``"polydish57-regenerated"``: NEW draws of
  :func:`krein.datasets.make_gauss_minkowski` (``p = 1`` and ``p = 0.2``, 2000
  objects) and :func:`krein.datasets.make_polygon_hausdorff` (4000 objects);
  ``n_samples`` sets the number of objects and ``random_state`` the draw.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._validation import InvalidArgument

__all__ = ["available_datasets", "dataset_kind", "load_dataset", "Dataset",
           "SYNTHETIC_DATASETS", "REGENERATED_DATASETS", "FEATURE_SCALES"]

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

#: Synthetic data sets besides the shipped ones: name -> description.
SYNTHETIC_DATASETS = {
    "checkerboard": "[synthetic] 2-D 4 x 4 checkerboard, 10 % overlap at cell boundaries "
                    "(Loosli et al. 2013 §6.2); n_samples points (default 300), standardized, "
                    "labels -1/+1",
    "munoz-artificial": "[synthetic] 2-D normal clouds N((3,3), 0.7^2 I), N((5,5), 0.9^2 I) "
                        "(Munoz & de Diego 2006 §4.1); n_samples points (default 400, half per "
                        "class), raw coordinates, labels -1/+1; default kernel pick-out-linear",
}

#: Feature scalings accepted by ``feature_scale`` ("raw": none).
FEATURE_SCALES = ("raw", "minmax", "standard")

#: Default number of checkerboard points.
CHECKERBOARD_N = 300

#: Default number of points of the munoz artificial data (the paper's 400).
MUNOZ_N = 400


@dataclass
class Dataset:
    """A prepared data set of the catalogue (:func:`load_dataset`).

    Parameters
    ----------
    name : str
        Catalogue name.
    kind : {"vector", "synthetic", "dissimilarity", "similarity"}
        What the data are.
    y : ndarray of shape (n,)
        Labels.
    X : ndarray of shape (n, d) or None
        Features (vector and synthetic data).
    D : ndarray of shape (n, n) or None
        Dissimilarities (dissimilarity data).
    description : str
        One line on how the data were prepared.
    S : ndarray of shape (n, n) or None
        Similarities (similarity data), as published.
    """

    name: str
    kind: str
    y: np.ndarray
    X: np.ndarray | None
    D: np.ndarray | None
    description: str
    S: np.ndarray | None = None


def available_datasets():
    """Data set names accepted by ``krein compare`` and the experiments.

    Returns
    -------
    dict of str to str
        Name -> one-line description starting with its kind (``[vector]``,
        ``[dissimilarity]``, ``[similarity]`` or ``[synthetic]``): the shipped sets of
        :func:`krein.datasets.list_datasets`, the synthetic and the
        regenerated sets, sorted by name.
    """
    from ._loaders import list_datasets

    out = dict(list_datasets())
    out.update(SYNTHETIC_DATASETS)
    out.update({k: v[3] for k, v in REGENERATED_DATASETS.items()})
    return dict(sorted(out.items()))


def dataset_kind(name):
    """Kind of a catalogue data set.

    Parameters
    ----------
    name : str
        A name of :func:`available_datasets`.

    Returns
    -------
    {"vector", "synthetic", "dissimilarity", "similarity"}
        ``"synthetic"`` for :data:`SYNTHETIC_DATASETS`, ``"dissimilarity"``
        for the regenerated sets and the shipped dissimilarity sets,
        ``"similarity"`` for the shipped similarity sets (Chen et al. 2009),
        else ``"vector"`` (any other name, unknown ones included: the name is
        not checked).
    """
    from ._loaders import list_datasets

    if name in SYNTHETIC_DATASETS:
        return "synthetic"
    if name in REGENERATED_DATASETS or name in list_datasets("dissimilarity"):
        return "dissimilarity"
    if name in list_datasets("similarity"):
        return "similarity"
    return "vector"


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _stratified_subsample(y, n, random_state):
    """A subsample of ``n`` objects, stratified by class; real targets (a regression set's
    non-integral numbers) are drawn uniformly."""
    from sklearn.model_selection import train_test_split

    idx = np.arange(y.shape[0])
    real = y.dtype.kind == "f" and bool(np.any(y != np.round(y)))
    keep, _ = train_test_split(idx, train_size=n, stratify=None if real else y,
                               random_state=random_state)
    return np.sort(keep)


def load_dataset(name, *, n_samples=None, binary=None, random_state=0, feature_scale=None):
    """Load and prepare a catalogue data set (module docstring, "Preparation").

    Parameters
    ----------
    name : str
        A name of :func:`available_datasets`.
    n_samples : int >= 4, optional
        Synthetic and regenerated data: number of objects.  Shipped data: a
        stratified random subsample of this size (with ``random_state``);
        default all objects.
    binary : optional
        Passed to :func:`krein.datasets.load` / :func:`krein.datasets.load_dissimilarity`
        / :func:`krein.datasets.load_similarity` (e.g. ``(3, 5)`` for USPS,
        ``"paper"`` for the dissimilarity sets); must be None for the
        synthetic and regenerated sets.
    random_state : int >= 0
        Seed of the synthetic data, the regenerated draw and the subsample.
    feature_scale : {None, "raw", "minmax", "standard"}
        None: the set's default preparation; otherwise the scaling of vector
        features (``"raw"``: none; applied after the synthetic sets' own
        preparation).

    Returns
    -------
    Dataset
        The prepared labels and features (``X``), dissimilarities (``D``) or
        similarities (``S``),
        with a one-line ``description`` of the preparation (scaling, binary
        task, subsample).

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) naming ``dataset``, ``n_samples``, ``binary``,
        ``random_state`` or ``feature_scale`` and the accepted values; also for
        a set left with a single class.
    """
    from . import _loaders, _regenerated, _synthetic
    from ._loaders import scale_features

    names = available_datasets()
    if not isinstance(name, str) or name not in names:
        raise InvalidArgument("dataset", f"unknown data set {name!r}; accepted: "
                                         f"{', '.join(names)}")
    if n_samples is not None and (not _is_int(n_samples) or n_samples < 4):
        raise InvalidArgument("n_samples", f"must be an integer >= 4; got {n_samples!r}")
    if not _is_int(random_state) or random_state < 0:
        raise InvalidArgument("random_state", f"must be an integer >= 0; got {random_state!r}")
    if feature_scale is not None and feature_scale not in FEATURE_SCALES:
        raise InvalidArgument("feature_scale", f"must be one of {', '.join(FEATURE_SCALES)} or "
                                               f"None; got {feature_scale!r}")
    kind = dataset_kind(name)
    X = D = S = None
    if kind == "synthetic":
        if binary is not None:
            raise InvalidArgument("binary", f"{name!r} is already binary; got {binary!r}")
        if name == "munoz-artificial":
            n = int(n_samples) if n_samples is not None else MUNOZ_N
            X, y = _synthetic.make_munoz_artificial(n, random_state=random_state)
            desc = f"make_munoz_artificial({n}, random_state={random_state}), raw coordinates"
        else:
            n = int(n_samples) if n_samples is not None else CHECKERBOARD_N
            X, y = _synthetic.make_checkerboard(n, overlap=0.1, random_state=random_state)
            X = (X - X.mean(axis=0)) / X.std(axis=0)
            desc = (f"make_checkerboard({n}, overlap=0.1, random_state={random_state}), "
                    "standardized")
        if feature_scale not in (None, "raw"):
            X = scale_features(np.array(X, dtype=float), feature_scale)
            desc += f", then scale={feature_scale!r} (kernel parameter)"
        return Dataset(name, kind, np.asarray(y), X, D, desc)
    try:
        if kind == "vector" and feature_scale is not None:
            X, y = _loaders.load(name, scale=None if feature_scale == "raw" else feature_scale,
                                 binary=binary)
            desc = {"raw": "raw features (not standardized; kernel parameter scale='raw')",
                    "minmax": "each feature mapped onto [-1, 1] (kernel parameter "
                              "scale='minmax')",
                    "standard": "standardized: zero mean, unit variance per feature "
                                "(kernel parameter scale='standard')"}[feature_scale]
        elif kind == "vector":
            X, y = _loaders.load(name, scale="standard", binary=binary)
            desc = "standardized: zero mean, unit variance per feature"
        elif name in REGENERATED_DATASETS:
            if binary is not None:
                raise InvalidArgument("binary", f"{name!r} is already binary; got {binary!r}")
            gen, kw, n_default, _ = REGENERATED_DATASETS[name]
            n = int(n_samples) if n_samples is not None else n_default
            D, y = getattr(_regenerated, gen)(n, random_state=random_state, **kw)
            n_samples = None  # the draw has the requested size
            desc = (f"REGENERATED (not the original data): {gen}({n}, "
                    f"random_state={random_state}"
                    + "".join(f", {k}={v!r}" for k, v in kw.items()) + ")")
        elif kind == "similarity":
            S, y = _loaders.load_similarity(name, binary=binary)
            desc = "similarity matrix as published (Chen et al. 2009), unchanged"
        else:
            D, y = _loaders.load_dissimilarity(name, binary=binary)
            desc = "dissimilarity matrix"
    except InvalidArgument:
        raise
    except (ValueError, TypeError) as exc:
        if binary is not None:
            raise InvalidArgument("binary", str(exc)) from None
        raise
    if binary is not None:
        desc += f", binary={binary!r}"
    if n_samples is not None:
        if n_samples > y.shape[0]:
            raise InvalidArgument("n_samples", f"{n_samples} exceeds the {y.shape[0]} objects "
                                               f"of {name!r}")
        if n_samples < y.shape[0]:
            try:
                keep = _stratified_subsample(y, int(n_samples), random_state)
            except ValueError as exc:
                raise InvalidArgument("n_samples", str(exc)) from None
            y = y[keep]
            if X is not None:
                X = X[keep]
            elif S is not None:
                S = S[np.ix_(keep, keep)]
            else:
                D = D[np.ix_(keep, keep)]
            real = y.dtype.kind == "f" and bool(np.any(y != np.round(y)))
            desc += (f", {'random' if real else 'stratified'} subsample of {n_samples} "
                     f"(seed {random_state})")
    return Dataset(name, kind, np.asarray(y), X, D, desc, S)
