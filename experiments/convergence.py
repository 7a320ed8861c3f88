"""Former name of ``luss_fig1.py`` (Luss & d'Aspremont 2009 Fig. 1), kept so that
``krein experiment run experiments/convergence.py`` still works.

The first attempt here (n = 200, C = rho = 1, ten subsets, 500 iterations) found
the opposite of the paper; ``luss_fig1.py`` runs it among controlled variants and
``experiments/README.md`` ("Luss & d'Aspremont (2007, 2009): Figs. 1-2") explains
the difference.  Same experiment, same results directory name (``luss_fig1``).
"""

from pathlib import Path

from krein.experiment import import_script

_fig1 = import_script(Path(__file__).resolve().with_name("luss_fig1.py"))
experiment = _fig1.experiment
fig1_cell = _fig1.fig1_cell
