#!/usr/bin/env bash
# ThreadSanitizer: build tests/unit/test_thread_stress.c with gcc -fsanitize=thread into
# build-tsan/ (that target and the static library only) and run it; any data race fails.
#
# OpenMP stays on: the test runs large operations from 8 threads at once, each starting its
# own team while others change ct_set_num_threads, so chunks really run on libgomp's
# workers. libgomp is not built with ThreadSanitizer, so TSan cannot see a team's start and
# join barriers by itself and would report each hand-over of work as a race; in TSan builds
# src/base/parallel.c states them with __tsan_release / __tsan_acquire (and leaves only the
# region's own entry unchecked). Races inside the work of a chunk are still reported. No
# suppressions are needed. (Fallback if a libgomp ever defeats that: OMP_THREAD_LIMIT=1,
# which keeps ctensor's OpenMP path but runs every chunk on the calling thread.)
#
# Environment: JOBS (build jobs, default nproc), CT_TSAN_ITERS (iterations per thread,
# default 200: about 10 s under TSan on 2 busy cores), CT_ISA_MAX (the highest ISA level
# compiled, default avx512: CMake's option of that name).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-tsan"
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"

cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=gcc -DCT_SANITIZE=thread -DCT_WERROR=ON \
    -DCT_BUILD_PYTHON=OFF -DCT_BUILD_BENCH=OFF -DCT_BUILD_DIST=OFF -DCT_BUILD_CUDA=OFF \
    -DCT_ISA_MAX="${CT_ISA_MAX:-avx512}" >/dev/null
cmake --build "$build" -j "$jobs" --target test_thread_stress >/dev/null

run() {
    CT_STRESS_ITERS="${CT_TSAN_ITERS:-200}" \
        TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
        "$@" "$build/tests/test_thread_stress"
}
log="$build/test_thread_stress.log"
if run >"$log" 2>&1; then
    cat "$log"
    exit 0
fi
# gcc 12's TSan cannot map its shadow memory under the larger address-space randomisation
# of newer kernels; it then stops before main with "unexpected memory mapping". Retry with
# randomisation off for this process (setarch -R) in that case only.
if grep -q "unexpected memory mapping" "$log" && command -v setarch >/dev/null; then
    echo "tsan.sh: TSan could not map its shadow memory; retrying with ASLR off (setarch -R)"
    run setarch "$(uname -m)" -R
    exit $?
fi
cat "$log"
exit 1
