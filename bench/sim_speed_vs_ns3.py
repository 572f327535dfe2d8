#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Benchmark: simulated packets per wall-second of a 2-node 10 Gb/s stream of 1 KiB packets on
# hw/func and hw/systemc, as ratios against ns-3 3.37 running the same stream on the same machine.
"""Runs bench/ns3/p2p_udp_stream and `nicsim run stream` on each backend; writes
bench/results/sim_speed_vs_ns3.json in the shape bench/bench_report.h writes.

Timing: each figure is packets delivered / wall seconds measured inside the process around
the simulation (ns-3: Simulator::Run(); nicsim: stats.json wall_time_s, which also counts
building the cluster). Whole-process figures, which add start-up, ns-3 topology set-up and
SystemC elaboration, are reported alongside as *_process_pps; they are informative only.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import nicsim_bench

NAME = "sim_speed_vs_ns3"
DESCRIPTION = ("2-node 10 Gb/s stream of 1 KiB packets: simulated packets per wall-second, "
               "hw/func and hw/systemc vs ns-3 3.37 point-to-point UDP")
ROOT = Path(__file__).resolve().parent.parent
NS3_SOURCE = ROOT / "bench" / "ns3" / "p2p_udp_stream.cc"
NS3_BINARY = ROOT / "build" / "bench" / "ns3_p2p_udp_stream"
NS3_MODULES = ["ns3-core", "ns3-network", "ns3-internet", "ns3-point-to-point",
               "ns3-applications"]
SIZE_BYTES = 1024
REPEATS = 3
# Lowest ratio of our packets per wall-second to ns-3's that passes.
TARGETS = {"func_vs_ns3": 10.0, "systemc_vs_ns3": 3.0}


def fail(message):
    """Prints why the benchmark cannot run and exits 2."""
    nicsim_bench.fail(NAME, message)


def build_ns3():
    """Compiles the ns-3 program when the binary is missing or older than its source."""
    if NS3_BINARY.exists() and NS3_BINARY.stat().st_mtime >= NS3_SOURCE.stat().st_mtime:
        return
    if shutil.which("pkg-config") is None or subprocess.run(
            ["pkg-config", "--exists", *NS3_MODULES]).returncode != 0:
        fail("ns-3 development files not found (pkg-config " + " ".join(NS3_MODULES) +
             "); run bench/ns3/setup.sh")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", *NS3_MODULES],
                           check=True, capture_output=True, text=True).stdout.split()
    NS3_BINARY.parent.mkdir(parents=True, exist_ok=True)
    cmd = [os.environ.get("CXX", "g++"), "-std=c++17", "-O2", str(NS3_SOURCE), "-o",
           str(NS3_BINARY), *flags]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        fail("building the ns-3 program failed (run bench/ns3/setup.sh?):\n" +
             " ".join(cmd) + "\n" + result.stderr)


def run_ns3(packets):
    """One ns-3 run: (in-loop packets/s, whole-process packets/s, simulated ns per packet)."""
    start = time.monotonic()
    result = subprocess.run([str(NS3_BINARY), f"--packets={packets}", f"--size={SIZE_BYTES}",
                             "--rate=10Gbps", "--delay=1us"], capture_output=True, text=True)
    process_s = time.monotonic() - start
    if result.returncode != 0:
        fail(f"ns-3 run failed (exit {result.returncode}):\n{result.stdout}{result.stderr}")
    out = json.loads(result.stdout.strip().splitlines()[-1])
    received = out["packets_received"]
    return received / out["wall_time_s"], received / process_s, out["sim_time_ns"] / received


def run_nicsim(backend, packets):
    """One `nicsim run stream` process: same three figures as run_ns3."""
    stats, process_s = nicsim_bench.run_nicsim(NAME, "stream", {
        "backend": backend, "link.bandwidth": "10Gb/s", "stream.packets": packets,
        "stream.size": SIZE_BYTES})
    delivered = stats["packets_delivered"]
    if delivered != packets or stats["errors"] != 0:
        fail(f"{backend}: delivered {delivered} of {packets} packets, {stats['errors']} errors")
    return delivered / stats["wall_time_s"], delivered / process_s, stats["sim_time_ns"] / delivered


def main():
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    # 400k packets keeps every run above one wall-second on a 2-core machine.
    parser.add_argument("--packets", type=int, default=400000, help="packets per run")
    args = parser.parse_args()
    build_ns3()

    runs = {"ns3": [], "func": [], "systemc": []}
    # Interleave the simulators so drift in machine load spreads over all three.
    for _ in range(REPEATS):
        runs["ns3"].append(run_ns3(args.packets))
        runs["func"].append(run_nicsim("func", args.packets))
        runs["systemc"].append(run_nicsim("systemc", args.packets))

    figures = {"packets_per_run": float(args.packets)}
    for sim, samples in runs.items():
        figures[f"{sim}_pps"] = statistics.median(s[0] for s in samples)
        figures[f"{sim}_process_pps"] = statistics.median(s[1] for s in samples)
        figures[f"{sim}_sim_ns_per_packet"] = statistics.median(s[2] for s in samples)
    ratios = {"func_vs_ns3": figures["func_pps"] / figures["ns3_pps"],
              "systemc_vs_ns3": figures["systemc_pps"] / figures["ns3_pps"]}
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, TARGETS)


if __name__ == "__main__":
    sys.exit(main())
