"""The approximation spec: the ``approximation`` text ``"nystroem:M[:LANDMARKS]"``.

:func:`check_approximation` parses and checks the text (the ``--approximation``
option of ``krein compare``, the ``approximation`` argument of the loaders of
:mod:`krein.kernel_data`), :func:`make_approximation` builds the unfitted
:class:`krein.approximation.IndefiniteNystroem` it names, and
:func:`approximation_spectrum` is the spectrum of the rank-``r`` approximation
of an ``n x n`` kernel (its ``r`` nonzero eigenvalues, the other ``n - r``
counted as zero).

Feature vectors (shipped vector or synthetic sets, a feature file) with a
row-wise kernel of :data:`krein.kernels.KERNELS` are approximated by
``"nystroem:M"``: the front end draws the landmarks and computes their kernel
columns.  A matrix file of landmark columns (``n x m`` kernel values or
dissimilarities of every object to ``m`` landmark objects, with the landmarks'
row indices; :func:`krein.kernel_data.load_landmark_file`) is approximated by
``"landmarks"``: the columns are given, and the front end is built from the
data's landmark block (:func:`make_approximation` with ``landmark_block``).  A
square dissimilarity or kernel matrix already is ``n x n``, and the pick-out
kernels are label-dependent ``n x n`` combinations (:class:`InvalidArgument`
naming ``approximation``).
"""

from __future__ import annotations

import numpy as np

from ._validation import InvalidArgument
from .kernels import KERNELS
from .spectrum import Spectrum, null_tolerance

__all__ = ["APPROXIMATIONS", "LANDMARK_COLUMNS", "check_approximation", "make_approximation",
           "approximation_spectrum", "check_approximable"]

#: Low-rank front ends of ``approximation`` (:func:`check_approximation`) and their
#: landmark methods (:data:`krein.approximation.LANDMARK_METHODS`).
APPROXIMATIONS = {"nystroem": ("uniform", "kmeans++")}

_APPROXIMATION_FORM = ("None or 'nystroem:M' (M >= 1 landmarks; 'nystroem:M:kmeans++' "
                       "spreads them by k-means++ seeding)")

#: The approximation of landmark columns given with the data (``--landmarks``).
LANDMARK_COLUMNS = "landmarks"


def check_approximation(approximation):
    """Check an ``approximation`` argument; return its canonical text.

    Parameters
    ----------
    approximation : str or None
        None (the exact ``n x n`` kernel), ``"nystroem:M"`` (an
        :class:`krein.approximation.IndefiniteNystroem` with ``M`` uniformly
        drawn landmarks) or ``"nystroem:M:LANDMARKS"`` with ``LANDMARKS`` one
        of ``"uniform"``, ``"kmeans++"``; or ``"landmarks"``
        (:data:`LANDMARK_COLUMNS`: the data are landmark columns, whose landmark
        block makes the front end).

    Returns
    -------
    str or None
        ``"nystroem:M"`` or ``"nystroem:M:kmeans++"`` (uniform landmarks are
        the default and left out), ``"landmarks"``, or None.

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
    if approximation.strip().lower() == LANDMARK_COLUMNS:
        return LANDMARK_COLUMNS
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


def make_approximation(approximation, random_state=None, kernel="sigmoid", kernel_params=None,
                       landmark_block=None):
    """The front end of an ``approximation`` text, unfitted.

    Parameters
    ----------
    approximation : str
        ``"nystroem:M[:LANDMARKS]"`` or ``"landmarks"`` (:func:`check_approximation`).
    random_state : int, optional
        Seed of the landmark choice.
    kernel : str
        Kernel name (an estimator with ``approximation`` sets its own).
    kernel_params : dict, optional
        Kernel parameters (likewise).
    landmark_block : ndarray of shape (m, m), optional
        With ``"landmarks"``: the kernel among the landmarks, ``W`` (required).

    Returns
    -------
    krein.approximation.IndefiniteNystroem
        With ``n_components = M`` and the landmark method; for ``"landmarks"``
        ``kernel="precomputed"`` and ``landmark_block=W``.

    Raises
    ------
    ValueError
        ``"landmarks"`` without ``landmark_block``.
    """
    from .approximation import IndefiniteNystroem

    if check_approximation(approximation) == LANDMARK_COLUMNS:
        if landmark_block is None:
            raise ValueError("approximation 'landmarks' needs the landmark block W "
                             "(landmark_block)")
        return IndefiniteNystroem(kernel="precomputed", landmark_block=landmark_block,
                                  random_state=random_state)
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
    lam = np.sort(np.asarray(eigenvalues, dtype=float))
    return Spectrum(lam, None, int(n), partial=True, total_abs=float(np.abs(lam).sum()),
                    tol=null_tolerance(lam, int(n)))


def check_approximable(approximation, kind, kernel, what):
    """Check that data of a kind with a kernel can be approximated.

    An approximated run needs feature vectors and a row-wise named kernel.

    Parameters
    ----------
    approximation : str or None
        A checked ``approximation`` (:func:`check_approximation`); None passes.
    kind : {"vector", "synthetic", "dissimilarity", "kernel"}
        The data's kind.
    kernel : str
        The kernel name.
    what : str
        The data as the message names them, e.g. ``"data set 'sonar'"``.

    Raises
    ------
    InvalidArgument
        Naming ``approximation``: a dissimilarity or kernel matrix, or a kernel
        outside :data:`krein.kernels.KERNELS` (the pick-out kernels).
    """
    if approximation is None:
        return
    if approximation == LANDMARK_COLUMNS:
        raise InvalidArgument("approximation", f"'landmarks' is the approximation of landmark "
                                               f"columns (a matrix file with its landmarks' row "
                                               f"indices: --landmarks); {what} has none")
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
