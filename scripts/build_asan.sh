#!/usr/bin/env bash
# Build the AddressSanitizer + UndefinedBehaviorSanitizer tree (build-asan/, gcc): the library,
# the C tests, the global-tensor part and the Python module. test.sh runs the C tests there and
# api_driver.sh drives the module; both build through here so that they share one tree.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="$root/build-asan" "$root/scripts/build.sh" \
    -DCT_SANITIZE=address,undefined,float-cast-overflow -DCT_BUILD_BENCH=OFF "$@" >/dev/null
