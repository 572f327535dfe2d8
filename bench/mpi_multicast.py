#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Benchmark: MPI_Bcast and MPI_Barrier over broadcast RDMA to a multicast group
# (mpi.bcast=multicast: one write the switch replicates, unicast acknowledgements, selective
# retry) and over a chained group (mpi.bcast=chained: each member's adapter forwards a group
# message to its children in a binary tree as it lands, by conditional RDMA) against the
# point-to-point collectives (binomial-tree broadcast, dissemination barrier), at 64 and 1,024
# nodes (one rank per node, func backend), in simulated time; and both with loss on one
# node's link, where only that node (chained: and the nodes below it) is re-sent to.
"""Writes bench/results/mpi_multicast.json. Ratios are point-to-point time / multicast (or
chained) time (higher: the group faster), each run in this process with the same seed.

Targets:
  bcast_1MiB_<N>_p2p_vs_multicast  >= 2.0  a large broadcast: one copy on the wire per node's
                                           link instead of log2(N) rounds of sends
  barrier_<N>_p2p_vs_multicast     >= 1.0  log2(N) steps up a tree and one release, against
                                           log2(N) rounds of the dissemination barrier
  lossy_link_64_retries_only_there >= 1.0  1 if every retry went to the node on the lossy link
  bcast_1MiB_<N>_p2p_vs_chained    >= 2.0  the data crosses each node's link twice (binary
                                           tree), pipelined in 64 KiB pieces, no host on the path
  barrier_<N>_p2p_vs_chained       >= 1.0  the release goes down the tree of adapters
  lossy_link_64_chained_retries_in_subtree >= 1.0  1 if, in large broadcasts without
                                           barriers, every node outside the lossy node's
                                           subtree landed each group message exactly once"""

import sys

import nicsim_bench

NAME = "mpi_multicast"
DESCRIPTION = ("MPI Bcast and Barrier over RDMA multicast and over a chained group (conditional "
               "RDMA) vs point to point at 64 and 1,024 nodes (func); loss on one node's link")
SMALL, LARGE = [8, 8192], [65536, 1048576]
SIZES = SMALL + LARGE
SEED = 1
LOSSY_ADAPTER = 5


def run(nodes, mode, sizes, iterations, faults="", collectives="barrier,bcast"):
    sets = {"backend": "func", "nodes": nodes, "mpi.ranks": nodes, "seed": SEED,
            "workload": "mpi_collectives", "mpi.collectives": collectives,
            "mpi.sizes": "[" + ", ".join(map(str, sizes)) + "]", "mpi.iterations": iterations,
            "mpi.bcast": mode}
    if faults:
        sets["fabric.faults"] = faults
    stats, _ = nicsim_bench.run_nicsim(NAME, "default", sets)
    if stats["verdict"] != "pass":
        nicsim_bench.fail(NAME, f"{sets}: verdict {stats['verdict']}")
    return stats


def collectives(nodes, mode, faults=""):
    """Small sizes over 40 calls (the first call after a barrier is skewed: a multicast
    barrier's root leaves before the members), large ones over 4; one stats per call."""
    small = run(nodes, mode, SMALL, 40, faults)
    large = run(nodes, mode, LARGE, 4, faults)
    small["workload"]["points"] += large["workload"]["points"]
    small["workload"]["transport"] = {
        k: v + large["workload"]["transport"][k] if isinstance(v, int) else v
        for k, v in small["workload"]["transport"].items()}
    for a, b in zip(small["adapters"], large["adapters"]):
        a["rdma_transfers_landed"] += b["rdma_transfers_landed"]
    return small


