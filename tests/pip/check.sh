#!/usr/bin/env bash
# The README's third way in: `pip install .` into a fresh venv (from a copy of the source tree,
# as a user's checkout), import ctensor there and run the demo; then `pip wheel .` and that
# wheel into a second venv of the same Python. Needs PyPI for scikit-build-core (pip's build
# isolation). Usage: check.sh [PYTHON]  (default /usr/bin/python3; any CPython >= 3.9)
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
python="${1:-/usr/bin/python3}"
tmp="$(mktemp -d /tmp/ctensor-pip.XXXXXX)"; trap 'rm -rf "$tmp"' EXIT
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1
unset PYTHONPATH CT_LIBCTENSOR

mkdir "$tmp/src"
tar -C "$src" --exclude='./build*' --exclude=./.git --exclude=./.gpu-carry -cf - . |
    tar -C "$tmp/src" -xf -
# One CMake build directory for both pip runs (in /tmp): the wheel reuses the first build.
config=(--config-settings=build-dir="$tmp/cmake-build")

echo "== pip install . (fresh venv, $("$python" --version))"
"$python" -m venv "$tmp/venv1"
(cd "$tmp/src" && "$tmp/venv1/bin/python" -m pip install -q "${config[@]}" .)
cd "$tmp" # not the source tree: the installed package must be what imports
"$tmp/venv1/bin/python" - "$tmp/src" <<'PY'
import os, re, sys, importlib.metadata as md
import ctensor
src = sys.argv[1]
assert ctensor.__file__.startswith(sys.prefix), ctensor.__file__
pkg = os.path.dirname(ctensor.__file__)
for f in ("__init__.pyi", "py.typed"):
    assert os.path.exists(os.path.join(pkg, f)), f
text = open(os.path.join(src, "include", "ctensor", "version.h")).read()
version = ".".join(re.search(r"#define CT_VERSION_%s (\d+)" % p, text).group(1)
                   for p in ("MAJOR", "MINOR", "PATCH"))
assert ctensor.__version__ == version == md.version("ctensor"), (ctensor.__version__, version)
assert "add(input, other, *, alpha=1, out=None)" in ctensor.add.__doc__ or \
    ctensor.add.__text_signature__ == "(input, other, *, alpha=1, out=None)"
x = ctensor.ones(2, 3) + ctensor.arange(3)
assert x.sum().item() == 12.0
print("ctensor", ctensor.__version__, "from", pkg, "global tensors:", hasattr(ctensor, "placement"))
PY
# self-contained: the C library is inside the module, not a libctensor*.so to find at run time
so="$("$tmp/venv1/bin/python" -c 'import ctensor; print(ctensor.__file__)')"
if ldd "$so" | grep -q 'libctensor'; then ldd "$so"; exit 1; fi
if command -v mpicc >/dev/null; then # Open MPI present: the dist part must be in
    "$tmp/venv1/bin/python" -c 'import ctensor; assert hasattr(ctensor, "placement")'
fi
"$tmp/venv1/bin/python" "$tmp/src/demo/demo.py" >"$tmp/demo.out"
grep -q "promote_types" "$tmp/demo.out"

echo "== pip wheel . and the wheel in a second venv"
(cd "$tmp/src" && "$tmp/venv1/bin/python" -m pip wheel -q --no-deps "${config[@]}" -w "$tmp/wheels" .)
wheel="$(ls "$tmp"/wheels/ctensor-*.whl)"
"$python" -m venv "$tmp/venv2"
"$tmp/venv2/bin/python" -m pip install -q --no-index "$wheel"
"$tmp/venv2/bin/python" -c 'import ctensor, sys; assert ctensor.__file__.startswith(sys.prefix); print(ctensor.__version__, ctensor.ones(2).tolist())'
"$tmp/venv2/bin/python" "$tmp/src/demo/demo.py" | cmp - "$tmp/demo.out"
echo "pip check passed: $(basename "$wheel")"
