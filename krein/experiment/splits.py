"""The outer splits of the classification protocol and the per-object record of a fold.

:func:`krein.experiment.classification.outer_splits` draws a cell's outer
split through :func:`split_indices`, one of :data:`OUTER_SPLITS`:

* ``"kfold"``: repeated stratified K-fold (Loosli et al. 2013 §6.3), or exact
  leave-one-out with ``outer_folds = "loo"`` (:data:`LOO`; Haasdonk 2005, Table 1);
* ``"shuffle"``: repeated stratified random splits with a test fraction
  (:class:`sklearn.model_selection.StratifiedShuffleSplit`; Chen, Garcia,
  Gupta, Rahimi & Cazzanti, JMLR 10:747-776, 2009, §5: 20 random 80/20 splits);
* ``"predefined"``: the data's own train/test split, one fold
  (:meth:`krein.kernel_data.KernelData.test_blocks`).

:func:`fold_correctness` is the ``test_correct`` column of a fold row: which
test objects a method got right, for paired tests of two methods on the same
objects.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["LOO", "OUTER_SPLITS", "check_outer_split", "split_indices", "fold_correctness"]

#: ``outer_folds`` value of exact leave-one-out (:func:`split_indices`): one fold per object.
LOO = "loo"

#: Outer schemes of :func:`krein.experiment.classification_grid` (``outer_split``).
OUTER_SPLITS = ("kfold", "shuffle", "predefined")


def check_outer_split(outer_split, test_size, outer_folds):
    """Check an outer scheme, its test fraction and the fold count of a predefined split.

    Parameters
    ----------
    outer_split : str
        One of :data:`OUTER_SPLITS`.
    test_size : float
        Test fraction of a ``"shuffle"`` split, in (0, 1) (not checked otherwise).
    outer_folds : int or str
        The number of folds; must be 1 for ``"predefined"``.

    Returns
    -------
    str
        ``outer_split``.

    Raises
    ------
    ValueError
        An unknown scheme, a ``test_size`` outside (0, 1) for ``"shuffle"``,
        ``outer_folds != 1`` for ``"predefined"``.
    """
    if not isinstance(outer_split, str) or outer_split not in OUTER_SPLITS:
        raise ValueError(f"outer_split must be one of {OUTER_SPLITS}; got {outer_split!r}")
    ok = isinstance(test_size, numbers.Real) and not isinstance(test_size, bool) \
        and 0 < test_size < 1
    if outer_split == "shuffle" and not ok:
        raise ValueError(f"test_size must be a fraction in (0, 1); got {test_size!r}")
    if outer_split == "predefined" and outer_folds != 1:
        raise ValueError(f"outer_split='predefined' has one fold: outer_folds must be 1; got "
                         f"{outer_folds!r}")
    return outer_split


def split_indices(outer_split, outer_folds, test_size, random_state, y, n_test=None, *,
                  stratify=True):
    """Training and test indices of every fold of one outer scheme.

    Parameters
    ----------
    outer_split : {"kfold", "shuffle", "predefined"}
        The scheme (module docstring).
    outer_folds : int or "loo"
        ``"kfold"``: ``StratifiedKFold(outer_folds, shuffle=True,
        random_state=random_state)``, or :data:`LOO` (``LeaveOneOut``, no seed);
        ``"shuffle"``: ``StratifiedShuffleSplit(n_splits=outer_folds,
        test_size=test_size, random_state=random_state)``; ``"predefined"``: 1.
    test_size : float
        Test fraction of ``"shuffle"``.
    random_state : int
        Seed of the splitter.
    y : array of shape (n,)
        Labels (of the training part with ``"predefined"``).
    n_test : int, optional
        ``"predefined"``: the size of the data's test part.
    stratify : bool, default True
        False (real targets, ``task="regression"``): ``KFold`` and
        ``ShuffleSplit`` with the same arguments instead of their stratified
        versions.

    Returns
    -------
    list of (ndarray, ndarray)
        One pair per fold; ``"predefined"``: ``(arange(n), arange(n_test))``,
        the test indices into the test part.

    Raises
    ------
    ValueError
        ``"predefined"`` without ``n_test``.
    """
    from sklearn.model_selection import (KFold, LeaveOneOut, ShuffleSplit, StratifiedKFold,
                                         StratifiedShuffleSplit)

    zeros = np.zeros((len(y), 1))
    if outer_split == "predefined":
        if not n_test:
            raise ValueError("outer_split='predefined' needs the data's test part (n_test > 0)")
        return [(np.arange(len(y)), np.arange(int(n_test)))]
    if outer_folds == LOO:
        return list(LeaveOneOut().split(zeros))
    if outer_split == "shuffle":
        splitter = (StratifiedShuffleSplit if stratify else ShuffleSplit)(
            n_splits=outer_folds, test_size=test_size, random_state=random_state)
    else:
        splitter = (StratifiedKFold if stratify else KFold)(outer_folds, shuffle=True,
                                                            random_state=random_state)
    return list(splitter.split(zeros, y))


def fold_correctness(y_true, y_pred):
    """Per-object correctness of a fold's predictions: the ``test_correct`` of a fold row.

    Parameters
    ----------
    y_true, y_pred : array of shape (n_test,)
        True and predicted labels of the fold's test objects, in test-index order.

    Returns
    -------
    str
        One character per test object, ``"1"`` where the prediction is right
        and ``"0"`` where it is wrong (for paired tests of two methods on the
        same objects, e.g. McNemar's); its mean is the fold's accuracy.
    """
    return "".join("1" if ok else "0" for ok in np.asarray(y_true) == np.asarray(y_pred))
