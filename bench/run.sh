#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench/run.sh — run every benchmark of a build: sh bench/run.sh BUILD_DIR
#
# `make bench` builds the `benchmarks` target and calls this. Each benchmark
# prints its own table; bench/README.md records them. A new benchmark adds its
# executable's name to BENCHES (they are built into BUILD_DIR/bench/).
set -eu

BENCHES="bench_evq bench_place bench_h5io bench_run bench_replay bench_traces bench_sweep"
# benchmarks that read the public traces get the data folder
DATA=${TARMAC_DATA_DIR:-../shared/data}

if [ $# -ne 1 ]; then
    echo "usage: sh bench/run.sh BUILD_DIR" >&2
    exit 64
fi
build=$1

# Figures from anything but a Release build are not comparable with the record.
type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
if [ "$type" != "Release" ]; then
    echo "run.sh: warning: $build is a '${type:-unknown}' build, not Release" >&2
fi

status=0
for b in $BENCHES; do
    exe=$build/bench/$b
    if [ ! -x "$exe" ]; then
        echo "run.sh: $exe is missing (cmake --build $build --target benchmarks)" >&2
        status=1
        continue
    fi
    echo "== $b"
    case $b in
    bench_replay) "$exe" "$DATA" || status=1 ;;
    bench_sweep | bench_traces) TARMAC_DATA_DIR=$DATA "$exe" || status=1 ;;
    bench_h5io) "$exe" --dir "$build" || status=1 ;;
    # one month of the embedded default, then a million jobs on 10,000 GPUs;
    # each with and without the HDF5 report
    bench_run)
        src=$(dirname "$0")/..
        "$exe" "$src/scenarios/enterprise.json" 5 "$build/bench-enterprise.h5" || status=1
        "$exe" "$src/bench/scenarios/million.json" 5 "$build/bench-million.h5" || status=1
        rm -f "$build/bench-enterprise.h5" "$build/bench-million.h5" ;;
    *) "$exe" || status=1 ;;
    esac
    echo
done
exit $status
