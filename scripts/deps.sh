#!/usr/bin/env bash
# Make sure the Debian packages ctensor builds and tests with are installed.
# As root, installs what is missing; otherwise lists it and fails.
set -euo pipefail

packages=(cmake make gcc g++ pkg-config libcmocka-dev python3-dev python3-torch python3-numpy
          python3-pytest python3-hypothesis libdlpack-dev libopenmpi-dev openmpi-bin
          clang libclang-rt-14-dev libomp-dev libsleef-dev
          # OpenBLAS's OpenMP build (matrix products): its threads are the same OpenMP pool
          # as ctensor's, where the pthread build would oversubscribe the cores
          libopenblas-openmp-dev
          # mpi4py: global tensors on a communicator the program already has
          python3-mpi4py)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "ctensor needs these Debian packages, which are not installed:" >&2
    echo "    ${missing[*]}" >&2
    echo "Install them with:  sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
echo "Installing missing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
