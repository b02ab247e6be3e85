#!/usr/bin/env bash
# Build bench_convert if needed, run it at every ISA level this CPU has, time PyTorch's
# x.to(dtype) for the same conversions in the same run, and print the table (README.md).
#
# Environment: CT_BENCH_BUILD_DIR (default <repo>/build-bench), CT_BENCH_N (10000000),
# CT_BENCH_REPS (10), CT_BENCH_ROUNDS (3), CT_PYTHON (/usr/bin/python3, which has torch
# 1.13), CT_BENCH_JOBS (2).
set -euo pipefail

# here, root and the bench_* build helpers
source "$(dirname "$0")/common.sh"
build="${CT_BENCH_BUILD_DIR:-$root/build-bench}"
n="${CT_BENCH_N:-10000000}"
reps="${CT_BENCH_REPS:-10}"
python="${CT_PYTHON:-/usr/bin/python3}"
jobs="${CT_BENCH_JOBS:-2}"

bench_configure OFF
bench_build bench_convert

# Rounds alternate between ctensor and PyTorch so that both see the same machine state (a
# shared VM drifts by up to 2x); each table cell is the best round.
rounds="${CT_BENCH_ROUNDS:-3}"
ct_results="$(mktemp)"
torch_results="$(mktemp)"
trap 'rm -f "$ct_results" "$torch_results"' EXIT

for round in $(seq 1 "$rounds"); do
    echo "== round $round/$rounds: ctensor ($build/bench/bench_convert --n $n --reps $reps --isa all)"
    "$build/bench/bench_convert" --n "$n" --reps "$reps" --isa all | tee -a "$ct_results"
    echo "== round $round/$rounds: PyTorch ($python)"
    "$python" "$here/bench_torch.py" measure --n "$n" --reps "$reps" | tee -a "$torch_results"
done
active="$("$build/bench/bench_convert" --n 1 --reps 1 --isa active | awk 'NR==1 {print $3}')"

echo
"$python" "$here/bench_torch.py" table --ct "$ct_results" --torch "$torch_results" \
    --n "$n" --reps "$reps" --active "$active"
