#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Draws nicsim results to PNG: latency and bandwidth per message size from ping-pong sweeps,
# a fault matrix (drops by reason per run) from any set of stats.json files, the MPI workloads'
# tables, and bench/run sim_scale's curves.
"""Usage:
  tools/plot_results.py sweep OUT.png STATS.json [STATS.json ...]   # one curve per run
  tools/plot_results.py faults OUT.png STATS.json [STATS.json ...]  # drops by reason
  tools/plot_results.py mpi OUT.png STATS.json [STATS.json ...]     # mpi_pingpong latency and
      bandwidth, mpi_collectives time per call, against message size (log axes)
  tools/plot_results.py scale OUT.png sim_scale.runs.json           # wall time and RSS
      against ranks, nicsim and SMPI (written by bench/run sim_scale)

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


def plot_mpi(out, runs, plt):
    pingpongs = [(l, s) for l, s in runs if s.get("workload", {}).get("workload") == "mpi_pingpong"]
    collectives = [(l, s) for l, s in runs
                   if s.get("workload", {}).get("workload") == "mpi_collectives"]
    if not pingpongs and not collectives:
        sys.exit("plot_results: no mpi_pingpong or mpi_collectives stats.json given")
    panels = (2 if pingpongs else 0) + (1 if collectives else 0)
    fig, axes = plt.subplots(1, panels, figsize=(5.5 * panels, 4), squeeze=False)
    axes = list(axes[0])
    if pingpongs:
        lat, bw = axes.pop(0), axes.pop(0)
        for label, stats in pingpongs:
            points = [p for p in stats["workload"]["points"] if p["size_bytes"] > 0]
            sizes = [p["size_bytes"] for p in points]
            lat.plot(sizes, [p["latency_us"] for p in points], marker="o", label=label)
            bw.plot(sizes, [p["oneway_mbps"] for p in points], marker="o", label=f"{label} one-way")
            bw.plot(sizes, [p["bidirectional_mbps"] for p in points], marker="s", linestyle="--",
                    label=f"{label} both ways")
        lat.set(xlabel="message size (B)", ylabel="latency (us)", title="MPI ping-pong latency",
                xscale="log", yscale="log")
        bw.set(xlabel="message size (B)", ylabel="bandwidth (MB/s)", title="MPI bandwidth",
               xscale="log")
        for ax in (lat, bw):
            ax.grid(True, alpha=0.3, which="both")
            ax.legend(fontsize=8)
    if collectives:
        ax = axes.pop(0)
        for label, stats in collectives:
            points = stats["workload"]["points"]
            names = sorted({k[:-3] for p in points for k in p if k.endswith("_us")})
            for name in names:
                rows = [p for p in points if f"{name}_us" in p and p["size_bytes"] > 0]
                ax.plot([p["size_bytes"] for p in rows], [p[f"{name}_us"] for p in rows],
                        marker="o", label=f"{label} {name} ({stats['workload']['ranks']} ranks)")
        ax.set(xlabel="message size (B)", ylabel="time per call (us)", title="MPI collectives",
               xscale="log", yscale="log")
        ax.grid(True, alpha=0.3, which="both")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def plot_scale(out, path, plt):
    try:
        runs = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"plot_results: {path}: {e}")
    fig, (wall, rss) = plt.subplots(1, 2, figsize=(11, 4))
    # nicsim as `nicsim run` runs it (threads from 256 ranks), nicsim on one thread (16 and
    # 1,024 ranks), SMPI.
    for tool, marker, name in (("nicsim", "o", "nicsim"), ("one_thread", "^", "nicsim 1 thread"),
                               ("smpi", "s", "smpi")):
        for workload, by_ranks in sorted(runs.get(tool, {}).items()):
            if not by_ranks:
                continue
            ranks = sorted(by_ranks, key=int)
            xs = [int(n) for n in ranks]
            wall.plot(xs, [by_ranks[n]["wall_s"] for n in ranks], marker=marker,
                      label=f"{name} {workload}")
            rss.plot(xs, [by_ranks[n]["rss_bytes"] / 2**20 for n in ranks], marker=marker,
                     label=f"{name} {workload}")
    wall.set(xlabel="ranks", ylabel="wall time (s)", title="Wall time", xscale="log",
             yscale="log")
    rss.set(xlabel="ranks", ylabel="peak RSS (MiB)", title="Memory", xscale="log", yscale="log")
    for ax in (wall, rss):
        ax.grid(True, alpha=0.3, which="both")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("sweep", "faults", "mpi", "scale"):
        sys.exit(__doc__)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_results: matplotlib missing (apt-get install python3-matplotlib)")
    if sys.argv[1] == "scale":
        plot_scale(sys.argv[2], sys.argv[3], plt)
    else:
        plotters = {"sweep": plot_sweep, "faults": plot_faults, "mpi": plot_mpi}
        plotters[sys.argv[1]](sys.argv[2], load(sys.argv[3:]), plt)
    print(f"wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()
