#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# place_compare.sh — the decisions of `tarmac place` on random snapshots, for
# comparing two builds of the placement core (a faster one must decide the
# same, byte for byte).
#
#   sh bench/place_compare.sh gen DIR [COUNT]     write COUNT snapshots (default 300)
#   sh bench/place_compare.sh run DIR TARMAC OUT  answer each with TARMAC into OUT/
#   diff -r OUT_OLD OUT_NEW                       nothing may differ
#
# The snapshots (bench/place_snapshot_gen.py, deterministic in their seed)
# mix cluster sizes from 3 to 400 nodes, queues of 1 to 3,000 jobs, fills
# from half to full, GPU shares, nodes and GPUs out of service, and SWF-like
# whole-node machines; each is answered with every policy of POLICIES below
# (the preemption and reserving-backfill rules in several combinations).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-/usr/bin/python3}

POLICIES='priority-preempt
conservative
easy
order=priority placement=first-fit backfill=conservative preempt=priority
order=fifo placement=best-fit backfill=conservative
order=sjf placement=best-fit backfill=easy preempt=priority
order=priority placement=worst-fit backfill=greedy preempt=priority
order=edf placement=topology backfill=conservative
order=las placement=hetero backfill=none preempt=priority'

case "${1:-}" in
gen)
    dir=$2
    count=${3:-300}
    mkdir -p "$dir"
    i=1
    while [ "$i" -le "$count" ]; do
        # sizes from the seed, so that the set is the same everywhere
        nodes=$((3 + (i * 37) % 400))
        queue=$((1 + (i * 101) % 3000))
        fill=$(awk -v i="$i" 'BEGIN { printf "%.2f", 0.5 + (i * 13 % 50) / 100 }')
        shares=$(awk -v i="$i" 'BEGIN { printf "%.2f", (i * 7 % 5) / 10 }')
        down=$(awk -v i="$i" 'BEGIN { printf "%.2f", (i * 3 % 4) / 20 }')
        if [ $((i % 7)) -eq 0 ]; then
            "$py" "$here/place_snapshot_gen.py" --seed "$i" --nodes "$nodes" --queue "$queue" \
                --running-fill "$fill" --whole-nodes >"$dir/s$i.json"
        else
            "$py" "$here/place_snapshot_gen.py" --seed "$i" --nodes "$nodes" --queue "$queue" \
                --running-fill "$fill" --shares "$shares" --down "$down" >"$dir/s$i.json"
        fi
        i=$((i + 1))
    done
    ;;
run)
    dir=$2
    bin=$3
    out=$4
    mkdir -p "$out"
    for f in "$dir"/s*.json; do
        b=$(basename "$f" .json)
        k=0
        printf '%s\n' "$POLICIES" | while IFS= read -r pol; do
            k=$((k + 1))
            "$bin" place --timeout 0 --policy "$pol" "$f" >"$out/$b.p$k.out" 2>&1 ||
                echo "exit $?" >>"$out/$b.p$k.out"
        done
    done
    ;;
*)
    echo "usage: $0 gen DIR [COUNT] | run DIR TARMAC OUT" >&2
    exit 64
    ;;
esac
