#!/usr/bin/env bash
# The README's third way in, `pip install .`, on a copy of the source tree (as a user's
# checkout): `pip wheel .` builds the wheel once, pip installs it into a fresh venv, and there
# ctensor imports, is self-contained (no libctensor.so to find) and runs the demo. Needs PyPI
# for scikit-build-core (pip's build isolation). Usage: check.sh [PYTHON]  (default
# /usr/bin/python3; any CPython >= 3.9)
#
# Why one build covers both `pip install .` and `pip wheel .`: for a source directory
# `pip install .` is exactly two steps, (1) the PEP 517 build_wheel hook of pyproject.toml's
# backend run in an isolated build environment and (2) the install of the wheel that hook
# returns. `pip wheel .` runs step 1 the same way (same isolation, same backend, same config)
# and keeps the wheel; installing that wheel with pip is step 2. Building twice (as this check
# did) only compiled the whole library a second time (each pip run gets a new isolated
# environment, and the second build started over even with a shared build directory).
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
start=$SECONDS

echo "== pip wheel . (build isolation, $("$python" --version))"
"$python" -m venv "$tmp/venv"
(cd "$tmp/src" && "$tmp/venv/bin/python" -m pip wheel -q --no-deps -w "$tmp/wheels" .)
wheel="$(ls "$tmp"/wheels/ctensor-*.whl)"
echo "built $(basename "$wheel") in $((SECONDS - start)) s"

echo "== pip install of that wheel into the fresh venv"
"$tmp/venv/bin/python" -m pip install -q --no-index "$wheel"
cd "$tmp" # not the source tree: the installed package must be what imports
"$tmp/venv/bin/python" - "$tmp/src" <<'PY'
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
so="$("$tmp/venv/bin/python" -c 'import ctensor; print(ctensor.__file__)')"
if ldd "$so" | grep -q 'libctensor'; then ldd "$so"; exit 1; fi
if command -v mpicc >/dev/null; then # Open MPI present: the dist part must be in
    "$tmp/venv/bin/python" -c 'import ctensor; assert hasattr(ctensor, "placement")'
fi
"$tmp/venv/bin/python" "$tmp/src/demo/demo.py" >"$tmp/demo.out"
grep -q "promote_types" "$tmp/demo.out"

echo "pip check passed: $(basename "$wheel") in $((SECONDS - start)) s"
