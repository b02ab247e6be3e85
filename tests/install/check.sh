#!/usr/bin/env bash
# Install the built library into a temporary prefix, then build a consumer program
# against it with find_package (shared and static) and with pkg-config.
set -euo pipefail
build="$1"; src="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$src/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/consumer/consumer_shared"
"$tmp/consumer/consumer_static"
libdir="$(dirname "$(find "$tmp/prefix" -name ctensor.pc | head -1)")"
export PKG_CONFIG_PATH="$libdir"
cc -std=c11 $(pkg-config --cflags ctensor) "$src/consumer/main.c" -o "$tmp/pc" $(pkg-config --libs ctensor)
LD_LIBRARY_PATH="$(pkg-config --variable=libdir ctensor)" "$tmp/pc"
# static: the archive itself, then what Libs.private says it needs (libm, threads, OpenMP)
private="$(pkg-config --static --libs ctensor | tr ' ' '\n' | grep -v -e '^-lctensor$' -e '^-L' | tr '\n' ' ')"
cc -std=c11 $(pkg-config --cflags ctensor) "$src/consumer/main.c" -o "$tmp/pc_static" \
    "$(pkg-config --variable=libdir ctensor)/libctensor.a" $private
"$tmp/pc_static"
# the optional libctensor_dist: CMake package component "dist" and pkg-config ctensor-dist
# (one rank without mpirun)
if [ -x "$tmp/consumer/consumer_dist" ]; then
    LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/consumer/consumer_dist"
    "$tmp/consumer/consumer_dist_static"
    cc -std=c11 $(pkg-config --cflags ctensor-dist) "$src/consumer/main_dist.c" -o "$tmp/pc_dist" \
        $(pkg-config --libs ctensor-dist)
    LD_LIBRARY_PATH="$(pkg-config --variable=libdir ctensor)" "$tmp/pc_dist"
fi
# the optional libctensor_cuda: CMake package component "cuda" and pkg-config ctensor-cuda
# (registers and counts devices: zero without a GPU)
if [ -x "$tmp/consumer/consumer_cuda" ]; then
    LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/consumer/consumer_cuda"
    cc -std=c11 $(pkg-config --cflags ctensor-cuda) "$src/consumer/main_cuda.c" -o "$tmp/pc_cuda" \
        $(pkg-config --libs ctensor-cuda)
    LD_LIBRARY_PATH="$(pkg-config --variable=libdir ctensor)" "$tmp/pc_cuda"
fi
echo "install check passed"
