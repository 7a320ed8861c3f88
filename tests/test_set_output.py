"""scikit-learn's output configuration: ``set_output`` and ``transform_output="pandas"``.

* Every public transformer of krein has ``get_feature_names_out`` and ``set_output``:
  ``set_output(transform="pandas")`` makes ``fit_transform`` and ``transform`` return
  DataFrames whose columns are the output's features.  A kernel-matrix transformer
  (a correction of the kernel) returns kernel rows, whose columns are the training
  objects: the columns of the fitted kernel (their names when it was a DataFrame,
  else ``x0``, ``x1``, ...; scikit-learn's ``OneToOneFeatureMixin``).  An embedding
  or a low-rank front end returns components, named by the class
  (``pseudoeuclideanpca0``, ...; ``ClassNamePrefixFeaturesOutMixin``).
* Under ``sklearn.config_context(transform_output="pandas")`` every registered
  classifier, fitted at its defaults, predicts exactly what it predicts under the
  default configuration: the transformers an estimator fits as steps of its own
  computation return arrays whatever the global configuration
  (:func:`krein._fitting.numpy_output`).
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import TransformerMixin

import krein
from krein import (Bending, ConformalLinearCombination, ConformalTransformation,
                   IndefiniteNystroem, NearestPSD, PseudoEuclideanPCA, SpectrumCorrection)
from krein.combinations import pick_out, projection_kernels, stack_kernels
from krein.datasets import make_munoz_artificial
from krein.registry import list_methods, make_method, method_requirements

PUBLIC_TRANSFORMERS = sorted(
    (obj for obj in vars(krein).values()
     if inspect.isclass(obj) and issubclass(obj, TransformerMixin)), key=lambda c: c.__name__)


def _data(n=30, seed=0):
    """Feature vectors, a sigmoid (indefinite) kernel on them and labels in {0, 1}."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = (X[:, 0] + 0.3 * rng.standard_normal(n) > 0).astype(int)
    return X, np.tanh(0.5 * X @ X.T - 0.2), y


def _named(K, rows, cols):
    """The kernel block ``K[rows, cols]`` as a DataFrame indexed by object names."""
    return pd.DataFrame(K[np.ix_(rows, cols)], index=[f"obj{i}" for i in rows],
                        columns=[f"obj{j}" for j in cols])


#: Kernel-matrix transformers: input and output columns are the training objects.
KERNEL_TRANSFORMERS = [SpectrumCorrection(), SpectrumCorrection(correction="clip",
                                                                out_of_sample="spectral"),
                       Bending(), NearestPSD(), NearestPSD(diagonal=1.0),
                       ConformalTransformation(random_state=0)]


def test_every_public_transformer_is_covered():
    covered = {type(t) for t in KERNEL_TRANSFORMERS} | {
        PseudoEuclideanPCA, IndefiniteNystroem, ConformalLinearCombination}
    assert set(PUBLIC_TRANSFORMERS) == covered


@pytest.mark.parametrize("cls", PUBLIC_TRANSFORMERS, ids=lambda c: c.__name__)
def test_every_public_transformer_has_set_output(cls):
    assert hasattr(cls(), "get_feature_names_out")
    assert cls().set_output(transform="pandas") is not None


@pytest.mark.parametrize("transformer", KERNEL_TRANSFORMERS, ids=repr)
def test_kernel_transformer_columns_are_the_training_objects(transformer):
    _, K, y = _data()
    tr, te = np.arange(20), np.arange(20, 30)
    est = sklearn.clone(transformer).set_output(transform="pandas")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # convergence notes of the iterative fits
        Kc = est.fit_transform(_named(K, tr, tr), y[tr])
    names = [f"obj{j}" for j in tr]
    assert isinstance(Kc, pd.DataFrame)
    assert list(Kc.columns) == names and list(Kc.index) == names
    rows = est.transform(_named(K, te, tr))
    assert isinstance(rows, pd.DataFrame)
    assert list(rows.columns) == names and list(rows.index) == [f"obj{i}" for i in te]
    assert list(est.get_feature_names_out()) == names
    # the same numbers as the default (array) output of the same computation
    plain = sklearn.clone(transformer)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(Kc.to_numpy(), plain.fit_transform(_named(K, tr, tr), y[tr]))
    np.testing.assert_array_equal(rows.to_numpy(), plain.transform(_named(K, te, tr)))


