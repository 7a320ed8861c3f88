"""scikit-learn estimators (thin: they wire formulations to solvers)."""

from .base import KernelClassifierBase, KernelMixin
from .bending import Bending
from .clc import ConformalLinearCombination
from .conformal import ConformalTransformation
from .embedding import PseudoEuclideanKNeighbors, PseudoEuclideanPCA
from .dc import DCSVC
from .corrected import CorrectedKernelSVC
from .esvr import ESVR
from .hull import ConvexHullClassifier
from .indefinite import IndefiniteOneClassSVM, IndefiniteSVC, IndefiniteSVR, PerturbSVC
from .ksvm import KSVC
from .lpsvm import LPSVC
from .modsvm import ModSVC
from .nearest_mean import PseudoEuclideanNearestMean
from .nearest_psd import NearestPSD
from .neighbors import AffinityKNeighborsClassifier, KernelKNeighborsClassifier
from .regression import CorrectedKernelRidge, KernelKNeighborsRegressor
from .novelty import CorrectedOneClassSVM, KernelKNeighborsOutlier
from .rkks import KreinLeastSquaresClassifier, KreinLeastSquaresRegressor
from .rvm import RVC
from .similarity_space import SimilaritySpaceSVC
from .svm import ESVC, DirectSVC, SpectrumSVC

__all__ = ["KernelClassifierBase", "KernelMixin", "ESVC", "SpectrumSVC", "DirectSVC", "LPSVC",
           "IndefiniteSVC", "IndefiniteSVR", "IndefiniteOneClassSVM", "PerturbSVC", "KSVC",
           "ConvexHullClassifier", "ModSVC", "RVC", "CorrectedKernelSVC", "Bending",
           "ConformalTransformation", "ConformalLinearCombination", "NearestPSD",
           "KernelKNeighborsClassifier", "AffinityKNeighborsClassifier", "SimilaritySpaceSVC",
           "PseudoEuclideanNearestMean", "PseudoEuclideanPCA", "PseudoEuclideanKNeighbors", "DCSVC",
           "KreinLeastSquaresClassifier", "KreinLeastSquaresRegressor", "ESVR",
           "CorrectedKernelRidge", "KernelKNeighborsRegressor",
           "CorrectedOneClassSVM", "KernelKNeighborsOutlier"]
