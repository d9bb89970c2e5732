#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs CTest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/tools/install-deps.sh"
jobs="$(nproc)"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DEDGEMT_WERROR=ON
cmake --build "$root/build" -j "$jobs"
ctest --test-dir "$root/build" --output-on-failure -j "$jobs"
