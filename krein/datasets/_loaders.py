"""Loaders for the real data sets shipped in ``krein/datasets/data``.

The ``.npz`` files and ``SOURCES.json`` are produced by
``scripts/convert_datasets.py`` from the raw public files described in
``shared/data/MANIFEST.md``; loading needs NumPy only.
"""

from __future__ import annotations

import copy
import functools
import json
import numbers
from importlib.resources import files

import numpy as np

__all__ = ["list_datasets", "load", "load_dissimilarity", "load_similarity", "USPS_PAPER_PAIRS",
           "PAPER_SPLITS"]

#: Digit pairs used for binary USPS tasks by Luss & d'Aspremont (NIPS 2007,
#: Math. Prog. Comp. 2009): "USPS-3-5" and "USPS-4-6". Use e.g.
#: ``load("usps", binary=(3, 5))``.
USPS_PAPER_PAIRS = ((3, 5), (4, 6))

# ---------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------
# Vector data sets. ``pos``/``neg``: the raw label mapped to +1 / -1 by default
# (None for the multiclass USPS). ``splits``: predefined train/test split.  A regression
# set reads another set's ``file`` and takes its feature column ``target`` as the real
# target (the other columns are the features).
_VECTOR = {
    "sonar": dict(
        description="UCI Sonar (mines vs. rocks), 208 x 60, binary: M (mine) = +1, R (rock) = -1",
        pos="M", neg="R", splits=False,
    ),
    "heart": dict(
        description="UCI Statlog Heart, 270 x 13, binary: 2 (present) = +1, 1 (absent) = -1",
        pos=2, neg=1, splits=False,
    ),
    "breast_cancer": dict(
        description=(
            "UCI Breast Cancer Wisconsin (original), 683 x 9 (699 with missing='median'), "
            "binary: 4 (malignant) = +1, 2 (benign) = -1"
        ),
        pos=4, neg=2, splits=False,
    ),
    "wdbc": dict(
        description="UCI Breast Cancer Wisconsin (diagnostic), 569 x 30, binary: M = +1, B = -1",
        pos="M", neg="B", splits=False,
    ),
    "diabetes": dict(
        description="Pima Indians Diabetes, 768 x 8 (zeros = missing, kept), binary: 1 = +1, 0 = -1",
        pos=1, neg=0, splits=False,
    ),
    "ionosphere": dict(
        description="UCI Ionosphere, 351 x 34, binary: g (good) = +1, b (bad) = -1",
        pos="g", neg="b", splits=False,
    ),
    "german": dict(
        description="UCI Statlog German Credit (numeric), 1000 x 24, binary: 2 (bad) = +1, 1 (good) = -1",
        pos=2, neg=1, splits=False,
    ),
    "liver": dict(
        description=(
            "UCI Liver Disorders (BUPA), 345 x 6, binary: selector 2 = +1, 1 = -1 "
            "(selector is really a split indicator, see notes)"
        ),
        pos=2, neg=1, splits=False,
    ),
    "liver-drinks": dict(
        description=(
            "UCI Liver Disorders (BUPA), 345 x 5 blood tests, regression: drinks per day "
            "(half-pint equivalents; McDermott & Forsyth 2016)"
        ),
        pos=None, neg=None, splits=False, file="liver", target=5,
    ),
    "a1a": dict(
        description=(
            "LIBSVM a1a (UCI Adult), train 1605 x 123 / test 30956 x 123 binary features, "
            "binary: +1 (>50K) / -1"
        ),
        pos=1, neg=-1, splits=True,
    ),
    "usps": dict(
        description=(
            "USPS digits, train 7291 x 256 / test 2007 x 256 pixels in [0, 1], "
            "multiclass 0-9 (binary=(a, b) for a-vs-b)"
        ),
        pos=None, neg=None, splits=True,
    ),
}

#: Binary splits used by ``load_dissimilarity(name, binary="paper")``:
#: ``(positive classes, negative classes)`` in the raw labels of each set.
#: These are *choices* (see :func:`load_dissimilarity`): Loosli et al. only name
#: "CatCortex,2vs1", "Protein,2vs2", "CoilYork,2vs2", "NewsGroups,2vs2".
PAPER_SPLITS = {
    "balls3d": ((1,), (2,)),
    "catcortex": ((1, 2), (3,)),
    "newsgroups": ((1, 2), (3, 4)),
    "protein": ((1, 2), (3, 4)),
    "coilyork": ((1,), (-1,)),
}

