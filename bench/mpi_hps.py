#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Benchmark: MPI on the hps preset with the default (SystemC) backend, in simulated time,
# against the HPS figures the preset models: small-message latency 4.3 us, one-way
# bandwidth 1.8 GB/s and bidirectional 2.9 GB/s at 1 MiB+, each within +-10%; and the
# striping gain at MPI level when each node's rank uses 2 and 4 adapters. Host copies cost
# their time (host.copy_bandwidth) and the buffers come from Mpi::AllocMem (mpi.zero_copy),
# so rendezvous messages are not copied (bench/run mpi_zero_copy shows what copies cost).
"""Writes bench/results/mpi_hps.json. Each +-10% target is two ratios: model/HPS >= 0.9 and
(2 - model/HPS) >= 0.9, i.e. model/HPS <= 1.1."""

import sys

import nicsim_bench

NAME = "mpi_hps"
DESCRIPTION = ("MPI ping-pong on the hps preset (SystemC), zero copy, host copies at "
               f"{nicsim_bench.HOST_COPY_BANDWIDTH}: latency and bandwidth vs HPS "
               "(4.3 us, 1.8 GB/s, 2.9 GB/s); striping over 2 and 4 adapters")
ZERO_COPY = {"mpi.zero_copy": "true", "host.copy_bandwidth": nicsim_bench.HOST_COPY_BANDWIDTH}
HPS = {"latency_8B_us": 4.3, "oneway_1MiB_MBps": 1800.0, "bidir_1MiB_MBps": 2900.0}


def pingpong(sets):
    stats, _ = nicsim_bench.run_nicsim(NAME, "default", {**ZERO_COPY, **sets})
    if stats["errors"] != 0:
        nicsim_bench.fail(NAME, f"{sets}: the run reported errors")
    return {p["size_bytes"]: p for p in stats["workload"]["points"]}


def main():
    points = pingpong({"mpi.sizes": "[8, 1048576]", "mpi.iterations": 50})
    figures = {"latency_8B_us": points[8]["latency_us"],
               "oneway_1MiB_MBps": points[1048576]["oneway_mbps"],
               "bidir_1MiB_MBps": points[1048576]["bidirectional_mbps"]}
    ratios, targets = {}, {}
    for key, hps in HPS.items():
        r = figures[key] / hps
        ratios[f"{key}_vs_hps_low"] = r
        ratios[f"{key}_vs_hps_high"] = 2.0 - r
        targets[f"{key}_vs_hps_low"] = targets[f"{key}_vs_hps_high"] = 0.9
    # Striping: one rank per node, its 4 MiB messages spread over the node's adapters.
    size = 4 << 20
    base = None
    for adapters in (1, 2, 4):
        p = pingpong({"mpi.sizes": f"[{size}]", "mpi.iterations": 2, "adapters_per_node": adapters,
                      "mpi.bandwidth_messages": 16, "mpi.window": 8})[size]
        figures[f"oneway_4MiB_{adapters}_adapters_MBps"] = p["oneway_mbps"]
        if adapters == 1:
            base = p["oneway_mbps"]
        else:
            ratios[f"striping_{adapters}_adapters_gain"] = p["oneway_mbps"] / base
            targets[f"striping_{adapters}_adapters_gain"] = 1.6 if adapters == 2 else 3.0
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, targets)


if __name__ == "__main__":
    sys.exit(main())
