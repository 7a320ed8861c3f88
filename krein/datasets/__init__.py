"""Data sets for learning with indefinite kernels.

Real data (shipped as compressed ``.npz`` files in ``krein/datasets/data``,
converted from public copies by ``scripts/convert_datasets.py``; loading needs
NumPy only):

- :func:`load` -- vector data sets: sonar, heart, breast_cancer, wdbc,
  diabetes, ionosphere, german, liver, a1a (train/test), usps (train/test).
- :func:`load_dissimilarity` -- dissimilarity matrices: catcortex, balls3d,
  newsgroups, protein, coilyork.
- :func:`load_similarity` -- the similarity matrices of the benchmark of Chen
  et al. (JMLR 2009): aural-sonar, protein-similarity, voting, yeast.
- :func:`list_datasets` -- names, kinds and one-line descriptions.
- :func:`scale_features` -- the feature scaling of :func:`load` (standard, minmax).

A researcher's own files: :func:`read_matrix` (``.npy``, ``.npz``, ``.csv``,
whitespace text, MATLAB ``.mat``), :func:`read_labels`, :func:`read_features`
(CSV, whitespace text, LIBSVM/svmlight); :func:`krein.load_kernel_file` and
:func:`krein.load_feature_file` turn them into a ``KernelData``.

The catalogue (every name ``krein compare`` and the experiments accept, the
synthetic and regenerated sets included, and how each is prepared):
:func:`available_datasets`, :func:`load_dataset`, :func:`dataset_kind`.

Sources, checksums, citations and licences are recorded per set in
``krein/datasets/data/SOURCES.json`` and returned by ``return_info=True``.

Synthetic data:

- :func:`make_checkerboard` -- the 2-D checkerboard of Loosli, Ong & Canu
  (2013), with optional class overlap at the cell boundaries.
- :func:`make_munoz_artificial` -- the two Gaussian clouds of Munoz & de Diego
  (2006) §4.1.

Noise: :func:`add_uniform_noise` -- uniform noise on every entry, then a
rescaling onto a range (the noisy USPS data of Luss & d'Aspremont 2009, Table 3).
"""

from ._catalogue import (FEATURE_SCALES, REGENERATED_DATASETS, SYNTHETIC_DATASETS, Dataset,
                         available_datasets, dataset_kind, load_dataset)
from ._features import read_features
from ._files import read_labels, read_matrix
from ._loaders import (PAPER_SPLITS, USPS_PAPER_PAIRS, list_datasets, load, load_dissimilarity,
                       load_similarity, scale_features)
from ._noise import add_uniform_noise
from ._synthetic import make_checkerboard, make_munoz_artificial
from ._toy import (make_pe_local_optima, make_pe_negative_means, make_pe_overlapping,
                   make_pe_separable, pseudo_euclidean_kernel)

__all__ = [
    "available_datasets",
    "dataset_kind",
    "load_dataset",
    "Dataset",
    "SYNTHETIC_DATASETS",
    "REGENERATED_DATASETS",
    "FEATURE_SCALES",
    "scale_features",
    "list_datasets",
    "load",
    "load_dissimilarity",
    "load_similarity",
    "make_checkerboard",
    "PAPER_SPLITS",
    "USPS_PAPER_PAIRS",
    "pseudo_euclidean_kernel",
    "make_pe_separable",
    "make_pe_overlapping",
    "make_pe_negative_means",
    "make_pe_local_optima",
    "make_munoz_artificial",
    "add_uniform_noise",
    "read_matrix",
    "read_labels",
    "read_features",
]

# Regenerated stand-ins (not the original data) for GaussM1, GaussM02, PolyDisH57.
from ._regenerated import make_gauss_minkowski, make_polygon_hausdorff  # noqa: E402

__all__ += ["make_gauss_minkowski", "make_polygon_hausdorff"]
