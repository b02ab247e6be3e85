#!/usr/bin/env bash
# Build bench_copy if needed, time ctensor's casting and permuting copies with 1 and 2
# threads, time PyTorch's same copies in the same run, and print the table (README.md,
# "Copies").
#
# Environment: CT_BENCH_BUILD_DIR (default <repo>/build-bench), CT_BENCH_N (10000000),
# CT_BENCH_REPS (10), CT_BENCH_ROUNDS (3), CT_BENCH_THREADS ("1 2"), CT_PYTHON
# (/usr/bin/python3, which has torch 1.13), CT_BENCH_JOBS (2).
set -euo pipefail

# here, root and the bench_* build helpers
source "$(dirname "$0")/common.sh"
build="${CT_BENCH_BUILD_DIR:-$root/build-bench}"
n="${CT_BENCH_N:-10000000}"
reps="${CT_BENCH_REPS:-10}"
rounds="${CT_BENCH_ROUNDS:-3}"
thread_counts="${CT_BENCH_THREADS:-1 2}"
python="${CT_PYTHON:-/usr/bin/python3}"
jobs="${CT_BENCH_JOBS:-2}"

bench_configure OFF
bench_build bench_copy

ct_results="$(mktemp)"
torch_results="$(mktemp)"
trap 'rm -f "$ct_results" "$torch_results"' EXIT

# ctensor's copy loop reads CT_NUM_THREADS once per process: one process per thread count.
# Rounds alternate between ctensor and PyTorch so both see the same machine state; each
# table cell is the best round.
for round in $(seq 1 "$rounds"); do
    for t in $thread_counts; do
        echo "== round $round/$rounds, $t thread(s): ctensor"
        CT_NUM_THREADS="$t" "$build/bench/bench_copy" --n "$n" --reps "$reps" | tee -a "$ct_results"
        echo "== round $round/$rounds, $t thread(s): PyTorch ($python)"
        "$python" "$here/bench_torch_copy.py" measure --threads "$t" --n "$n" --reps "$reps" \
            | tee -a "$torch_results"
    done
done

echo
"$python" "$here/bench_torch_copy.py" table --ct "$ct_results" --torch "$torch_results"