_DISSIM = {
    "catcortex": dict(
        description="Cat cortex connection dissimilarities (Delft PRDisData), 65 x 65, 4 classes (1-4)",
        options={},
    ),
    "balls3d": dict(
        description="Balls3D dissimilarities (Delft PRDisData), 200 x 200, 2 classes (1, 2)",
        options={},
    ),
    "newsgroups": dict(
        description=(
            "Newsgroups correlation dissimilarities (Delft PRDisData), 600 x 600, 4 classes (1-4); "
            "option restore_zeros"
        ),
        options={"restore_zeros": True},
    ),
    "protein": dict(
        description=(
            "Protein evolutionary distances (evclust), 213 x 213, 4 classes "
            "1 = HA, 2 = HB, 3 = M, 4 = G"
        ),
        options={},
    ),
    "coilyork": dict(
        description=(
            "CoilYork graph-matching dissimilarities, binary train/test version (IKSVM-DC): "
            "train 144 x 144, test 144 x 144 vs train, labels -1/+1; options split, symmetrize"
        ),
        options={"split": "train", "symmetrize": True},
    ),
}

#: The similarity benchmark of Chen, Garcia, Gupta, Rahimi & Cazzanti (JMLR 2009).
_SIMILARITY = {
    "aural-sonar": dict(
        description="Aural Sonar similarities (Chen et al. 2009), 100 x 100, 2 classes (1, 2)",
    ),
    "protein-similarity": dict(
        description=(
            "Protein similarities (Chen et al. 2009; the 213 proteins of 'protein'), 213 x 213, "
            "4 classes (1-4)"
        ),
    ),
    "voting": dict(
        description="Congressional Voting similarities (Chen et al. 2009), 435 x 435, 2 classes (1, 2)",
    ),
    "yeast": dict(
        description="Yeast protein similarities (Chen et al. 2009), 200 x 200, 2 classes (1, 2)",
    ),
}

#: Kind of every shipped set.
_KINDS = {**{n: "vector" for n in _VECTOR}, **{n: "dissimilarity" for n in _DISSIM},
          **{n: "similarity" for n in _SIMILARITY}}
_SPECS = {**_VECTOR, **_DISSIM, **_SIMILARITY}

_ALL = sorted(_KINDS)


# ---------------------------------------------------------------------------
# file access
# ---------------------------------------------------------------------------
def _data_dir():
    return files("krein.datasets") / "data"


@functools.lru_cache(maxsize=1)
def _sources():
    res = _data_dir() / "SOURCES.json"
    try:
        text = res.read_text(encoding="utf-8")
    except FileNotFoundError:  # pragma: no cover - broken install
        raise FileNotFoundError(
            f"krein dataset index {res} is missing; the package data was not installed "
            "(regenerate it with scripts/convert_datasets.py)"
        ) from None
    return json.loads(text)["datasets"]


@functools.lru_cache(maxsize=8)
def _arrays(name):
    """Read ``<name>.npz`` once; the cached arrays are read-only, callers copy."""
    res = _data_dir() / f"{name}.npz"
    try:
        fh = res.open("rb")
    except FileNotFoundError:  # pragma: no cover - broken install
        raise FileNotFoundError(
            f"krein data file {res} is missing; the package data was not installed "
            "(regenerate it with scripts/convert_datasets.py)"
        ) from None
    with fh, np.load(fh, allow_pickle=False) as z:
        out = {k: z[k] for k in z.files}
    for a in out.values():
        a.flags.writeable = False
    return out


_LOADER = {"vector": "load", "dissimilarity": "load_dissimilarity",
           "similarity": "load_similarity"}


def _unknown(name, kind):
    """The error for a name that is not a shipped set of ``kind``: its loader, or the names."""
    other = _KINDS.get(name) if isinstance(name, str) else None
    if other is not None and other != kind:
        return ValueError(f"{name!r} is a {other} data set; use {_LOADER[other]}({name!r})")
    return ValueError(f"unknown dataset {name!r}; available datasets: {', '.join(_ALL)}")


def _info(name, kind):
    src = _sources()[name]
    desc = _SPECS[name]["description"]
    return {
        "name": name,
        "kind": kind,
        "description": desc,
        "citation": src["citation"],
        "licence": src["licence"],
        "sources": copy.deepcopy(src["sources"]),
        "notes": list(src["notes"]),
        "file": src["file"],
        "file_sha256": src["sha256"],
    }


# ---------------------------------------------------------------------------
# labels
# ---------------------------------------------------------------------------
def _is_label(v):
    return isinstance(v, (str, np.str_)) or (
        isinstance(v, numbers.Integral) and not isinstance(v, bool)
    )


