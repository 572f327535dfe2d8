# SPDX-License-Identifier: Apache-2.0
# Shared pieces of the script benchmarks: running `build/nicsim` for its stats.json, and
# printing and writing results in the shape bench/bench_report.h writes.
"""Helpers for bench/*.py."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NICSIM = ROOT / "build" / "nicsim"
# host.copy_bandwidth for benchmarks that cost host copies: a 2000s POWER host's memcpy of
# message data, an estimate in the 2-4 GB/s range (see `nicsim params`).
HOST_COPY_BYTES_PER_S = 3e9
HOST_COPY_BANDWIDTH = f"{HOST_COPY_BYTES_PER_S / 1e9:g}GB/s"


def fail(name, message):
    """Prints why the benchmark cannot run and exits 2 (a setup problem, not a missed target)."""
    print(f"{name}: {message}", file=sys.stderr)
    sys.exit(2)


def measure(cmd, env=None):
    """Runs `cmd`: (exit code, wall seconds, peak RSS in bytes, stdout, stderr)."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return (os.waitstatus_to_exitcode(status), wall, usage.ru_maxrss * 1024,
                out.read().decode(errors="replace"), err.read().decode(errors="replace"))


def mpirun_prefix(name, processes):
    """The command prefix that splits a `nicsim run` over `processes` (Open MPI's mpirun, root
    allowed), and the environment it needs; nothing for one process."""
    if processes <= 1:
        return [], dict(os.environ)
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        fail(name, "mpirun not found (Debian openmpi-bin)")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return [mpirun, "--oversubscribe", "-n", str(processes)], env


def run_nicsim_measured(name, scenario, sets, processes=1):
    """One `nicsim run` (split over `processes` by mpirun when above 1): (stats.json,
    whole-process wall seconds, peak RSS bytes: of the one process, or of mpirun)."""
    if not NICSIM.exists():
        fail(name, f"{NICSIM} not built (bench/run {name} builds it)")
    with tempfile.TemporaryDirectory(prefix="nicsim_bench_") as out_dir:
        prefix, env = mpirun_prefix(name, processes)
        cmd = prefix + [str(NICSIM), "run", scenario, "--out", out_dir, "--quiet"]
        for key, value in sets.items():
            cmd += ["--set", f"{key}={value}"]
        code, process_s, rss, _, err = measure(cmd, env)
        if code != 0:
            fail(name, f"{' '.join(cmd)} failed (exit {code}):\n{err}")
        return json.loads((Path(out_dir) / "stats.json").read_text()), process_s, rss


def run_nicsim(name, scenario, sets):
    """One `nicsim run` process: (stats.json, whole-process wall seconds)."""
    stats, process_s, _ = run_nicsim_measured(name, scenario, sets)
    return stats, process_s


def finish(name, description, figures, ratios, targets):
    """Prints the table and writes bench/results/NAME.json; returns the exit code."""
    passed = all(ratios[k] >= targets[k] for k in ratios if k in targets)
    report = {"name": name, "description": description, "figures": figures, "ratios": ratios,
              "targets": {k: {"min": targets[k]} for k in ratios if k in targets},
              "pass": passed}
    print(f"{name}: {description}")
    for key in sorted(figures):
        print(f"  {key:<28} {figures[key]:16.1f}")
    for key in sorted(ratios):
        if key in targets:
            verdict = "ok" if ratios[key] >= targets[key] else "MISSED"
            print(f"  {key:<28} {ratios[key]:16.4f}  (target >= {targets[key]:g}: {verdict})")
        else:
            print(f"  {key:<28} {ratios[key]:16.4f}")
    results_dir = Path(os.environ.get("NICSIM_BENCH_RESULTS", ROOT / "bench" / "results"))
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / f"{name}.json"
    path.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(f"  results: {path}")
    return 0 if passed else 1
