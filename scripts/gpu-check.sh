#!/usr/bin/env bash
# The CUDA backend's checks on a machine with a GPU, in one run (docs/cuda.md):
#   1. configure + build a Release tree in build-gpu/ with the CUDA backend (sm_90)
#   2. probe: the Python module sees the GPU (and torch does)
#   3. ctest -L cuda           the C tests of the backend (must run, not skip)
#   4. pytest                  tests/python/test_cuda*.py (test_cuda.py, test_cuda_nogpu.py, ...)
#   5. compute-sanitizer       each tests/cuda/test_cuda_* binary under memcheck
#   6. ctest -L unit           the C unit tests, a sanity check of that machine (in the
#                              background during steps 3-5, on half the cores)
#   7. benchmarks              bench/cuda_bench (C) and bench/cuda_bench.py (vs torch)
# Every step runs under `timeout`, a failure does not stop the later steps, and the whole run
# keeps within CT_GPU_BUDGET seconds (default 450, i.e. under 8 minutes on a 16-core machine):
# a step that finds too little time left is reported as NOT RUN and counts as a failure.
#
# Logs: $OUT when set (the borrowed GPU machine hands that folder back; at most 8 files, so
# there are exactly 8: build.log ctest-cuda.log pytest.log memcheck.log ctest-unit.log
# bench-c.log bench-py.log summary.txt), else build-gpu/logs.
#
# Exit status: 0 all passed; 1 something failed; 77 no GPU on this machine: it then builds,
# runs the host-side steps (the cuda tests must skip cleanly) and stops before the GPU steps.
#
# No internet and no root package manager is assumed: the script never runs scripts/deps.sh.
# What the build needs and the GPU image may lack (cmocka, dlpack.h, pkg-config, SLEEF,
# OpenBLAS) is unpacked from Debian packages in .gpu-carry/ (git-ignored; fill it on a machine
# with apt:
#   mkdir -p .gpu-carry && cd .gpu-carry &&
#   apt-get download libcmocka0 libcmocka-dev libdlpack-dev pkgconf-bin libpkgconf3 \
#     libsleef3 libsleef-dev libopenblas0-openmp libopenblas-openmp-dev libgfortran5 libquadmath0
# ) into build-gpu/carried/, never into /.
#
# Environment: CT_PYTHON (default: python3 on PATH), CT_GPU_BUILD_DIR (default build-gpu),
# CT_GPU_JOBS (default: cores, at most 16), CT_GPU_BUDGET (seconds, default 450),
# CT_GPU_ARCH (CMAKE_CUDA_ARCHITECTURES, default 90), CT_GPU_FORCE_CARRY=1 (use the carried
# packages even where the system has them: tests this script on a machine with apt),
# CT_GPU_QUICK=1 (steps 1-4 only, about 3 minutes with the machine's start: a re-run of the
# tests after a fix, when the session's device time is short).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CT_GPU_BUILD_DIR:-$root/build-gpu}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
logs="${OUT:-$build/logs}"
python="${CT_PYTHON:-$(command -v python3 || true)}"
jobs="${CT_GPU_JOBS:-$(nproc 2>/dev/null || echo 4)}"
[ "$jobs" -gt 16 ] && jobs=16
budget="${CT_GPU_BUDGET:-450}"
quick="${CT_GPU_QUICK:-0}"
arch="${CT_GPU_ARCH:-90}"
cuda_bin=/usr/local/cuda/bin
[ -d "$cuda_bin" ] && PATH="$PATH:$cuda_bin"

mkdir -p "$build" "$logs"
summary="$logs/summary.txt"
: >"$summary"
start=$SECONDS
failed=0
results=()

say() { echo "$*" | tee -a "$summary"; }

# the seconds left of the budget
left() { echo $((budget - (SECONDS - start))); }

# record STEP STATUS SECONDS [NOTE]: one summary line; FAIL and NOT-RUN count as failures
record() {
    local line
    line=$(printf '%-18s %-8s %4ss  %s' "$1" "$2" "$3" "${4:-}")
    results+=("$line")
    case "$2" in FAIL | NOT-RUN) failed=1 ;; esac
    echo "== $line"
}

# show the end of a failed step's log on the console (the GPU tool returns the console's tail)
show_tail() {
    echo "---- last lines of $1 ----"
    tail -n "${2:-30}" "$1" | cut -c1-240
    echo "----"
}

# run_step NAME LOG CAP CMD...: CMD under `timeout min(CAP, time left)`, appending to LOG;
# sets step_rc (124 = timed out) and step_secs
step_rc=0
step_secs=0
run_step() {
    local name=$1 log=$2 cap=$3
    shift 3
    local limit t0
    limit=$(left)
    [ "$limit" -gt "$cap" ] && limit=$cap
    step_secs=0
    if [ "$limit" -lt 10 ]; then
        echo "[$name: not run, the time budget is spent]" >>"$log"
        step_rc=125
        return 0
    fi
    t0=$SECONDS
    echo "[$name: $* (limit ${limit}s)]" >>"$log"
    set +e
    timeout --kill-after=10 "$limit" "$@" >>"$log" 2>&1
    step_rc=$?
    set -e
    step_secs=$((SECONDS - t0))
    echo "[$name: exit $step_rc after ${step_secs}s]" >>"$log"
    return 0
}

# status word of the last run_step's exit code
status_of() {
    case "$step_rc" in
        0) echo PASS ;;
        125) echo NOT-RUN ;;
        124 | 137) echo FAIL ;;
        *) echo FAIL ;;
    esac
}

note_of() {
    case "$step_rc" in
        0) echo "" ;;
        125) echo "time budget spent" ;;
        124 | 137) echo "timed out" ;;
        *) echo "exit $step_rc" ;;
    esac
}

# ---- the machine ---------------------------------------------------------------------------------
have_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    have_gpu=1
elif compgen -G '/dev/nvidia[0-9]*' >/dev/null; then
    have_gpu=1
fi
{
    echo "ctensor gpu-check  $(date -u '+%Y-%m-%d %H:%M:%S UTC')  commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "host: $(uname -srm), $(nproc) cores; build: $build (-j$jobs); budget ${budget}s"
    if [ "$have_gpu" = 1 ]; then
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null |
            sed 's/^/gpu: /' || echo "gpu: (nvidia-smi gave nothing)"
    else
        echo "gpu: none found (no nvidia-smi GPU, no /dev/nvidiaN)"
    fi
    echo "nvcc: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo 'not found')"
    echo "cmake: $(cmake --version 2>/dev/null | head -n1)"
    echo "python: ${python:-none} $("${python:-false}" -c 'import sys; print(sys.version.split()[0])' 2>/dev/null)"
    echo "torch: $("${python:-false}" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>/dev/null || echo 'not importable')"
} | tee -a "$summary"

# ---- carried Debian packages: cmocka, dlpack.h, pkg-config -------------------------------------------
carried="$build/carried"
carry_dir="$root/.gpu-carry"
cmake_extra=()
carry_notes=()

# unpack PATTERN: dpkg -x the one .deb in .gpu-carry matching PATTERN into $carried; fails
# when there is none
unpack() {
    local deb
    deb=$(compgen -G "$carry_dir/$1" | head -n1 || true)
    if [ -z "$deb" ]; then
        echo "missing: $carry_dir/$1" >&2
        return 1
    fi
    mkdir -p "$carried"
    dpkg -x "$deb" "$carried"
    carry_notes+=("$(basename "$deb")")
}

prepare_deps() {
    local multiarch=usr/lib/x86_64-linux-gnu
    local force="${CT_GPU_FORCE_CARRY:-0}"
    if [ "$force" = 1 ] || { ! command -v pkg-config && ! command -v pkgconf; } >/dev/null 2>&1; then
        unpack 'libpkgconf3_*.deb' && unpack 'pkgconf-bin_*.deb' || return 1
        export LD_LIBRARY_PATH="$carried/$multiarch${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        export PKG_CONFIG="$carried/usr/bin/pkgconf"
        cmake_extra+=("-DPKG_CONFIG_EXECUTABLE=$carried/usr/bin/pkgconf")
    fi
    local pkgconfig_cmd="${PKG_CONFIG:-$(command -v pkg-config || command -v pkgconf)}"
    if [ "$force" = 1 ] || ! "$pkgconfig_cmd" --exists cmocka 2>/dev/null; then
        unpack 'libcmocka0_*.deb' && unpack 'libcmocka-dev_*.deb' || return 1
        # the package's .pc names /usr/...: point it at the unpacked copy
        sed -i "s|/usr/|$carried/usr/|g" "$carried/$multiarch/pkgconfig/cmocka.pc"
        export PKG_CONFIG_PATH="$carried/$multiarch/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
        export LD_LIBRARY_PATH="$carried/$multiarch${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        "$pkgconfig_cmd" --exists cmocka || { echo "cmocka.pc unusable" >&2; return 1; }
    fi
    # the library's own dependencies: SLEEF (vectorised math), OpenBLAS (matrix products)
    if [ "$force" = 1 ] || ! "$pkgconfig_cmd" --exists sleef 2>/dev/null; then
        unpack 'libsleef3_*.deb' && unpack 'libsleef-dev_*.deb' || return 1
        sed -i "s|/usr/|$carried/usr/|g" "$carried/$multiarch/pkgconfig/sleef.pc"
        export PKG_CONFIG_PATH="$carried/$multiarch/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
        export LD_LIBRARY_PATH="$carried/$multiarch${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        # sleef.h sits in the multiarch include folder, which only the system's is searched
        export CPATH="$carried/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}"
        "$pkgconfig_cmd" --exists sleef || { echo "sleef.pc unusable" >&2; return 1; }
    fi
    if [ "$force" = 1 ] || ! "$pkgconfig_cmd" --exists openblas 2>/dev/null; then
        unpack 'libopenblas0-openmp_*.deb' && unpack 'libopenblas-openmp-dev_*.deb' || return 1
        local blas="$carried/$multiarch/openblas-openmp"
        sed -i "s|/usr/|$carried/usr/|g" "$blas/pkgconfig/openblas.pc"
        export PKG_CONFIG_PATH="$blas/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
        export LD_LIBRARY_PATH="$blas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        # OpenBLAS's LAPACK half is Fortran: its runtime, where the system has none
        if [ "$force" = 1 ] || ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libgfortran\.so\.5 '; then
            unpack 'libgfortran5_*.deb' && unpack 'libquadmath0_*.deb' || return 1
            export LD_LIBRARY_PATH="$carried/$multiarch:$LD_LIBRARY_PATH"
        fi
        "$pkgconfig_cmd" --exists openblas || { echo "openblas.pc unusable" >&2; return 1; }
    fi
    if [ "$force" = 1 ] || ! echo '#include <dlpack/dlpack.h>' | cc -E -x c - >/dev/null 2>&1; then
        unpack 'libdlpack-dev_*.deb' || return 1
        # gcc (and nvcc's host gcc) read CPATH as extra -I directories
        export CPATH="$carried/usr/include${CPATH:+:$CPATH}"
    fi
    return 0
}

# ---- 1. configure and build ------------------------------------------------------------------------
buildlog="$logs/build.log"
: >"$buildlog"
built=0
python_ok=0
t0=$SECONDS
if ! prepare_deps >>"$buildlog" 2>&1; then
    record build FAIL $((SECONDS - t0)) "carried packages missing (.gpu-carry/, see build.log)"
    show_tail "$buildlog" 10
