#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tiresias_replay.sh -- replayed jobs made preemptible (tarmac replay
# --preemptible --checkpoint D --restart-overhead D): on the first 200 jobs of
# one of Gavel's Philly-derived traces (gavel/traces/msr, in TARMAC_DATA_DIR)
# on a 24-GPU Gavel cluster, Tiresias preempts (interruptions > 0) and the
# GPU-hour ledger shows the restart overhead (alloc_restart) and the work lost
# since the last checkpoint (work_lost); without --preemptible nothing is
# preempted (a trace records no preemptibility: the old behaviour). The
# option's misuse is a usage error (exit 64) and needs no data.
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, W, fail
D=${TARMAC_DATA_DIR:-}

# misuse: costs without --preemptible, a negative or malformed duration, a
# protocol that never preempts
for args in "--checkpoint 10m" "--restart-overhead 60" "--preemptible --checkpoint -5" \
    "--preemptible --restart-overhead 1x" "--preemptible --protocol pack"; do
    # shellcheck disable=SC2086
    "$BIN" replay "$W/none.csv" --format openb $args -o "$W/x.h5" >/dev/null 2>"$W/err"
    rc=$?
    [ $rc -eq 64 ] || fail "replay $args: exit $rc, want 64 ($(cat "$W/err"))"
    grep -q -- "--checkpoint\|--restart-overhead\|--preemptible" "$W/err" ||
        fail "replay $args: the message names no option: $(cat "$W/err")"
done
[ ! -e "$W/x.h5" ] || fail "a usage error left output behind"

TR=$D/gavel/traces/msr/seed=0/0e4a51.trace
if [ -z "$D" ] || [ ! -f "$TR" ]; then
    if [ "${CI:-}" = true ]; then fail "TARMAC_DATA_DIR missing under CI"; exit 1; fi
    echo "SKIPPED: Gavel's traces (TARMAC_DATA_DIR not found)"
    [ "$fails" -eq 0 ] && exit 77
    exit 1
fi
replay() { # NAME OPTIONS...
    n=$1
    shift
    "$BIN" replay "$TR" --format gavel --throughputs "$D/gavel/simulation_throughputs.json" \
        --gavel-cluster 8:8:8 --max-jobs 200 --policy tiresias -q -o "$W/$n.h5" "$@" \
        >"$W/out" 2>"$W/err" || { fail "$n: replay: $(cat "$W/err")"; return; }
    "$BIN" export "$W/$n.h5" --table jobs --csv -o "$W/$n-jobs.csv" 2>"$W/err" ||
        fail "$n: export jobs: $(cat "$W/err")"
    "$BIN" export "$W/$n.h5" --table ledger/fleet --csv --labels -o "$W/$n-ledger.csv" \
        2>"$W/err" || fail "$n: export ledger: $(cat "$W/err")"
}
replay plain
replay pre --preemptible --checkpoint 10m --restart-overhead 1m

col() { # FILE COLUMN: the column's sum
    awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { s += $c[k] } END { print s + 0 }' "$1"
}
bucket() { awk -F, -v b="$2" '$1 == b { print $3 }' "$1"; }
[ -f "$W/pre-jobs.csv" ] && [ -f "$W/plain-jobs.csv" ] || { echo "FAIL: $fails failure(s)"; exit 1; }
n=$(col "$W/pre-jobs.csv" interruptions)
[ "$n" -gt 0 ] || fail "tiresias preempted no replayed job under --preemptible"
[ "$(col "$W/plain-jobs.csv" interruptions)" -eq 0 ] || fail "replayed jobs preempted without --preemptible"
for b in alloc_restart work_lost; do
    v=$(bucket "$W/pre-ledger.csv" $b)
    awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' || fail "--preemptible: ledger $b is '$v', want > 0"
    v=$(bucket "$W/plain-ledger.csv" $b)
    awk -v v="$v" 'BEGIN { exit !(v + 0 == 0) }' || fail "plain: ledger $b is '$v', want 0"
done
lost=$(col "$W/pre-jobs.csv" lost_gpu_s)
awk -v v="$lost" 'BEGIN { exit !(v + 0 > 0) }' || fail "--preemptible: jobs lost no GPU-time"
echo "tiresias on 200 replayed jobs: $n preemptions, restart $(bucket "$W/pre-ledger.csv" alloc_restart) GPU-h, lost $(bucket "$W/pre-ledger.csv" work_lost) GPU-h"

[ $fails -eq 0 ] && echo "ok: replayed jobs preempted under --preemptible, the cost in the ledger"
exit $((fails != 0))
