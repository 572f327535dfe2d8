#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Benchmark: what temporal decoupling buys the SystemC backend. The same 2-node stream with
# the default quantum and in lock-step (quantum 0), and the rtl variant against plain SystemC.
"""Writes bench/results/systemc_quantum.json: speed ratio default-quantum vs lock-step
(target >= 4), the difference in simulated completion time, and the rtl ratio if available."""

import statistics
import subprocess
import sys

import nicsim_bench

NAME = "systemc_quantum"
DESCRIPTION = ("SystemC backend, 2-node stream of 1 KiB packets: default quantum vs lock-step, "
               "and the rtl variant vs plain SystemC")
# 300k packets keep the default-quantum run near half a wall-second, where timing noise is small.
PACKETS = 300000
REPEATS = 5
TARGETS = {"default_vs_lockstep": 4.0}


def measure(sets):
    """Median simulated packets per wall-second over REPEATS runs, and the simulated time."""
    pps, sim_ns = [], 0
    for _ in range(REPEATS):
        stats, _ = nicsim_bench.run_nicsim(NAME, "stream", {
            "stream.packets": PACKETS, "stream.size": 1024, **sets})
        if stats["packets_delivered"] != PACKETS or stats["errors"] != 0:
            nicsim_bench.fail(NAME, f"{sets}: stream did not complete")
        pps.append(stats["packets_delivered"] / stats["wall_time_s"])
        sim_ns = stats["sim_time_ns"]
    return statistics.median(pps), sim_ns


def main():
    default_pps, default_ns = measure({"backend": "systemc"})
    lockstep_pps, lockstep_ns = measure({"backend": "systemc", "systemc.quantum": "0ns"})
    figures = {"default_quantum_pps": default_pps, "lockstep_pps": lockstep_pps,
               "default_sim_time_ns": float(default_ns), "lockstep_sim_time_ns": float(lockstep_ns),
               "sim_time_difference_ns": float(default_ns - lockstep_ns)}
    ratios = {"default_vs_lockstep": default_pps / lockstep_pps}
    probe = subprocess.run([str(nicsim_bench.NICSIM), "run", "stream", "--set", "backend=rtl",
                            "--set", "stream.packets=10", "--quiet", "--out", "/tmp"],
                           capture_output=True, text=True)
    if probe.returncode == 0:
        rtl_pps, _ = measure({"backend": "rtl"})
        figures["rtl_pps"] = rtl_pps
        ratios["rtl_vs_systemc"] = rtl_pps / default_pps
    else:
        print(f"{NAME}: rtl variant not measured: {probe.stderr.strip()}")
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, TARGETS)


if __name__ == "__main__":
    sys.exit(main())