def _resolve_side(side, available, aliases, what):
    """One side of ``binary`` -> tuple of raw labels (validated)."""
    items = (side,) if _is_label(side) else side
    try:
        items = tuple(items)
    except TypeError:
        raise ValueError(
            f"binary: the {what} classes must be a label or a tuple of labels; got {side!r}"
        ) from None
    if not items:
        raise ValueError(f"binary: the {what} classes are empty")
    out = []
    for v in items:
        if not _is_label(v):
            raise ValueError(f"binary: class labels must be ints or strings; got {v!r} ({what})")
        if isinstance(v, (str, np.str_)) and str(v) in aliases:
            v = aliases[str(v)]
        elif isinstance(v, numbers.Integral):
            v = int(v)
        else:
            v = str(v)
        if v not in available:
            valid = sorted(available, key=str) + sorted(aliases)
            raise ValueError(f"binary: unknown class label {v!r} ({what}); valid labels: {valid}")
        out.append(v)
    return tuple(dict.fromkeys(out))


def _parse_binary(binary, available, aliases):
    if not (isinstance(binary, (tuple, list)) and len(binary) == 2):
        raise ValueError(
            "binary must be None, 'paper' (dissimilarity sets) or a pair "
            f"(positive_classes, negative_classes); got {binary!r}"
        )
    pos = _resolve_side(binary[0], available, aliases, "positive")
    neg = _resolve_side(binary[1], available, aliases, "negative")
    both = set(pos) & set(neg)
    if both:
        raise ValueError(f"binary: classes {sorted(both, key=str)} are on both sides")
    return pos, neg


def _binary_labels(raw, pos, neg):
    """Row mask keeping classes in ``pos`` or ``neg`` and the +1/-1 labels of kept rows."""
    is_pos = np.isin(raw, np.array(pos, dtype=raw.dtype))
    is_neg = np.isin(raw, np.array(neg, dtype=raw.dtype))
    keep = is_pos | is_neg
    return keep, np.where(is_pos[keep], 1, -1).astype(np.int64)


# ---------------------------------------------------------------------------
# scaling
# ---------------------------------------------------------------------------
def scale_features(X, scale):
    """Scale every feature over all rows (transductively, as the papers' experiments do).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Feature vectors (NaN allowed: ignored in the statistics, kept).
    scale : {None, "standard", "minmax"}
        None returns ``X`` unchanged; ``"standard"``: zero mean, unit variance
        per feature; ``"minmax"``: each feature onto [-1, 1] (LIBSVM's
        ``svm-scale``).  Constant features become 0.

    Returns
    -------
    ndarray of shape (n, d)
        A new array (``X`` itself for ``scale=None``).

    Raises
    ------
    ValueError
        For another ``scale``.
    """
    if scale is None:
        return X
    if scale not in ("standard", "minmax"):
        raise ValueError(f"scale must be None, 'standard' or 'minmax'; got {scale!r}")
    if X.shape[0] == 0:
        return X
    lo, hi = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
    const = hi == lo
    if scale == "standard":
        mu = np.nanmean(X, axis=0)
        sd = np.nanstd(X, axis=0)
        sd[const | (sd == 0)] = 1.0
        X = (X - mu) / sd
    else:
        span = np.where(const, 1.0, hi - lo)
        X = 2.0 * (X - lo) / span - 1.0
    X[:, const] = np.where(np.isnan(X[:, const]), np.nan, 0.0)
    return X


# ---------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------
def list_datasets(kind=None):
    """List the real data sets shipped with krein.

    Parameters
    ----------
    kind : {None, "vector", "dissimilarity", "similarity"}, default=None
        Restrict the listing to one kind. ``"vector"`` sets are loaded with
        :func:`load` (feature matrix ``X``), ``"dissimilarity"`` sets with
        :func:`load_dissimilarity` (square dissimilarity matrix ``D``),
        ``"similarity"`` sets with :func:`load_similarity` (square similarity
        matrix ``S``: the benchmark of Chen et al. 2009).

    Returns
    -------
    datasets : dict of str to str
        Data set name -> one-line description that starts with its kind in
        brackets, e.g. ``"[vector] UCI Sonar ..."``. Sorted by name.

    Raises
    ------
    ValueError
        If ``kind`` is not one of the values above.

    Notes
    -----
    Sources, checksums, citations and licences of every set are in
    ``krein/datasets/data/SOURCES.json`` (also returned by ``return_info=True``).
    Synthetic data: :func:`krein.datasets.make_checkerboard`.
    """
    if kind not in (None, "vector", "dissimilarity", "similarity"):
        raise ValueError(f"kind must be None, 'vector', 'dissimilarity' or 'similarity'; "
                         f"got {kind!r}")
    return {name: f"[{_KINDS[name]}] {_SPECS[name]['description']}"
            for name in _ALL if kind in (None, _KINDS[name])}


