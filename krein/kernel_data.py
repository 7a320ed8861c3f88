"""One door for data: a data set or a user's matrix plus a kernel -> matrices and fold blocks.

:func:`load_kernel_data` loads a catalogue data set (:func:`krein.datasets.load_dataset`)
and computes its kernel once; :class:`KernelData` hands out the training block
and test rows of any split, with the per-fold rules below.  Three modules
beside it hold what the door uses, and every name of theirs that was public
here is still importable from here:

* the kernel catalogue, :mod:`krein.kernel_catalogue`: the kernel names of
  each kind of data (:func:`available_kernels`), their defaults
  (:func:`default_kernel`, :func:`default_kernel_params`,
  :func:`default_kernel_grid`), the dissimilarity kernels
  (:data:`DISSIMILARITY_KERNELS`) and the label-dependent pick-out kernels
  (:data:`PICK_OUT_KERNELS`, with munoz §4.2's Ionosphere kernels);
* the user-file checks, :mod:`krein.datasets._user_files` (what a matrix,
  its labels or a feature table must satisfy; :data:`FILE_SYMMETRY_RTOL`,
  :data:`FILE_DIAGONAL_RTOL`);
* the approximation spec, :mod:`krein.approximation_spec`
  (:func:`check_approximation`, :func:`make_approximation`,
  :func:`approximation_spectrum`, :data:`APPROXIMATIONS`).


Kernel matrix
-------------
Vector kernels and the dissimilarity-raw and -gaussian kernels are row-wise, so the kernel
is computed once on all points and every fold's blocks are slices of it.  The
dissimilarity-linear kernel depends on the centering, so each fold builds its
training block from the training dissimilarities and its test rows with the
training centering (:func:`krein.kernels.dissimilarity_kernel` with
``D_train``), exactly as a model that never saw the test objects would.

The pick-out kernels (:data:`PICK_OUT_KERNELS`) depend on the labels, so like
dissimilarity-linear they are built per fold (:attr:`KernelData.per_fold_kernel`):
the training block from the TRAINING labels only, the test rows by the
label-free rule :data:`PICK_OUT_TEST_RULE` of
:func:`krein.combinations.pick_out_rows`.  ``KernelData.K`` (spectrum line,
``krein diagnose``, the decision-boundary figure) uses all labels.  Their
label-free base kernels are computed once (``KernelData.base_kernels``).


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
(what was done to them, e.g. a symmetrization).  The checks of the files
(:mod:`krein.datasets._user_files`), each an :class:`InvalidArgument` whose
one-line message starts with the file's path, come before any kernel is computed.

A predefined test part
----------------------
Data may come with their own train/test split (the bundled ``coilyork``,
:data:`PREDEFINED_SPLITS`; a user's ``test_path`` of :func:`load_kernel_file`
or :func:`load_feature_file`).  ``y``, ``K``, ``X`` and ``D`` are then the
TRAINING part only (every fold, the spectrum and ``n_samples`` concern it),
and the test part is ``y_test`` (``n_test`` objects) with its rows against
the training objects: ``K_test`` (a kernel file, a row-wise kernel),
``D_test`` (dissimilarities, test objects as rows) or ``X_test`` (features
scaled with the training statistics).  :meth:`KernelData.test_blocks` gives
the training block of any training indices and the test rows against them by
the per-fold rules above (centering on those training objects, pick-out with
their labels); :func:`krein.experiment.classification_cell` with
``outer_split="predefined"`` tunes on the training part and scores once on
the test part.

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
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ._memory import MemoryBudgetError, check_dense
from ._validation import InvalidArgument
# The catalogue, the user-file checks and the approximation spec: names used here, and names
# re-exported for the modules that import them from the door (e.g. SIGMOID_A_TIMES_D, cli.py).
from .approximation_spec import (APPROXIMATIONS, LANDMARK_COLUMNS, approximation_spectrum,
                                 check_approximable, check_approximation, make_approximation)
from .combinations import pick_out, pick_out_rows
from .datasets import FEATURE_SCALES, available_datasets, dataset_kind, load_dataset
from .datasets._user_files import (FILE_DIAGONAL_RTOL, FILE_SYMMETRY_RTOL, check_feature_scale,
                                   check_flag, check_name, check_symmetrize, path_text, prefixed,
                                   read_feature_file, read_kernel_file, read_landmark_file,
                                   read_test_matrix)
from .kernel_catalogue import (DISSIMILARITY_KERNELS, KERNEL_GRID_FACTORS, PICK_OUT_KERNELS,
                               PICK_OUT_TEST_RULE, SIGMOID_A_TIMES_D, SIGMOID_R, available_kernels,
                               base_kernel_stack, check_kernel, check_kernel_params,
                               default_kernel, default_kernel_grid, default_kernel_params,
                               kernel_param_names, n_base_kernels)
from .kernels import dissimilarity_kernel, pairwise_kernel
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
    "load_landmark_file",
    "load_feature_file",
    "has_test_part",
    "PREDEFINED_SPLITS",
    "FILE_SYMMETRY_RTOL",
    "FILE_DIAGONAL_RTOL",
    "APPROXIMATIONS",
    "check_approximation",
    "make_approximation",
    "approximation_spectrum",
]

#: The name ``krein.experiment.classification`` calls :func:`check_approximable` by.
_check_approximable = check_approximable

#: Largest stack of per-coordinate kernels (n^2 * n_features doubles) built by compare.
PICK_OUT_MAX_BYTES = 2 * 1024**3


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
    y_test : ndarray of shape (n_test,) or None
        Labels of the predefined test part (module docstring, "A predefined
        test part"); None without one.  ``y``, ``K``, ``X`` and ``D`` are then
        the training part only.
    K_test : ndarray of shape (n_test, n) or None
        Kernel rows of the test objects against all training objects, where
        they do not depend on the fold (a kernel file, a row-wise kernel);
        None for the per-fold kernels and in an approximated run.
    X_test : ndarray of shape (n_test, d) or None
        Feature vectors of the test objects, prepared with the training
        part's scaling.
    D_test : ndarray of shape (n_test, n) or None
        Dissimilarities of the test objects (rows) to the training objects.
    landmarks : ndarray of int of shape (m,) or None
        Landmark columns (:func:`load_landmark_file`): the rows of the data that
        are the landmarks; ``X`` then holds the kernel columns ``K(objects,
        landmarks)`` of shape (n, m) and ``X_test`` the test objects' columns,
        and ``approximation`` is ``"landmarks"``.  None otherwise.
    landmark_block : ndarray of shape (m, m) or None
        ``W = K(landmarks, landmarks)`` of landmark columns (the front end of
        every fit; a landmark in a test fold is still a column); None otherwise.
    names : ndarray of str of shape (n,) or None
        The objects' names of a named matrix file or an edge list
        (:func:`load_kernel_file`), in the order of ``y``; None otherwise.
    test_names : ndarray of str of shape (n_test,) or None
        The names of the predefined test part's objects (the index column of a
        named test matrix), in the order of ``y_test``; None otherwise.
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
    y_test: np.ndarray | None = field(default=None, repr=False)
    K_test: np.ndarray | None = field(default=None, repr=False)
    X_test: np.ndarray | None = field(default=None, repr=False)
    D_test: np.ndarray | None = field(default=None, repr=False)
    landmarks: np.ndarray | None = field(default=None, repr=False)
    landmark_block: np.ndarray | None = field(default=None, repr=False)
    names: np.ndarray | None = field(default=None, repr=False)
    test_names: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.y_test is None:
            self.y = class_labels(self.y)
        else:  # one conversion of the labels of both parts: the same classes
            n = np.asarray(self.y).shape[0]
            both = class_labels(np.concatenate([np.asarray(self.y), np.asarray(self.y_test)]))
            self.y, self.y_test = both[:n], both[n:]

    def read_only(self):
        """Make every array of this data read-only (in place) and return it.

        Data kept and shared by many fits (each worker process of a run keeps the data
        it loaded, :func:`krein.experiment.classification_cell`) must not be changed
        by one of them: a write would then raise ``ValueError`` instead of changing the
        input of every later fit of the same process.

        Returns
        -------
        KernelData
            ``self``.
        """
        for value in vars(self).values():
            if isinstance(value, np.ndarray):
                value.setflags(write=False)
        return self

    @property
    def n_test(self):
        """Number of objects of the predefined test part (0 without one)."""
        return 0 if self.y_test is None else int(self.y_test.shape[0])

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
                                        self.kernel, self.kernel_params,
                                        landmark_block=self.landmark_block)
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

    def test_blocks(self, train, stacked=False):
        """Training block of ``train`` and the rows of the predefined test part against it.

        The same per-fold rules as :meth:`blocks` with the test part in the
        place of a test fold: dissimilarity-linear centered on the training
        objects ``train`` (:func:`krein.kernels.dissimilarity_kernel` with
        ``D_train``), pick-out rows by :data:`PICK_OUT_TEST_RULE` with the
        training labels ``y[train]`` only (no test label is used), row-wise
        kernels and a kernel file sliced (``K_test[:, train]``).

        Parameters
        ----------
        train : ndarray of int
            Indices of training objects (into ``y``), e.g. ``np.arange(n)``.
        stacked : bool
            Stacked blocks ``[K, K_1, ..., K_M]`` (last axis) when the data
            have base kernels.

        Returns
        -------
        K_train : ndarray of shape (n_train, n_train) (or (n_train, n_train, 1 + M))
            The training block, as :meth:`blocks` returns it.
        K_test : ndarray of shape (n_test, n_train) (or (n_test, n_train, 1 + M))
            Kernel rows of every test object against the objects ``train``.

        Raises
        ------
        ValueError
            Data without a test part (``n_test == 0``), or an approximated
            run (the estimators take ``X`` and ``X_test``).
        """
        if self.y_test is None:
            raise ValueError(f"{self.dataset!r} has no predefined test part (y_test is None)")
        train = np.asarray(train)
        K_tr, _ = self.blocks(train, train[:1], stacked=stacked)
        if self.label_dependent:
            B_te = base_kernel_stack(self.kernel, self.X_test, self.X[train], self.kernel_params)
            K_te = pick_out_rows(B_te, self.y[train], rule=PICK_OUT_TEST_RULE)
            return K_tr, (np.concatenate([K_te[:, :, None], B_te], axis=2) if stacked else K_te)
        if self.per_fold_kernel:
            D_tr = self.D[np.ix_(train, train)]
            return K_tr, dissimilarity_kernel(self.D_test[:, train], kind="linear", D_train=D_tr)
        self._kernel_matrix()  # an approximated run has no kernel rows either
        return K_tr, self.K_test[:, train]

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
            B = base_kernel_stack(self.kernel, Z, self.X, self.kernel_params)
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
    kernel = check_kernel(kernel, kind)
    return kind, kernel, check_kernel_params(kernel, kernel_params)


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
        ``"dissimilarity-gaussian"``; for similarity data (Chen et al. 2009:
        ``"aural-sonar"``, ``"protein-similarity"``, ``"voting"``,
        ``"yeast"``) ``"precomputed"`` only: the published matrix is the
        kernel, returned as kind ``"kernel"`` like a user's kernel file
        (:func:`load_kernel_file`: fold blocks are slices of ``K``).  Default
        (None): ``"pick-out-linear"`` for munoz-artificial, ``"sigmoid"`` for
        other vector data, ``"dissimilarity-linear"`` for dissimilarity data,
        ``"precomputed"`` for similarity data.
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
    if kind == "similarity":
        return _similarity_kernel_data(dataset, n_samples, binary, random_state, approximation)
    check_approximable(approximation, kind, kernel, f"data set {dataset!r}")
    # feature scaling chosen by the kernel ("pick-out-munoz-ionosphere"), else None
    feature_scale = (params.get("scale", default_kernel_params(kernel)["scale"])
                     if "scale" in kernel_param_names(kernel) else None)
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
    test = {}
    if has_test_part(dataset, n_samples):
        test = _catalogue_test_part(dataset, binary, kind, kernel, full, D)
        desc += f"; the data set's own test part: {test['y_test'].shape[0]} objects"
    return KernelData(dataset, kind, kernel, full, np.asarray(y), K, X, D, desc, base_kernels=B,
                      **test)


#: Catalogue data sets that come with their own train/test split: :func:`load_kernel_data`
#: gives their training objects and the test objects as the test part.
PREDEFINED_SPLITS = ("coilyork",)


def has_test_part(dataset, n_samples=None):
    """Whether :func:`load_kernel_data` gives a catalogue data set with a predefined test part.

    Parameters
    ----------
    dataset : str
        A catalogue name.
    n_samples : int, optional
        A subsample of the training objects: then no test part (the test
        rows' columns are the full training part).

    Returns
    -------
    bool
        True for the sets of :data:`PREDEFINED_SPLITS` loaded whole.
    """
    return dataset in PREDEFINED_SPLITS and n_samples is None


def _catalogue_test_part(dataset, binary, kind, kernel, full, D):
    """``y_test``, ``D_test`` (test objects as rows) and ``K_test`` of a bundled split."""
    from .datasets import load_dissimilarity

    D_all, y_all, info = load_dissimilarity(dataset, split="both", binary=binary,
                                            return_info=True)
    n_train = int(info["n_train_rows"])
    if D_all.shape != (D_all.shape[0], D.shape[0]) or n_train != D.shape[0]:
        raise ValueError(f"{dataset!r}: the test rows do not match the {D.shape[0]} training "
                         f"objects (shape {D_all.shape}, {n_train} training rows)")
    D_test, y_test = D_all[n_train:], np.asarray(y_all[n_train:])
    return {"y_test": y_test, "D_test": D_test,
            "K_test": _test_rows(kind, kernel, full, None, None, D_test)}


def _similarity_kernel_data(dataset, n_samples, binary, random_state, approximation):
    """A shipped similarity set (Chen et al. 2009) as a precomputed kernel matrix.

    ``K`` is the published similarity matrix (:func:`krein.datasets.load_similarity`),
    loaded like a user's kernel file (:func:`load_kernel_file`): kind ``"kernel"``,
    kernel ``"precomputed"``, fold blocks are slices of ``K``; ``source`` names the
    set and its citation.
    """
    from .datasets import load_similarity

    check_approximable(approximation, "kernel", "precomputed", f"data set {dataset!r}")
    data = load_dataset(dataset, n_samples=n_samples, binary=binary, random_state=random_state)
    if np.unique(data.y).size < 2:
        raise InvalidArgument("dataset", f"{dataset!r} has a single class here; need at least two")
    citation = load_similarity(dataset, return_info=True)[2]["citation"]
    return KernelData(dataset, "kernel", "precomputed", {}, np.asarray(data.y), data.S,
                      description=data.description,
                      source=f"bundled similarity data set {dataset}: {citation}")


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
    _check_kernel_memory(kind, y.shape[0], y.shape[0], f"the kernel of {what}", hint)
    if kernel in PICK_OUT_KERNELS:
        n_base = n_base_kernels(kernel, X.shape[1])
        size = 8 * y.shape[0] ** 2 * n_base
        if size > PICK_OUT_MAX_BYTES:
            raise InvalidArgument("kernel", f"{kernel} needs n^2 * {n_base} * 8 bytes = "
                                            f"{size / 1024**3:.1f} GiB for the {n_base} base "
                                            f"kernels of {what} (limit "
                                            f"{PICK_OUT_MAX_BYTES / 1024**3:.0f} GiB); {hint}")
    try:
        if kernel in PICK_OUT_KERNELS:
            B = base_kernel_stack(kernel, X, None, full)
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


def _check_kernel_memory(kind, n_rows, n_cols, what, hint, copies=None):
    """One line (``InvalidArgument("memory", ...)``) when a dense kernel would not fit.

    The check of :func:`krein._memory.check_dense`, before the array is formed; on
    feature vectors the remedy is the Nyström approximation, which forms none.
    """
    remedy = hint
    if kind in ("vector", "synthetic"):     # feature vectors: the Nyström path forms no n x n
        remedy = f"use --approximation nystroem:M (approximation=\"nystroem:M\"), or {hint}"
    elif kind in ("kernel", "dissimilarity"):  # a matrix: its columns to m landmarks suffice
        remedy = (f"give the n x m columns to m landmark objects instead (--kernel-file C "
                  f"--landmarks IDX, load_landmark_file), or {hint}")
    try:
        check_dense(n_rows, n_cols, what=what, remedy=remedy,
                    **({} if copies is None else {"copies": copies}))
    except MemoryBudgetError as exc:
        raise InvalidArgument("memory", str(exc)) from None
    except ValueError as exc:              # a KREIN_MEMORY_BUDGET that is not a size
        raise InvalidArgument("memory", str(exc)) from None


def _test_rows(kind, kernel, full, X, X_test, D_test):
    """Kernel rows of a test part against all training objects, where no fold changes them.

    None for the per-fold kernels (dissimilarity-linear, pick-out: built by
    :meth:`KernelData.test_blocks`); row-wise kernels with the parameters
    ``full``, exactly as the training kernel of :func:`_compute_kernel`.
    """
    if kernel == "dissimilarity-linear" or kernel in PICK_OUT_KERNELS:
        return None
    n_test = (D_test if kind == "dissimilarity" else X_test).shape[0]
    n = (D_test.shape[1] if kind == "dissimilarity" else X.shape[0])
    _check_kernel_memory(kind, n_test, n, "the test rows", "use fewer objects", copies=2)
    try:
        if kind == "dissimilarity":
            if kernel == "dissimilarity-raw":
                return np.asarray(D_test, dtype=float) / float(full["unit"])
            return dissimilarity_kernel(D_test, kind="gaussian", gamma=full["gamma"])
        return pairwise_kernel(kernel, X_test, X, full)
    except (ValueError, TypeError) as exc:
        raise InvalidArgument("kernel_params", f"{exc} (kernel {kernel!r} with {full})") from None


def _matrix_kernel(dissimilarity, kernel, kernel_params, shown, takes):
    """``(kind, kernel, params)`` of a matrix file: a dissimilarity kernel with its checked
    parameters, or ``"precomputed"`` without any (errors prefixed with the file)."""
    if dissimilarity:
        kind = "dissimilarity"
        try:
            kernel = check_kernel(default_kernel(kind) if kernel is None else kernel, kind)
            return kind, kernel, check_kernel_params(kernel, kernel_params)
        except InvalidArgument as exc:
            raise prefixed(exc, shown) from None
    if kernel is not None and kernel != "precomputed":
        raise InvalidArgument("kernel", f"{shown}: {takes} the kernel 'precomputed'; got "
                                        f"{kernel!r} (a matrix of dissimilarities takes "
                                        "dissimilarity=True and one of "
                                        f"{', '.join(DISSIMILARITY_KERNELS)})")
    if kernel_params is not None and (not isinstance(kernel_params, dict) or kernel_params):
        raise InvalidArgument("kernel_params", f"{shown}: the kernel 'precomputed' takes no "
                                               f"parameters; got {kernel_params!r}")
    return "kernel", "precomputed", {}


def _check_test_pair(test_path, test_labels, shown):
    """A test part is its matrix and its labels: both or neither."""
    if (test_path is None) != (test_labels is None):
        given, needed = (("test_kernel_file", "test_labels") if test_path is not None
                         else ("test_labels", "test_kernel_file"))
        raise InvalidArgument(needed, f"{shown}: {given} needs {needed} (a test part is a "
                                      "matrix of test rows and their labels)")


def load_kernel_file(path, labels, *, dissimilarity=False, kernel=None, kernel_params=None,
                     symmetrize=False, name=None, test_path=None, test_labels=None,
                     names="auto", edge_list=None, edge_columns=None, missing=None):
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
    asymmetry is an error unless ``symmetrize=True`` (or ``"mean"``), which uses
    ``(K + K')/2`` (``"max"``, ``"min"``: the larger, smaller of ``K_ij`` and
    ``K_ji``) and records how asymmetric it was in ``notes``.

    Files as researchers write them (:mod:`krein.datasets._tables`): a text
    table with the objects' names in a header row and/or an index column (R's
    ``write.csv(as.matrix(dist(x)))``, pandas' ``to_csv()``; ``names``), a
    condensed distance vector of length ``n(n-1)/2`` (SciPy's ``pdist``, R's
    ``dist``; with ``dissimilarity`` only), an edge list ``name_a name_b
    score`` (BLAST/DIAMOND tabular output, graph tools;
    :func:`krein.datasets._user_files.edge_list_matrix`), and labels as a
    ``name,label`` table, with a header or quoted.  When the matrix and the
    labels both name their objects, the labels are matched by name.

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
    test_path : str or os.PathLike, optional
        A predefined test part: a matrix of shape ``(n_test, n)``, rows the
        test objects, columns the objects of ``path`` in the same order;
        kernel values, or with ``dissimilarity`` dissimilarities (their kernel
        rows follow the per-fold rule of the training blocks, e.g.
        ``dissimilarity_kernel(D_test, kind="linear", D_train=D)``,
        :meth:`KernelData.test_blocks`).
    test_labels : str, os.PathLike or array-like of shape (n_test,), optional
        The test objects' labels (required with ``test_path``), each a class
        of ``labels``.
    names : {"auto", "header", "index", "both", "none"}, default="auto"
        Where a text matrix holds its objects' names (detected by default);
        row and column names must agree.
    edge_list : bool or None, default=None
        The file is an edge list of scored pairs (None: detected from a text
        file whose first two columns are not numbers).
    edge_columns : str or tuple of 3 int, optional
        The columns (from 1) of an edge list's two names and score, e.g.
        ``"1,2,12"`` for BLAST ``-outfmt 6`` bitscores; default ``1,2,3``.
    missing : float, optional
        The value of a pair an edge list does not hold (default: 0 for
        similarities; required for dissimilarities with missing pairs).

    Returns
    -------
    KernelData
        Kind ``"kernel"`` (``K`` the symmetrized matrix, ``X`` and ``D``
        None) or ``"dissimilarity"`` (``D`` the matrix, ``K`` its kernel), the
        labels ``y`` of shape (n,) unchanged, the kernel's full parameters,
        ``source`` (the absolute paths) and ``notes``; with ``test_path`` also
        ``y_test``, ``K_test`` (kernel rows, or None for dissimilarity-linear)
        and ``D_test``.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) with a one-line message that starts with the file's
        path, naming ``kernel_file`` (any error of
        :func:`krein.datasets.read_matrix`, a matrix that is not square or
        smaller than 2 x 2, NaN or inf entries, an asymmetric matrix without
        ``symmetrize``, negative dissimilarities or a nonzero diagonal, row
        and column names that differ, a name given twice, a condensed vector
        of a length that is not ``n(n-1)/2`` or without ``dissimilarity``),
        ``labels`` (any error of :func:`krein.datasets.read_labels`, a count
        that does not match the matrix, a single class, every label
        different, objects without a label or names given twice when matched
        by name), ``missing`` (an edge list of dissimilarities with missing
        pairs), ``names``, ``edge_columns``, ``kernel`` or ``kernel_params`` (a kernel or parameter
        that does not fit the matrix), ``dissimilarity``, ``symmetrize`` or
        ``name`` (wrong type), ``test_kernel_file`` / ``test_labels`` (the
        test part: :func:`krein.datasets._user_files.read_test_matrix`; test
        labels without a test matrix or the reverse).
    """
    dissimilarity = check_flag(dissimilarity, "dissimilarity")
    symmetrize = check_symmetrize(symmetrize) or False
    name = check_name(name)
    shown = path_text(path)
    kind, kernel, params = _matrix_kernel(dissimilarity, kernel, kernel_params, shown,
                                          "a kernel matrix file takes")
    _check_test_pair(test_path, test_labels, shown)
    file = read_kernel_file(path, labels, dissimilarity=dissimilarity, symmetrize=symmetrize,
                            names=names, edge_list=edge_list, edge_columns=edge_columns,
                            missing=missing)
    y = file.y
    test = None if test_path is None else read_test_matrix(
        test_path, test_labels, train_y=y, dissimilarity=dissimilarity, train_names=file.names)
    parts = {}
    if dissimilarity:
        D = file.values
        full = default_kernel_params(kernel, D=D)
        full.update(params)
        try:
            K, _ = _compute_kernel(kind, kernel, full, None, D, y, what="this file")
            if test is not None:
                parts = {"D_test": test.values,
                         "K_test": _test_rows(kind, kernel, full, None, None, test.values)}
        except InvalidArgument as exc:
            raise prefixed(exc, shown) from None
    else:
        K, D, full = file.values, None, {}
        if test is not None:
            parts = {"K_test": test.values}
    source = file.source if test is None else f"{file.source}; {test.source}"
    notes = file.notes if test is None else file.notes + test.notes
    return KernelData(name or file.stem, kind, kernel, full, y, K, None, D, file.description,
                      source=source, notes=notes, y_test=None if test is None else test.y,
                      names=file.names, test_names=None if test is None else test.names,
                      **parts)


def landmark_kernel_columns(kernel, params, D, D_block):
    """The kernel columns of dissimilarities to landmarks (landmark MDS for the linear kernel).

    ``dissimilarity-linear`` is classical scaling centred on the landmarks: the
    landmark MDS of de Silva & Tenenbaum (2004, "Sparse multidimensional scaling
    using landmark points"), ``K(x, l_j) = -1/2 (D(x, l_j)^2 - mean_k D(x, l_k)^2 -
    mean_i D(l_i, l_j)^2 + mean_ik D(l_i, l_k)^2)``, whose Nyström approximation is
    their embedding of every object (the landmark block ``-1/2 J D_mm^2 J`` and the
    out-of-sample rule of classical scaling,
    :func:`krein.kernels.dissimilarity_kernel` with ``D_train`` the landmark block);
    with every object a landmark it is the exact ``-1/2 J D^2 J``.  The other
    dissimilarity kernels are entrywise (``exp(-gamma D^2)``, ``D / unit``).

    Parameters
    ----------
    kernel : str
        One of :data:`DISSIMILARITY_KERNELS`.
    params : dict
        Its full parameters.
    D : ndarray of shape (n, m)
        Dissimilarities of objects (rows) to the landmarks (columns).
    D_block : ndarray of shape (m, m)
        Dissimilarities among the landmarks (zero diagonal, symmetric).

    Returns
    -------
    ndarray of shape (n, m)
        The kernel columns ``K(objects, landmarks)``.
    """
    if kernel == "dissimilarity-linear":
        return dissimilarity_kernel(D, kind="linear", D_train=D_block)
    if kernel == "dissimilarity-raw":
        unit = params["unit"]
        if not unit > 0:
            raise ValueError(f"unit must be > 0; got {unit!r}")
        return np.asarray(D, dtype=float) / float(unit)
    return dissimilarity_kernel(D, kind="gaussian", gamma=params["gamma"])


def load_landmark_file(path, landmarks, labels, *, dissimilarity=False, kernel=None,
                       kernel_params=None, symmetrize=False, name=None, test_path=None,
                       test_labels=None):
    """Load a researcher's landmark columns: an ``n x m`` block, its landmarks and labels.

    The large-data form of :func:`load_kernel_file`: instead of the ``n x n``
    matrix, the kernel values (or dissimilarities) of every object to ``m``
    landmark objects, ``C = K(objects, landmarks)``, with the landmarks' row
    indices, so that ``C[landmarks]`` is the ``m x m`` landmark block ``W``
    (Williams & Seeger 2001; the indefinite Nyström approximation ``C W^+ C'`` of
    Oglic & Gärtner 2019, :class:`krein.approximation.IndefiniteNystroem`).  No
    ``n x n`` array is formed: ``KernelData.K`` is None, ``X`` holds the kernel
    columns and the estimators take them through the front end
    ``IndefiniteNystroem(kernel="precomputed", landmark_block=W)``
    (``approximation="landmarks"``).  Every fold keeps every landmark's column: a
    landmark in a test fold is still only a column, and its label is never used
    for training.

    With ``dissimilarity=True`` the columns are dissimilarities and the kernel
    columns follow the kernel: ``dissimilarity-linear`` (the default) is landmark
    MDS, classical scaling centred on the landmarks
    (:func:`landmark_kernel_columns`, de Silva & Tenenbaum 2004), the others are
    entrywise; a default ``gamma`` of ``dissimilarity-gaussian`` is computed from
    the landmark block.

    Parameters
    ----------
    path : str or os.PathLike
        The matrix file of shape ``(n, m)`` (:func:`krein.datasets.read_matrix`:
        ``.npy``, ``.npz[:key]``, ``.csv``, whitespace text, ``.mat[:key]``).
    landmarks : str, os.PathLike or array-like of int of shape (m,)
        The rows that are the landmarks, in the order of the columns, counted
        from 0 (a file of one integer per line, or the indices).
    labels : str, os.PathLike or array-like of shape (n,)
        One label per row (:func:`krein.datasets.read_labels`, or the labels).
    dissimilarity : bool, default=False
        The file holds dissimilarities.
    kernel : str, optional
        Without ``dissimilarity``: None or ``"precomputed"``; with it one of
        :data:`DISSIMILARITY_KERNELS` (default ``"dissimilarity-linear"``).
    kernel_params : dict, optional
        Parameters of a dissimilarity kernel.
    symmetrize : bool, default=False
        Accept a landmark block that is not symmetric to round-off (its
        symmetrization recorded in ``notes``).
    name : str, optional
        The data's name; default the file's stem.
    test_path : str or os.PathLike, optional
        A predefined test part: a matrix of shape ``(n_test, m)``, the test
        objects' kernel values (or dissimilarities) to the same landmarks.
    test_labels : str, os.PathLike or array-like of shape (n_test,), optional
        Their labels (required with ``test_path``).

    Returns
    -------
    KernelData
        ``K`` None, ``X`` the kernel columns (n, m), ``landmarks``,
        ``landmark_block`` ``W`` (m, m), ``approximation="landmarks"``; with a
        test part ``X_test`` (n_test, m) and ``y_test``.

    Raises
    ------
    InvalidArgument
        One line starting with the file, naming ``kernel_file``, ``landmarks``,
        ``labels`` (:func:`krein.datasets._user_files.read_landmark_file`),
        ``kernel`` / ``kernel_params``, ``test_kernel_file`` / ``test_labels``,
        or ``memory`` (the columns do not fit in the memory available).
    """
    dissimilarity = check_flag(dissimilarity, "dissimilarity")
    symmetrize = check_flag(symmetrize, "symmetrize")
    name = check_name(name)
    shown = path_text(path)
    kind, kernel, params = _matrix_kernel(dissimilarity, kernel, kernel_params, shown,
                                          "landmark kernel columns take")
    _check_test_pair(test_path, test_labels, shown)
    file = read_landmark_file(path, landmarks, labels, dissimilarity=dissimilarity,
                              symmetrize=symmetrize)
    y, idx = file.y, file.landmarks
    n, m = file.values.shape
    test = None if test_path is None else read_test_matrix(
        test_path, test_labels, train_y=y, dissimilarity=dissimilarity, n_landmarks=m)
    _check_kernel_memory("landmarks", n, m, "the landmark kernel columns",
                         "use fewer objects or landmarks", copies=3)
    full = {}
    C, C_test = file.values, None if test is None else test.values
    if dissimilarity:
        D_block = file.values[idx]
        full = default_kernel_params(kernel, D=D_block)
        full.update(params)
        try:
            C = landmark_kernel_columns(kernel, full, file.values, D_block)
            if test is not None:
                C_test = landmark_kernel_columns(kernel, full, test.values, D_block)
        except (ValueError, TypeError) as exc:
            raise InvalidArgument("kernel_params", f"{shown}: {exc} (kernel {kernel!r} with "
                                                   f"{full})") from None
    W = 0.5 * (C[idx] + C[idx].T)
    if not np.any(W):
        raise InvalidArgument("kernel_file", f"{shown}: the kernel of the landmarks is zero; no "
                                             "features can be formed")
    how = " (landmark MDS: classical scaling centred on the landmarks)" \
        if kernel == "dissimilarity-linear" else ""
    source = file.source if test is None else f"{file.source}; {test.source}"
    return KernelData(name or file.stem, kind, kernel, full, y, None, C, None,
                      file.description + how, source=source, notes=file.notes,
                      approximation=LANDMARK_COLUMNS,
                      y_test=None if test is None else test.y,
                      X_test=C_test, landmarks=idx, landmark_block=W)


def load_feature_file(path, *, label_column=None, kernel=None, kernel_params=None,
                      scale="standard", name=None, approximation=None, test_path=None):
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
    test_path : str or os.PathLike, optional
        A predefined test part: a feature file with the same columns and
        label column; its rows are scaled with the TRAINING rows' statistics
        and their kernel rows against the training objects computed with the
        kernel's parameters (``X_test``, ``y_test``, ``K_test``).

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
        value, pick-out base kernels above the memory limit), ``scale``,
        ``name`` or ``test_data_file`` (the test file: a reading error,
        another number of features, a class the training labels lack).
    """
    name = check_name(name)
    shown = path_text(path)
    approximation = check_approximation(approximation)
    scale = check_feature_scale(scale, shown)
    try:
        kernel = check_kernel(default_kernel("vector") if kernel is None else kernel, "vector")
        params = check_kernel_params(kernel, kernel_params)
        check_approximable(approximation, "vector", kernel, "this file")
    except InvalidArgument as exc:
        raise prefixed(exc, shown) from None
    how = ""
    if "scale" in kernel_param_names(kernel):  # the kernel's own scaling (munoz §4.2)
        kernel_scale = params.get("scale", default_kernel_params(kernel)["scale"])
        feature_scale = None if kernel_scale == "raw" else kernel_scale
        if scale != "standard" and scale != feature_scale:
            raise InvalidArgument("scale", f"{shown}: kernel {kernel!r} scales the features by "
                                           f"its parameter scale ({kernel_scale!r}); set it "
                                           f"there, not scale={scale!r}")
        how = f" (kernel parameter scale={kernel_scale!r})"
    else:
        feature_scale = scale

    file = read_feature_file(path, label_column=label_column, feature_scale=feature_scale,
                             test_path=test_path)
    X, y = file.values, file.y
    test = {}
    if file.test is not None:
        test = {"y_test": file.test.y, "X_test": file.test.values}
    full = default_kernel_params(kernel, n_features=X.shape[1])
    full.update(params)
    try:
        if approximation is not None:
            _check_kernel_values(kernel, full, X)
            K = B = None
        else:
            K, B = _compute_kernel("vector", kernel, full, X, None, y, what="this file",
                                   hint="use fewer objects")
            if test:
                test["K_test"] = _test_rows("vector", kernel, full, X, test["X_test"], None)
    except InvalidArgument as exc:
        raise prefixed(exc, shown) from None
    source = file.source if file.test is None else f"{file.source}; {file.test.source}"
    return KernelData(name or file.stem, "vector", kernel, full, y, K, X, None,
                      file.description + how, base_kernels=B, source=source,
                      notes=file.notes, approximation=approximation, **test)
