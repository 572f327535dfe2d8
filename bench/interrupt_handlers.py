#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Benchmark: latency under a receive-interrupt workload (every rank of a node in a ping-pong,
# handlers that take host time per event) with 1, 2 and 4 interrupt handlers, early-when-idle
# interrupts against plain and early ones, and an all-to-all that is not interrupt-bound.
"""Writes bench/results/interrupt_handlers.json. Ratios are against the 1-handler run (and
the plain-interrupt run) of the same invocation; simulated time, deterministic for a seed."""

import sys

import nicsim_bench

NAME = "interrupt_handlers"
DESCRIPTION = ("MPI ping-pong latency, 8 pairs over 2 nodes in interrupt mode with "
               "host.interrupt_service=2us: 1 vs 2 vs 4 interrupt handlers; early_when_idle vs "
               "interrupt vs early_interrupt on idle and on busy CPUs; a 16-rank all-to-all "
               "for contrast")
# Eight ranks per node, each waiting for its partner's message on an interrupt: with one
# handler the node's receive interrupts queue behind one another.
PAIRS = {"backend": "func", "workload": "mpi_pingpong", "nodes": 2, "mpi.ranks": 16,
         "mpi.pingpong_pairs": 8, "mpi.sizes": "[0, 1024]", "mpi.iterations": 50,
         "mpi.bandwidth_messages": 8, "mpi.window": 8, "seed": 1}
ALLTOALL = {"backend": "func", "workload": "mpi_alltoall", "nodes": 2, "mpi.ranks": 16,
            "mpi.alltoall_messages": 50, "mpi.alltoall_max_size": "1KiB", "seed": 1}


def run(base, sets):
    stats, _ = nicsim_bench.run_nicsim(NAME, "default", {**base, **sets})
    if stats["errors"] != 0:
        nicsim_bench.fail(NAME, f"{sets}: the run reported errors")
    return stats


def latency(sets):
    """Mean one-way latency of the pairs per size, in us."""
    stats = run(PAIRS, sets)
    return {p["size_bytes"]: p["latency_us"] for p in stats["workload"]["points"]}


def main():
    figures, ratios, targets = {}, {}, {}
    # 1, 2 and 4 handlers, each event costing 2 us of a handler's host thread.
    base = None
    for handlers in (1, 2, 4):
        lat = latency({"hal.wait_mode": "interrupt", "host.interrupt_service": "2us",
                       "adapter.interrupt_handlers": handlers})
        for size, us in lat.items():
            figures[f"latency_{size}B_{handlers}_handlers_us"] = us
        if handlers == 1:
            base = lat
        else:
            for size, us in lat.items():
                ratios[f"speedup_{size}B_{handlers}_handlers"] = base[size] / us
            targets[f"speedup_0B_{handlers}_handlers"] = 1.2 if handlers == 2 else 1.5
    # Wait modes, free handlers, one pair. Idle CPUs (the ranks only wait): early interrupts
    # overlap the interrupt path with the data's DMA, and early_when_idle arms early every time.
    # Busy CPUs (each receive posted, then 20 us of computing while the message arrives): the
    # polls an early interrupt makes for data still in flight are taken from the computing, so
    # early_when_idle, which arms normal interrupts while the rank computes, beats early.
    cases = {"idle": ({"mpi.ranks": 2, "mpi.pingpong_pairs": 1}, (0, 1024)),
             "busy": ({"mpi.ranks": 2, "mpi.pingpong_pairs": 1, "mpi.sizes": "[16384]",
                       "mpi.pingpong_compute": "20us"}, (16384,))}
    for case, (sets, sizes) in cases.items():
        modes = {}
        for mode in ("poll", "interrupt", "early_interrupt", "early_when_idle"):
            modes[mode] = latency({**sets, "hal.wait_mode": mode})
            for size in sizes:
                figures[f"{case}_latency_{size}B_{mode}_us"] = modes[mode][size]
        for size in sizes:
            for mode in ("early_interrupt", "early_when_idle"):
                ratios[f"{case}_{size}B_{mode}_vs_interrupt"] = (modes["interrupt"][size] /
                                                                modes[mode][size])
            ratios[f"{case}_{size}B_early_when_idle_vs_early"] = (modes["early_interrupt"][size] /
                                                                 modes["early_when_idle"][size])
    targets["idle_1024B_early_when_idle_vs_interrupt"] = 1.1
    targets["busy_16384B_early_when_idle_vs_early"] = 1.1
    # Contrast: the all-to-all of the first measurement is not interrupt-bound (polling is no
    # faster), so its time moves with the phase of interrupts against the traffic, not with
    # the handler count.
    poll = run(ALLTOALL, {"hal.wait_mode": "poll"})["sim_time_ns"] / 1000
    figures["alltoall_poll_us"] = poll
    a2a_base = None
    for handlers in (1, 2, 4):
        us = run(ALLTOALL, {"hal.wait_mode": "interrupt", "host.interrupt_service": "1us",
                            "adapter.interrupt_handlers": handlers})["sim_time_ns"] / 1000
        figures[f"alltoall_{handlers}_handlers_us"] = us
        if handlers == 1:
            a2a_base = us
        else:
            ratios[f"alltoall_speedup_{handlers}_handlers"] = a2a_base / us
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, targets)


if __name__ == "__main__":
    sys.exit(main())
