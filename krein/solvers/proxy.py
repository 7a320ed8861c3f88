"""Former home of the IndefiniteSVM oracle: now :mod:`krein.solvers.indefinite.oracle`.

Kept so that ``from krein.solvers.proxy import ProxyKernelOracle`` goes on working
while importers outside the IndefiniteSVM family move to :mod:`krein.solvers.indefinite`.
"""

from .indefinite.oracle import SECULAR_METHODS, ProxyEval, ProxyKernelOracle

__all__ = ["ProxyKernelOracle", "ProxyEval", "SECULAR_METHODS"]
