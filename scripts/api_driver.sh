#!/usr/bin/env bash
# The random API driver (tests/python/api_driver.py) against the Python module of the
# AddressSanitizer + UndefinedBehaviorSanitizer tree (build-asan/, built by build_asan.sh).
# Usage: scripts/api_driver.sh [SECONDS [SEED]] (default 60 s, seed 1).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
seed="${2:-1}"
build="$root/build-asan"
"$root/scripts/build_asan.sh"
# The interpreter is not instrumented: the ASan runtime must be loaded first, and libstdc++
# right after it so that its C++ exception interceptors find the real functions (PyTorch,
# a consumer of the DLPack exports, throws). CPython keeps memory until exit by design, so
# leak checking is off.
preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so.6)"
cd "$build"
LD_PRELOAD="$preload" PYTHONPATH="$build/python" PYTHONDONTWRITEBYTECODE=1 \
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    /usr/bin/python3 "$root/tests/python/api_driver.py" --seconds "$seconds" --seed "$seed"
