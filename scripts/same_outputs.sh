#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Records what nicsim produces for a fixed seed, so that two builds can be compared byte for
# byte (a restructuring must change none of it):
#   scripts/same_outputs.sh OUTDIR [NICSIM]      record into OUTDIR (default nicsim: build/nicsim)
#   diff -r BEFORE AFTER                         nothing printed: identical
# Recorded per run: stats.json without its wall-clock fields, stdout without its wall-clock
# line, and for a few runs the firmware trace, the timeline and the pcapng capture.
set -eu

out=${1:?usage: scripts/same_outputs.sh OUTDIR [NICSIM]}
nicsim=${2:-build/nicsim}
mkdir -p "$out"

# record NAME [nicsim run arguments...]
record() {
  name=$1
  shift
  dir="$out/$name"
  mkdir -p "$dir/run"
  code=0
  "$nicsim" run --out "$dir/run" "$@" --set seed=7 >"$dir/stdout.raw" 2>"$dir/stderr.raw" || code=$?
  echo "$code" >"$dir/exit_code"
  # Wall-clock figures differ from run to run; everything else must not.
  grep -v -e ' wall' -e '^stats: ' "$dir/stdout.raw" >"$dir/stdout" || true
  grep -v -e ' wall' -e '^stats: ' "$dir/stderr.raw" >"$dir/stderr" || true
  rm -f "$dir/stdout.raw" "$dir/stderr.raw"
  if [ -f "$dir/run/stats.json" ]; then
    python3 - "$dir/run/stats.json" "$dir/stats.json" <<'EOF'
import json, sys
stats = json.load(open(sys.argv[1]))
for key in ("wall_time_s", "wall_events_per_second"):
    stats.pop(key, None)
json.dump(stats, open(sys.argv[2], "w"), indent=1, sort_keys=True)
EOF
    rm -f "$dir/run/stats.json"
  fi
}

for scenario in $("$nicsim" scenarios | awk '{print $1}'); do
  record "scenario_$scenario" "$scenario"
done
for backend in func systemc; do
  record "pingpong_$backend" pingpong --set backend=$backend --set pingpong.stream_packets=200
  record "alltoall_$backend" --set workload=mpi_alltoall --set backend=$backend \
    --set mpi.ranks=6 --set nodes=3 --set mpi.alltoall_messages=20
done
record collectives --set workload=mpi_collectives --set backend=func --set mpi.ranks=5 \
  --set nodes=3 --set "mpi.sizes=[4, 4096, 100000]" --set mpi.iterations=2
record rdma_sweep --set workload=rdma_sweep --set backend=func
record dlm_blocks --set workload=dlm_blocks --set backend=func --set nodes=4 \
  --set fabric.loss=0.02 --set fabric.duplicate=0.02
record close_under_load --set workload=close_under_load --set backend=func
record recovery_under_load --set workload=recovery_under_load --set backend=func
record exchange_systemc exchange --set backend=systemc --set exchange.messages=2000
record lossy_alltoall --set workload=mpi_alltoall --set backend=func --set mpi.ranks=4 \
  --set nodes=4 --set mpi.alltoall_messages=20 --set fabric.loss=0.05 --set fabric.duplicate=0.05
record lossy_stream --set workload=stream --set backend=func --set stream.packets=2000 \
  --set fabric.loss=0.1
record observed pingpong --set backend=func --set pingpong.stream_packets=100 \
  --set "pingpong.sizes=[64, 2000]" \
  --trace "$out/observed.trace" --timeline "$out/observed.timeline.json" --pcap "$out/observed.pcapng"
echo "recorded $(ls "$out" | wc -l) outputs in $out"
