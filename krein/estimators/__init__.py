"""scikit-learn estimators (thin: they wire formulations to solvers)."""

from .base import KernelClassifierBase
from .lpsvm import LPSVC
from .svm import ESVC, DirectSVC, SpectrumSVC

__all__ = ["KernelClassifierBase", "ESVC", "SpectrumSVC", "DirectSVC", "LPSVC"]
