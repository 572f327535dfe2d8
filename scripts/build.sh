#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds nicsim into build/ (the CLI lands at build/nicsim).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default >/dev/null
cmake --build build -j"$(nproc)"
