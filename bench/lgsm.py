#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Benchmark: M producers and N consumers sharing latest values through the gsm service
# (ulp/gsm, allgather and scatter modes) against a direct point-to-point design (every put
# sent to every consumer), under nicsim mpirun on 4 nodes (func backend), in simulated time.
"""Writes bench/results/lgsm.json. Figures per mode and M = N: connections as the run counts
them (gsm: the most each service held open at once, summed over services, M + N when every
client is connected together; point to point: the producers each consumer heard from, summed,
M x N when each heard all), bytes moved (gsm: record bytes received by the services; p2p: the
data sent), bytes per propagation round, and the lag from a producer's last put to a consumer
seeing it (max and mean), and the transport's packets, retransmits and simulated time.
Interval 200 us, 10 puts per producer, one every half interval.

Ratios: connections_p2p_over_gsm_<M> (the M x N / (M + N) saving). No target: the lag is
expected to be worse for gsm (up to one interval plus one round) and is reported as is.
LGSM_SIZES chooses M = N (default 4,8,16); a service per node, on max(4, M / 16) nodes so a
service has at most 32 clients (LGSM_SIZES=4,8,16,64,128,256 for the whole range: minutes of
wall time per run above 64, a process per rank)."""

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import nicsim_bench

NAME = "lgsm"
SIZES = [int(s) for s in os.environ.get("LGSM_SIZES", "4,8,16").split(",")]
DESCRIPTION = ("gsm (allgather, scatter) vs point to point: connections, bytes, lag; M = N in "
               f"{SIZES}, a service on each of max(4, M / 16) nodes (func)")
PROGRAM = nicsim_bench.ROOT / "build" / "tests" / "gsm" / "bin" / "nicsim_gsm_bench"
LINE = re.compile(r"connections (\d+) bytes (\d+) propagations (\d+) bytes_per_propagation "
                  r"(\d+) lag_max_us ([0-9.]+) lag_mean_us ([0-9.]+)")


def main():
    built = subprocess.run(["cmake", "--build", str(nicsim_bench.ROOT / "build"), "--target",
                            "nicsim_gsm_bench", "nicsim_mpi"], capture_output=True, text=True)
    if built.returncode != 0:
        nicsim_bench.fail(NAME, "building nicsim_gsm_bench failed:\n" + built.stdout[-2000:])
    figures, ratios = {}, {}
    for size in SIZES:
        nodes = max(4, size // 16)
        ranks = nodes + 2 * size
        for mode in ["allgather", "scatter", "p2p"]:
            with tempfile.TemporaryDirectory(prefix="nicsim_lgsm_") as out_dir:
                cmd = [str(nicsim_bench.NICSIM), "mpirun", "-n", str(ranks), "--quiet", "--out",
                       out_dir, "--set", f"nodes={nodes}", "--set", "backend=func"]
                if mode == "p2p":
                    # Every put to every consumer overloads the adapters from M = N = 64: their
                    # queues last longer than the transport's largest retransmit timeout
                    # (2 ms), and 64 unacknowledged sends would fail a peer that is only slow.
                    cmd += ["--set", "ulp.max_retransmits=100000"]
                cmd += [str(PROGRAM), str(nodes), str(size), str(size), "200", "10", mode]
                code, wall, _, out, err = nicsim_bench.measure(cmd)
                match = LINE.search(out)
                if code != 0 or not match:
                    nicsim_bench.fail(NAME, f"{' '.join(cmd)} failed ({code}):\n{out}{err}")
                stats = json.loads((Path(out_dir) / "stats.json").read_text())
            connections, bytes_moved, rounds, per_round, lag_max, lag_mean = match.groups()
            key = f"{mode}_{size}"
            figures[f"{key}_connections"] = float(connections)
            figures[f"{key}_bytes"] = float(bytes_moved)
            if mode != "p2p":
                figures[f"{key}_rounds"] = float(rounds)
                figures[f"{key}_bytes_per_round"] = float(per_round)
            figures[f"{key}_lag_max_us"] = float(lag_max)
            figures[f"{key}_lag_mean_us"] = float(lag_mean)
            figures[f"{key}_wall_s"] = wall
            transport = stats["workload"]["transport"]
            figures[f"{key}_packets"] = float(transport["packets_sent"])
            figures[f"{key}_retransmits"] = float(transport["retransmits"])
            figures[f"{key}_sim_ms"] = stats["sim_time_ns"] / 1e6
        ratios[f"connections_p2p_over_gsm_{size}"] = (
            figures[f"p2p_{size}_connections"] / figures[f"allgather_{size}_connections"])
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, {})


if __name__ == "__main__":
    sys.exit(main())
