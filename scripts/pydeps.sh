#!/usr/bin/env bash
# Test-side Python packages from PyPI, in a venv <repo>/.pyenv over Debian's interpreter:
# safetensors (the reference for ctensor's safetensors reader and writer) and ml_dtypes (the
# independent reference for the float8 / e8m0 / float4 conversions). The venv sees the
# system site-packages, and numpy is pinned to the system's version: unconstrained, ml_dtypes
# pulls NumPy 2, which Debian's torch 1.13 (built against NumPy 1.x) cannot import.
# The module is built for /usr/bin/python3, which is the venv's interpreter too, so it imports
# there. Quick and silent when everything is already installed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.pyenv"
py=/usr/bin/python3
pins=(safetensors==0.8.0 ml_dtypes==0.5.4)

have() {
    "$venv/bin/python" - "$@" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
for pin in sys.argv[1:]:
    name, want = pin.split("==")
    if version(name) != want:
        sys.exit(1)
PY
}

if [ -x "$venv/bin/python" ] && have "${pins[@]}"; then
    exit 0
fi
echo "== test-side Python packages (${pins[*]}) into $venv"
[ -x "$venv/bin/python" ] || "$py" -m venv --system-site-packages "$venv"
constraints="$(mktemp)"
trap 'rm -f "$constraints"' EXIT
echo "numpy==$("$py" -c 'import numpy; print(numpy.__version__)')" >"$constraints"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -c "$constraints" "${pins[@]}"