def main():
    figures, ratios, targets = {}, {}, {}
    for nodes in (64, 1024):
        points = {}
        for mode in ("point_to_point", "multicast", "chained"):
            stats = collectives(nodes, mode)
            points[mode] = {p["size_bytes"]: p for p in stats["workload"]["points"]}
            for size in SIZES:
                figures[f"bcast_{size}B_{nodes}_{mode}_us"] = points[mode][size]["bcast_us"]
            figures[f"barrier_{nodes}_{mode}_us"] = points[mode][SIZES[0]]["barrier_us"]
        for mode in ("multicast", "chained"):
            for size in SIZES:
                ratios[f"bcast_{size}B_{nodes}_p2p_vs_{mode}"] = (
                    points["point_to_point"][size]["bcast_us"] / points[mode][size]["bcast_us"])
            ratios[f"bcast_1MiB_{nodes}_p2p_vs_{mode}"] = ratios.pop(
                f"bcast_1048576B_{nodes}_p2p_vs_{mode}")
            targets[f"bcast_1MiB_{nodes}_p2p_vs_{mode}"] = 2.0
            ratios[f"barrier_{nodes}_p2p_vs_{mode}"] = (
                points["point_to_point"][SIZES[0]]["barrier_us"] /
                points[mode][SIZES[0]]["barrier_us"])
            targets[f"barrier_{nodes}_p2p_vs_{mode}"] = 1.0
    # Loss on one node's link: the run still passes (every byte checked) and the root re-sends
    # to that node only (the others land each group message exactly once).
    faults = f"link {LOSSY_ADAPTER}: loss=0.05"
    lossy = collectives(64, "multicast", faults)
    clean = collectives(64, "multicast")
    transport = lossy["workload"]["transport"]
    figures["lossy_link_64_mcast_retries"] = transport["mcast_retries"]
    figures["lossy_link_64_mcast_sends"] = transport["mcast_sends"]
    for size in SIZES:
        figures[f"lossy_link_64_bcast_{size}B_us"] = {
            p["size_bytes"]: p for p in lossy["workload"]["points"]}[size]["bcast_us"]
    # Landed transfers per adapter: equal to the clean run's everywhere but on the lossy node.
    landed = {a["adapter"]: a["rdma_transfers_landed"] for a in lossy["adapters"]}
    landed_clean = {a["adapter"]: a["rdma_transfers_landed"] for a in clean["adapters"]}
    others_exact = all(landed[a] == landed_clean[a] for a in landed if a != LOSSY_ADAPTER)
    ratios["lossy_link_64_retries_only_there"] = (
        1.0 if landed and others_exact and transport["mcast_retries"] > 0 else 0.0)
    targets["lossy_link_64_retries_only_there"] = 1.0
    # Chained, binary tree from rank 0: the lossy node's children miss what it misses, and are
    # re-sent to as well; every other node lands each group message once. Checked on large
    # broadcasts without barriers: a barrier's release that the lossy node holds up is asked
    # for by members all over the tree, and one whose request crosses the release on its way
    # down the tree gets a second copy.
    lossy = collectives(64, "chained", faults)
    lossy_large = run(64, "chained", LARGE, 4, faults, "bcast")
    clean_large = run(64, "chained", LARGE, 4, "", "bcast")
    transport = lossy["workload"]["transport"]
    figures["lossy_link_64_chained_retries"] = transport["mcast_retries"]
    for size in SIZES:
        figures[f"lossy_link_64_chained_bcast_{size}B_us"] = {
            p["size_bytes"]: p for p in lossy["workload"]["points"]}[size]["bcast_us"]
    subtree, level = set(), {LOSSY_ADAPTER}
    while level:
        subtree |= level
        level = {c for v in level for c in (2 * v + 1, 2 * v + 2) if c < 64}
    landed = {a["adapter"]: a["rdma_transfers_landed"] for a in lossy_large["adapters"]}
    landed_clean = {a["adapter"]: a["rdma_transfers_landed"] for a in clean_large["adapters"]}
    others_exact = all(landed[a] == landed_clean[a] for a in landed if a not in subtree)
    ratios["lossy_link_64_chained_retries_in_subtree"] = (
        1.0 if landed and others_exact and
        lossy_large["workload"]["transport"]["mcast_retries"] > 0 else 0.0)
    targets["lossy_link_64_chained_retries_in_subtree"] = 1.0
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, targets)


if __name__ == "__main__":
    sys.exit(main())
