"""The one-BLAS-thread session of ``conftest.py`` and its ``blas_threads`` opt-out."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from threadpoolctl import threadpool_info


def _numpy_blas():
    """threadpoolctl's record of the BLAS NumPy links (``numpy.libs`` or a system one)."""
    info = [i for i in threadpool_info() if i["user_api"] == "blas"]
    own = [i for i in info if "numpy" in i["filepath"]]
    return (own or info)[0]


def test_session_runs_one_thread():
    assert all(i["num_threads"] == 1 for i in threadpool_info()), threadpool_info()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"


def test_child_processes_inherit_one_thread():
    code = ("import numpy; from threadpoolctl import threadpool_info; "
            "print(max(i['num_threads'] for i in threadpool_info()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"


@pytest.mark.blas_threads(2)
def test_marker_lifts_the_limit():
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if (cpus or 1) < 2:
        pytest.skip("one CPU: OpenBLAS caps its threads at the CPU count")
    assert _numpy_blas()["num_threads"] == 2
    A = np.random.default_rng(0).normal(size=(50, 50))
    np.testing.assert_allclose(A @ np.linalg.inv(A), np.eye(50), atol=1e-8)
