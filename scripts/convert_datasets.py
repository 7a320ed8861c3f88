#!/usr/bin/env python
"""Convert the raw public data files into the ``.npz`` files shipped with krein.

This is a development tool, not runtime code. It reads the raw files listed in
``shared/data/MANIFEST.md``, checks each file's sha256 against the value
hard-coded below (copied from the manifest) and stops with an error on any
mismatch, converts every data set to plain NumPy arrays and writes

* ``<out>/<name>.npz``: one compressed NumPy archive per data set, and
* ``<out>/SOURCES.json``: per data set, the source files (paths relative to the
  data directory, their sha256 and upstream origin), the sha256 and size of the
  written ``.npz``, the shape and dtype of every stored array, raw label
  counts, citation, licence and notes on format quirks.

Runtime loading (``krein.datasets``) then needs NumPy only. This script may use
h5py (USPS), rdata (Protein) and scipy.io (CoilYork, the Chen et al. 2009
similarity sets).

The archives are written in the same layout as :func:`numpy.savez_compressed`
(a deflated zip of ``.npy`` members), but with a fixed member timestamp so
that re-running the script on the same inputs gives byte-identical files
(``numpy.savez_compressed`` stamps members with the current time). They load
with plain :func:`numpy.load`; no pickled objects are stored.

Usage::

    python scripts/convert_datasets.py [--src DATA_DIR] [--out OUT_DIR]

``--src`` defaults to ``<repo>/../shared/data`` and ``--out`` to
``<repo>/krein/datasets/data``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import zipfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SRC = REPO.parent / "shared" / "data"
DEFAULT_OUT = REPO / "krein" / "datasets" / "data"

# --------------------------------------------------------------------------
# Expected sha256 of every raw source file (from shared/data/MANIFEST.md).
# --------------------------------------------------------------------------
EXPECTED_SHA256 = {
    "sonar/sonar.all-data.csv": "e90434cdbf00fcf93ffa911fe447ae25606979658e60f1d32e155c3b5240234d",
    "heart_statlog/heart.dat": "f5f3b4204c285bafadd85cb735f38b47689f2be7047feb172dcbeab648110bf9",
    "breast_cancer_wisconsin/breast-cancer-wisconsin.data": "402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64",
    "breast_cancer_wisconsin/wdbc.data": "d606af411f3e5be8a317a5a8b652b425aaf0ff38ca683d5327ffff94c3695f4a",
    "pima_indians_diabetes/pima-indians-diabetes.data.csv": "6bfe5d0f379d17a0e0819b996407e3c09bf80febd4287f2ed212190dfff154af",
    "libsvm_a1a/a1a": "eb54c45f1bdb51286f803dd092eb8202b44637a858fc6c4e533a2d64a0d94b4e",
    "libsvm_a1a/a1a.t": "b98244653c31ac5b151097866216831b962cb5a2857c91e8b276cdfcc4c44771",
    "german_credit_numeric/german.data-numeric": "2752b044394958ab6dd193a0b56ca0f0b3a2d8bc7cb8c008e35a5e84bbec02f8",
    "bupa_liver/bupa.data": "7465d58a06982743c5f6f08ee080e120c239c4a40de4c7139786a0e9c0c494cc",
    "ionosphere/ionosphere.data": "46d52186b84e20be52918adb93e8fb9926b34795ff7504c24350ae0616a04bbd",
    "usps/usps.h5": "734f88c541104a956d88be2c95d03b4a463ffd74ccc2ba9c80841fb98e3fcb36",
    "coilyork/CoilYork.mat": "959d89029ada2c7f779b87786057dca84b1e494e686d877a6d4faf4b848fd3f5",
    "catcortex/catcortex.npy": "66cd09132b6f4c3c0c5d6d0f4aa0beddc7f8a5ccda804924a795fc639bd4d24f",
    "catcortex/catcortex-labels.npy": "e3bf98d975e22b5f2ad76944dbf79a7a2acd38517fe07ff5bbd2708b2bb87705",
    "balls3d/balls3d.npy": "3346d959cd3480267455bb86f08bc2320c876910442ddc159b72dbd1fac5414c",
    "balls3d/balls3d-labels.npy": "512e0e9fc32d10d4823e2f3612a443f060049ff805b986f858295efe851084cf",
    "newsgroups/newsgroups.npy": "3dfdc13695133daa8fa67bc1bb5dd9bfe7ddae0ba423f5ac37ab8476f47d0ad2",
    "newsgroups/newsgroups-labels.npy": "80a0338ebc7efdb3030e224bdf0851ab1a4b8db01363394490726978e1059d2e",
    "protein/protein.RData": "009f95edcba72e67f3db269dac30e84c62b88f5e152b7bdce1064680bf77f16c",
    "chen2009/AuraSonar.mat": "b7fc590266a9fa97f5d1154ffdb8160eed186579f526ffcf009e6c126e7e1cb5",
    "chen2009/Protein.mat": "3f180796d442e4f2613dbecca60e4e5cfe5a5f2e79b6c9f2f5202bc9e0daa9cc",
    "chen2009/Voting.mat": "1d2eaf9d9a8a0d4ff1133552f147c59d330da679ef237e989fb90d59658a9464",
    "chen2009/Yeast.mat": "67ce55ce94f0ca016a0b07873d7a0c1bac553a62c677cb50f34ca56bcab91692",
}

# Upstream origin of each file (repository@commit:path), from MANIFEST.md.
ORIGIN = {
    "sonar/sonar.all-data.csv": "rfigueror1/tareas_teoria_cerebro@7e3e4bfa8b250dd36d0be11907c3b5a5529d5759:sonar.all-data.csv",
    "heart_statlog/heart.dat": "natixvi/Inne@a7237377e3fe07b936d13ee0d907f29e5e014beb:Documents/heart.dat",
    "breast_cancer_wisconsin/breast-cancer-wisconsin.data": "awoolfe/ML-Project1@75d95508ff7766e37632b7cf94350df10d809153:data/breast-cancer-wisconsin.data",
    "breast_cancer_wisconsin/wdbc.data": "WVik/data-mining-breast-cancer-prediction@2fa902c730d4f1335ca0c70112796225468a940c:data/wdbc.data",
    "pima_indians_diabetes/pima-indians-diabetes.data.csv": "cdvel/Datasets@ab37c4c4ffbae70c7d14fa83a6654f55976e331d:pima-indians-diabetes.data.csv",
    "libsvm_a1a/a1a": "LIBOL/SOL@37f2b02a11823eabae2624997a3ee0094e4198b8:data/a1a",
    "libsvm_a1a/a1a.t": "LIBOL/SOL@37f2b02a11823eabae2624997a3ee0094e4198b8:data/a1a.t",
    "german_credit_numeric/german.data-numeric": "Bmez1/Parcial_CD@ee2c80b1c1005a730a64f5999fcda9dc9a9abd6b:german.data-numeric",
    "bupa_liver/bupa.data": "vilge/Liver_patient@6e1375edbd96404b30f63167f1973407aceed11d:bupa.data",
    "ionosphere/ionosphere.data": "rohitpaul23/density_based_clustering@9fca3d3f94fd740ed01084ba7e01ee622a53fc3b:ionosphere.data",
    "usps/usps.h5": "niuers/Learning-From-Data-A-Short-Course@879a698b960e5867f7c2b11f8938fa89c3d21839:data/usps.h5",
    "coilyork/CoilYork.mat": "HeimingX/IKSVM-DC@998b7063679e0803a58830753a358704847790e8:CoilYork.mat",
    "catcortex/catcortex.npy": "dalab/matrix-manifolds@162bf91bff8256af826ee7d3c9a48b2a28f12ed9:data/dissimilarities/catcortex.npy",
    "catcortex/catcortex-labels.npy": "dalab/matrix-manifolds@162bf91bff8256af826ee7d3c9a48b2a28f12ed9:data/dissimilarities/catcortex-labels.npy",
    "balls3d/balls3d.npy": "dalab/matrix-manifolds@162bf91bff8256af826ee7d3c9a48b2a28f12ed9:data/dissimilarities/balls3d.npy",
    "balls3d/balls3d-labels.npy": "dalab/matrix-manifolds@162bf91bff8256af826ee7d3c9a48b2a28f12ed9:data/dissimilarities/balls3d-labels.npy",
    "newsgroups/newsgroups.npy": "dalab/matrix-manifolds@162bf91bff8256af826ee7d3c9a48b2a28f12ed9:data/dissimilarities/newsgroups.npy",
    "newsgroups/newsgroups-labels.npy": "dalab/matrix-manifolds@162bf91bff8256af826ee7d3c9a48b2a28f12ed9:data/dissimilarities/newsgroups-labels.npy",
    "protein/protein.RData": "cran/evclust@db11b91c67df32b4d2584f9d06cc4e2c7681c5fa:data/protein.RData",
    **{f"chen2009/{stem}.mat": "Lcrypto/Classical-and-Quantum-Topology-ML-toric-spherical@"
                               "23763cf1c17e6e0fb05cb5bd64a2b2a934a4b80e:LDPC_PEG_ACE_SF_CHORD_TSVD/"
                               f"square_matrices/dense_graph/{stem}.mat"
       for stem in ("AuraSonar", "Protein", "Voting", "Yeast")},
}

# The four similarity sets of Chen et al. (2009): name -> (file stem, n, class counts 1..k).
CHEN2009 = {
    "aural-sonar": ("AuraSonar", 100, (50, 50)),
    "protein-similarity": ("Protein", 213, (72, 72, 39, 30)),
    "voting": ("Voting", 435, (267, 168)),
    "yeast": ("Yeast", 200, (100, 100)),
}

_CHEN_CITATION = (
    "Chen, Y., Garcia, E. K., Gupta, M. R., Rahimi, A. & Cazzanti, L. (2009). Similarity-based "
    "classification: concepts and algorithms. JMLR 10:747-776."
)
_CHEN_LICENCE = (
    "not stated upstream: the copy's repository is Apache-2.0 but is an unrelated project that "
    "credits Chen et al. (2009); the licence of the original University of Washington data is "
    "not stated there"
)
_CHEN_NOTES = [
    "Copied byte for byte from a third-party repository (sources: origin), not from the "
    "University of Washington page of the benchmark (shared/data/MANIFEST.md §12).",
    "MATLAB file with A (n x n similarity, float64, symmetric, unit diagonal, entries in "
    "[0, 1]) and C (class labels, uint8 1..k). Stored: S = A (float64) and y = C (int64), "
    "unchanged; S is the kernel used (precomputed).",
]


_DELFT_NPY_NOTE = (
    "Source is a NumPy conversion (dalab/matrix-manifolds, data/scripts/mat_to_npy.py) of the "
    "TU Delft PRDisData .mat file: the symmetric matrix was stored as a condensed upper "
    "triangle and values below 1e-4 were clipped up to 1e-4; labels are prtools nlab "
    "(1-based). Converted here back to the full square matrix with a zero diagonal."
)

# --------------------------------------------------------------------------
# Per data set: kind, source files, citation, licence, notes.
# --------------------------------------------------------------------------
META = {
    "sonar": dict(
        kind="vector",
        files=["sonar/sonar.all-data.csv"],
        citation=(
            "Gorman, R. P. & Sejnowski, T. J. (1988). Analysis of hidden units in a layered "
            "network trained to classify sonar targets. Neural Networks 1:75-89. "
            "UCI ML Repository, 'Connectionist Bench (Sonar, Mines vs. Rocks)', doi:10.24432/C5T01Q."
        ),
        licence="CC BY 4.0",
        notes=[
            "208 x 60 features in [0, 1]; last column is the label (R = rock, M = mine).",
            "Stored: X (float64), y = integer codes into target_names = ['M', 'R'].",
        ],
    ),
    "heart": dict(
        kind="vector",
        files=["heart_statlog/heart.dat"],
        citation="UCI ML Repository, 'Statlog (Heart)', doi:10.24432/C57303.",
        licence="CC BY 4.0",
        notes=[
            "270 x 13 attributes (age, sex, chest pain type, resting BP, serum cholesterol, "
            "fasting blood sugar > 120, resting ECG, max heart rate, exercise angina, oldpeak, "
            "slope, number of major vessels, thal); class 1 = absent, 2 = present.",
            "Categorical attributes are kept as the numeric codes of the file (no one-hot encoding).",
        ],
    ),
    "breast_cancer": dict(
        kind="vector",
        files=["breast_cancer_wisconsin/breast-cancer-wisconsin.data"],
        citation=(
            "Wolberg, W. H. (1992). Breast Cancer Wisconsin (Original). UCI ML Repository, "
            "doi:10.24432/C5HP4Z. Mangasarian, O. L. & Wolberg, W. H. (1990). Cancer diagnosis "
            "via linear programming. SIAM News 23(5)."
        ),
        licence="CC BY 4.0",
        notes=[
            "Original Wisconsin file (699 rows); the sample-code-number column is dropped, "
            "9 cytology attributes with values 1-10 remain; class 2 = benign, 4 = malignant.",
            "The 16 '?' entries (all in column 6 of X, Bare Nuclei) are stored as NaN. The loader "
            "drops those rows by default (683 remain) or imputes the column median.",
            "The file has 8 fully duplicated rows and 54 repeated sample ids (kept).",
        ],
    ),
    "wdbc": dict(
        kind="vector",
        files=["breast_cancer_wisconsin/wdbc.data"],
        citation=(
            "Wolberg, W. H., Mangasarian, O. L., Street, N. & Street, W. (1993). Breast Cancer "
            "Wisconsin (Diagnostic). UCI ML Repository, doi:10.24432/C5DW2B."
        ),
        licence="CC BY 4.0",
        notes=[
            "569 x 30 real features; the id column is dropped; label B = benign, M = malignant.",
            "Stored: X (float64), y = integer codes into target_names = ['B', 'M'].",
        ],
    ),
    "diabetes": dict(
        kind="vector",
        files=["pima_indians_diabetes/pima-indians-diabetes.data.csv"],
        citation=(
            "Smith, J. W., Everhart, J. E., Dickson, W. C., Knowler, W. C. & Johannes, R. S. (1988). "
            "Using the ADAP learning algorithm to forecast the onset of diabetes mellitus. Proc. "
            "Symp. Computer Applications in Medical Care, 261-265. Original owner: National "
            "Institute of Diabetes and Digestive and Kidney Diseases."
        ),
        licence="unclear (no longer distributed by UCI; Kaggle lists CC0)",
        notes=[
            "768 x 8 attributes; class 0 = negative, 1 = tested positive.",
            "Missing values are encoded as 0 in the file and are LEFT AS 0 here (zeros: glucose 5, "
            "blood pressure 35, skin fold 227, insulin 374, BMI 11; pregnancies 111 are genuine).",
            "The source file has no final newline; content otherwise identical to the usual copy.",
        ],
    ),
    "ionosphere": dict(
        kind="vector",
        files=["ionosphere/ionosphere.data"],
        citation=(
            "Sigillito, V. G., Wing, S. P., Hutton, L. V. & Baker, K. B. (1989). Classification of "
            "radar returns from the ionosphere using neural networks. Johns Hopkins APL Technical "
            "Digest 10:262-266. UCI ML Repository, 'Ionosphere', doi:10.24432/C5W01B."
        ),
        licence="CC BY 4.0",
        notes=[
            "351 x 34 real features; label g = good, b = bad.",
            "Feature 2 (column index 1) is identically 0; one duplicated row.",
            "Stored: X (float64), y = integer codes into target_names = ['b', 'g'].",
        ],
    ),
    "german": dict(
        kind="vector",
        files=["german_credit_numeric/german.data-numeric"],
        citation="Hofmann, H. (1994). Statlog (German Credit Data). UCI ML Repository, doi:10.24432/C5NC77.",
        licence="CC BY 4.0",
        notes=[
            "Numeric version: 1000 x 24 integer-coded attributes; class 1 = good, 2 = bad.",
        ],
    ),
    "liver": dict(
        kind="vector",
        files=["bupa_liver/bupa.data"],
        citation=(
            "UCI ML Repository, 'Liver Disorders', doi:10.24432/C54G67. Donor R. S. Forsyth; data "
            "from BUPA Medical Research Ltd. McDermott, J. & Forsyth, R. S. (2016). Diagnosing a "
            "disorder in a classification benchmark. Pattern Recognition Letters 73:41-43."
        ),
        licence="CC BY 4.0",
        notes=[
            "345 x 6 features (mcv, alkphos, sgpt, sgot, gammagt, drinks); the header line of this "
            "copy (absent from the UCI file) is skipped.",
            "CAVEAT: column 7 'selector' is, per UCI (McDermott & Forsyth 2016), a train/test split "
            "indicator and not a class label; it is used as the binary label here, as in most SVM "
            "papers (selector 1 = 145 rows, 2 = 200 rows).",
            "4 duplicated rows (341 unique).",
        ],
    ),
    "a1a": dict(
        kind="vector",
        files=["libsvm_a1a/a1a", "libsvm_a1a/a1a.t"],
        citation=(
            "LIBSVM Data: Classification (Binary), C.-C. Chang & C.-J. Lin, "
            "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/. Preprocessing: Platt, J. "
            "(1998). Fast training of support vector machines using sequential minimal "
            "optimization. Underlying data: Becker, B. & Kohavi, R. (1996). Adult. UCI ML "
            "Repository, doi:10.24432/C5XW20."
        ),
        licence="LIBSVM page states no licence; underlying UCI Adult is CC BY 4.0",
        notes=[
            "Binary features from the svmlight file stored as CSR parts per split: <split>_data "
            "(uint8, all ones), <split>_indices (0-based column, uint8), <split>_indptr (int32), "
            "<split>_y (+1/-1), and n_features = 123.",
            "n_features is 123 although the largest index that occurs is 119 (1-based) in both files.",
            "Label +1 = income > 50K (as in the file).",
        ],
    ),
    "usps": dict(
        kind="vector",
        files=["usps/usps.h5"],
        citation=(
            "Hull, J. J. (1994). A database for handwritten text recognition research. IEEE TPAMI "
            "16(5):550-554. Hastie, T., Tibshirani, R. & Friedman, J., The Elements of Statistical "
            "Learning, data page (zip.train / zip.test)."
        ),
        licence="unclear (Kaggle 'usps.h5' by bistaumanga; source repo Apache-2.0)",
        notes=[
            "Kaggle usps.h5: train 7291 x 256, test 2007 x 256 float32 pixels in [0, 1] "
            "(= (ESL zip value + 1) / 2), each row a 16 x 16 image in row-major order; "
            "labels are the digits 0-9.",
            "Stored as float32 (X_train, X_test) and uint8 labels (y_train, y_test).",
        ],
    ),
    "catcortex": dict(
        kind="dissimilarity",
        files=["catcortex/catcortex.npy", "catcortex/catcortex-labels.npy"],
        citation=(
            "Scannell, J. W., Blakemore, C. & Young, M. P. (1995). Analysis of connectivity in the "
            "cat cerebral cortex. J. Neurosci. 15:1463-1483. Graepel, T., Herbrich, R., "
            "Bollmann-Sdorra, P. & Obermayer, K. (1999). Classification on pairwise proximity data. "
            "NIPS 11. Delft PRDisData (R. P. W. Duin & E. Pekalska)."
        ),
        licence="none stated (source repo has no LICENSE file)",
        notes=[
            _DELFT_NPY_NOTE,
            "65 x 65, values 1-4, no entry was clipped; 4 classes with counts 1:10, 2:19, 3:18, 4:18.",
        ],
    ),
    "balls3d": dict(
        kind="dissimilarity",
        files=["balls3d/balls3d.npy", "balls3d/balls3d-labels.npy"],
        citation="Delft PRDisData 'balls3d' (R. P. W. Duin & E. Pekalska), http://prtools.org/disdatasets/.",
        licence="none stated (source repo has no LICENSE file)",
        notes=[
            _DELFT_NPY_NOTE,
            "200 x 200, values 1.508-159.6, no entry was clipped; 2 classes of 100.",
        ],
    ),
    "newsgroups": dict(
        kind="dissimilarity",
        files=["newsgroups/newsgroups.npy", "newsgroups/newsgroups-labels.npy"],
        citation=(
            "Delft PRDisData 'newsgroups' (R. P. W. Duin & E. Pekalska): non-metric "
            "correlation-based dissimilarities between 20-Newsgroups documents (Lang, K. (1995). "
            "NewsWeeder: learning to filter netnews. ICML)."
        ),
        licence="none stated (source repo has no LICENSE file)",
        notes=[
            _DELFT_NPY_NOTE,
            "600 x 600, values in [1e-4, 1]. 95 off-diagonal pairs (190 entries of the square "
            "matrix) equal 1e-4: they were exact zeros in the original and were clipped by the "
            "upstream conversion. Stored AS IN THE FILE; the loader restores them to 0 by default "
            "(restore_zeros=True).",
            "4 classes with counts 1:170, 2:125, 3:102, 4:203.",
        ],
    ),
    "protein": dict(
        kind="dissimilarity",
        files=["protein/protein.RData"],
        citation=(
            "Hofmann, T. & Buhmann, J. M. (1997). Pairwise data clustering by deterministic "
            "annealing. IEEE TPAMI 19(1):1-14. Graepel et al. (1999), NIPS 11. Denoeux, T. & "
            "Masson, M.-H. (2004). EVCLUS: evidential clustering of proximity data. IEEE SMC-B "
            "34(1):95-109. Data from the R package evclust 2.0.3 (T. Denoeux)."
        ),
        licence="GPL-3 (R package evclust)",
        notes=[
            "213 x 213 symmetric evolutionary-distance matrix (protein$D), zero diagonal, range 0-13.64.",
            "Labels protein$y: 1 = HA, 2 = HB, 3 = M, 4 = G (counts 72, 72, 39, 30); target_names "
            "= ['HA', 'HB', 'M', 'G'] with target_names[k - 1] the name of class k.",
            "This is the 213-protein subset commonly used, not the 226-protein Hofmann-Buhmann original.",
        ],
    ),
    "coilyork": dict(
        kind="dissimilarity",
        files=["coilyork/CoilYork.mat"],
        citation=(
            "Delft PRDisData 'coilyork' (R. P. W. Duin & E. Pekalska): graph-matching "
            "dissimilarities between COIL images. Binary train/test version from Xu, H.-M., Xue, H., "
            "Chen, X.-H. & Wang, Y.-Y. (2017). Solving indefinite kernel support vector machine "
            "with difference of convex functions programming. AAAI (repo HeimingX/IKSVM-DC)."
        ),
        licence="repo README: free for academic, non-profit purposes (no formal licence)",
        notes=[
            "Stored as in the file: train_K 144 x 144 (train vs train), test_K 144 x 144, both "
            "uint16; train_y, test_y int16 in {-1, +1}, 72/72 each.",
            "test_K has the TRAINING objects as rows and the test objects as columns: its row "
            "means correlate 0.998 with the training objects' mean dissimilarities in train_K, "
            "its column means -0.07, and the IKSVM-DC code predicts with beta' * test_K. The "
            "loader returns its transpose (test objects as rows) for split='test' / 'both'.",
            "train_K has a zero diagonal but is NOT symmetric (max |K - K'| = 72); the loader "
            "symmetrizes by (D + D') / 2 by default.",
            "The test-vs-test block is not in the file, so the full 288 x 288 matrix cannot be built.",
            "Not the original 288-object, 4-class PRDisData CoilYork: a preprocessed binary split; "
            "how the 4 classes were merged into +/-1 is undocumented.",
        ],
    ),
    "aural-sonar": dict(
        kind="similarity",
        files=["chen2009/AuraSonar.mat"],
        citation=_CHEN_CITATION + " Data: Philips, S., Pitton, J. & Atlas, L. (2006). Perceptual "
                 "feature identification for active sonar echoes. Proc. IEEE OCEANS.",
        licence=_CHEN_LICENCE,
        notes=_CHEN_NOTES + [
            "100 sonar echoes, 2 classes with 50 each; similarities as published by Chen et al. "
            "(2009). 38 negative eigenvalues, least -2.096, largest 35.07.",
        ],
    ),
    "protein-similarity": dict(
        kind="similarity",
        files=["chen2009/Protein.mat"],
        citation=_CHEN_CITATION + " Data: Hofmann, T. & Buhmann, J. M. (1997). Pairwise data "
                 "clustering by deterministic annealing. IEEE TPAMI 19(1):1-14.",
        licence=_CHEN_LICENCE,
        notes=_CHEN_NOTES + [
            "213 proteins, 4 classes with 72 / 72 / 39 / 30: the same proteins and classes as the "
            "'protein' dissimilarity set (evclust) in another representation (similarities; "
            "correlation with -D 0.69, shared/data/MANIFEST.md §12). 40 negative eigenvalues, "
            "least -12.43, largest 72.00.",
            "420 off-diagonal entries equal 1 (the largest similarity), 388 of them between "
            "classes 1 and 2: the most similar other object is of another class for most "
            "objects (leave-one-out 1-NN on S: 23 %), while the class blocks differ in their "
            "means (within 0.45-0.59 for classes 1-3, across 0.08-0.43).",
        ],
    ),
    "voting": dict(
        kind="similarity",
        files=["chen2009/Voting.mat"],
        citation=_CHEN_CITATION + " Data: UCI ML Repository, 'Congressional Voting "
                 "Records' (1984 votes of the U.S. House of Representatives).",
        licence=_CHEN_LICENCE,
        notes=_CHEN_NOTES + [
            "435 representatives, 2 classes with 267 / 168 (labels as in C); similarities as "
            "published by Chen et al. (2009). 163 negative eigenvalues (below "
            "-1e-12 of the largest; the next ones are round-off, |lambda| < 1e-16 of it), least "
            "-0.267, largest 239.3.",
        ],
    ),
    "yeast": dict(
        kind="similarity",
        files=["chen2009/Yeast.mat"],
        citation=_CHEN_CITATION + " Data: Lanckriet, G. R. G., Deng, M., Cristianini, N., Jordan, "
                 "M. I. & Noble, W. S. (2004). Kernel-based data fusion and its application to "
                 "protein function prediction in yeast. Pacific Symposium on Biocomputing.",
        licence=_CHEN_LICENCE,
        notes=_CHEN_NOTES + [
            "200 yeast proteins, 2 classes with 100 each; similarities as published by Chen et al. "
            "(2009). 96 negative eigenvalues, least -6.755, largest 107.9.",
        ],
    ),
}


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------
def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def verify_sources(src: Path) -> None:
    """Check every source file's sha256; exit with a clear message on any problem."""
    problems = []
    for rel, expected in EXPECTED_SHA256.items():
        p = src / rel
        if not p.is_file():
            problems.append(f"missing file: {p}")
            continue
        got = sha256_file(p)
        if got != expected:
            problems.append(f"sha256 mismatch for {rel}:\n    expected {expected}\n    got      {got}")
    if problems:
        raise SystemExit(
            "convert_datasets.py: source verification FAILED (data dir %s):\n  %s"
            % (src, "\n  ".join(problems))
        )


