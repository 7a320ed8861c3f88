"""Every registered method obeys the declarations of its registry entry (krein/registry.py).

A method declares, in its one call of :func:`krein.registry.register_method`, every rule
the suite holds it to; this module walks the registry and checks each method against its
own declarations, so that no test keeps a list of method names:

* ``task``: scikit-learn's estimator type of the estimator (``is_classifier``,
  ``is_regressor``, ``is_outlier_detector``);
* ``probability=True``: the estimator takes ``probability`` (default False); with
  ``probability=True`` on a well-separated problem its rows sum to one, their argmax
  agrees with ``predict``, log-loss and ROC AUC are computable, and the decision
  function is the full model's (fitted once, on all the data); ``Without``: no such
  parameter;
* ``certificate``: a fit with the default parameters on a tiny indefinite kernel (a
  PSD one for a method that refuses an indefinite kernel and says so; stacked base
  kernels for a method that requires them) leaves Solutions whose ``certificate_kind``
  is the declared one, with a finite value; ``Without``: no Solution at all;
* ``checks``: instances that ``tests/test_estimator_checks.py`` runs through
  scikit-learn's estimator checks, or a reason whose ``tests/`` files exist;
* ``compare``: the sample output of the main job in docs/getting_started.rst lists
  exactly the classifiers with ``compare=True``, in registration order (those that need
  base kernels as skipped);
* ``readme``: the method table of ``docs/methods.md`` is :func:`krein.registry.readme_table`;
* docs/layout.md, "Adding a method": every path it names exists and its example runs;
* ``approximate``: every method has a path on large data (the parameters an approximated
  run sets, and an ``approximation`` parameter) or one sentence on why it has none.

Scale covariance under each entry's declared exponents is checked for every
registered method in ``tests/test_scale_covariance.py``.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import is_classifier, is_outlier_detector, is_regressor
from sklearn.metrics import log_loss, roc_auc_score

from krein.combinations import pick_out, projection_kernels, stack_kernels
from krein.datasets import make_munoz_artificial
from krein.registry import (Without, estimator_check_instances, list_methods, make_method,
                            method_entry, method_requirements, readme_table)
from krein.solvers import CERTIFICATE_KINDS, Solution

REPO = Path(__file__).resolve().parents[1]
METHODS = list(list_methods())


def _declared(field, value=None):
    """Registered methods whose ``field`` is a :class:`Without` (``value=Without``) or not."""
    return [m for m in METHODS
            if isinstance(getattr(method_entry(m), field), Without) == (value is Without)]


# ----------------------------------------------------------------------------- data
@pytest.fixture(scope="module")
def stacked():
    """Munoz's pick-out stack (for methods that need base kernels): train on 60, test on 20."""
    X, y = make_munoz_artificial(80, random_state=0)
    B = projection_kernels(X)
    S = stack_kernels(pick_out(B, y), B)
    tr, te = np.arange(60), np.arange(60, 80)
    return S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)], y[te]


