"""BLAS threads of many small fits with and without competing processes.

Runs the README's main job (``krein compare``: Sonar, 17 methods, nested CV) and
the Loosli Table 2 quick run (``krein experiment run experiments/loosli_table2.py
--quick``) as a new user would, in fresh processes with no thread variables set,
under two BLAS-thread policies (:mod:`krein._threads`):

* ``default``: the BLAS libraries' own threads (what a process gets with no
  thread variables set);
* ``auto``: one thread per fit on kernels of at most 1000 objects (the default).

each on a quiet machine and on a loaded one: ``--load N`` (default ``2 x cores``)
busy-loop processes, bounded by the run's own time limit, start before the run
and are stopped after it.  A run over ``--limit`` seconds is stopped and
reported as ``>limit``.  The ratios ``default / auto`` and ``loaded / quiet``
are computed from runs of this process, one after the other.

Usage::

    python benchmarks/threads.py [--jobs main,table2] [--load N] [--limit 900]
                                 [--policies default,auto] [--n-jobs N]
                                 [--quiet-only | --loaded-only]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS",
               "KREIN_BLAS_THREADS")


def command(job, policy, out, n_jobs=None):
    """The command line of ``job`` under ``policy`` writing into ``out``."""
    krein = [sys.executable, "-m", "krein.cli"]
    jobs = [] if n_jobs is None else ["--n-jobs", str(n_jobs)]
    if job == "main":
        return krein + ["compare", "--out", out, "--no-progress", "--blas-threads", policy] + jobs
    if job == "table2":
        return krein + ["experiment", "run", os.path.join(ROOT, "experiments", "loosli_table2.py"),
                        "--quick", "--out", out, "--no-progress", "--blas-threads", policy] + jobs
    raise SystemExit(f"--jobs: unknown job {job!r}; accepted: main, table2")


def busy(n, seconds):
    """``n`` processes spinning for at most ``seconds``."""
    code = ("import time\nt = time.time() + %f\nwhile time.time() < t:\n    pass\n" % seconds)
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(n)]


def run(job, policy, load, limit, n_jobs=None):
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARS}
    with tempfile.TemporaryDirectory(prefix="krein-threads-") as tmp:
        out = os.path.join(tmp, "out")
        spinners = busy(load, limit + 30) if load else []
        try:
            time.sleep(1.0 if load else 0.0)     # let the load settle
            t = time.perf_counter()
            try:
                p = subprocess.run(command(job, policy, out, n_jobs), env=env, cwd=tmp, timeout=limit,
                                   capture_output=True, text=True)
                wall = time.perf_counter() - t
                ok = p.returncode == 0
                if not ok:
                    print(f"  {job} {policy}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
            except subprocess.TimeoutExpired:
                wall, ok = float("inf"), False
        finally:
            for s in spinners:
                s.kill()
                s.wait()
    return wall, ok


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--jobs", default="main,table2")
    p.add_argument("--policies", default="default,auto")
    p.add_argument("--load", type=int, default=2 * (os.cpu_count() or 1),
                   help="busy processes of the loaded runs (default 2 x cores; 0: quiet only)")
    p.add_argument("--limit", type=float, default=900.0, help="seconds per run")
    p.add_argument("--n-jobs", type=int, default=None,
                   help="worker processes (default: each command's own: compare 2-4, experiment 1)")
    p.add_argument("--quiet-only", action="store_true")
    p.add_argument("--loaded-only", action="store_true")
    a = p.parse_args(argv)
    loads = [0, a.load]
    if a.quiet_only or a.load == 0:
        loads = [0]
    if a.loaded_only:
        loads = [a.load]
    print(f"{os.cpu_count()} cores; load average before: {os.getloadavg()[0]:.2f}")
    print(f"{'job':>7} {'load':>5} {'policy':>8} {'seconds':>9}")
    times = {}
    for job in a.jobs.split(","):
        for load in loads:
            for policy in a.policies.split(","):
                wall, ok = run(job, policy, load, a.limit, a.n_jobs)
                times[job, load, policy] = wall
                shown = f"{wall:9.1f}" if ok else f"{'>' + format(a.limit, '.0f'):>9}"
                print(f"{job:>7} {load:5d} {policy:>8} {shown}", flush=True)
    print("\nratios")
    for job in a.jobs.split(","):
        for load in loads:
            d, u = times.get((job, load, "default")), times.get((job, load, "auto"))
            if d is not None and u is not None:
                print(f"{job:>7} load {load}: default / auto = {d / u:.2f}"
                      f"{' (default stopped at the limit)' if d == float('inf') else ''}")
        if len(loads) == 2 and (job, loads[1], "auto") in times:
            print(f"{job:>7} auto: loaded / quiet = "
                  f"{times[job, loads[1], 'auto'] / times[job, 0, 'auto']:.2f}")


if __name__ == "__main__":
    main()
