"""Former home of ACCPM: now :mod:`krein.solvers.indefinite.accpm`.

Kept so that ``from krein.solvers.accpm import accpm`` goes on working while
importers move to :mod:`krein.solvers.indefinite`.
"""

from .indefinite.accpm import EXACT_EVERY, accpm

__all__ = ["accpm", "EXACT_EVERY"]