def _tiny(n=24, seed=0):
    """A tiny indefinite (sigmoid) kernel, a PSD (Gaussian) one, labels in {0, 1}."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = (X[:, 0] + 0.3 * rng.standard_normal(n) > 0).astype(int)
    K_ind = np.tanh(0.5 * X @ X.T - 0.2)
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    return K_ind, np.exp(-0.5 * d2), y


# ----------------------------------------------------------------------------- task
@pytest.mark.parametrize("name", METHODS)
def test_task_is_the_estimators_type(name):
    est = make_method(name)
    kind = {"classifier": is_classifier, "regressor": is_regressor,
            "outlier": is_outlier_detector}
    assert [t for t, test in kind.items() if test(est)] == [method_entry(name).task]


# ----------------------------------------------------------------------------- probability
def _check_probabilities(est, K, y, Kt, yt, agree=0.9):
    P = est.predict_proba(Kt)
    assert P.shape == (Kt.shape[0], est.classes_.size)
    assert np.all((P >= 0) & (P <= 1))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-10)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(est.predict_log_proba(Kt), np.log(P), atol=1e-10)
    pred = est.predict(Kt)
    assert np.mean(est.classes_[np.argmax(P, axis=1)] == pred) >= agree
    assert np.isfinite(log_loss(yt, P, labels=est.classes_))
    assert roc_auc_score(yt, P[:, 1]) > 0.9
    return P


@pytest.mark.parametrize("name", _declared("probability"))
def test_declared_probability_is_platt_scaling(name, separated, stacked):
    K, y, Kt, yt = stacked if method_requirements(name) else separated
    est = make_method(name, kernel="precomputed")
    assert "probability" in est.get_params() and est.get_params()["probability"] is False
    est.set_params(probability=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # convergence notes of the iterative methods
        est.fit(K, y)
    assert hasattr(est, "calibrator_")
    _check_probabilities(est, K, y, Kt, yt)
    # the decision function is the full model's (fitted once, on all the data)
    full = est.calibrator_.calibrated_classifiers_[0].estimator
    np.testing.assert_array_equal(est.decision_function(Kt), full.decision_function(Kt))


@pytest.mark.parametrize("name", _declared("probability", Without))
def test_without_probability_has_no_parameter(name):
    assert method_entry(name).task != "classifier"
    assert "probability" not in make_method(name).get_params()


def test_every_classifier_declares_probability():
    assert set(_declared("probability")) == set(list_methods(task="classifier"))


# ----------------------------------------------------------------------------- certificate
def _fit_default(name):
    """A fit with the method's default parameters on a tiny problem of its kind."""
    K_ind, K_psd, y = _tiny()
    entry = method_entry(name)
    if entry.requires:
        X, ys = make_munoz_artificial(40, random_state=0)
        B = projection_kernels(X)
        K_ind, K_psd, y = (stack_kernels(pick_out(B, ys), B),) * 2 + (ys,)
    targets = {"classifier": (y,), "regressor": (y.astype(float),), "outlier": ()}[entry.task]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return make_method(name, kernel="precomputed").fit(K_ind, *targets)
        except ValueError as exc:          # a method for PSD kernels says so
            if "PSD" not in str(exc):
                raise
            return make_method(name, kernel="precomputed").fit(K_psd, *targets)


def _solutions(est):
    sols = getattr(est, "solutions_", None)
    if sols is None:
        sol = getattr(est, "solution_", None)
        sols = [] if sol is None else [sol]
    return list(sols)


@pytest.mark.parametrize("name", METHODS)
def test_solutions_carry_the_declared_certificate_kind(name):
    declared = method_entry(name).certificate
    sols = _solutions(_fit_default(name))
    if isinstance(declared, Without):          # None: a binary model without a Solution
        assert all(s is None for s in sols), (name, declared.reason)
        return
    assert declared in CERTIFICATE_KINDS
    assert sols and all(isinstance(s, Solution) for s in sols)
    for s in sols:
        assert s.certificate_kind == declared, (name, s.solver)
        assert np.isfinite(s.certificate[s.certificate_kind])


# ----------------------------------------------------------------------------- estimator checks
def _cited_paths(text):
    """Repository paths (files ``tests/x.py`` and folders ``krein/solvers/``) cited in a text."""
    return set(re.findall(r"(?<![\w/.])((?:tests|krein|docs|benchmarks|experiments)/[\w./-]*[\w/])",
                          text))


@pytest.mark.parametrize("name", METHODS)
def test_estimator_checks_run_or_say_why_not(name):
    checks = method_entry(name).checks
    instances = [n for n, _, _ in estimator_check_instances()]
    if isinstance(checks, Without):
        assert name not in instances
        for path in _cited_paths(checks.reason):
            assert (REPO / path).is_file(), (name, path)
    else:
        assert checks and instances.count(name) == len(checks)


