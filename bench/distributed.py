#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Benchmark: one cluster split over K processes (mpirun -n K nicsim run) against one process,
# in the same run: speed-up, synchronisation cost, and a projection to larger machines.
"""Runs an MPI all-to-all (DISTRIBUTED_NODES ranks, one per node, 100 messages per rank up to
8 KiB) and a packet-level random exchange on as many nodes (func) with K = 1 (no mpirun) and
K = 2 (Open MPI, --oversubscribe), alternately, REPEATS times each; writes
bench/results/distributed.json. The target is the MPI all-to-all's; the exchange is reported
beside it.

Timing: stats.json wall_time_s (the simulation inside the process, split windows included);
whole-process times, which add mpirun's start-up, are reported beside it. The split summary
line gives windows, frames between partitions and the mean time per process running events
and synchronising. Every split run must write the one-process stats.json (checked).
"""

import json
import os
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import nicsim_bench

NAME = "distributed"
NODES = int(os.environ.get("DISTRIBUTED_NODES", "256"))
REPEATS = int(os.environ.get("DISTRIBUTED_REPEATS", "2"))
WORKLOADS = {
    "mpi_alltoall": {"workload": "mpi_alltoall", "mpi.ranks": NODES,
                     "mpi.alltoall_messages": 100, "mpi.alltoall_max_size": "8KiB"},
    "exchange": {"workload": "random_exchange", "exchange.messages": 400000},
}
DESCRIPTION = (f"{NODES}-node MPI all-to-all and random exchange (func): one process vs "
               "mpirun -n 2; synchronisation cost; projection to 16 and 64 processes")
TARGETS = {"speedup_mpi_alltoall_k2": 1.6}
SUMMARY = re.compile(r"split over (\d+) processes: (\d+) windows of (\d+) ns lookahead, (\d+) "
                     r"frames between partitions; per partition ([\d.]+) s running events, "
                     r"([\d.]+) s synchronising")
WALL = ("wall_time_s", "wall_events_per_second", "partitions")


def run(workload, k):
    """One run with k processes: (stats.json, whole-process seconds, split summary or None)."""
    # One thread per process: the one-process run is not split over threads (run.threads).
    sets = {"backend": "func", "nodes": NODES, "seed": 1, "run.threads": 1,
            **WORKLOADS[workload]}
    with tempfile.TemporaryDirectory(prefix="nicsim_distributed_") as out_dir:
        cmd = [str(nicsim_bench.NICSIM), "run", "--out", out_dir]
        for key, value in sets.items():
            cmd += ["--set", f"{key}={value}"]
        prefix, env = nicsim_bench.mpirun_prefix(NAME, k)
        cmd = prefix + cmd
        start = time.monotonic()
        result = subprocess.run(cmd, capture_output=True, text=True, env=env)
        whole = time.monotonic() - start
        if result.returncode != 0:
            nicsim_bench.fail(NAME, f"{' '.join(cmd)} failed (exit {result.returncode}):\n"
                              f"{result.stderr[-2000:]}")
        stats = json.loads((Path(out_dir) / "stats.json").read_text())
        match = SUMMARY.search(result.stdout)
        if k > 1 and match is None:
            nicsim_bench.fail(NAME, "no split summary line in the output:\n" + result.stdout)
        return stats, whole, match


def comparable(stats):
    return json.dumps({k: v for k, v in stats.items() if k not in WALL}, sort_keys=True)


def measure(workload):
    """Figures and ratios of one workload, keyed by its name."""
    one, two = [], []
    for _ in range(REPEATS):  # alternated, so drift in the machine's load hits both
        one.append(run(workload, 1))
        two.append(run(workload, 2))
    if any(s["verdict"] != "pass" for s, _, _ in one + two):
        nicsim_bench.fail(NAME, f"{workload}: a run did not deliver every message exactly once")
    if any(comparable(s) != comparable(one[0][0]) for s, _, _ in one + two):
        nicsim_bench.fail(NAME, f"{workload}: a split run's stats.json is not one process's")
    events = one[0][0]["events"]
    m = two[0][2]
    windows = int(m.group(2))
    run_s = statistics.median(float(t[2].group(5)) for t in two)
    sync_s = statistics.median(float(t[2].group(6)) for t in two)
    wall_1 = statistics.median(s["wall_time_s"] for s, _, _ in one)
    wall_2 = statistics.median(s["wall_time_s"] for s, _, _ in two)
    whole_1 = statistics.median(w for _, w, _ in one)
    whole_2 = statistics.median(w for _, w, _ in two)
    # Per-window cost of synchronising and per-event cost of running, from the K = 2 runs.
    sync_us_per_window = sync_s / windows * 1e6
    event_ns = run_s / (events / 2) * 1e9
    figures = {"events": events, "windows": windows, "lookahead_ns": int(m.group(3)),
               "frames_between_partitions": int(m.group(4)), "wall_s_k1": wall_1,
               "wall_s_k2": wall_2, "whole_process_s_k1": whole_1, "whole_process_s_k2": whole_2,
               "run_s_per_process_k2": run_s, "sync_s_per_process_k2": sync_s,
               "sync_us_per_window": sync_us_per_window, "event_ns": event_ns}
    ratios = {"speedup_k2": wall_1 / wall_2, "speedup_k2_whole_process": whole_1 / whole_2,
              "sync_share_k2": sync_s / (run_s + sync_s)}
    # Projection (docs/architecture.md): 16,384 nodes with the same traffic per node run
    # 16384 / NODES times the events over the same simulated time, so the same windows; each
    # process runs its share of the events, and a window's collectives cost grows with log2 K.
    big_events = events * 16384 / NODES
    one_process = big_events * event_ns * 1e-9
    figures["projected_16k_nodes_k1_s"] = one_process
    for k in (16, 64):
        sync = windows * sync_us_per_window * 1e-6 * (k.bit_length() - 1)
        total = big_events / k * event_ns * 1e-9 + sync
        figures[f"projected_16k_nodes_k{k}_s"] = total
        figures[f"projected_16k_nodes_k{k}_sync_s"] = sync
        ratios[f"projected_speedup_16k_nodes_k{k}"] = one_process / total
    return ({f"{workload}_{k}": v for k, v in figures.items()},
            {f"{k.replace('speedup', 'speedup_' + workload, 1) if k.startswith('speedup') else workload + '_' + k}": v
             for k, v in ratios.items()})


def main():
    figures, ratios = {"nodes": NODES}, {}
    for workload in WORKLOADS:
        f, r = measure(workload)
        figures.update(f)
        ratios.update(r)
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, TARGETS)


if __name__ == "__main__":
    raise SystemExit(main())
