#!/usr/bin/env bash
# Build the AddressSanitizer + UndefinedBehaviorSanitizer tree (build-asan/, gcc): the library,
# the C tests, the global-tensor part and the Python module. test.sh runs the C tests there and
# api_driver.sh drives the module; both build through here so that they share one tree.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# The CUDA backend stays out of the sanitizer trees: nvcc's code cannot carry the sanitizers
# (its host side is checked here through the allocator's own unit test; the device side under
# compute-sanitizer by scripts/gpu-check.sh), and it would double the build time.
BUILD_DIR="$root/build-asan" "$root/scripts/build.sh" \
    -DCT_SANITIZE=address,undefined,float-cast-overflow -DCT_BUILD_BENCH=OFF -DCT_BUILD_CUDA=OFF \
    "$@" >/dev/null