def load(name, *, scale=None, binary=None, split=None, missing="drop", return_info=False):
    """Load a shipped vector (feature-matrix) data set.

    Parameters
    ----------
    name : str
        One of ``"sonar"``, ``"heart"``, ``"breast_cancer"``, ``"wdbc"``,
        ``"diabetes"``, ``"ionosphere"``, ``"german"``, ``"liver"``, ``"a1a"``,
        ``"usps"`` (see :func:`list_datasets`).
    scale : {None, "standard", "minmax"}, default=None
        ``None`` returns the raw values. ``"standard"``: zero mean and unit
        (population) variance per column. ``"minmax"``: each column mapped
        linearly onto [-1, 1], like LIBSVM's ``svm-scale``. Constant columns
        become 0 under both. The statistics are computed on the returned rows
        only (after ``split``/``binary``/``missing`` selection), i.e. the
        scaling is *transductive*; for cross-validation or a train/test
        evaluation, load with ``scale=None`` and scale inside a pipeline
        (e.g. ``sklearn.preprocessing.StandardScaler``) fitted on the training
        folds only.
    binary : None or (pos, neg), default=None
        ``None``: the default labels (below). ``(pos, neg)``: each side a raw
        class label or a tuple of raw labels (strings for sonar/wdbc/ionosphere,
        ints otherwise); rows of ``pos`` get +1, rows of ``neg`` get -1 and rows
        of other classes are dropped. For USPS, ``binary=(3, 5)`` returns digits
        3 (+1) and 5 (-1) only; Luss & d'Aspremont (2007, 2009) use the pairs
        3-5 and 4-6 (``USPS_PAPER_PAIRS``). For the binary sets
        ``binary=(neg, pos)`` swaps the default sign convention.
    split : {None, "train", "test"}, default=None
        Predefined split, for ``"a1a"`` and ``"usps"`` only (``None`` means
        ``"train"``). Must be ``None`` for the other sets.
    missing : {"drop", "median", "keep"}, default="drop"
        Missing-value policy; only ``"breast_cancer"`` has missing values (16
        ``'?'`` in Bare Nuclei, column index 5). ``"drop"`` removes those 16
        rows (683 remain, the common practice); ``"median"`` imputes the median
        of the column's 683 observed values (all 699 rows kept); ``"keep"``
        returns them as NaN. No effect on the other sets. Pima diabetes encodes
        missing values as 0 in the file; those zeros are returned unchanged
        under every policy.
    return_info : bool, default=False
        Also return a metadata dict.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
        Features. a1a: dense 0/1 matrix with 123 columns. USPS: 256 pixels
        in [0, 1] (the stored float32 values, converted exactly to float64).
    y : ndarray of shape (n_samples,), int64
        Labels in {-1, +1} for binary tasks; digits 0-9 for ``"usps"`` with
        ``binary=None``. Default mappings (+1 / -1):

        - sonar: M (mine) / R (rock) -- 111 / 97
        - heart: 2 (present) / 1 (absent) -- 120 / 150
        - breast_cancer: 4 (malignant) / 2 (benign) -- 239 / 444 (241 / 458 with 699 rows)
        - wdbc: M (malignant) / B (benign) -- 212 / 357
        - diabetes: 1 (tested positive) / 0 -- 268 / 500
        - ionosphere: g (good) / b (bad) -- 225 / 126
        - german: 2 (bad credit) / 1 (good) -- 300 / 700
        - liver: selector 2 / selector 1 -- 200 / 145 (selector is a split
          indicator per UCI, McDermott & Forsyth 2016; used as label as in
          most SVM papers)
        - a1a: +1 (income > 50K) / -1, as in the file -- train 395 / 1210
        - liver-drinks (regression): ``y`` the real ``drinks`` column of the liver
          file (half-pint equivalents per day, 0-20; the target UCI documents,
          McDermott & Forsyth 2016), ``X`` the five blood tests, float64
    info : dict
        Only if ``return_info``: ``name``, ``kind``, ``description``,
        ``citation``, ``licence``, ``sources`` (source files with sha256 and
        upstream origin), ``notes``, ``label_mapping`` (raw label -> returned
        label), ``split``, ``scale``, ``missing``, ``n_samples``,
        ``n_features``, ``file`` and ``file_sha256``.

    Raises
    ------
    ValueError
        Unknown ``name`` (the message lists the available names), a
        dissimilarity set (use :func:`load_dissimilarity`), or an invalid
        ``scale``, ``binary``, ``split`` or ``missing``.

    Notes
    -----
    Sources (full citations in ``info["citation"]`` and ``SOURCES.json``):
    UCI Machine Learning Repository (sonar: Gorman & Sejnowski 1988; heart:
    Statlog; breast_cancer: Wolberg 1992, Mangasarian & Wolberg 1990; wdbc:
    Wolberg et al. 1993; ionosphere: Sigillito et al. 1989; german: Hofmann
    1994; liver: BUPA), Pima diabetes (Smith et al. 1988), LIBSVM a1a (Chang &
    Lin; Platt 1998; UCI Adult) and USPS (Hull 1994; ESL version).

    Examples
    --------
    >>> X, y = load("sonar")
    >>> X.shape, int((y == 1).sum())
    ((208, 60), 111)
    >>> X, y = load("usps", binary=(3, 5), split="test")
    """
    if not isinstance(name, str) or name not in _VECTOR:
        raise _unknown(name, "vector")
    if scale not in (None, "standard", "minmax"):
        raise ValueError(f"scale must be None, 'standard' or 'minmax'; got {scale!r}")
    spec = _VECTOR[name]
    if spec["splits"]:
        if split is None:
            split = "train"
        if split not in ("train", "test"):
            raise ValueError(f"split must be None, 'train' or 'test' for {name!r}; got {split!r}")
    elif split is not None:
        raise ValueError(f"{name!r} has no predefined train/test split; split must be None, got {split!r}")
    if missing not in ("drop", "median", "keep"):
        raise ValueError(f"missing must be 'drop', 'median' or 'keep'; got {missing!r}")

    z = _arrays(spec.get("file", name))
    if spec.get("target") is not None:
        return _regression_set(name, z, spec, scale, binary, return_info)
    if name == "a1a":
        data, ind, ptr = z[f"{split}_data"], z[f"{split}_indices"], z[f"{split}_indptr"]
        n, nf = len(ptr) - 1, int(z["n_features"])
        X = np.zeros((n, nf), dtype=np.float64)
        X[np.repeat(np.arange(n), np.diff(ptr)), ind.astype(np.intp)] = data
        raw = z[f"{split}_y"].astype(np.int64)
    elif name == "usps":
        X = z[f"X_{split}"].astype(np.float64)
        raw = z[f"y_{split}"].astype(np.int64)
    else:
        X = np.array(z["X"], dtype=np.float64)
        raw = z["y"].astype(np.int64)
        if "target_names" in z:
            raw = z["target_names"][raw]

    nan = np.isnan(X)
    if nan.any():
        if missing == "drop":
            keep = ~nan.any(axis=1)
            X, raw = X[keep], raw[keep]
        elif missing == "median":
            med = np.nanmedian(X, axis=0)
            X[nan] = np.take(med, np.nonzero(nan)[1])

    available = set(np.unique(raw).tolist())
    if binary is None:
        if spec["pos"] is None:  # multiclass USPS
            y = raw.astype(np.int64)
            mapping = {int(v): int(v) for v in sorted(available)}
        else:
            pos, neg = (spec["pos"],), (spec["neg"],)
            keep, y = _binary_labels(raw, pos, neg)
            X = X[keep]
            mapping = {spec["pos"]: 1, spec["neg"]: -1}
    else:
        if isinstance(binary, str):
            raise ValueError(
                f"binary={binary!r} is only defined for dissimilarity sets; give a pair "
                "(positive_classes, negative_classes)"
                + (f", e.g. one of {USPS_PAPER_PAIRS}" if name == "usps" else "")
            )
        pos, neg = _parse_binary(binary, available, {})
        keep, y = _binary_labels(raw, pos, neg)
        X = X[keep]
        mapping = {**{v: 1 for v in pos}, **{v: -1 for v in neg}}

    X = scale_features(np.ascontiguousarray(X), scale)
    if not return_info:
        return X, y
    info = _info(name, "vector")
    info.update(
        label_mapping=mapping,
        split=split,
        scale=scale,
        missing=missing,
        n_samples=int(X.shape[0]),
        n_features=int(X.shape[1]),
    )
    return X, y, info


