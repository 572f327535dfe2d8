#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# bench/run shm_vs_vader: postbox messaging (ulp/postbox) between two real processes over POSIX
# shared memory (build/bench/bench_shm_pingpong) against Open MPI's shared-memory transport
# (bench/mpi_c/shm_pingpong_mpi.c under mpirun --mca btl self,vader), same machine, same run.
"""Writes bench/results/shm_vs_vader.json. The two programs run alternately RUNS times each
(so a burst of other load hits both alike); every figure is the median of its runs.

Targets:
  latency_8B_ompi_vs_postbox        >= 1/0.85  postbox 8 B half round trip <= 0.85x Open MPI's
  bandwidth_65536B_postbox_vs_ompi  >= 1.0     streaming 64 KiB at least Open MPI's
  bandwidth_4194304B_postbox_vs_ompi >= 1.0    streaming 4 MiB at least Open MPI's
memcpy bandwidth of the same sizes (one process) is reported without a target: the ceiling
a copy-based transport works under."""

import os
import re
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

import nicsim_bench

NAME = "shm_vs_vader"
DESCRIPTION = ("postbox over POSIX shm (2 forked processes) vs Open MPI vader BTL: 8 B latency, "
               "64 KiB and 4 MiB streaming bandwidth; memcpy for reference")
ROOT = nicsim_bench.ROOT
POSTBOX = ROOT / "build" / "bench" / "bench_shm_pingpong"
SOURCE = ROOT / "bench" / "mpi_c" / "shm_pingpong_mpi.c"
RUNS = 5
ITERATIONS = 100000
SIZES = [65536, 4194304]
LINE = re.compile(r"^(latency_8B_us|bandwidth_\d+B_mbps|memcpy_\d+B_mbps) ([0-9.]+)$", re.M)


def parse(out):
    return {m.group(1): float(m.group(2)) for m in LINE.finditer(out)}


def run(cmd):
    code, _, _, out, err = nicsim_bench.measure(cmd)
    if code != 0:
        nicsim_bench.fail(NAME, f"{' '.join(map(str, cmd))} failed (exit {code}):\n{out}\n{err}")
    return out, parse(out)


def btl_name():
    """vader in Open MPI 4.x, sm from 5.0 on."""
    info = subprocess.run(["ompi_info"], capture_output=True, text=True).stdout
    return "vader" if re.search(r"MCA btl: vader", info) else "sm"


def main():
    for tool in ("mpicc", "mpirun", "ompi_info"):
        if shutil.which(tool) is None:
            nicsim_bench.fail(NAME, f"{tool} not found (Debian: openmpi-bin, libopenmpi-dev)")
    if not POSTBOX.exists():
        nicsim_bench.fail(NAME, f"{POSTBOX} not built (bench/run {NAME} builds it)")
    btl = btl_name()
    # mpirun refuses root without both; harmless for other users.
    os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    samples = {"postbox": [], "ompi": []}
    with tempfile.TemporaryDirectory(prefix="nicsim_shm_vs_vader_") as tmp:
        program = Path(tmp) / "shm_pingpong_mpi"
        result = subprocess.run(["mpicc", "-O2", "-o", str(program), str(SOURCE)],
                                capture_output=True, text=True)
        if result.returncode != 0:
            nicsim_bench.fail(NAME, f"mpicc failed:\n{result.stderr}")
        mpi_cmd = ["mpirun", "--oversubscribe", "-n", "2", "--mca", "btl", f"self,{btl}",
                   str(program), str(ITERATIONS)]
        for i in range(RUNS):
            out, figures = run([str(POSTBOX), str(ITERATIONS)])
            if i == 0:
                params = next((l for l in out.splitlines() if l.startswith("params ")), "")
                print(f"{NAME}: postbox {params}; Open MPI btl self,{btl}")
            samples["postbox"].append(figures)
            samples["ompi"].append(run(mpi_cmd)[1])
            # Each pair on its own line: the machine may be shared, and the spread shows it.
            for side in ("postbox", "ompi"):
                s = samples[side][-1]
                print(f"  run {i + 1} {side:<7} latency_8B_us {s.get('latency_8B_us', 0):.4f}  " +
                      "  ".join(f"bandwidth_{n}B_mbps {s.get(f'bandwidth_{n}B_mbps', 0):.1f}"
                                for n in SIZES))
    figures, ratios, targets = {}, {}, {}

    def median(side, key):
        values = [s[key] for s in samples[side] if key in s]
        if len(values) != RUNS:
            nicsim_bench.fail(NAME, f"{side} printed {key} in {len(values)} of {RUNS} runs")
        return statistics.median(values)

    for side in ("postbox", "ompi"):
        figures[f"{side}_latency_8B_ns"] = median(side, "latency_8B_us") * 1000
        for size in SIZES:
            figures[f"{side}_bandwidth_{size}B_mbps"] = median(side, f"bandwidth_{size}B_mbps")
    for size in SIZES:
        figures[f"memcpy_{size}B_mbps"] = median("postbox", f"memcpy_{size}B_mbps")
    ratios["latency_8B_ompi_vs_postbox"] = (figures["ompi_latency_8B_ns"] /
                                            figures["postbox_latency_8B_ns"])
    targets["latency_8B_ompi_vs_postbox"] = 1 / 0.85
    for size in SIZES:
        key = f"bandwidth_{size}B_postbox_vs_ompi"
        ratios[key] = (figures[f"postbox_bandwidth_{size}B_mbps"] /
                       figures[f"ompi_bandwidth_{size}B_mbps"])
        targets[key] = 1.0
        ratios[f"bandwidth_{size}B_postbox_vs_memcpy"] = (
            figures[f"postbox_bandwidth_{size}B_mbps"] / figures[f"memcpy_{size}B_mbps"])
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, targets)


if __name__ == "__main__":
    raise SystemExit(main())
