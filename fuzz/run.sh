#!/usr/bin/env bash
# Build the libFuzzer targets (build-fuzz/, clang + ASan + UBSan) if needed and run each for
# SECONDS (default 60) on a scratch copy of its corpus: fuzz/corpus/<target>/ is only read,
# new inputs go to a temporary directory. Prints executions and exec/s per target; exits
# non-zero when any target crashes (the reproducer is kept in <tree>/artifacts/).
# Usage: fuzz/run.sh [seconds per target]    env: CT_FUZZ_TARGETS="iter dlpack_import",
# CT_FUZZ_PARALLEL=2 (targets run at once; default 1), CT_FUZZ_BUILD=DIR (another clang
# tree configured with -DCT_BUILD_FUZZ=ON: scripts/test.sh fuzzes in its clang sanitizer tree
# rather than building the library a third time)
set -euo pipefail
secs="${1:-60}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
build="${CT_FUZZ_BUILD:-$root/build-fuzz}"

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
# Each target runs single-threaded for a fixed time: CT_FUZZ_PARALLEL of them at once
# (default 1) use more cores without shortening any run. Results print in the targets' order.
par="${CT_FUZZ_PARALLEL:-1}"
fuzz_one() { # target -> $scratch/<target>.log, exit status in $scratch/<target>.rc
  local t="$1"
  mkdir -p "$scratch/$t"
  local opts=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1
              -artifact_prefix="$build/artifacts/$t-")
  local env=(ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1}" UBSAN_OPTIONS="print_stacktrace=1")
  # CPython keeps interned objects and free lists for the life of the process: not leaks.
  [ "$t" = python_lists ] && env=(ASAN_OPTIONS="detect_leaks=0" UBSAN_OPTIONS="print_stacktrace=1")
  local rc=0
  env "${env[@]}" "$build/fuzz/fuzz_$t" "${opts[@]}" "$scratch/$t" "$here/corpus/$t" \
      >"$scratch/$t.log" 2>&1 || rc=$?
  echo "$rc" >"$scratch/$t.rc"
}
for t in $targets; do
  [ -x "$build/fuzz/fuzz_$t" ] || continue
  while [ "$(jobs -rp | wc -l)" -ge "$par" ]; do wait -n || true; done
  fuzz_one "$t" &
done
wait
status=0
printf '%-16s %12s %10s %8s  %s\n' target executions exec/s corpus result
for t in $targets; do
  if [ ! -x "$build/fuzz/fuzz_$t" ]; then
    printf '%-16s %12s %10s %8s  %s\n' "$t" - - - "skipped (not built)"
    continue
  fi
  log="$scratch/$t.log"
  if [ "$(cat "$scratch/$t.rc")" = 0 ]; then
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
