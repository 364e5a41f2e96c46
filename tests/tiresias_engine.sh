#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tiresias_engine.sh -- Tiresias in the engine, on a heavy-tailed mix
# (tests/tiresias_mix.json: short 1-GPU jobs and long 4-8 GPU gangs, all
# preemptible, 4 nodes of 8 GPUs, 3 days): the short jobs' mean completion
# time (end - submit) is lower than under FIFO and under the non-preemptive
# LAS composition ("las"); Tiresias preempts, and what that costs shows in
# the GPU-hour ledger (alloc_restart: restart overhead; work_lost: work since
# the last checkpoint), where FIFO has none.
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, W, fail
SRC=${TARMAC_SRC:?}

for p in fifo-first-fit las tiresias; do
    sed "s/\"policy\": \"fifo-first-fit\"/\"policy\": \"$p\"/" "$SRC/tests/tiresias_mix.json" >"$W/$p.json"
    "$BIN" run "$W/$p.json" -q -o "$W/$p.h5" >"$W/out" 2>"$W/err" || { fail "$p: run: $(cat "$W/err")"; continue; }
    "$BIN" export "$W/$p.h5" --table jobs --csv -o "$W/$p-jobs.csv" 2>"$W/err" || fail "$p: export jobs: $(cat "$W/err")"
    "$BIN" export "$W/$p.h5" --table ledger/fleet --csv --labels -o "$W/$p-ledger.csv" 2>"$W/err" ||
        fail "$p: export ledger: $(cat "$W/err")"
done

# mean completion time (s) of the completed jobs of class 0 (short); the
# columns are found by name
jct() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
             $c["class"] == 0 && $c["state"] == 2 { s += $c["end_s"] - $c["submit_s"]; n++ }
             END { if (n) printf "%.1f\n", s / n; else print "none" }' "$1"
}
bucket() { awk -F, -v b="$2" '$1 == b { print $3 }' "$1"; }
interrupts() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { s += $c["interruptions"] } END { print s + 0 }' "$1"
}

f=$(jct "$W/fifo-first-fit-jobs.csv")
l=$(jct "$W/las-jobs.csv")
t=$(jct "$W/tiresias-jobs.csv")
echo "short jobs' mean JCT (s): fifo $f, las $l, tiresias $t"
awk -v f="$f" -v t="$t" 'BEGIN { exit !(t + 0 > 0 && t + 0 < f + 0) }' || fail "tiresias $t s is not below fifo $f s"
awk -v l="$l" -v t="$t" 'BEGIN { exit !(t + 0 > 0 && t + 0 < l + 0) }' || fail "tiresias $t s is not below las $l s"

n=$(interrupts "$W/tiresias-jobs.csv")
[ "$n" -gt 0 ] || fail "tiresias preempted nothing"
[ "$(interrupts "$W/fifo-first-fit-jobs.csv")" -eq 0 ] || fail "fifo interrupted jobs"
for b in alloc_restart work_lost; do
    v=$(bucket "$W/tiresias-ledger.csv" $b)
    awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' || fail "tiresias: ledger $b is '$v', want > 0"
    v=$(bucket "$W/fifo-first-fit-ledger.csv" $b)
    awk -v v="$v" 'BEGIN { exit !(v + 0 == 0) }' || fail "fifo: ledger $b is '$v', want 0"
done

[ $fails -eq 0 ] && echo "ok: tiresias preempts for short jobs ($n interruptions) and the ledger shows the cost"
exit $((fails != 0))