def _regression_set(name, z, spec, scale, binary, return_info):
    """The features and real targets of a regression set (``target`` column of its file)."""
    if binary is not None:
        raise ValueError(f"{name!r} is a regression set (real targets); binary must be None, "
                         f"got {binary!r}")
    X = np.array(z["X"], dtype=np.float64)
    y = X[:, spec["target"]].copy()
    X = scale_features(np.ascontiguousarray(np.delete(X, spec["target"], axis=1)), scale)
    if not return_info:
        return X, y
    info = _info(name, "vector")
    info.update(label_mapping=None, split=None, scale=scale, missing="drop",
                n_samples=int(X.shape[0]), n_features=int(X.shape[1]))
    return X, y, info


def load_dissimilarity(name, *, binary=None, return_info=False, **opts):
    """Load a shipped dissimilarity data set as a square matrix ``D``.

    Parameters
    ----------
    name : str
        One of ``"catcortex"``, ``"balls3d"``, ``"newsgroups"``, ``"protein"``,
        ``"coilyork"`` (see :func:`list_datasets`).
    binary : None, "paper" or (pos, neg), default=None
        ``None``: labels as given (ints, multiclass kept: catcortex 1-4,
        balls3d 1-2, newsgroups 1-4, protein 1-4 = HA, HB, M, G, coilyork
        -1/+1). ``(pos, neg)``: each side a class label or a tuple of labels
        (protein also accepts the names ``"HA"``, ``"HB"``, ``"M"``,
        ``"G"``); ``pos`` classes get +1, ``neg`` classes -1, objects of other
        classes are dropped (rows and columns of ``D``). ``"paper"``: the
        binary split of ``PAPER_SPLITS``, our reading of Loosli, Ong & Canu
        (2013), Table 3, which only names the splits "CatCortex,2vs1",
        "Protein,2vs2", "CoilYork,2vs2", "NewsGroups,2vs2" without saying
        which classes; these are CHOICES:

        - catcortex ``((1, 2), (3,))``: classes 1+2 vs 3, class 4 dropped
          (47 objects; 29 / 18)
        - protein ``((1, 2), (3, 4))``: hemoglobins HA+HB vs M+G (144 / 69)
        - newsgroups ``((1, 2), (3, 4))`` (295 / 305)
        - balls3d ``((1,), (2,))`` (100 / 100)
        - coilyork ``((1,), (-1,))``: the file's own labels (already binary;
          how its 4 original classes were merged is undocumented)
    return_info : bool, default=False
        Also return a metadata dict.
    **opts
        Data-set specific options:

        - newsgroups ``restore_zeros`` (bool, default True): the upstream
          conversion clipped dissimilarities below 1e-4 up to 1e-4; 95 pairs
          (190 entries) equal 1e-4 and were exact zeros in the Delft
          original. ``True`` sets them back to 0, ``False`` returns the file's
          values.
        - coilyork ``symmetrize`` (bool, default True): the stored train block
          is not symmetric (max ``|D - D'|`` = 72); ``True`` returns
          ``(D + D') / 2``, ``False`` the raw block. Applies to the
          train-vs-train block only.
        - coilyork ``split`` ("train", "test" or "both", default "train"):
          ``"train"`` returns the square 144 x 144 train block and the train
          labels. ``"test"`` returns the 144 x 144 block of test objects (rows)
          against training objects (columns) and the test labels; it is not
          a square dissimilarity matrix between the same objects.  It is the
          TRANSPOSE of the file's ``test_K``, which has the training objects
          as rows: the row means of ``test_K`` correlate 0.998 with the
          training objects' mean dissimilarities in the train block, its
          column means -0.07, and the IKSVM-DC code that ships the file
          predicts with ``beta' * test_K``.
          ``"both"`` returns the (288, 144) matrix of all 288 objects (rows
          0-143 train, 144-287 test) against the 144 training objects, with
          the 288 labels. The test-vs-test block is not in the source file, so
          a full 288 x 288 matrix cannot be built.

    Returns
    -------
    D : ndarray of shape (n, n), float64
        Dissimilarities, zero diagonal; exactly symmetric except for raw
        coilyork (``symmetrize=False``). Shape (n_test, n_train) for coilyork
        ``split="test"`` and (n_train + n_test, n_train) for ``split="both"``.
    y : ndarray of shape (n,), int64
        Class labels as given, or +1/-1 when ``binary`` is set.
    info : dict
        Only if ``return_info``: ``name``, ``kind``, ``description``,
        ``citation``, ``licence``, ``sources``, ``notes``, ``label_mapping``,
        ``binary`` (the resolved ``(pos, neg)`` or None), ``options``,
        ``target_names`` (protein: {1: "HA", 2: "HB", 3: "M", 4: "G"}),
        ``n_samples``, ``file``, ``file_sha256``; coilyork also
        ``n_train_rows``.

    Raises
    ------
    ValueError
        Unknown ``name`` (the message lists the available names), a vector
        set (use :func:`load`), or an invalid ``binary`` or option value.
    TypeError
        An option that the data set does not have.

    Notes
    -----
    Loosli et al. (2013) use such matrices directly as (indefinite)
    "linear" kernels; the least eigenvalues of the full catcortex, balls3d,
    newsgroups and protein matrices returned here (-24.62, -2889.4, -16.39,
    -322.34) equal those printed in their Table 3.

    Sources: Delft PRDisData (Duin & Pekalska) via ``dalab/matrix-manifolds``
    (catcortex: Scannell et al. 1995, Graepel et al. 1999; balls3d;
    newsgroups: Lang 1995), protein from the R package evclust (Hofmann &
    Buhmann 1997; Denoeux & Masson 2004), coilyork from IKSVM-DC (Xu et al.
    2017). Full citations in ``info["citation"]`` and ``SOURCES.json``.

    Examples
    --------
    >>> D, y = load_dissimilarity("protein", binary="paper")
    >>> D.shape
    (213, 213)
    """
    if not isinstance(name, str) or name not in _DISSIM:
        raise _unknown(name, "dissimilarity")
    spec = _DISSIM[name]
    bad = sorted(set(opts) - set(spec["options"]))
    if bad:
        valid = ", ".join(spec["options"]) or "none"
        raise TypeError(f"load_dissimilarity({name!r}) got unexpected option(s) {bad}; valid options: {valid}")
    o = {**spec["options"], **opts}
    for key in ("restore_zeros", "symmetrize"):
        if key in o and not isinstance(o[key], (bool, np.bool_)):
            raise ValueError(f"{key} must be True or False; got {o[key]!r}")

    z = _arrays(name)
    extra = {}
    if name == "coilyork":
        if o["split"] not in ("train", "test", "both"):
            raise ValueError(f"split must be 'train', 'test' or 'both'; got {o['split']!r}")
        Dtr = z["train_K"].astype(np.float64)
        if o["symmetrize"]:
            Dtr = 0.5 * (Dtr + Dtr.T)
        # the file's test_K has the TRAINING objects as rows (docstring): transpose it
        Dte = z["test_K"].astype(np.float64).T
        ytr, yte = z["train_y"].astype(np.int64), z["test_y"].astype(np.int64)
        col_raw = ytr
        if o["split"] == "train":
            D, raw = Dtr, ytr
        elif o["split"] == "test":
            D, raw = Dte, yte
        else:
            D, raw = np.vstack([Dtr, Dte]), np.concatenate([ytr, yte])
            extra["n_train_rows"] = int(len(ytr))
    else:
        D = z["D"].astype(np.float64)
        raw = z["y"].astype(np.int64)
        col_raw = None
        if name == "newsgroups" and o["restore_zeros"]:
            D[D == 1e-4] = 0.0

    aliases = {}
    if "target_names" in z:
        aliases = {str(s): i + 1 for i, s in enumerate(z["target_names"])}
        extra["target_names"] = {i + 1: str(s) for i, s in enumerate(z["target_names"])}

    available = set(np.unique(raw).tolist())
    resolved = None
    if binary is None:
        y = raw
        mapping = {v: v for v in sorted(available)}
    else:
        if isinstance(binary, str):
            if binary != "paper":
                raise ValueError(f"binary must be None, 'paper' or a pair (pos, neg); got {binary!r}")
            binary = PAPER_SPLITS[name]
        resolved = _parse_binary(binary, available, aliases)
        keep, y = _binary_labels(raw, *resolved)
        if col_raw is None:
            D = D[np.ix_(keep, keep)]
        else:  # coilyork: rows follow raw, columns are training objects
            kcol, _ = _binary_labels(col_raw, *resolved)
            D = D[np.ix_(keep, kcol)]
            if "n_train_rows" in extra:
                extra["n_train_rows"] = int(keep[: len(col_raw)].sum())
        mapping = {**{v: 1 for v in resolved[0]}, **{v: -1 for v in resolved[1]}}

    D = np.ascontiguousarray(D)
    if not return_info:
        return D, y
    info = _info(name, "dissimilarity")
    info.update(
        label_mapping=mapping,
        binary=resolved,
        options=o,
        n_samples=int(D.shape[0]),
        **extra,
    )
    return D, y, info


