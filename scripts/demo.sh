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
