#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets up, builds and runs every test. ctest's summary is the last thing printed.
#   scripts/test.sh --sanitize   every test built and run under ASan + UBSan instead
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ "${1:-}" = "--sanitize" ]; then
  exec scripts/sanitize.sh --all
fi
# The house style (.clang-format); like the fuzz and sanitizer runs below, a file out of style
# fails the run after ctest.
format_rc=0
scripts/format.sh --check || format_rc=$?
scripts/build.sh
# A short fuzzing smoke run (5 s per target, about a minute with its build) where clang is. A
# crash fails the run, but only after ctest, so ctest's summary is still the last thing printed.
fuzz_rc=0
if command -v clang++ >/dev/null; then
  scripts/fuzz.sh 5 || fuzz_rc=$?
fi
# The sanitizer subset (ASan + UBSan, build-debug/); like the fuzz run, a failure fails the
# run after ctest.
sanitize_rc=0
scripts/sanitize.sh || sanitize_rc=$?
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 600
# Nothing is printed after ctest's summary: the format check and the fuzz and sanitizer runs
# said above what failed.
[ "$format_rc" -eq 0 ] && [ "$fuzz_rc" -eq 0 ] && [ "$sanitize_rc" -eq 0 ]
