#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Draws nicsim results to PNG: latency and bandwidth per message size from ping-pong sweeps,
# and a fault matrix (drops by reason per run) from any set of stats.json files.
"""Usage:
  tools/plot_results.py sweep OUT.png STATS.json [STATS.json ...]   # one curve per run
  tools/plot_results.py faults OUT.png STATS.json [STATS.json ...]  # drops by reason

Needs matplotlib from Debian: apt-get install python3-matplotlib.
"""

import json
import sys
from pathlib import Path


def load(paths):
    runs = []
    for p in paths:
        try:
            runs.append((Path(p).parent.name or p, json.loads(Path(p).read_text())))
        except (OSError, json.JSONDecodeError) as e:
            sys.exit(f"plot_results: {p}: {e}")
    return runs


def plot_sweep(out, runs, plt):
    fig, (lat, bw) = plt.subplots(1, 2, figsize=(11, 4))
    for label, stats in runs:
        table = stats.get("workload", {}).get("table")
        if not table:
            sys.exit(f"plot_results: {label}: no ping-pong table in stats.json")
        sizes = [r["size_bytes"] for r in table]
        lat.plot(sizes, [r["latency_ns"] / 1000 for r in table], marker="o",
                 label=f"{label} ({stats['backend']})")
        bw.plot(sizes, [r["bandwidth_mbps"] for r in table], marker="o", label=label)
    lat.set(xlabel="message size (B)", ylabel="one-way latency (us)", title="Latency")
    bw.set(xlabel="message size (B)", ylabel="bandwidth (MB/s)", title="Bandwidth")
    for ax in (lat, bw):
        ax.grid(True, alpha=0.3)
    lat.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def plot_faults(out, runs, plt):
    reasons = sorted({r for _, s in runs for r, n in s["drops"].items() if n})
    if not reasons:
        reasons = ["(no drops)"]
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(runs)), 4))
    width = 0.8 / len(reasons)
    for i, reason in enumerate(reasons):
        ax.bar([k + i * width for k in range(len(runs))],
               [s["drops"].get(reason, 0) for _, s in runs], width, label=reason)
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(runs))])
    ax.set_xticklabels([label for label, _ in runs], rotation=20)
    ax.set(ylabel="packets dropped", title="Drops by reason per run")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("sweep", "faults"):
        sys.exit(__doc__)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_results: matplotlib missing (apt-get install python3-matplotlib)")
    runs = load(sys.argv[3:])
    (plot_sweep if sys.argv[1] == "sweep" else plot_faults)(sys.argv[2], runs, plt)
    print(f"wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()