def save_npz_deterministic(path: Path, arrays: dict) -> None:
    """Like ``np.savez_compressed`` but with fixed member timestamps (byte-reproducible)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, mode="w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
        for key, value in arrays.items():
            arr = np.asanyarray(value)
            if arr.dtype.hasobject:
                raise TypeError(f"refusing to store object array {key!r}")
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            with zf.open(info, mode="w", force_zip64=True) as fh:
                np.lib.format.write_array(fh, arr, allow_pickle=False)
    path.write_bytes(buf.getvalue())


def _codes(labels):
    """String labels -> (int codes, sorted unique names)."""
    names, codes = np.unique(np.asarray(labels), return_inverse=True)
    return codes.astype(np.int8), names.astype(str)


def _count(y, names=None) -> dict:
    vals, cnt = np.unique(y, return_counts=True)
    out = {}
    for v, c in zip(vals.tolist(), cnt.tolist()):
        key = str(names[v]) if names is not None else str(v)
        out[key] = int(c)
    return out


def _read_text(path: Path) -> list[str]:
    text = path.read_text(encoding="ascii")
    return [ln for ln in text.splitlines() if ln.strip()]


def _csv_rows(path: Path, sep=",", skip=0) -> list[list[str]]:
    lines = _read_text(path)[skip:]
    if sep is None:
        return [ln.split() for ln in lines]
    return [[f.strip() for f in ln.split(sep)] for ln in lines]


def _check(cond, msg):
    if not cond:
        raise SystemExit(f"convert_datasets.py: sanity check failed: {msg}")


#: Regression sets that read another set's file: its feature column ``index`` is the real
#: target (``krein.datasets.load`` drops it from the features).
DERIVED = {
    "liver-drinks": dict(
        of="liver",
        target={"column": "drinks", "index": 5, "n": 345},
        citation="UCI ML Repository, 'Liver Disorders', doi:10.24432/C54G67. Donor R. S. Forsyth; data from BUPA Medical Research Ltd. McDermott, J. & Forsyth, R. S. (2016). Diagnosing a disorder in a classification benchmark. Pattern Recognition Letters 73:41-43 (drinks is the documented target).",
        notes=['The file of the liver set (liver.npz): features mcv, alkphos, sgpt, sgot, gammagt (X columns 0-4); the regression target drinks (X column 5, half-pint equivalents of alcoholic beverages drunk per day, values 0-20).', "McDermott & Forsyth (2016) show that the 'selector' column is a train/test split indicator and that drinks is the variable the data set was collected to predict; thresholding drinks gives a classification task, the real value a regression task.", '4 duplicated rows (341 unique).'],
    ),
}


# --------------------------------------------------------------------------
# converters: each returns (arrays: dict, label_counts: dict)
# --------------------------------------------------------------------------
def conv_sonar(src):
    rows = _csv_rows(src / "sonar/sonar.all-data.csv")
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    y, names = _codes([r[-1] for r in rows])
    _check(X.shape == (208, 60), f"sonar shape {X.shape}")
    return {"X": X, "y": y, "target_names": names}, _count(y, names)


def conv_heart(src):
    rows = _csv_rows(src / "heart_statlog/heart.dat", sep=None)
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    y = np.array([int(r[-1]) for r in rows], dtype=np.int8)
    _check(X.shape == (270, 13), f"heart shape {X.shape}")
    return {"X": X, "y": y}, _count(y)


def conv_breast_cancer(src):
    rows = _csv_rows(src / "breast_cancer_wisconsin/breast-cancer-wisconsin.data")
    _check(all(len(r) == 11 for r in rows), "breast_cancer: 11 columns")
    X = np.array([[np.nan if v == "?" else float(v) for v in r[1:-1]] for r in rows])
    y = np.array([int(r[-1]) for r in rows], dtype=np.int8)
    nan_rows, nan_cols = np.nonzero(np.isnan(X))
    _check(X.shape == (699, 9) and len(nan_rows) == 16 and set(nan_cols.tolist()) == {5},
           "breast_cancer: 699 x 9 with 16 '?' in Bare Nuclei")
    return {"X": X, "y": y}, _count(y)


def conv_wdbc(src):
    rows = _csv_rows(src / "breast_cancer_wisconsin/wdbc.data")
    X = np.array([[float(v) for v in r[2:]] for r in rows])
    y, names = _codes([r[1] for r in rows])
    _check(X.shape == (569, 30), f"wdbc shape {X.shape}")
    return {"X": X, "y": y, "target_names": names}, _count(y, names)


def conv_diabetes(src):
    rows = _csv_rows(src / "pima_indians_diabetes/pima-indians-diabetes.data.csv")
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    y = np.array([int(r[-1]) for r in rows], dtype=np.int8)
    _check(X.shape == (768, 8), f"diabetes shape {X.shape}")
    return {"X": X, "y": y}, _count(y)


def conv_ionosphere(src):
    rows = _csv_rows(src / "ionosphere/ionosphere.data")
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    y, names = _codes([r[-1] for r in rows])
    _check(X.shape == (351, 34), f"ionosphere shape {X.shape}")
    return {"X": X, "y": y, "target_names": names}, _count(y, names)


def conv_german(src):
    rows = _csv_rows(src / "german_credit_numeric/german.data-numeric", sep=None)
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    y = np.array([int(r[-1]) for r in rows], dtype=np.int8)
    _check(X.shape == (1000, 24), f"german shape {X.shape}")
    return {"X": X, "y": y}, _count(y)


def conv_liver(src):
    path = src / "bupa_liver/bupa.data"
    header = _read_text(path)[0]
    _check(header.startswith("MCV,"), f"liver: unexpected header {header!r}")
    rows = _csv_rows(path, skip=1)
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    y = np.array([int(r[-1]) for r in rows], dtype=np.int8)
    _check(X.shape == (345, 6), f"liver shape {X.shape}")
    return {"X": X, "y": y}, _count(y)


def _parse_svmlight(path: Path, n_features: int):
    """Strict parser for binary-valued svmlight files -> CSR parts (0-based indices)."""
    labels, indices, indptr = [], [], [0]
    for ln in _read_text(path):
        tok = ln.split()
        labels.append(int(tok[0]))
        prev = 0
        for t in tok[1:]:
            i, v = t.split(":")
            i = int(i)
            _check(v == "1", f"{path.name}: non-binary value {t!r}")
            _check(prev < i <= n_features, f"{path.name}: bad or unsorted index {i}")
            prev = i
            indices.append(i - 1)
        indptr.append(len(indices))
    return (
        np.ones(len(indices), dtype=np.uint8),
        np.array(indices, dtype=np.uint8),
        np.array(indptr, dtype=np.int32),
        np.array(labels, dtype=np.int8),
    )


def conv_a1a(src):
    arrays, counts = {"n_features": np.int64(123)}, {}
    for split, fname in (("train", "a1a"), ("test", "a1a.t")):
        data, ind, ptr, y = _parse_svmlight(src / "libsvm_a1a" / fname, 123)
        arrays.update({f"{split}_data": data, f"{split}_indices": ind,
                       f"{split}_indptr": ptr, f"{split}_y": y})
        counts[split] = _count(y)
    _check(len(arrays["train_y"]) == 1605 and len(arrays["test_y"]) == 30956, "a1a row counts")
    return arrays, counts


def conv_usps(src):
    import h5py

    arrays, counts = {}, {}
    with h5py.File(src / "usps/usps.h5", "r") as f:
        for split in ("train", "test"):
            X = np.asarray(f[split]["data"][:], dtype=np.float32)
            y = np.asarray(f[split]["target"][:])
            _check(y.min() >= 0 and y.max() <= 9, "usps labels 0-9")
            arrays[f"X_{split}"] = X
            arrays[f"y_{split}"] = y.astype(np.uint8)
            counts[split] = _count(y)
    _check(arrays["X_train"].shape == (7291, 256) and arrays["X_test"].shape == (2007, 256), "usps shapes")
    return arrays, counts


def _delft(src, name, n):
    v = np.load(src / name / f"{name}.npy", allow_pickle=False)
    y = np.load(src / name / f"{name}-labels.npy", allow_pickle=False)
    _check(v.ndim == 1 and v.size == n * (n - 1) // 2, f"{name}: condensed length")
    D = np.zeros((n, n), dtype=np.float64)
    iu = np.triu_indices(n, k=1)  # same order as scipy.spatial.distance.squareform
    D[iu] = v
    D.T[iu] = v
    return {"D": D, "y": y.astype(np.int8)}, _count(y)


def conv_catcortex(src):
    return _delft(src, "catcortex", 65)


def conv_balls3d(src):
    return _delft(src, "balls3d", 200)


def conv_newsgroups(src):
    return _delft(src, "newsgroups", 600)


def conv_protein(src):
    import rdata

    obj = rdata.conversion.convert(rdata.parser.parse_file(src / "protein/protein.RData"))["protein"]
    D = np.asarray(obj["D"], dtype=np.float64)
    yf = np.asarray(obj["y"], dtype=np.float64)
    y = yf.astype(np.int8)
    _check(np.array_equal(y, yf) and set(y.tolist()) == {1, 2, 3, 4}, "protein y in 1..4")
    cls = np.asarray(obj["class"], dtype=str)
    names = np.array(["HA", "HB", "M", "G"])
    _check(np.array_equal(names[y - 1], cls), "protein: y and class factor disagree")
    _check(D.shape == (213, 213) and np.array_equal(D, D.T) and not np.any(np.diag(D)), "protein D")
    return {"D": D, "y": y, "target_names": names}, _count(y - 1, names)


def conv_coilyork(src):
    import scipy.io

    m = scipy.io.loadmat(src / "coilyork/CoilYork.mat")
    arrays = {
        "train_K": np.ascontiguousarray(m["train_K"]),
        "test_K": np.ascontiguousarray(m["test_K"]),
        "train_y": np.ascontiguousarray(m["train_y"].ravel()),
        "test_y": np.ascontiguousarray(m["test_y"].ravel()),
    }
    _check(arrays["train_K"].shape == (144, 144) and arrays["test_K"].shape == (144, 144), "coilyork shapes")
    return arrays, {"train": _count(arrays["train_y"]), "test": _count(arrays["test_y"])}


def conv_chen2009(name):
    """Converter of one Chen et al. (2009) similarity set (``CHEN2009``)."""
    def conv(src):
        import scipy.io

        stem, n, counts = CHEN2009[name]
        m = scipy.io.loadmat(src / "chen2009" / f"{stem}.mat")
        S = np.ascontiguousarray(m["A"], dtype=np.float64)
        y = np.ascontiguousarray(m["C"].ravel(), dtype=np.int64)
        _check(S.shape == (n, n) and y.shape == (n,), f"{name}: shapes {S.shape}, {y.shape}")
        _check(np.array_equal(S, S.T) and np.all(np.diag(S) == 1.0),
               f"{name}: A symmetric with unit diagonal")
        _check(np.array_equal(np.bincount(y)[1:], counts), f"{name}: class counts {counts}")
        return {"S": S, "y": y}, _count(y)
    return conv


CONVERTERS = {
    "sonar": conv_sonar,
    "heart": conv_heart,
    "breast_cancer": conv_breast_cancer,
    "wdbc": conv_wdbc,
    "diabetes": conv_diabetes,
    "ionosphere": conv_ionosphere,
    "german": conv_german,
    "liver": conv_liver,
    "a1a": conv_a1a,
    "usps": conv_usps,
    "catcortex": conv_catcortex,
    "balls3d": conv_balls3d,
    "newsgroups": conv_newsgroups,
    "protein": conv_protein,
    "coilyork": conv_coilyork,
    **{name: conv_chen2009(name) for name in CHEN2009},
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, default=DEFAULT_SRC, help="raw data dir (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output dir (default: %(default)s)")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args(argv)
    src, out = args.src.resolve(), args.out.resolve()

    verify_sources(src)
    out.mkdir(parents=True, exist_ok=True)
    sources = {}
    total = 0
    for name, conv in CONVERTERS.items():
        meta = META[name]
        arrays, counts = conv(src)
        npz = out / f"{name}.npz"
        save_npz_deterministic(npz, arrays)
        size = npz.stat().st_size
        total += size
        sources[name] = {
            "kind": meta["kind"],
            "file": npz.name,
            "sha256": sha256_file(npz),
            "bytes": size,
            "sources": [
                {"path": rel, "sha256": EXPECTED_SHA256[rel], "origin": ORIGIN[rel]}
                for rel in meta["files"]
            ],
            "arrays": {k: {"shape": list(np.shape(v)), "dtype": str(np.asarray(v).dtype)}
                       for k, v in arrays.items()},
            "label_counts": counts,
            "citation": meta["citation"],
            "licence": meta["licence"],
            "notes": meta["notes"],
        }
        if not args.quiet:
            print(f"{name:18s} {size:>10,d} B  {npz}")
    for name, meta in DERIVED.items():
        base = sources[meta["of"]]
        sources[name] = {**{k: base[k] for k in ("kind", "file", "sha256", "bytes", "sources",
                                                 "arrays", "licence")},
                         "task": "regression", "target": meta["target"],
                         "citation": meta["citation"], "notes": meta["notes"]}
    doc = {
        "about": (
            "Generated by scripts/convert_datasets.py from the raw files described in "
            "shared/data/MANIFEST.md; source paths are relative to that data directory. "
            "Label counts are of the raw labels as stored."
        ),
        "datasets": sources,
    }
    (out / "SOURCES.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if not args.quiet:
        print(f"total {total:,d} B in {len(sources)} files; wrote {out / 'SOURCES.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
