#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# bench/run mpi_c: MPI ping-pong latency and bandwidth written in C (bench/mpi_c/pingpong.c)
# under `nicsim mpirun` on the hps preset (the default scenario), against the built-in
# mpi_pingpong workload measured in the same run, and the same program under SimGrid SMPI on
# a platform with the same link figures.
#
# Targets (ratio = min(C/built-in, built-in/C), so 0.98 means within 2%):
#   latency_<size>        the C latency program's latency per size
#   both_oneway_<size>, both_bidir_<size>, both_latency_<size>
#                         the C program doing mpi_pingpong's exact sequence of calls (latency
#                         rounds, then bandwidth, per size): the C API adds no simulated cost
# Reported without a target: the bandwidth program run alone (bandwidth_*: the traffic before
# each measurement differs from the built-in's, which runs the latency rounds first), SMPI's
# simulated figures, and the wall time of each run.
"""MPI C ping-pong and bandwidth under nicsim mpirun vs the built-in workload and SMPI."""

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nicsim_bench

NAME = "mpi_c"
DESCRIPTION = ("MPI ping-pong latency and bandwidth in C under nicsim mpirun (hps) vs the "
               "built-in mpi_pingpong; the same program under SimGrid SMPI")
ROOT = nicsim_bench.ROOT
SOURCE = ROOT / "bench" / "mpi_c" / "pingpong.c"
# The platform SMPI gets: hps's 2 GB/s links; 300 ns per switch hop and 50 ns per link
# (adapter-switch-adapter: 400 ns one way) as two 200 ns cluster links.
LINK_BW, LINK_LAT_NS = "2GBps", 200
LINE = re.compile(r"size (\d+) (latency_us ([0-9.]+)|oneway_mbps ([0-9.]+) bidir_mbps ([0-9.]+))")


def parse(out):
    """{size: {"latency_us": .., "oneway_mbps": .., "bidir_mbps": ..}} from rank 0's lines."""
    points = {}
    for m in LINE.finditer(out):
        p = points.setdefault(int(m.group(1)), {})
        if m.group(3) is not None:
            p["latency_us"] = float(m.group(3))
        else:
            p["oneway_mbps"], p["bidir_mbps"] = float(m.group(4)), float(m.group(5))
    return points


def build(compiler, work, name):
    program = work / name
    result = subprocess.run([compiler, "-O2", "-o", str(program), str(SOURCE)],
                            capture_output=True, text=True, cwd=work)
    if result.returncode != 0:
        nicsim_bench.fail(NAME, f"{compiler} failed:\n{result.stderr}")
    return program


def run(cmd):
    code, wall, _, out, err = nicsim_bench.measure(cmd)
    if code != 0:
        nicsim_bench.fail(NAME, f"{' '.join(map(str, cmd))} failed (exit {code}):\n{out}\n{err}")
    return parse(out), wall


def agreement(a, b):
    return min(a / b, b / a) if a > 0 and b > 0 else 1.0


def main():
    figures, ratios, targets = {}, {}, {}
    builtin, builtin_wall = nicsim_bench.run_nicsim(NAME, "default", {})
    params = builtin["params"]
    sizes = [int(s) for s in params["mpi.sizes"].strip("[]").split(",")]
    iterations, messages, window = (params["mpi.iterations"], params["mpi.bandwidth_messages"],
                                    params["mpi.window"])
    reference = {p["size_bytes"]: p for p in builtin["workload"]["points"]}
    figures["builtin_wall_s"] = builtin_wall
    with tempfile.TemporaryDirectory(prefix="nicsim_mpi_c_") as tmp:
        work = Path(tmp)
        program = build(str(ROOT / "build" / "nicsim-mpicc"), work, "pingpong")
        mpirun = [str(nicsim_bench.NICSIM), "mpirun", "-n", "2", "--quiet", "--out", tmp,
                  str(program)]
        size_args = [str(s) for s in sizes]
        latency, figures["c_latency_wall_s"] = run(mpirun + ["latency", str(iterations)] + size_args)
        bandwidth, figures["c_bandwidth_wall_s"] = run(
            mpirun + ["bandwidth", str(messages), str(window)] + size_args)
        both, figures["c_both_wall_s"] = run(
            mpirun + ["both", str(iterations), str(messages), str(window)] + size_args)
        for s in sizes:
            ref = reference[s]
            figures[f"builtin_latency_us_{s}"] = ref["latency_us"]
            figures[f"c_latency_us_{s}"] = latency[s]["latency_us"]
            ratios[f"latency_{s}"] = agreement(latency[s]["latency_us"], ref["latency_us"])
            ratios[f"both_latency_{s}"] = agreement(both[s]["latency_us"], ref["latency_us"])
            targets[f"latency_{s}"] = targets[f"both_latency_{s}"] = 0.98
            if s == 0:
                continue  # no bytes: no bandwidth
            for kind in ("oneway", "bidir"):
                key = "oneway_mbps" if kind == "oneway" else "bidirectional_mbps"
                figures[f"builtin_{kind}_mbps_{s}"] = ref[key]
                figures[f"c_{kind}_mbps_{s}"] = bandwidth[s][f"{kind}_mbps"]
                ratios[f"bandwidth_{kind}_{s}"] = agreement(bandwidth[s][f"{kind}_mbps"], ref[key])
                ratios[f"both_{kind}_{s}"] = agreement(both[s][f"{kind}_mbps"], ref[key])
                targets[f"both_{kind}_{s}"] = 0.98
        smpicc = shutil.which("smpicc")
        if smpicc is None or shutil.which("smpirun") is None:
            print(f"{NAME}: smpicc/smpirun missing (Debian libsimgrid-dev): SMPI left out")
        else:
            smpi_program = build(smpicc, work, "pingpong_smpi")
            platform = work / "two.xml"
            platform.write_text(
                "<?xml version='1.0'?>\n"
                '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
                '<platform version="4.1">\n'
                f'  <cluster id="c" prefix="node-" suffix="" radical="0-1" speed="1Gf" '
                f'bw="{LINK_BW}" lat="{LINK_LAT_NS}ns" bb_bw="1000GBps" bb_lat="0ns"/>\n'
                "</platform>\n")
            hosts = work / "hosts"
            hosts.write_text("node-0\nnode-1\n")
            smpi, figures["smpi_both_wall_s"] = run(
                ["smpirun", "-np", "2", "-platform", str(platform), "-hostfile", str(hosts),
                 "--cfg=smpi/simulate-computation:no", str(smpi_program), "both",
                 str(iterations), str(messages), str(window)] + size_args)
            for s in sizes:
                figures[f"smpi_latency_us_{s}"] = smpi[s]["latency_us"]
                if s > 0:
                    figures[f"smpi_oneway_mbps_{s}"] = smpi[s]["oneway_mbps"]
                    figures[f"smpi_bidir_mbps_{s}"] = smpi[s]["bidir_mbps"]
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, targets)


if __name__ == "__main__":
    sys.exit(main())
