"""scikit-learn estimators (thin: they wire formulations to solvers)."""

from .base import KernelClassifierBase, KernelMixin
from .indefinite import IndefiniteOneClassSVM, IndefiniteSVC, IndefiniteSVR, PerturbSVC
from .lpsvm import LPSVC
from .svm import ESVC, DirectSVC, SpectrumSVC

__all__ = ["KernelClassifierBase", "KernelMixin", "ESVC", "SpectrumSVC", "DirectSVC", "LPSVC",
           "IndefiniteSVC", "IndefiniteSVR", "IndefiniteOneClassSVM", "PerturbSVC"]