@pytest.mark.parametrize("transformer", KERNEL_TRANSFORMERS, ids=repr)
def test_kernel_transformer_columns_without_names(transformer):
    _, K, y = _data()
    est = sklearn.clone(transformer).set_output(transform="pandas")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Kc = est.fit_transform(K[:20, :20], y[:20])
    assert list(Kc.columns) == [f"x{j}" for j in range(20)]
    assert list(est.transform(K[20:, :20]).columns) == [f"x{j}" for j in range(20)]


def test_stacked_transformer_columns_are_the_training_objects():
    X, y = make_munoz_artificial(40, random_state=0)
    B = projection_kernels(X)
    S = stack_kernels(pick_out(B, y), B)
    est = ConformalLinearCombination().set_output(transform="pandas")
    Kc = est.fit_transform(S[:30, :30], y[:30])
    assert isinstance(Kc, pd.DataFrame)
    assert list(Kc.columns) == [f"x{j}" for j in range(30)]
    rows = est.transform(S[30:, :30])
    assert isinstance(rows, pd.DataFrame) and list(rows.columns) == list(Kc.columns)
    plain = ConformalLinearCombination().fit(S[:30, :30], y[:30])
    np.testing.assert_array_equal(rows.to_numpy(), plain.transform(S[30:, :30]))


@pytest.mark.parametrize("make", [
    lambda: PseudoEuclideanPCA(kernel="precomputed"),
    lambda: PseudoEuclideanPCA(kernel="sigmoid", kernel_params={"a": 0.5, "r": -1.0},
                               n_components=3),
    lambda: IndefiniteNystroem(n_components=12, kernel="sigmoid",
                               kernel_params={"a": 0.5, "r": -1.0}, random_state=0),
], ids=["pca-precomputed", "pca-sigmoid", "nystroem"])
def test_embedding_columns_are_the_components(make):
    X, K, _ = _data()
    est = make()
    data = K if est.get_params()["kernel"] == "precomputed" else X
    Z = est.set_output(transform="pandas").fit_transform(data[:20, :20] if data is K
                                                         else data[:20])
    prefix = type(est).__name__.lower()
    names = [f"{prefix}{i}" for i in range(est.n_components_)]
    assert isinstance(Z, pd.DataFrame) and list(Z.columns) == names
    Zt = est.transform(data[20:, :20] if data is K else data[20:])
    assert isinstance(Zt, pd.DataFrame) and list(Zt.columns) == names
    np.testing.assert_array_equal(Zt.to_numpy(), make().fit(
        data[:20, :20] if data is K else data[:20]).transform(
        data[20:, :20] if data is K else data[20:]))


# ----------------------------------------------------------------------------- global config
def _fit_predict(name, K, y, Kt):
    est = make_method(name, kernel="precomputed")
    seeds = {k: 0 for k in est.get_params(deep=True) if k.endswith("random_state")}
    est.set_params(**seeds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(K, y).predict(Kt)


@pytest.mark.parametrize("name", list(list_methods(task="classifier")))
def test_pandas_output_config_changes_no_prediction(name):
    """A small indefinite kernel (a PSD one for a method that refuses an indefinite
    kernel and says so; stacked base kernels for a method that requires them)."""
    X, K, y = _data(36)
    if method_requirements(name):
        Xm, y = make_munoz_artificial(36, random_state=0)
        B = projection_kernels(Xm)
        K = stack_kernels(pick_out(B, y), B)
    tr, te = np.arange(24), np.arange(24, 36)
    try:
        expected = _fit_predict(name, K[np.ix_(tr, tr)], y[tr], K[np.ix_(te, tr)])
    except ValueError as exc:
        if "PSD" not in str(exc):
            raise
        K = np.exp(-0.5 * np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2))
        expected = _fit_predict(name, K[np.ix_(tr, tr)], y[tr], K[np.ix_(te, tr)])
    K_tr, K_te = K[np.ix_(tr, tr)], K[np.ix_(te, tr)]
    with sklearn.config_context(transform_output="pandas"):
        got = _fit_predict(name, K_tr, y[tr], K_te)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, expected)
