#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Benchmark: MPI_Allreduce with each tree contribution moved by half RDMA (mpi.reduce=
# half_rdma: the child's adapter reads its accumulator, the packets land in the parent's
# receive FIFO and the parent combines each as it arrives) against point to point (the parent
# receives the whole message, then combines), at 16 and 64 ranks (one per node, func backend),
# 256 KiB and 4 MiB, in simulated time.
"""Writes bench/results/mpi_half_reduce.json. Ratios are point-to-point time / half RDMA time
(higher: half RDMA faster), both measured in this process with the same seed.

Host copies cost time (host.copy_bandwidth = nicsim_bench.HOST_COPY_BANDWIDTH): point to point
copies each contribution into the sender's staging area and out of the receiver's landing
area, half RDMA copies neither but pays the combining itself (the same bandwidth, per byte
combined). Point to point's combining is not costed at all (as before this option), so the
comparison leans its way. The allreduce's broadcast half is the same tree in both modes. The
workload (mpi_collectives) sums int32 values; the time model depends on bytes only. A second
set of runs has copies free: then only the wire differs.

Targets:
  allreduce_<size>_<N>_p2p_vs_half_rdma  >= 1.0  with copies costed, half RDMA is not slower"""

import sys

import nicsim_bench

NAME = "mpi_half_reduce"
DESCRIPTION = ("MPI Allreduce with contributions by half RDMA (FIFO-side combining) vs point to "
               "point, 16 and 64 ranks (func), 256 KiB and 4 MiB")
SIZES = [262144, 4194304]
LABEL = {262144: "256KiB", 4194304: "4MiB"}
SEED = 1


def allreduce(ranks, mode, copy_bandwidth):
    sets = {"backend": "func", "nodes": ranks, "mpi.ranks": ranks, "seed": SEED,
            "workload": "mpi_collectives", "mpi.collectives": "allreduce",
            "mpi.sizes": str(SIZES), "mpi.iterations": 2, "mpi.reduce": mode,
            "host.copy_bandwidth": copy_bandwidth}
    stats, _ = nicsim_bench.run_nicsim(NAME, "default", sets)
    if stats["verdict"] != "pass":
        nicsim_bench.fail(NAME, f"{sets}: verdict {stats['verdict']}")
    return stats


def main():
    figures, ratios, targets = {}, {}, {}
    print(f"{'ranks':>5} {'size':>7} {'copies':>8} {'p2p_us':>11} {'half_rdma_us':>13} {'ratio':>7}")
    for copies, bandwidth in (("costed", nicsim_bench.HOST_COPY_BANDWIDTH), ("free", "0B/s")):
        for ranks in (16, 64):
            points = {}
            for mode in ("point_to_point", "half_rdma"):
                stats = allreduce(ranks, mode, bandwidth)
                points[mode] = {p["size_bytes"]: p["allreduce_us"]
                                for p in stats["workload"]["points"]}
                if mode == "half_rdma":
                    transport = stats["workload"]["transport"]
                    figures[f"half_rdma_transfers_{ranks}_{copies}"] = transport[
                        "half_rdma_transfers"]
                    figures[f"half_rdma_retries_{ranks}_{copies}"] = transport["half_rdma_retries"]
                    if stats["workload"]["mpi"]["half_rdma_reductions"] == 0:
                        nicsim_bench.fail(NAME, "mpi.reduce=half_rdma took no half RDMA path")
            for size in SIZES:
                key = f"allreduce_{LABEL[size]}_{ranks}"
                p2p, half = points["point_to_point"][size], points["half_rdma"][size]
                figures[f"{key}_{copies}_p2p_us"] = p2p
                figures[f"{key}_{copies}_half_rdma_us"] = half
                ratio_key = f"{key}_p2p_vs_half_rdma" + ("" if copies == "costed" else "_free")
                ratios[ratio_key] = p2p / half
                if copies == "costed":
                    targets[ratio_key] = 1.0
                print(f"{ranks:>5} {LABEL[size]:>7} {copies:>8} {p2p:>11.1f} {half:>13.1f} "
                      f"{p2p / half:>7.3f}")
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, targets)


if __name__ == "__main__":
    sys.exit(main())
