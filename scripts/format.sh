#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Formats the tree's C and C++ sources with clang-format and the house style (.clang-format).
#   scripts/format.sh           rewrite every file in place
#   scripts/format.sh --check   change nothing; list the files that are not formatted, exit 1 if any
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c')
if [ "${1:-}" = "--check" ]; then
  # clang-format names each file it would change in a warning; the files are listed once.
  if ! out=$(clang-format --style=file --dry-run --Werror "${files[@]}" 2>&1); then
    echo "format: files not formatted (scripts/format.sh rewrites them):" >&2
    grep -o '^[^:]*:[0-9]*:[0-9]*: error' <<<"$out" | cut -d: -f1 | sort -u | sed 's/^/  /' >&2
    exit 1
  fi
  echo "format: ${#files[@]} files formatted"
  exit 0
fi
clang-format --style=file -i "${files[@]}"
