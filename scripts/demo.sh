#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, and run the demo.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/deps.sh"
"$root/scripts/build.sh" >/dev/null
"$root/build/ctensor_demo"
echo
echo "The same from Python (import ctensor as torch):"
PYTHONPATH="$root/build/python" /usr/bin/python3 "$root/demo/demo.py"
echo
echo "Global tensors (OneFlow's placement and sbp, import ctensor as flow) on 4 MPI processes:"
# Root needs Open MPI's consent; 4 ranks on a 2-core machine need --oversubscribe.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONPATH="$root/build/python" \
    timeout 300 mpirun --oversubscribe -np 4 /usr/bin/python3 "$root/demo/demo_global.py"
