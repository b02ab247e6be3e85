# The build preamble the bench/run*.sh scripts share; source it after setting `build`,
# `jobs` and (for scripts that build the Python module) `python`. Sets `root` (the repository)
# and `here` (bench/) from this file's own location, so the callers' working directory does
# not matter.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"

# bench_configure ON|OFF: configure a Release build dir with the benchmarks (ON: with the
# Python module, built by $python) unless it exists; an existing dir is re-run through cmake
# with the benchmarks on, so a dir made before a target existed gains it. Tests are off in a
# fresh dir: the figures need none of them.
bench_configure() {
    if [ ! -f "$build/CMakeCache.txt" ]; then
        local py=(-DCT_BUILD_PYTHON=OFF)
        [ "$1" = ON ] && py=(-DCT_BUILD_PYTHON=ON -DCT_PYTHON="$python")
        cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCT_BUILD_TESTS=OFF \
            "${py[@]}" -DCT_BUILD_BENCH=ON >/dev/null
    else
        cmake -S "$root" -B "$build" -DCT_BUILD_BENCH=ON >/dev/null
    fi
}

# bench_warn_build_type TYPE...: warn (figures will be off) unless the dir's build type is
# one of TYPEs; debug builds time the wrong code.
bench_warn_build_type() {
    local t ok="" build_type
    build_type="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")"
    for t in "$@"; do [ "$build_type" = "$t" ] && ok=1; done
    [ -n "$ok" ] || echo "warning: $build is a '$build_type' build, not $1: figures will be off" >&2
}

# bench_has_target NAME: whether the build dir has a target NAME (optional parts: libtorch,
# libctensor_dist).
bench_has_target() {
    local targets
    targets="$(cmake --build "$build" --target help 2>/dev/null || true)"
    grep -qE "(^|[ .:])$1(:|$| )" <<<"$targets"
}

# bench_build TARGET...: cheap when up to date; rebuilds after source changes.
bench_build() {
    local t
    for t in "$@"; do cmake --build "$build" -j"$jobs" --target "$t" >/dev/null; done
}
