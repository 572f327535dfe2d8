#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Benchmark: the simulated host time zero copy saves. MPI ping-pong on the hps preset
# (SystemC) with host copies costing time (host.copy_bandwidth), from plain buffers (packed
# into staging memory, copied out of the landing area, unpacked) and from Mpi::AllocMem buffers
# (mpi.zero_copy: rendezvous messages go and land with no copy), plus copies free as the floor.
"""Writes bench/results/mpi_zero_copy.json. One-way time is mpi_pingpong's latency (half a
round trip). Targets, per rendezvous size: the time saved per message is at least 99% of the
three copies' time (3 x size / copy bandwidth), and zero copy is within 1% of copies free."""

import sys

import nicsim_bench

NAME = "mpi_zero_copy"
DESCRIPTION = (f"MPI one-way time with host copies at {nicsim_bench.HOST_COPY_BANDWIDTH} "
               "(hps, SystemC): plain buffers vs mpi.zero_copy vs copies free")
SIZES = [65536, 131072, 1048576, 4194304]
EAGER_LIMIT = 65536  # mpi.eager_limit: larger messages use rendezvous, which zero copy serves
COPIES = 3  # a rendezvous message's copies from plain buffers: into staging, out of landing, unpack


def pingpong(sets):
    base = {"mpi.sizes": str(SIZES), "mpi.iterations": 10}
    stats, _ = nicsim_bench.run_nicsim(NAME, "default", {**base, **sets})
    if stats["errors"] != 0:
        nicsim_bench.fail(NAME, f"{sets}: the run reported errors")
    return {p["size_bytes"]: p for p in stats["workload"]["points"]}


def main():
    copies = {"host.copy_bandwidth": nicsim_bench.HOST_COPY_BANDWIDTH}
    runs = {"copies": pingpong({**copies, "mpi.zero_copy": "false"}),
            "zero_copy": pingpong({**copies, "mpi.zero_copy": "true"}),
            "free": pingpong({"host.copy_bandwidth": "0B/s", "mpi.zero_copy": "false"})}
    figures, ratios, targets = {}, {}, {}
    print(f"{'size_B':>10} {'copies_us':>12} {'zero_copy_us':>13} {'free_us':>10} "
          f"{'saved_us':>10} {'3_copies_us':>12} {'ratio':>7}")
    for size in SIZES:
        t = {k: run[size]["latency_us"] for k, run in runs.items()}
        saved = t["copies"] - t["zero_copy"]
        copies_us = COPIES * size / nicsim_bench.HOST_COPY_BYTES_PER_S * 1e6
        print(f"{size:>10} {t['copies']:>12.3f} {t['zero_copy']:>13.3f} {t['free']:>10.3f} "
              f"{saved:>10.3f} {copies_us:>12.3f} {t['copies'] / t['zero_copy']:>7.3f}")
        for k, v in t.items():
            figures[f"oneway_{size}B_{k}_us"] = v
        figures[f"saved_{size}B_us"] = saved
        figures[f"oneway_{size}B_copies_mbps"] = runs["copies"][size]["oneway_mbps"]
        figures[f"oneway_{size}B_zero_copy_mbps"] = runs["zero_copy"][size]["oneway_mbps"]
        ratios[f"copies_vs_zero_copy_{size}B"] = t["copies"] / t["zero_copy"]
        if size > EAGER_LIMIT:
            ratios[f"saved_vs_copies_{size}B"] = saved / copies_us
            targets[f"saved_vs_copies_{size}B"] = 0.99
            ratios[f"free_vs_zero_copy_{size}B"] = t["free"] / t["zero_copy"]
            targets[f"free_vs_zero_copy_{size}B"] = 0.99
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, targets)


if __name__ == "__main__":
    sys.exit(main())
