#!/usr/bin/env bash
# Configure and build ctensor into BUILD_DIR (default: build/). Extra arguments go to cmake.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
# deps.sh installs MPI, so the global-tensor part is required here (AUTO elsewhere).
cmake -S "$root" -B "$build" -DCT_WERROR=ON -DCT_BUILD_DIST=ON "$@" >/dev/null
cmake --build "$build" -j "$jobs"
