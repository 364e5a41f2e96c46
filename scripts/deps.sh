#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# deps.sh — make sure the Debian packages tarmac builds and tests with are installed.
#
# Usage: sh scripts/deps.sh [--list] [GROUP...]
#
# Run as root, it installs what is missing with apt-get (after apt-get update).
# Run as anyone else, it prints the exact apt-get line and exits 1, so that
# `make run` / `make test` stop with an instruction instead of a compiler error.
# The list is the single source of truth for the project's Debian dependencies;
# .ci/run and the README use it through the Makefile.
set -eu

# build: compiler, build system, libraries (serial HDF5, GSL, cJSON, zlib for .gz traces,
#        GLPK for Gavel's allocation LP)
# run time: gnuplot (plots), hdf5-tools (h5dump, used by tests)
# tests: Debian's python3 with h5py, numpy and pandas (read the HDF5 output back)
PKGS="gcc make cmake pkg-config libgsl-dev libcjson-dev libhdf5-dev zlib1g-dev libglpk-dev \
gnuplot-nox hdf5-tools python3 python3-h5py python3-numpy python3-pandas"

# optional groups, named on the command line (.ci/run asks for both):
#   fuzz      clang 14 and its libFuzzer runtime (fuzz/README.md)
#   valgrind  valgrind memcheck (scripts/valgrind.sh)
for group in "$@"; do
    case $group in
    --list) ;;
    fuzz) PKGS="$PKGS clang-14 libclang-rt-14-dev" ;;
    valgrind) PKGS="$PKGS valgrind" ;;
    *) echo "deps: unknown package group '$group' (fuzz, valgrind)" >&2; exit 2 ;;
    esac
done

if [ "${1:-}" = "--list" ]; then
    echo "$PKGS"
    exit 0
fi

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    echo "deps: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    # shellcheck disable=SC2086
    apt-get install -y --no-install-recommends $missing
else
    echo "deps: missing Debian packages:$missing" >&2
    echo "deps: install them with:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi
