#!/usr/bin/env bash
# Print the instruction-set level this machine runs (baseline, avx2 or avx512), by the same
# CPU flags as src/base/cpu.c's detection: test.sh builds its sanitizer trees only up to it
# (CMake's CT_ISA_MAX), since a level above it would be compiled there and never run.
set -euo pipefail
flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
has() { for f in "$@"; do [[ "$flags" == *" $f "* ]] || return 1; done; }
if has avx512f avx512bw avx512dq avx512vl avx2 fma f16c; then
    echo avx512
elif has avx2 fma f16c bmi2; then
    echo avx2
else
    echo baseline
fi