def test_estimator_checks_run_the_registered_instances():
    source = (REPO / "tests" / "test_estimator_checks.py").read_text(encoding="utf-8")
    assert "estimator_check_instances()" in source


# ----------------------------------------------------------------------------- defaults
#: Every parameter where a registered method differs from the defaults of its estimator
#: class (for an estimator-valued parameter such as ``correction``: the class chosen, then
#: that class's own defaults), with the reason.  A method IS a variant of its class named
#: by these parameters, or the parameter keeps a deliberate difference; any other
#: parameter has the estimator's default, so a user who builds the estimator gets the
#: method ``krein compare`` runs.
DELIBERATE_DIFFERENCES = {
    "esvm-l": {"energy": "ESVM-L is ESVC on the eigenpairs carrying 90 % of sum |lambda| "
                         "(Loosli et al. 2013 §4); ESVC keeps them all (esvm)"},
    "flip": {"out_of_sample": "the raw test kernel of Loosli Table 2; SpectrumSVC's 'auto' is "
                              "the correction's own map (clip-mds, square)"},
    "clip": {"correction": "the correction the method is named after",
             "out_of_sample": "the raw test kernel of Loosli Table 2 (as flip)"},
    "shift": {"correction": "the correction the method is named after",
              "out_of_sample": "the raw test kernel of Loosli Table 2 (as flip)"},
    "clip-mds": {"correction": "the correction the method is named after",
                 "out_of_sample": "named: Munoz & de Diego's eq. (3), which 'auto' also gives "
                                  "for clip"},
    "square": {"correction": "the correction the method is named after",
               "out_of_sample": "named: Munoz & de Diego's eq. (7), which 'auto' also gives "
                                "for square"},
    "bending": {"correction": "the kernel repair the method is named after",
                "correction__weights": "the support-vector weights of Munoz & de Diego §4 need "
                                       "labels; the transformer Bending also fits without them"},
    "nearest-psd": {"correction": "the kernel repair the method is named after",
                    "correction__weights": "the support-vector weights of Munoz & de Diego §4 "
                                           "need labels; the transformer NearestPSD also fits "
                                           "without them"},
    "conformal": {"correction": "the kernel repair the method is named after"},
    "clip-ridge-regressor": {"correction": "the correction the method is named after"},
    "clip-one-class": {"correction": "the correction the method is named after"},
    "clc": {"correction": "the kernel combination the method is named after"},
    "akm": {"correction": "the kernel combination the method is named after",
            "correction__combination": "AKM is the average of the base kernels"},
    "similarity-rbf": {"feature_kernel": "the RBF SVM of the similarity space (similarity-linear "
                                         "is the class's default)"},
    "trik-svm": {"decomposition": "TrIK-SVM is ESVM through the LDL' factorization (Loosli 2019)"},
}


def _same(a, b):
    if hasattr(a, "get_params") or hasattr(b, "get_params"):
        return type(a) is type(b)
    return type(a) is type(b) and (a is b or a == b)


def _differences_from_defaults(est):
    """``{parameter: value}`` where ``est`` differs from its class's defaults (nested
    parameters of an estimator-valued one against the defaults of that one's class)."""
    defaults = type(est)().get_params(deep=False)
    out = {}
    for key, value in est.get_params(deep=False).items():
        if not _same(value, defaults[key]):
            out[key] = value
        if hasattr(value, "get_params"):
            inner = type(value)().get_params(deep=False)
            out.update({f"{key}__{k}": v for k, v in value.get_params(deep=False).items()
                        if not _same(v, inner[k])})
    return out


@pytest.mark.parametrize("name", METHODS)
def test_registered_parameters_are_the_estimators_defaults(name):
    differences = _differences_from_defaults(make_method(name))
    assert set(differences) == set(DELIBERATE_DIFFERENCES.get(name, {})), (name, differences)


def test_deliberate_differences_name_registered_methods():
    assert set(DELIBERATE_DIFFERENCES) <= set(METHODS)


