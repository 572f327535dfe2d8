#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/fuzz.sh [SECONDS]: builds the fuzz preset (clang, libFuzzer, ASan+UBSan; installs
# nothing: scripts/setup.sh does) and runs every fuzz target for SECONDS (default 60) on a copy
# of its seeds and saved crashes in a temporary directory. One line per target; exits 1 if
# any target crashed, with the crashing input's path (docs/testing.md: what to do with it).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS]   (seconds per target, default 60)" >&2
  exit 2
fi
if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ not found (scripts/setup.sh installs clang and libclang-rt-14-dev)" >&2
  exit 2
fi

# The targets in fuzz/fuzz_targets.h order, and the longest input each is given.
TARGETS=(frame_codec rdma_rx ether_frame scenario set_flag trace_diff rank_channel)
declare -A MAX_LEN=(
  [frame_codec]=4200    # a frame a little over the largest valid one
  [rdma_rx]=8192        # a few frames of up to 2 KiB payload, 4 bytes of record each
  [ether_frame]=4200    # two bytes of MTU and an Ethernet frame
  [scenario]=4096       # a scenario file (the built-in ones are under 1 KiB)
  [set_flag]=1024       # a handful of --set flags
  [trace_diff]=8192     # two trace excerpts
  [rank_channel]=4096   # a few calls of a program, with small data
)

log="$(mktemp -t nicsim-fuzz-build.XXXXXX)"
if ! { [ -f build-fuzz/build.ninja ] || cmake --preset fuzz; } >"$log" 2>&1 ||
   ! cmake --build build-fuzz -j2 --target fuzz >>"$log" 2>&1; then
  cat "$log" >&2
  echo "fuzz.sh: building the fuzz preset failed" >&2
  exit 2
fi
rm -f "$log"

work="$(mktemp -d -t nicsim-fuzz.XXXXXX)"
crashed=0
printf '%-12s %12s %10s  %s\n' target execs execs/s result
for t in "${TARGETS[@]}"; do
  dir="$work/$t"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp tests/fuzz/corpus/"$t"/* "$dir/corpus/"
  if [ -d "tests/fuzz/crashes/$t" ] && [ -n "$(ls -A "tests/fuzz/crashes/$t")" ]; then
    cp tests/fuzz/crashes/"$t"/* "$dir/corpus/"
  fi
  dict=()
  case "$t" in scenario | set_flag) dict=(-dict="$root/tests/fuzz/dict/scenario.dict") ;; esac
  rc=0
  # From the work directory: nothing libFuzzer writes can land in the source tree.
  (cd "$dir" && "$root/build-fuzz/fuzz/fuzz_$t" -max_total_time="$seconds" \
     -max_len="${MAX_LEN[$t]}" -timeout=10 -print_final_stats=1 "${dict[@]}" \
     -artifact_prefix="$dir/artifacts/" "$dir/corpus" >"$dir/log" 2>&1) || rc=$?
  execs="$(awk '/stat::number_of_executed_units/ {print $2}' "$dir/log" | tail -1)"
  rate="$(awk '/stat::average_exec_per_sec/ {print $2}' "$dir/log" | tail -1)"
  artifact="$(find "$dir/artifacts" -type f | head -1)"
  if [ "$rc" -ne 0 ] || [ -n "$artifact" ]; then
    crashed=1
    printf '%-12s %12s %10s  %s\n' "$t" "${execs:-?}" "${rate:-?}" \
      "CRASHED: ${artifact:-(no input saved)}; log $dir/log"
  else
    printf '%-12s %12s %10s  %s\n' "$t" "${execs:-?}" "${rate:-?}" ok
  fi
done
if [ "$crashed" -ne 0 ]; then
  echo "fuzz.sh: a target crashed; inputs and logs are under $work"
  echo "fuzz.sh: replay one with build-fuzz/fuzz/fuzz_TARGET FILE; once fixed, save the input"
  echo "fuzz.sh: as tests/fuzz/crashes/TARGET/NAME so fuzz_regression_test replays it"
  exit 1
fi
rm -rf "$work"