else
    [ ${#carry_notes[@]} -gt 0 ] && say "carried packages unpacked: ${carry_notes[*]}"
    config=(-S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCT_BUILD_CUDA=ON
            -DCT_BUILD_DIST=OFF "-DCMAKE_CUDA_ARCHITECTURES=$arch" -DCT_BUILD_BENCH=ON
            -DCT_BENCH_LIBTORCH=OFF "${cmake_extra[@]}")
    # a fresh tree uses ninja when there is one (faster); an existing tree keeps its generator
    if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
        config+=(-G Ninja)
    fi
    if [ -n "$python" ] && "$python" -c 'import os, sys, sysconfig
sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")) else 1)' 2>/dev/null; then
        config+=("-DCT_PYTHON=$python" -DCT_BUILD_PYTHON=ON)
        python_ok=1
    else
        # without Python.h the module cannot be built; build the rest and fail the python steps
        config+=(-DCT_BUILD_PYTHON=OFF)
        say "no Python.h for ${python:-python3}: the Python module is not built"
    fi
    run_step configure "$buildlog" 150 cmake "${config[@]}"
    if [ "$step_rc" != 0 ]; then
        record build "$(status_of)" "$step_secs" "configure: $(note_of)"
        show_tail "$buildlog"
    else
        cfg_secs=$step_secs
        run_step build "$buildlog" 330 cmake --build "$build" -j "$jobs"
        if [ "$step_rc" = 0 ]; then
            built=1
            record build PASS $((cfg_secs + step_secs)) "configure + build -j$jobs"
        else
            record build "$(status_of)" $((cfg_secs + step_secs)) "$(note_of)"
            grep -n -m 20 -E 'error:|FAILED:|CMake Error' "$buildlog" | cut -c1-240 || true
            show_tail "$buildlog" 20
        fi
    fi
fi
if ! grep -q 'CT_HAVE_CUDA:INTERNAL=ON\|CUDA backend (libctensor_cuda): ON' "$buildlog" "$build/CMakeCache.txt" 2>/dev/null; then
    [ "$built" = 1 ] && say "note: the configure log does not say that libctensor_cuda is built"
fi
export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}"
# a fixed hash seed: pytest-xdist's workers must collect the same tests in the same order
export PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PYTHONHASHSEED=0

# ---- 2. probe --------------------------------------------------------------------------------------
pylog="$logs/pytest.log"
: >"$pylog"
if [ "$built" = 1 ] && [ "$python_ok" = 1 ]; then
    run_step probe "$pylog" 60 "$python" -c '
import ctensor
print("ctensor.cuda.is_available():", ctensor.cuda.is_available(),
      "device_count():", ctensor.cuda.device_count())
try:
    import torch
    print("torch.cuda.is_available():", torch.cuda.is_available())
except ImportError:
    print("torch: not importable")
want = __import__("sys").argv[1] == "1"
if ctensor.cuda.is_available() != want:
    raise SystemExit("ctensor.cuda.is_available() is %s on a machine %s a GPU"
                     % (ctensor.cuda.is_available(), "with" if want else "without"))
' "$have_gpu"
    if [ "$step_rc" = 0 ]; then
        note=$(grep -m1 '^ctensor.cuda.is_available' "$pylog" | cut -c1-100)
    else
        note=$(grep -v '^\[' "$pylog" | tail -n1 | cut -c1-100)
    fi
    record probe "$(status_of)" "$step_secs" "$note"
    [ "$step_rc" != 0 ] && show_tail "$pylog" 10
fi

# ---- 6. ctest -L unit, in the background on half the cores while the GPU steps run (they need
# little CPU); collected before the benchmarks, which must run alone
unitlog="$logs/ctest-unit.log"
: >"$unitlog"
unit_pid=""
if [ "$built" = 1 ] && [ "$have_gpu" = 1 ] && [ "$quick" != 1 ]; then
    half=$(((jobs + 1) / 2))
    (run_step ctest-unit "$unitlog" 200 ctest --test-dir "$build" -L unit -j "$half" \
        --output-on-failure --timeout 190
     echo "$step_rc $step_secs" >"$build/.unit_rc") &
    unit_pid=$!
fi

# ---- 3. ctest -L cuda ------------------------------------------------------------------------------
ctlog="$logs/ctest-cuda.log"
: >"$ctlog"
if [ "$built" = 1 ]; then
    run_step ctest-cuda "$ctlog" 150 ctest --test-dir "$build" -L cuda --output-on-failure \
        -j 2 --timeout 140
    st=$(status_of)
    note=$(note_of)
    ran=$(grep -Eo '[0-9]+% tests passed.*|No tests were found' "$ctlog" | tail -n1 || true)
    # on a GPU machine a skipped cuda test checked nothing: that is a failure here
    if [ "$st" = PASS ] && [ "$have_gpu" = 1 ] && grep -qE 'Skipped|Not Run|No tests were found|did not run' "$ctlog"; then
        st=FAIL
        note="cuda tests skipped or missing on a GPU machine"
    fi
    record ctest-cuda "$st" "$step_secs" "${note:-$ran}"
    [ "$st" != PASS ] && show_tail "$ctlog" 40
else
    record ctest-cuda NOT-RUN 0 "no build"
fi

# ---- 4. pytest ----------------------------------------------------------------------------------------
if [ "$built" = 1 ] && [ "$python_ok" = 1 ]; then
    # test_cuda.py, test_cuda_nogpu.py and the binding's own test_cuda_*.py
    pyfiles=()
    for f in "$root"/tests/python/test_cuda*.py; do
        [ -f "$f" ] && pyfiles+=("$f")
    done
    # pytest-xdist, where installed, spreads the tests over 4 processes (each its own context)
    xdist=()
    if [ "$have_gpu" = 1 ] && "$python" -c 'import xdist' 2>/dev/null; then
        xdist=(-n 4)
    fi
    # -v: each test's verdict is in the log as it runs, so a step cut off by its time limit
    # still names the tests that failed before the cut
    run_step pytest "$pylog" 240 "$python" -m pytest -v -p no:cacheprovider -rfEs \
        --durations=10 "${xdist[@]}" \
        --rootdir "$root/tests/python" "${pyfiles[@]}"
    # exit 5 (nothing collected): every module skipped itself, right where there is no GPU
    [ "$step_rc" = 5 ] && [ "$have_gpu" = 0 ] && step_rc=0
    st=$(status_of)
    note=$(note_of)
    last=$(grep -E '(passed|failed|skipped|error)' "$pylog" | tail -n1 | tr -d '=' | sed 's/^ *//' || true)
    if [ "$st" = PASS ] && [ "$have_gpu" = 1 ] && ! grep -qE '[0-9]+ passed' <<<"$last"; then
        st=FAIL
        note="nothing passed on a GPU machine"
    fi
    record pytest "$st" "$step_secs" "${note:+$note; }$last"
    [ "$st" != PASS ] && show_tail "$pylog" 40
else
    record pytest FAIL 0 "$([ "$built" = 1 ] && echo 'no Python module (Python.h)' || echo 'no build')"
fi

# the summary lines, the verdict, and the exit status: "$1" and status $2 when everything
# passed, "$3" and status 1 when something failed
finish() {
    say ""
    say "== summary (logs in $logs)"
    for r in "${results[@]}"; do say "$r"; done
    if [ "$failed" = 0 ]; then
        say "RESULT: $1 in $((SECONDS - start))s"
        exit "$2"
    fi
    say "RESULT: $3 in $((SECONDS - start))s"
    exit 1
}
if [ "$have_gpu" = 0 ]; then
    say ""
    say "NO GPU on this machine: built, ran the host-side steps; the GPU steps (compute-sanitizer, unit sanity, benchmarks) are skipped."
    finish "no GPU (exit 77); everything that ran passed," 77 "FAIL (no GPU, and a host-side step failed),"
fi
if [ "$quick" = 1 ]; then
    say "CT_GPU_QUICK=1: compute-sanitizer, the unit sanity check and the benchmarks are not run"
    finish PASS 0 FAIL
fi

# ---- 5. compute-sanitizer memcheck -----------------------------------------------------------------------
memlog="$logs/memcheck.log"
: >"$memlog"
sanitizer=$(command -v compute-sanitizer || true)
if [ "$built" != 1 ]; then
    record memcheck NOT-RUN 0 "no build"
elif [ -z "$sanitizer" ]; then
    record memcheck FAIL 0 "compute-sanitizer not found"
else
    bins=()
    # the GPU tests (a *_mock one runs against a host mock of the CUDA runtime: not here)
    for b in "$build"/tests/cuda/test_cuda_*; do
        case "$b" in *_mock) continue ;; esac
        [ -x "$b" ] && [ -f "$b" ] && bins+=("$b")
    done
    if [ ${#bins[@]} -eq 0 ]; then
        record memcheck FAIL 0 "no tests/cuda/test_cuda_* binaries"
    fi
    # the step's 220 s are shared among the binaries, each taking what the ones before left
    # (under memcheck test_cuda_kernels takes about 95 s on an H200, test_cuda_runtime 1 s)
    mc_left=220
    for b in "${bins[@]}"; do
        per=$mc_left
        short="mc-$(basename "$b" | sed 's/^test_cuda_//')"
        # API errors are not reported: the tests provoke some on purpose (an allocation of
        # 1 PiB) and check every return code themselves
        run_step "$short" "$memlog" "$per" "$sanitizer" --tool memcheck --error-exitcode 1 \
            --report-api-errors no --leak-check full --print-limit 20 "$b"
        st=$(status_of)
        note=$(note_of)
        if [ "$step_rc" = 77 ]; then
            st=FAIL
            note="the test skipped (exit 77) on a GPU machine"
        elif [ "$st" = FAIL ] && grep -q 'Device not supported' "$memlog"; then
            st=SKIP
            note="compute-sanitizer does not support this device (a gVisor machine?)"
        elif [ "$st" = PASS ]; then
            note=$(grep -Eo 'ERROR SUMMARY: [0-9]+ errors?' "$memlog" | tail -n1 || true)
        fi
        record "$short" "$st" "$step_secs" "memcheck: $note"
        [ "$st" = FAIL ] && show_tail "$memlog" 30
        mc_left=$((mc_left - step_secs))
    done
fi

# ---- 6. ctest -L unit: collect the background run ------------------------------------------------------
if [ -n "$unit_pid" ]; then
    wait "$unit_pid" || true
    read -r step_rc step_secs <"$build/.unit_rc" || { step_rc=1; step_secs=0; }
    rm -f "$build/.unit_rc"
    record ctest-unit "$(status_of)" "$step_secs" \
        "$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$unitlog" | tail -n1 || note_of)"
    [ "$step_rc" != 0 ] && show_tail "$unitlog" 25
else
    record ctest-unit NOT-RUN 0 "no build"
fi

# ---- 7. benchmarks ------------------------------------------------------------------------------------------
benchc="$logs/bench-c.log"
benchpy="$logs/bench-py.log"
: >"$benchc"
: >"$benchpy"
if [ "$built" = 1 ] && [ -x "$build/bench/cuda_bench" ]; then
    run_step bench-c "$benchc" 60 "$build/bench/cuda_bench"
    record bench-c "$(status_of)" "$step_secs" "$(note_of)"
    echo "---- bench/cuda_bench (C) ----"
    cut -c1-160 "$benchc" | grep -v '^\[bench-c' | tail -n 30
else
    record bench-c NOT-RUN 0 "$([ "$built" = 1 ] && echo 'bench/cuda_bench not built' || echo 'no build')"
fi
if [ "$built" = 1 ] && [ "$python_ok" = 1 ]; then
    run_step bench-py "$benchpy" 100 "$python" "$root/bench/cuda_bench.py"
    record bench-py "$(status_of)" "$step_secs" "$(note_of)"
    echo "---- bench/cuda_bench.py (ctensor vs torch) ----"
    cut -c1-160 "$benchpy" | grep -v '^\[bench-py' | tail -n 30
else
    record bench-py NOT-RUN 0 "no build or no Python module"
fi

# ---- summary ---------------------------------------------------------------------------------------------
finish PASS 0 FAIL