# ----------------------------------------------------------------------------- compare
def _main_job_sample():
    """Methods of the sample output of ``krein compare`` (docs/getting_started.rst): the
    table's rows, and the methods listed as skipped."""
    text = (REPO / "docs" / "getting_started.rst").read_text(encoding="utf-8")
    block = re.search(r"^ +(method +accuracy %.*?)^ +vs best:", text, flags=re.S | re.M)
    assert block, "docs/getting_started.rst shows no complete table of the main job"
    rows = [line.split()[0] for line in block.group(1).splitlines()[1:] if line.strip()]
    skipped = re.findall(r"^ +skipped ([a-z0-9-]+):", text, flags=re.M)
    return rows, skipped


def test_the_documented_main_job_is_the_compare_declaration():
    main_job = list(list_methods(task="classifier", compare=True))
    rows, skipped = _main_job_sample()
    # the sample's sigmoid kernel on feature vectors has no base kernels
    assert rows == [m for m in main_job if not method_requirements(m)]
    assert skipped == [m for m in main_job if method_requirements(m)]


# ----------------------------------------------------------------------------- readme
def _method_table():
    text = (REPO / "docs" / "methods.md").read_text(encoding="utf-8")
    m = re.search(r"^\| registry name \|.*?\n(?=\s*\n|\Z)", text, flags=re.S | re.M)
    assert m, "docs/methods.md has no method table"
    return m.group(0)


@pytest.mark.parametrize("name", list_methods())
def test_every_method_has_a_large_data_path_or_says_why_not(name):
    """An approximated run (landmark columns, ``--approximation``) runs the method or skips it
    with its one-sentence reason; nothing is skipped without one."""
    path = method_entry(name).approximate
    assert path is not None, f"{name}: declare approximate= (a path) or a reason"
    if isinstance(path, str):
        assert len(path) > 20 and "\n" not in path, name
    else:
        assert "approximation" in make_method(name).get_params(deep=False), name


def test_the_method_table_is_the_registry():
    """docs/methods.md holds the table the registry generates, every method in it."""
    assert _method_table() == readme_table()
    listed = re.findall(r"`([a-z0-9-]+)`", "\n".join(
        line.split("|")[1] for line in readme_table().splitlines()[2:]))
    assert listed == METHODS          # every method, in registration order


def test_the_readme_names_every_method_once():
    """README.md's Methods section names each registered method once, by family."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Methods\n", 1)[1].split("\n## ", 1)[0]
    named = [n for n in re.findall(r"`([a-z0-9-]+)`", section) if n in METHODS]
    assert sorted(named) == sorted(METHODS)


# ----------------------------------------------------------------------------- docs/layout.md
def _adding_a_method():
    text = (REPO / "docs" / "layout.md").read_text(encoding="utf-8")
    m = re.search(r"^## Adding a method\n(.*?)(?=^## )", text, flags=re.S | re.M)
    assert m, "docs/layout.md has no section 'Adding a method'"
    return m.group(1)


def test_adding_a_method_names_existing_files():
    section = _adding_a_method()
    paths = _cited_paths(section) | set(re.findall(r"`(README\.md)`", section))
    assert len(paths) >= 12
    missing = sorted(p for p in paths if not (REPO / p).exists())
    assert not missing, f"docs/layout.md, 'Adding a method', names missing files: {missing}"
    for name in ("compare", "probability", "certificate", "checks", "readme", "Without"):
        assert f"`{name}" in section, name           # every declaration is explained


def test_adding_a_method_example_runs():
    blocks = re.findall(r"^```python\n(.*?)^```", _adding_a_method(), flags=re.S | re.M)
    assert len(blocks) == 1
    before = list(list_methods())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "docs/layout.md", "exec"), {"__name__": "layout_example"})
    assert out.getvalue().split() == ["True", "True"]
    assert list(list_methods()) == before         # the example leaves the registry as it was
