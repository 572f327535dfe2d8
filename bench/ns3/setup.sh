#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what bench/sim_speed_vs_ns3 needs to build its ns-3 reference (Debian 12 ships
# ns-3 3.37 as libns3-dev); idempotent, needs root or sudo, and is not part of CI.
set -euo pipefail
# libns3-dev's .pc files link libgsl.so and libsqlite3.so but do not depend on their -dev packages.
packages=(libns3-dev libgsl-dev libsqlite3-dev pkg-config g++)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "bench/ns3/setup.sh: already installed: ${packages[*]}"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "bench/ns3/setup.sh: installing ${missing[*]}"
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
pkg-config --modversion ns3-core
