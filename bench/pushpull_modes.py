#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# bench/run pushpull_modes: push-pull messaging (ulp/pushpull, reference 003) between two forked
# processes in its three modes, and the postbox engine (ulp/postbox), same machine, same run.
"""Writes bench/results/pushpull_modes.json. Each engine (push-pull, push-all, push-zero,
postbox) runs build/bench/bench_pushpull_modes RUNS times, the engines taking turns so a burst
of other load hits them alike; every figure is the median of its runs. Push-pull is the
reference the others are compared with:

  latency_<n>B_<other>_vs_pushpull     other's latency / push-pull's (> 1: push-pull faster)
  bandwidth_<n>B_pushpull_vs_<other>   push-pull's bandwidth / other's (> 1: push-pull faster)

Targets are the reference's own claims, set before measuring:
  latency_8B_pushzero_vs_pushpull      >= 1.0  a short message pushed whole beats one pulled
  bandwidth_1048576B_pushpull_vs_pushall >= 1.0  one copy through the zero buffer beats two
                                                 through the pushed buffer
  bandwidth_1048576B_pushpull_vs_postbox >= 1.0  ... and two through the postbox's blocks"""

import re
import statistics

import nicsim_bench

NAME = "pushpull_modes"
DESCRIPTION = ("push-pull vs push-all vs push-zero (ulp/pushpull) vs postbox, 2 forked "
               "processes: 8 B/4 KiB latency, 64 KiB/1 MiB bandwidth")
DRIVER = nicsim_bench.ROOT / "build" / "bench" / "bench_pushpull_modes"
ENGINES = {"pushpull": "push-pull", "pushall": "push-all", "pushzero": "push-zero",
           "postbox": "postbox"}
RUNS = 5
LATENCY = [8, 4096]
BANDWIDTH = [65536, 1048576]
LINE = re.compile(r"^(latency_\d+B_us|bandwidth_\d+B_mbps) ([0-9.]+)$", re.M)
COUNTERS = re.compile(r"^counters (.*)$", re.M)


def main():
    if not DRIVER.exists():
        nicsim_bench.fail(NAME, f"{DRIVER} not built (bench/run {NAME} builds it)")
    samples = {key: [] for key in ENGINES}
    for i in range(RUNS):
        for key, engine in ENGINES.items():
            code, _, _, out, err = nicsim_bench.measure([str(DRIVER), engine])
            if code != 0:
                nicsim_bench.fail(NAME, f"{engine} failed (exit {code}):\n{out}\n{err}")
            figures = {m.group(1): float(m.group(2)) for m in LINE.finditer(out)}
            samples[key].append(figures)
            counters = COUNTERS.search(out)
            print(f"  run {i + 1} {engine:<9} " +
                  "  ".join(f"{k} {v:.2f}" for k, v in sorted(figures.items())))
            if i == 0 and counters:
                print(f"        {engine:<9} {counters.group(1)}")

    def median(key, figure):
        values = [s[figure] for s in samples[key] if figure in s]
        if len(values) != RUNS:
            nicsim_bench.fail(NAME, f"{key} printed {figure} in {len(values)} of {RUNS} runs")
        return statistics.median(values)

    figures, ratios, targets = {}, {}, {}
    for key in ENGINES:
        for n in LATENCY:
            figures[f"{key}_latency_{n}B_ns"] = median(key, f"latency_{n}B_us") * 1000
        for n in BANDWIDTH:
            figures[f"{key}_bandwidth_{n}B_mbps"] = median(key, f"bandwidth_{n}B_mbps")
    for other in ("pushall", "pushzero", "postbox"):
        for n in LATENCY:
            ratios[f"latency_{n}B_{other}_vs_pushpull"] = (
                figures[f"{other}_latency_{n}B_ns"] / figures[f"pushpull_latency_{n}B_ns"])
        for n in BANDWIDTH:
            ratios[f"bandwidth_{n}B_pushpull_vs_{other}"] = (
                figures[f"pushpull_bandwidth_{n}B_mbps"] / figures[f"{other}_bandwidth_{n}B_mbps"])
    targets["latency_8B_pushzero_vs_pushpull"] = 1.0
    targets["bandwidth_1048576B_pushpull_vs_pushall"] = 1.0
    targets["bandwidth_1048576B_pushpull_vs_postbox"] = 1.0
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, targets)


if __name__ == "__main__":
    raise SystemExit(main())
