#!/usr/bin/env bash
# Element-wise add, ctensor against PyTorch 1.13 in one run (README.md, "Arithmetic"):
# builds bench_arith (and bench_arith_torch when libtorch-dev is installed, and the Python
# module for the 1-element `a + b`), then for each thread count times ctensor with a
# STREAM-like bandwidth probe, PyTorch from Python, libtorch from C++, and prints the table
# with the speed targets marked met / not met.
#
# Usage: bench/run_arith.sh [build dir]
# Environment: CT_BENCH_BUILD_DIR (the build dir when no argument; default <repo>/build-bench),
# CT_BENCH_N (10000000), CT_BENCH_N_LARGE (100000000; 0 skips the large case),
# CT_BENCH_REPS (10), CT_BENCH_CALLS (200000, calls per timed run of the 1-element add),
# CT_BENCH_ROUNDS (3), CT_BENCH_THREADS ("1 2"), CT_PYTHON (/usr/bin/python3, which has
# torch 1.13), CT_BENCH_JOBS (2), CT_BENCH_KEEP (a file to keep the raw result lines in).
set -euo pipefail

# here, root and the bench_* build helpers
source "$(dirname "$0")/common.sh"
build="${1:-${CT_BENCH_BUILD_DIR:-$root/build-bench}}"
n="${CT_BENCH_N:-10000000}"
n_large="${CT_BENCH_N_LARGE:-100000000}"
reps="${CT_BENCH_REPS:-10}"
calls="${CT_BENCH_CALLS:-200000}"
rounds="${CT_BENCH_ROUNDS:-3}"
thread_counts="${CT_BENCH_THREADS:-1 2}"
python="${CT_PYTHON:-/usr/bin/python3}"
jobs="${CT_BENCH_JOBS:-2}"

bench_configure ON
bench_warn_build_type Release
bench_build bench_arith
cpp_bench=""
if bench_has_target bench_arith_torch; then
    bench_build bench_arith_torch
    cpp_bench="$build/bench/bench_arith_torch"
else
    echo "note: libtorch not found at configure time: no C++ at::add column" >&2
fi
pythonpath=""
if bench_has_target ctensor_python; then
    bench_build ctensor_python
    pythonpath="$build/python"
else
    echo "note: the Python module is not built in $build (CT_BUILD_PYTHON=OFF): no Python" \
        "ctensor figure" >&2
fi

results="$(mktemp)"
trap 'rm -f "$results"' EXIT

# Rounds alternate ctensor and PyTorch so that both see the same machine state (a shared VM
# drifts by up to 2x within minutes); each table cell is its best round.
for round in $(seq 1 "$rounds"); do
    for t in $thread_counts; do
        echo "== round $round/$rounds, $t thread(s): ctensor + bandwidth probe"
        CT_NUM_THREADS="$t" "$build/bench/bench_arith" --threads "$t" --n "$n" \
            --n-large "$n_large" --reps "$reps" --calls "$calls" | tee -a "$results"
        echo "== round $round/$rounds, $t thread(s): PyTorch ($python)"
        "$python" "$here/bench_torch_arith.py" measure --threads "$t" --n "$n" \
            --n-large "$n_large" --reps "$reps" | tee -a "$results"
        if [ -n "$cpp_bench" ]; then
            "$cpp_bench" --threads "$t" --calls "$calls" | tee -a "$results"
        fi
        CT_NUM_THREADS="$t" PYTHONPATH="$pythonpath${PYTHONPATH:+:$PYTHONPATH}" \
            "$python" "$here/bench_torch_arith.py" latency --threads "$t" --calls "$calls" \
            | tee -a "$results"
    done
done
if [ -n "${CT_BENCH_KEEP:-}" ]; then
    cp "$results" "$CT_BENCH_KEEP"
fi

echo
echo "machine: $(nproc) CPU(s), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
"$python" "$here/bench_torch_arith.py" table --results "$results"
