#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Benchmark: RDMA buffer memory per rank with eager RDMA buffer enlargement (reference 001,
# ulp.eager_rdma) against rings that are always large, on a complete exchange where 5% of the
# rank pairs exchange 256 KiB messages and the rest 256 B; and medium-message latency with
# eager RDMA against packet mode (mpi_pingpong).
"""Writes bench/results/enlargement.json. Memory per rank is eager_ring_bytes_peak (the
tasks' peaks added up, receive rings and send staging areas both) over the ranks; always
large is the same run with the small slot set to the large one (one slot per ring, the
smallest always-large ring there is). The exchange runs in ROUNDS rounds on a pairwise
schedule with WINDOW steps in flight: the first round makes the connections (its messages go
the old way while each ring is set up), the later ones must go by eager RDMA, which is
asserted. Target: at least 10x less with enlargement at the largest size measured.
ENLARGEMENT_RANKS chooses the sizes (default 64,256); 1,024 ranks is
ENLARGEMENT_RANKS=64,256,1024, not run by default (see docs/ulp.md for its wall time)."""

import os
import sys

import nicsim_bench

NAME = "enlargement"
RANKS = [int(r) for r in os.environ.get("ENLARGEMENT_RANKS", "64,256").split(",")]
# Small ring: 4 slots of 2 KiB (the reference's small buffers are a few hundred bytes to
# 2 KB): a 256 B message and its 32 B of flags fit a slot with room, and 4 can be in flight.
SMALL_SLOT = 2 * 1024
SMALL_SLOTS = 4
LARGE_SLOT = 256 * 1024 + 32  # a 256 KiB message and its head and tail flags
LARGE_SLOTS = 1
ROUNDS = 2
WINDOW = 16
# Ping-pong: the sizes measured fit a 16 KiB slot, so no enlargement is timed.
MEDIUM_SLOT = 16 * 1024
PINGPONG_SIZES = [1024, 4096, 12288]
DESCRIPTION = (f"eager RDMA ring memory per rank, enlargement ({SMALL_SLOTS} x 2 KiB -> "
               f"{LARGE_SLOTS} x 256 KiB slots) vs always large (1 x 256 KiB), complete "
               f"exchange with 5% of pairs at 256 KiB, {ROUNDS} rounds, ranks {RANKS}"
               f"{'' if 1024 in RANKS else ' (1,024 not measured)'}; medium-message one-way "
               f"time, eager RDMA vs packet mode")


def exchange(ranks, always_large):
    sets = {"workload": "mpi_alltoall", "mpi.ranks": ranks, "nodes": ranks,
            "mpi.alltoall_large_pairs": 0.05, "mpi.alltoall_max_size": "256KiB",
            "mpi.alltoall_small_size": 256, "mpi.alltoall_rounds": ROUNDS,
            "mpi.alltoall_window": WINDOW, "ulp.eager_rdma": "true",
            "ulp.eager_small_slot": LARGE_SLOT if always_large else SMALL_SLOT,
            "ulp.eager_slots": 1 if always_large else SMALL_SLOTS,
            "ulp.eager_large_slot": LARGE_SLOT, "ulp.eager_large_slots": LARGE_SLOTS}
    stats, wall_s, rss = nicsim_bench.run_nicsim_measured(NAME, "default", sets)
    if stats["errors"] != 0:
        nicsim_bench.fail(NAME, f"{sets}: the run reported errors")
    transport = stats["workload"]["transport"]
    print(f"  {ranks} ranks, {'always large' if always_large else 'enlarging'}: ring KiB per "
          f"rank {transport['eager_ring_bytes_peak'] / ranks / 1024:.0f}, refusals "
          f"{transport['eager_refusals']}", flush=True)
    # Rounds after the first find every connection made: rings must carry them.
    later = ranks * (ranks - 1) * (ROUNDS - 1)
    if transport["eager_rdma_messages"] < later:
        nicsim_bench.fail(NAME, f"{sets}: {transport['eager_rdma_messages']} messages by eager "
                                f"RDMA, fewer than the {later} of the rounds after the first")
    print(f"  {ranks} ranks, {'always large' if always_large else 'enlarging'}: wall "
          f"{wall_s:.0f} s, RSS {rss / 2**20:.0f} MiB, eager {transport['eager_rdma_messages']} "
          f"of {stats['workload']['messages']}, enlargements {transport['eager_enlargements']}, "
          f"redrives {transport['eager_rdma_redrives']}, refusals {transport['eager_refusals']}",
          flush=True)
    return transport, wall_s


def pingpong(eager):
    sets = {"workload": "mpi_pingpong", "mpi.sizes": str(PINGPONG_SIZES),
            "mpi.iterations": 20, "ulp.eager_rdma": "true" if eager else "false",
            "ulp.eager_small_slot": MEDIUM_SLOT, "ulp.eager_large_slot": LARGE_SLOT}
    stats, _ = nicsim_bench.run_nicsim(NAME, "default", sets)
    if stats["errors"] != 0:
        nicsim_bench.fail(NAME, f"{sets}: the run reported errors")
    return {p["size_bytes"]: p["latency_us"] for p in stats["workload"]["points"]}


def main():
    figures, ratios, targets = {}, {}, {}
    for ranks in RANKS:
        grown, grown_s = exchange(ranks, always_large=False)
        large, large_s = exchange(ranks, always_large=True)
        per_rank_grown = grown["eager_ring_bytes_peak"] / ranks
        per_rank_large = large["eager_ring_bytes_peak"] / ranks
        figures[f"ring_KiB_per_rank_{ranks}_enlarging"] = per_rank_grown / 1024
        figures[f"ring_KiB_per_rank_{ranks}_always_large"] = per_rank_large / 1024
        figures[f"eager_messages_{ranks}"] = grown["eager_rdma_messages"]
        figures[f"enlargements_{ranks}"] = grown["eager_enlargements"]
        figures[f"redrives_{ranks}"] = grown["eager_rdma_redrives"]
        figures[f"wall_s_{ranks}"] = grown_s + large_s
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
