"""Former home of the exchange method: now :mod:`krein.solvers.indefinite.exchange`.

Kept so that ``from krein.solvers.exchange import exchange`` goes on working while
importers (``krein.experiment.solver_study``) move to :mod:`krein.solvers.indefinite`.
"""

from .indefinite.exchange import FALLBACK_SOLVERS, exchange, exchange_bound, new_cut

#: The former private name of :func:`new_cut` (``krein.experiment.solver_study`` imports it).
_new_cut = new_cut

__all__ = ["exchange", "exchange_bound", "new_cut", "FALLBACK_SOLVERS"]