def load_similarity(name, *, binary=None, return_info=False):
    """Load a similarity matrix of the benchmark of Chen et al. (2009), as published.

    The four sets that Chen, Garcia, Gupta, Rahimi & Cazzanti (2009) made the
    benchmark of similarity-based classification, each a symmetric ``n x n``
    similarity matrix ``S`` with entries in [0, 1], unit diagonal, indefinite:

    ========================  ===  =======================  ========  ================
    name                      n    classes (counts)         negative  least / largest
                                                            eigvals   eigenvalue
    ========================  ===  =======================  ========  ================
    ``"aural-sonar"``         100  1, 2 (50 / 50)           38        -2.096 / 35.07
    ``"protein-similarity"``  213  1-4 (72 / 72 / 39 / 30)  40        -12.43 / 72.00
    ``"voting"``              435  1, 2 (267 / 168)         163       -0.267 / 239.3
    ``"yeast"``               200  1, 2 (100 / 100)         96        -6.755 / 107.9
    ========================  ===  =======================  ========  ================

    Negative eigenvalues are counted below ``-1e-12`` times the largest (the
    next ones of Voting and Protein are round-off, below ``1e-16`` of it).
    ``"protein-similarity"`` holds the same 213 proteins and classes as the
    dissimilarity set ``"protein"`` (:func:`load_dissimilarity`), in another
    representation.

    Parameters
    ----------
    name : str
        One of ``"aural-sonar"``, ``"protein-similarity"``, ``"voting"``,
        ``"yeast"`` (``list_datasets("similarity")``).
    binary : None or (pos, neg), default=None
        ``None``: the published labels. ``(pos, neg)``: each side a class
        label or a tuple of labels; ``pos`` classes get +1, ``neg`` classes
        -1, objects of other classes are dropped (rows and columns of ``S``).
    return_info : bool, default=False
        Also return a metadata dict.

    Returns
    -------
    S : ndarray of shape (n, n), float64
        The similarity matrix ``A`` of the published file, unchanged (a fresh
        copy): symmetric, unit diagonal.
    y : ndarray of shape (n,), int64
        The published class labels ``C`` (1..k), or +1/-1 with ``binary``.
    info : dict
        Only if ``return_info``: ``name``, ``kind`` (``"similarity"``),
        ``description``, ``citation``, ``licence`` (not stated upstream: the
        notes say so), ``sources`` (the file with its sha256 and upstream
        origin), ``notes``, ``label_mapping``, ``binary`` (the resolved
        ``(pos, neg)`` or None), ``n_samples``, ``file`` and ``file_sha256``.

    Raises
    ------
    ValueError
        Unknown ``name`` (the message lists the available names), a set of
        another kind (the message names its loader), or an invalid ``binary``.

    Notes
    -----
    Chen, Y., Garcia, E. K., Gupta, M. R., Rahimi, A. & Cazzanti, L. (2009).
    Similarity-based classification: concepts and algorithms. JMLR
    10:747-776.  Sources of the sets: Aural Sonar, Philips, Pitton & Atlas
    (2006), Perceptual feature identification for active sonar echoes, IEEE
    OCEANS; Protein, Hofmann & Buhmann (1997), IEEE TPAMI 19(1):1-14; Voting,
    UCI Congressional Voting Records; Yeast, Lanckriet et al. (2004), Pacific
    Symposium on Biocomputing.  The files are a byte-for-byte copy from a
    third-party repository (``info["sources"]``; ``shared/data/MANIFEST.md``
    §12), converted by ``scripts/convert_datasets.py``.

    Examples
    --------
    >>> S, y = load_similarity("aural-sonar")
    >>> S.shape, sorted(set(y.tolist()))
    ((100, 100), [1, 2])
    """
    if not isinstance(name, str) or name not in _SIMILARITY:
        raise _unknown(name, "similarity")
    z = _arrays(name)
    S = np.array(z["S"], dtype=np.float64)
    raw = z["y"].astype(np.int64)
    available = set(np.unique(raw).tolist())
    resolved = None
    if binary is None:
        y = raw
        mapping = {v: v for v in sorted(available)}
    else:
        resolved = _parse_binary(binary, available, {})
        keep, y = _binary_labels(raw, *resolved)
        S = np.ascontiguousarray(S[np.ix_(keep, keep)])
        mapping = {**{v: 1 for v in resolved[0]}, **{v: -1 for v in resolved[1]}}
    if not return_info:
        return S, y
    info = _info(name, "similarity")
    info.update(label_mapping=mapping, binary=resolved, n_samples=int(S.shape[0]))
    return S, y, info
