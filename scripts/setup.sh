#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages nicsim needs. Idempotent: installs only what is missing,
# and skips apt entirely when everything is present. Run as root (or with sudo available).
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git python3
  libgtest-dev libgmock-dev libbenchmark-dev
  libtomlplusplus-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  zlib1g-dev  # deflate for the Perfetto timeline's compressed packets
  libjemalloc-dev  # the nicsim executable's allocator (cmake/allocator.cmake)
  libsystemc-dev verilator
  dpdk dpdk-dev libdpdk-dev libibverbs-dev  # dpdk-dev: dpdk-testpmd for bench/run dpdk_vs_testpmd
  openmpi-bin libopenmpi-dev
  tshark iproute2
  clang libclang-rt-14-dev  # scripts/fuzz.sh: libFuzzer and the sanitizer runtimes
  clang-format  # scripts/format.sh: the house style (.clang-format)
  libsimgrid-dev  # bench/run sim_scale: SimGrid SMPI (smpicc, smpirun), the peer it compares with
  python3-matplotlib  # tools/plot_results.py
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# sudo resets the environment, so the frontend is passed explicitly as well. wireshark-common
# asks whether non-root users may capture; answer no up front so nothing can prompt.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
  $SUDO env DEBIAN_FRONTEND=noninteractive debconf-set-selections
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  "${missing[@]}"
echo "setup: done"
