#!/usr/bin/env bash
# Build the libFuzzer targets (build-fuzz/, clang + ASan + UBSan) if needed and run each for
# SECONDS (default 60) on a scratch copy of its corpus: fuzz/corpus/<target>/ is only read,
# new inputs go to a temporary directory. Prints executions and exec/s per target; exits
# non-zero when any target crashes (the reproducer is kept in build-fuzz/artifacts/).
# Usage: fuzz/run.sh [seconds per target]    env: CT_FUZZ_TARGETS="iter dlpack_import"
set -euo pipefail
secs="${1:-60}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
build="$root/build-fuzz"

command -v clang >/dev/null || { echo "fuzz/run.sh: clang is needed (Debian: clang, libclang-rt-14-dev)" >&2; exit 2; }
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCT_BUILD_FUZZ=ON \
    -DCT_SANITIZE=address,undefined -DCT_BUILD_TESTS=OFF -DCT_BUILD_BENCH=OFF \
    -DCT_BUILD_PYTHON=OFF -DCT_BUILD_DIST=OFF -DCT_BUILD_CUDA=OFF >/dev/null
fi
all="device_string dtype_name tensor_create dlpack_import iter safetensors python_lists"
targets="${CT_FUZZ_TARGETS:-$all}"
build_targets=()
for t in $targets; do
  if [ "$t" = python_lists ] && ! grep -q "fuzz_python_lists" "$build/fuzz/Makefile" 2>/dev/null; then
    continue # no embeddable Python: CMake said so at configure time
  fi
  build_targets+=("fuzz_$t")
done
start=$(date +%s)
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# clang's warnings about the library are not this script's business: show the log on failure
if ! cmake --build "$build" -j"${CT_FUZZ_JOBS:-2}" --target "${build_targets[@]}" >"$scratch/build.log" 2>&1; then
  cat "$scratch/build.log" >&2
  echo "fuzz/run.sh: build failed" >&2
  exit 1
fi
echo "fuzz/run.sh: build took $(( $(date +%s) - start )) s"

mkdir -p "$build/artifacts"
status=0
printf '%-16s %12s %10s %8s  %s\n' target executions exec/s corpus result
for t in $targets; do
  exe="$build/fuzz/fuzz_$t"
  if [ ! -x "$exe" ]; then
    printf '%-16s %12s %10s %8s  %s\n' "$t" - - - "skipped (not built)"
    continue
  fi
  mkdir -p "$scratch/$t"
  opts=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1
        -artifact_prefix="$build/artifacts/$t-")
  env=(ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1}" UBSAN_OPTIONS="print_stacktrace=1")
  # CPython keeps interned objects and free lists for the life of the process: not leaks.
  [ "$t" = python_lists ] && env=(ASAN_OPTIONS="detect_leaks=0" UBSAN_OPTIONS="print_stacktrace=1")
  log="$scratch/$t.log"
  if env "${env[@]}" "$exe" "${opts[@]}" "$scratch/$t" "$here/corpus/$t" >"$log" 2>&1; then
    result=ok
  else
    result="CRASH (log below)"
    status=1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corp=$(ls "$here/corpus/$t" 2>/dev/null | wc -l)
  printf '%-16s %12s %10s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "$corp" "$result"
  if [ "$result" != ok ]; then
    grep -vE '^#[0-9]+ ' "$log" | tail -60 >&2
  fi
done
exit $status
