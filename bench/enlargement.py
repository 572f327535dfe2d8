#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Benchmark: RDMA buffer memory per rank with eager RDMA buffer enlargement (reference 001,
# ulp.eager_rdma) against rings that are always large, on a complete exchange where 5% of the
# rank pairs exchange 256 KiB messages and the rest 256 B; and medium-message latency with
# eager RDMA against packet mode (mpi_pingpong).
"""Writes bench/results/enlargement.json. Memory per rank is eager_ring_bytes_peak (the
tasks' peaks added up, receive rings and send staging areas both) over the ranks; always
large is the same run with the small slot set to the large one. Target: at least 10x less
with enlargement at the largest size measured. 1,024 ranks do not fit this machine (the
complete exchange buffers ~14 GB of messages); RANKS says what is measured."""

import os
import sys

import nicsim_bench

NAME = "enlargement"
RANKS = [int(r) for r in os.environ.get("ENLARGEMENT_RANKS", "64,256").split(",")]
SMALL_SLOT = 16 * 1024
LARGE_SLOT = 256 * 1024 + 32  # a 256 KiB message and its head and tail flags
DESCRIPTION = (f"eager RDMA ring memory per rank, enlargement (16 KiB -> 256 KiB slots) vs "
               f"always large, complete exchange with 5% of pairs at 256 KiB, ranks {RANKS}; "
               f"medium-message one-way time, eager RDMA vs packet mode")
PINGPONG_SIZES = [1024, 4096, 12288]


def exchange(ranks, small_slot):
    sets = {"workload": "mpi_alltoall", "mpi.ranks": ranks, "nodes": ranks,
            "mpi.alltoall_large_pairs": 0.05, "mpi.alltoall_max_size": "256KiB",
            "mpi.alltoall_small_size": 256, "ulp.eager_rdma": "true",
            "ulp.eager_small_slot": small_slot, "ulp.eager_large_slot": LARGE_SLOT,
            "ulp.eager_slots": 1}
    stats, _ = nicsim_bench.run_nicsim(NAME, "default", sets)
    if stats["errors"] != 0:
        nicsim_bench.fail(NAME, f"{sets}: the run reported errors")
    return stats["workload"]["transport"]


def pingpong(eager):
    sets = {"workload": "mpi_pingpong", "mpi.sizes": str(PINGPONG_SIZES),
            "mpi.iterations": 20, "ulp.eager_rdma": "true" if eager else "false",
            "ulp.eager_small_slot": SMALL_SLOT, "ulp.eager_large_slot": LARGE_SLOT}
    stats, _ = nicsim_bench.run_nicsim(NAME, "default", sets)
    if stats["errors"] != 0:
        nicsim_bench.fail(NAME, f"{sets}: the run reported errors")
    return {p["size_bytes"]: p["latency_us"] for p in stats["workload"]["points"]}


def main():
    figures, ratios, targets = {}, {}, {}
    for ranks in RANKS:
        grown = exchange(ranks, SMALL_SLOT)
        large = exchange(ranks, LARGE_SLOT)
        per_rank_grown = grown["eager_ring_bytes_peak"] / ranks
        per_rank_large = large["eager_ring_bytes_peak"] / ranks
        figures[f"ring_KiB_per_rank_{ranks}_enlarging"] = per_rank_grown / 1024
        figures[f"ring_KiB_per_rank_{ranks}_always_large"] = per_rank_large / 1024
        figures[f"enlargements_{ranks}"] = grown["eager_enlargements"]
        ratios[f"memory_always_large_vs_enlarging_{ranks}"] = per_rank_large / per_rank_grown
    targets[f"memory_always_large_vs_enlarging_{RANKS[-1]}"] = 10.0
    on, off = pingpong(True), pingpong(False)
    for size in PINGPONG_SIZES:
        figures[f"oneway_{size}B_eager_rdma_us"] = on[size]
        figures[f"oneway_{size}B_packet_mode_us"] = off[size]
        ratios[f"packet_mode_vs_eager_rdma_{size}B"] = off[size] / on[size]
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, targets)


if __name__ == "__main__":
    sys.exit(main())
