#!/usr/bin/env bash
# Boxing of global tensors (libctensor_dist) against the bare MPI collectives that move the
# same bytes (README.md, "Boxing"): builds bench_boxing if needed, then runs it under mpirun
# with 2 and 4 ranks and prints one table per rank count.
#
# Usage: bench/run_boxing.sh [build dir]
# Environment: CT_BENCH_BUILD_DIR (the build dir when no argument; default <repo>/build-bench),
# CT_BENCH_NPS ("2 4": the rank counts), CT_BENCH_MIB ("1,16,64": logical sizes in MiB),
# CT_BENCH_ROUNDS (5), CT_BENCH_ITERS_SCALE (1.0: more or fewer calls per round),
# CT_BENCH_TIMEOUT (900 s per mpirun), CT_BENCH_JOBS (2), CT_BENCH_KEEP (a file to keep the
# RESULT lines in).
set -euo pipefail

# here, root and the bench_* build helpers
source "$(dirname "$0")/common.sh"
build="${1:-${CT_BENCH_BUILD_DIR:-$root/build-bench}}"
nps="${CT_BENCH_NPS:-2 4}"
mib="${CT_BENCH_MIB:-1,16,64}"
rounds="${CT_BENCH_ROUNDS:-5}"
scale="${CT_BENCH_ITERS_SCALE:-1.0}"
limit="${CT_BENCH_TIMEOUT:-900}"
jobs="${CT_BENCH_JOBS:-2}"

bench_configure OFF
bench_warn_build_type Release RelWithDebInfo
if ! bench_has_target bench_boxing; then
    echo "error: no bench_boxing target in $build: libctensor_dist is not built there" \
        "(MPI not found, or -DCT_BUILD_DIST=OFF)" >&2
    exit 1
fi
bench_build bench_boxing
mpiexec="$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")"
mpiexec="${mpiexec:-mpirun}"

results="$(mktemp)"
trap 'rm -f "$results"' EXIT

echo "machine: $(nproc) CPU(s), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for np in $nps; do
    echo "== np $np"
    # root in containers needs both OMPI_ALLOW_* variables; --oversubscribe lets np exceed
    # the core count (the ranks then share cores, which the figures show).
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        timeout -k 10 "$limit" "$mpiexec" --oversubscribe -np "$np" \
        "$build/bench/bench_boxing" --mib "$mib" --rounds "$rounds" --iters-scale "$scale" \
        | tee -a "$results" | grep -v '^RESULT'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${CT_BENCH_KEEP:-}" ]; then
    grep '^RESULT' "$results" >"$CT_BENCH_KEEP"
fi
