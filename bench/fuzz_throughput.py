#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Benchmark: how fast each fuzz target runs under libFuzzer with ASan+UBSan (the fuzz preset),
# against a do-nothing target built the same way and run in the same session.
"""Writes bench/results/fuzz_throughput.json: execs per second of every fuzz target and its
ratio to fuzz_trivial (libFuzzer's own cost per input), and the execs each made."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nicsim_bench

NAME = "fuzz_throughput"
DESCRIPTION = "execs per second per fuzz target (libFuzzer, ASan+UBSan), vs a do-nothing target"
SECONDS = int(os.environ.get("NICSIM_FUZZ_BENCH_SECONDS", "10"))
ROOT = nicsim_bench.ROOT
# As scripts/fuzz.sh runs them (its MAX_LEN table), then the reference.
TARGETS = {"frame_codec": 4200, "rdma_rx": 8192, "ether_frame": 4200, "scenario": 4096,
           "set_flag": 1024, "trace_diff": 8192}
REFERENCE = "trivial"


def build():
    """Configures (once) and builds the fuzz preset's executables."""
    if not (ROOT / "build-fuzz" / "build.ninja").exists():
        subprocess.run(["cmake", "--preset", "fuzz"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
    result = subprocess.run(["cmake", "--build", "build-fuzz", "-j2", "--target", "fuzz"],
                            cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        nicsim_bench.fail(NAME, f"building the fuzz preset failed:\n{result.stdout}")


def run(target, max_len):
    """(execs, execs per second) of one target run for SECONDS on a copy of its seeds."""
    with tempfile.TemporaryDirectory(prefix="nicsim_fuzz_bench_") as work:
        corpus = Path(work) / "corpus"
        seeds = ROOT / "tests" / "fuzz" / "corpus" / target
        if seeds.is_dir():
            shutil.copytree(seeds, corpus)
        else:
            corpus.mkdir()
        cmd = [str(ROOT / "build-fuzz" / "fuzz" / f"fuzz_{target}"), f"-max_total_time={SECONDS}",
               f"-max_len={max_len}", "-timeout=10", "-print_final_stats=1",
               f"-artifact_prefix={work}/", str(corpus)]
        if target in ("scenario", "set_flag"):
            cmd.insert(1, f"-dict={ROOT / 'tests' / 'fuzz' / 'dict' / 'scenario.dict'}")
        result = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
        stats = dict(re.findall(r"^stat::(\w+):\s+(\d+)", result.stderr, re.MULTILINE))
        if result.returncode != 0 or "number_of_executed_units" not in stats:
            tail = "\n".join(result.stderr.splitlines()[-20:])
            nicsim_bench.fail(NAME, f"fuzz_{target} failed (exit {result.returncode}); "
                              f"scripts/fuzz.sh reproduces it:\n{tail}")
        return int(stats["number_of_executed_units"]), int(stats["average_exec_per_sec"])


def main():
    if shutil.which("clang++") is None:
        nicsim_bench.fail(NAME, "clang++ not found (scripts/setup.sh installs clang)")
    build()
    figures, ratios = {}, {}
    ref_execs, ref_rate = run(REFERENCE, 4096)
    figures[f"{REFERENCE}_execs_per_s"] = float(ref_rate)
    total = 0
    print(f"{'target':<12} {'execs':>12} {'execs/s':>10} {'vs trivial':>11}")
    for target, max_len in TARGETS.items():
        execs, rate = run(target, max_len)
        total += execs
        figures[f"{target}_execs"] = float(execs)
        figures[f"{target}_execs_per_s"] = float(rate)
        ratios[f"{target}_vs_trivial"] = rate / ref_rate
        print(f"{target:<12} {execs:>12} {rate:>10} {rate / ref_rate:>11.4f}")
    print(f"{REFERENCE:<12} {ref_execs:>12} {ref_rate:>10} {1.0:>11.4f}")
    figures["total_execs"] = float(total)
    figures["seconds_per_target"] = float(SECONDS)
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, {})


if __name__ == "__main__":
    sys.exit(main())
