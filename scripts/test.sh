#!/usr/bin/env bash
# Quick start, command 2: install what is missing, then build and run every test:
#  1. the C unit tests, and the C tests of global tensors under mpirun with 1-4 ranks, under
#     AddressSanitizer + UndefinedBehaviorSanitizer built with gcc (build-asan/);
#  2. 60 s of the random API driver against that tree's Python module (scripts/api_driver.sh),
#     while step 3's tree builds;
#  3. the same C tests under clang's AddressSanitizer + UndefinedBehaviorSanitizer
#     (build-clang/), which finds what gcc's does not (leaks in the global-tensor tests are
#     gcc's tree's job: LeakSanitizer is the same runtime in both);
#  4. a ThreadSanitizer stress test (scripts/tsan.sh, build-tsan/);
#  5. 10 s of libFuzzer on each fuzz target, starting from its corpus, two targets at a time
#     (fuzz/, built in step 3's tree);
#  6. everything (C unit tests, header checks, install check, Python tests against
#     PyTorch 1.13, the global-tensor tests in C and Python under mpirun with 1-4 ranks and
#     the mismatched-arguments driver on 2 and 3, each launch under `timeout`) in the normal
#     build (build/).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
# Each stage's banner carries the seconds since the start: the whole command should stay
# under 30 minutes on a 2-core machine, and the log says where the time went.
start=$SECONDS
stage() { echo "== [$((SECONDS - start)) s] $*"; }
"$root/scripts/deps.sh"
"$root/scripts/pydeps.sh"

# The sanitizer trees compile the instruction-set levels this machine runs, not the ones
# above (compiled there, never run: a third of the vector loops' compile time on an AVX2
# machine); the release tree compiles them all.
isa_max="$("$root/scripts/isa_level.sh")"
# The machine, in the log: some Python tests compare with torch bit for bit, and torch 1.13
# picks its kernels by the CPU (AVX2 or AVX-512), so a failure may be one CPU's.
cpu="$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')"
cpu="-- CPU: $cpu (ISA level $isa_max, $(nproc 2>/dev/null || echo '?') cpus)"
echo "$cpu"

# ctest in tree $1 with the remaining arguments. When a test fails, its names and first
# assertion lines are printed again at the very end: a long test's output (the Python
# shards print thousands of progress dots) can push them out of a log that keeps only its
# head and tail.
run_ctest() {
    local tree="$1" rc=0
    shift
    (cd "$tree" && ctest --output-on-failure -j "$jobs" "$@") || rc=$?
    if [ "$rc" -ne 0 ]; then
        local log="$tree/Testing/Temporary/LastTest.log"
        echo "-- failed in $tree (ctest exit $rc):"
        cat "$tree/Testing/Temporary/LastTestsFailed.log" 2>/dev/null || true
        if [ -f "$log" ]; then
            echo "-- their failure lines:"
            grep -E '^(FAILED|ERROR) |^E   |^\[  FAILED  \]|[Aa]ssert|Sanitizer' "$log" | head -n 60 || true
        fi
        echo "$cpu"
        exit "$rc"
    fi
}
stage "sanitizer build (gcc; address, undefined): C unit tests and C global-tensor tests"
"$root/scripts/build_asan.sh" -DCT_ISA_MAX="$isa_max"
stage "gcc sanitizer tree built: its tests"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    run_ctest "$root/build-asan" -L "unit|dist" -LE python

stage "random API driver (the same tree's Python module): random call sequences for 60 s"
# It runs on one core for a fixed 60 s: the clang tree builds meanwhile at a lower priority
# (nice), so the driver keeps its core and the other one is not left idle.
driver_log="$root/build-asan/api_driver.log"
"$root/scripts/api_driver.sh" 60 >"$driver_log" 2>&1 &
driver=$!
trap 'kill "$driver" 2>/dev/null || true' EXIT

stage "sanitizer build (clang; address, undefined): C unit tests and C global-tensor tests"
CC=clang BUILD_DIR="$root/build-clang" nice -n 10 "$root/scripts/build.sh" \
    -DCT_SANITIZE=address,undefined -DCT_BUILD_PYTHON=OFF -DCT_BUILD_BENCH=OFF \
    -DCT_BUILD_CUDA=OFF -DCT_BUILD_FUZZ=ON -DCT_MPI_LEAK_CHECK=OFF -DCT_ISA_MAX="$isa_max" \
    >/dev/null
driver_ok=0
wait "$driver" || driver_ok=$?
trap - EXIT
echo "-- random API driver:"
cat "$driver_log"
[ "$driver_ok" -eq 0 ] || { echo "random API driver failed (exit $driver_ok)"; exit 1; }
stage "clang sanitizer tree built: its tests"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    run_ctest "$root/build-clang" -L "unit|dist"

stage "thread sanitizer build: many threads creating, viewing, casting and adding tensors"
CT_ISA_MAX="$isa_max" "$root/scripts/tsan.sh"

stage "fuzzing (libFuzzer, clang, ASan + UBSan): a short run of every target over its corpus"
CT_FUZZ_BUILD="$root/build-clang" CT_FUZZ_PARALLEL=2 "$root/fuzz/run.sh" 10

stage "release build: all tests"
# The CUDA kernels are compiled to PTX only here: ptxas would more than double nvcc's time,
# and the GPU check (scripts/gpu-check.sh) builds sm_90 machine code. Without a GPU to run
# them (CI) they are only compiled, with the conversions as calls (CT_CUDA_COMPILE_CHECK:
# nvcc in 36 s of CPU instead of 261 s); with one, the GPU tests here run the real kernels.
cuda_check=ON
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    cuda_check=OFF
fi
"$root/scripts/build.sh" -DCMAKE_CUDA_ARCHITECTURES=90-virtual \
    -DCT_CUDA_COMPILE_CHECK=$cuda_check -DCT_ISA_MAX=avx512 >/dev/null
stage "release tree built: its tests"
run_ctest "$root/build"
stage "all tests passed"
