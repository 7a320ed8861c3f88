"""The one ``fit`` wrapper of every krein estimator and transformer.

Every public ``fit`` in krein is decorated with :func:`fit_wrapper`.  It gives
all of them the same contract:

1. every fitted attribute (a name ending in ``_``, :func:`fitted_attributes`) is
   removed, so a refit never leaves the previous model looking like the current
   one; an estimator with ``warm_start=True`` first hands its previous solution
   to the body (:func:`warm_starts`), which may start its solver there;
2. scikit-learn's declarative parameter validation runs
   (``sklearn.base._fit_context``: ``_parameter_constraints`` is checked, and
   nested estimators skip their own validation where
   ``prefer_skip_nested_validation`` says so);
3. the estimator's ``_check_params()``, where it has one (checks that involve
   several parameters, after the declarative ones);
4. with ``probability=True`` on an estimator that has ``_fit_platt``
   (:class:`krein.estimators.base.ProbabilityMixin`), Platt scaling on internal
   cross-validation takes the place of the body: it fits the model itself
   (its full fit is one of its calibration fits) and the sigmoid;
5. otherwise the decorated body;
6. on any exception the fitted attributes are removed again and the exception
   is raised: nothing half-fitted survives a failure, and an earlier fit does not
   survive a refit with rejected parameters;
7. steps 2-5 run under the BLAS-thread policy of :mod:`krein._threads` for the
   number of rows given (one thread for at most ``SMALL_KERNEL`` rows under the
   default ``"auto"``; ``krein.blas_threads`` overrides it).

This module imports only the standard library, scikit-learn and
:mod:`krein._threads`, so every module of krein can use it.
"""

from __future__ import annotations

import contextlib
import functools

from sklearn.base import _fit_context

from ._threads import fit_threads

__all__ = ["fit_wrapper", "fitted_attributes", "reset_fitted", "uses_fit_wrapper",
           "numpy_output", "warm_starts", "FIT_WRAPPER_MARKER"]

#: Name of the attribute :func:`fit_wrapper` sets (to True) on the ``fit`` it returns.
FIT_WRAPPER_MARKER = "__krein_fit_wrapper__"


def fitted_attributes(est):
    """Names of an estimator's fitted attributes.

    Parameters
    ----------
    est : object
        An estimator or transformer.

    Returns
    -------
    list of str
        The instance attributes whose names end in ``_`` (scikit-learn's convention
        for fitted attributes), dunder names excluded.
    """
    return [k for k in vars(est) if k.endswith("_") and not k.startswith("__")]


def reset_fitted(est):
    """Remove every fitted attribute (:func:`fitted_attributes`) of ``est``.

    Parameters
    ----------
    est : object
        An estimator or transformer; changed in place.
    """
    for key in fitted_attributes(est):
        delattr(est, key)


def fit_wrapper(fit=None, *, prefer_skip_nested_validation=True):
    """Decorate a ``fit`` method with krein's fitting contract (module docstring).

    Usable bare (``@fit_wrapper``) or with the keyword
    (``@fit_wrapper(prefer_skip_nested_validation=False)`` for an estimator whose
    parameters hold an estimator of the user's, which validates its own
    parameters).  The returned method keeps the decorated one's name and numpydoc
    docstring (:func:`functools.wraps`) and carries :data:`FIT_WRAPPER_MARKER`.

    Parameters
    ----------
    fit : callable, optional
        The body, ``fit(self, X, *args, **kwargs) -> self`` (or whatever the
        method returns: a decorated ``fit_transform`` returns its features).
    prefer_skip_nested_validation : bool, default=True
        scikit-learn's flag of ``_fit_context``: True skips the parameter
        validation of the estimators and functions called inside the body.

    Returns
    -------
    callable
        The decorated method (or, without ``fit``, the decorator).
    """
    if fit is None:
        return functools.partial(fit_wrapper,
                                 prefer_skip_nested_validation=prefer_skip_nested_validation)

    def body(est, *args, **kwargs):
        check = getattr(est, "_check_params", None)
        if check is not None:
            check()
        if getattr(est, "probability", False) and hasattr(est, "_fit_platt"):
            return est._fit_platt(*args, **kwargs)
        return fit(est, *args, **kwargs)

    validated = _fit_context(prefer_skip_nested_validation=prefer_skip_nested_validation)(
        functools.wraps(fit)(body))

    @functools.wraps(fit)
    def wrapper(est, *args, **kwargs):
        starts = _previous_solution(est)
        reset_fitted(est)
        if starts is not None:
            est._warm_starts = starts
        try:
            # BLAS threads by the problem's size (krein._threads: one thread for at most
            # SMALL_KERNEL rows under the default policy "auto")
            n = _n_rows(args[0] if args else kwargs.get("X"))
            with fit_threads(n) if n else contextlib.nullcontext():
                return validated(est, *args, **kwargs)
        except BaseException:
            reset_fitted(est)
            raise
        finally:
            est.__dict__.pop("_warm_starts", None)

    setattr(wrapper, FIT_WRAPPER_MARKER, True)
    return wrapper


def _previous_solution(est):
    """The starting points a ``warm_start=True`` estimator keeps from its last fit, or None.

    An estimator opts in by a ``warm_start`` parameter and a method
    ``_warm_start_points()`` that returns its fitted solution as a dict (None when it
    is not fitted)."""
    if not getattr(est, "warm_start", False) or not hasattr(est, "_warm_start_points"):
        return None
    return est._warm_start_points()


def warm_starts(est):
    """The starting points of the fit in progress (``{}`` for a cold start).

    Inside a ``fit`` decorated by :func:`fit_wrapper`, an estimator with
    ``warm_start=True`` finds here what its ``_warm_start_points()`` returned
    before the refit removed the fitted attributes (scikit-learn's ``warm_start``:
    reuse the solution of the previous call to ``fit`` as initialization).

    Parameters
    ----------
    est : object
        The estimator being fitted.

    Returns
    -------
    dict
        The estimator's own keys and starting points; empty without a previous fit
        or with ``warm_start=False``.
    """
    return getattr(est, "_warm_starts", None) or {}


def _n_rows(X):
    """Rows of a fit's input (0 when it has none: the libraries' threads are kept)."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape):
        return int(shape[0])
    try:
        return len(X)
    except TypeError:
        return 0


def uses_fit_wrapper(method):
    """Whether a ``fit`` method is the one :func:`fit_wrapper` returned.

    Parameters
    ----------
    method : callable
        A ``fit`` (or ``fit_transform``) method, e.g. ``type(est).fit``.

    Returns
    -------
    bool
    """
    return getattr(method, FIT_WRAPPER_MARKER, False) is True


def numpy_output(transformer):
    """Make a transformer that an estimator fits internally return NumPy arrays.

    scikit-learn's ``set_config(transform_output="pandas")`` (or
    ``config_context``) makes every transformer with ``set_output`` return
    DataFrames.  An estimator that fits a transformer as a step of its own
    computation (an embedding, a kernel correction, a low-rank front end) reads
    arrays, so it sets the step's own output to ``"default"``, which takes
    precedence over the global configuration; the estimator's results do not
    depend on that configuration.

    Parameters
    ----------
    transformer : object
        A transformer, typically a fresh clone; changed in place.  One without
        ``set_output`` (a user's own transformer) is left as it is.

    Returns
    -------
    transformer : object
        The same object.
    """
    if hasattr(transformer, "set_output"):
        transformer.set_output(transform="default")
    return transformer
