#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tiresias_gittins.sh -- Tiresias' Gittins index over each class's configured
# distribution (gittins=class) in the engine, on a heavy-tailed mix
# (tests/tiresias_gittins_mix.json: short 1-GPU jobs, exponential with a
# 15-minute mean, and 4-8 GPU gangs with Pareto run times, alpha 1.3, all
# preemptible, on 4 nodes of 8 GPUs, 4 days), with one queue boundary at
# 36,000 GPU-s so that the order within queue 0 matters:
#   - short jobs (at most 1 GPU-hour of work) complete sooner than under FIFO;
#   - against gittins=learn (one distribution learned from all finished jobs)
#     the short jobs do no worse (within 5 %) and all jobs' mean completion
#     time is no worse (within 5 %);
#   - the decisions differ from learn's (the index is per class);
#   - a class without a distribution (a replayed trace's) is refused, exit 65,
#     naming the class, with nothing written.
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, W, fail
SRC=${TARMAC_SRC:?}

T="tiresias-2dlas thresholds=36000 delta=3600"
run() { # NAME POLICY
    sed "s/\"policy\": \"fifo-first-fit\"/\"policy\": \"$2\"/" "$SRC/tests/tiresias_gittins_mix.json" >"$W/$1.json"
    "$BIN" run "$W/$1.json" -q -o "$W/$1.h5" >"$W/out" 2>"$W/err" || { fail "$1: run: $(cat "$W/err")"; return; }
    "$BIN" export "$W/$1.h5" --table jobs --csv -o "$W/$1.csv" 2>"$W/err" || fail "$1: export: $(cat "$W/err")"
}
run fifo fifo-first-fit
run learn "$T gittins=learn"
run class "$T gittins=class"

# mean completion time (s) of completed jobs: short ones (work <= 3600
# GPU-s) and all; the columns are found by name
stat() { # FILE short|all
    awk -F, -v w="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["state"] == 2 && (w == "all" || $c["work_ref_gpu_s"] <= 3600) { s += $c["end_s"] - $c["submit_s"]; n++ }
        END { if (n) printf "%.1f\n", s / n; else print "none" }' "$1"
}
fs=$(stat "$W/fifo.csv" short)
ls=$(stat "$W/learn.csv" short)
cs=$(stat "$W/class.csv" short)
la=$(stat "$W/learn.csv" all)
ca=$(stat "$W/class.csv" all)
echo "short jobs' mean JCT (s): fifo $fs, learn $ls, class $cs; all jobs: learn $la, class $ca"
awk -v f="$fs" -v c="$cs" 'BEGIN { exit !(c + 0 > 0 && c + 0 < 0.8 * f) }' ||
    fail "gittins=class short jobs $cs s not well below fifo's $fs s"
awk -v l="$ls" -v c="$cs" 'BEGIN { exit !(c + 0 > 0 && c + 0 <= 1.05 * l) }' ||
    fail "gittins=class short jobs $cs s worse than learn's $ls s"
awk -v l="$la" -v c="$ca" 'BEGIN { exit !(c + 0 > 0 && c + 0 <= 1.05 * l) }' ||
    fail "gittins=class all jobs $ca s worse than learn's $la s"
cmp -s "$W/learn.csv" "$W/class.csv" && fail "gittins=class decided exactly as gittins=learn"

# a trace class has no distribution: refused before anything is written
sed "s/\"policy\": \"fifo-first-fit\"/\"policy\": \"$T gittins=class\"/" \
    "$SRC/tests/tiresias_gittins_mix.json" >"$W/fleet.json"
printf '1 0 0 600 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n2 10 0 600 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n' >"$W/t.swf"
"$BIN" replay "$W/t.swf" --format swf --fleet "$W/fleet.json" -o "$W/r.h5" -q >"$W/out" 2>"$W/err"
rc=$?
[ $rc -eq 65 ] || fail "gittins=class on a trace class: exit $rc, want 65 ($(cat "$W/err"))"
grep -q 'class "trace" has no configured duration distribution' "$W/err" ||
    fail "gittins=class on a trace class: message: $(cat "$W/err")"
[ ! -e "$W/r.h5" ] || fail "gittins=class on a trace class: output left behind"

[ $fails -eq 0 ] && echo "ok: gittins=class orders by each class's distribution"
exit $((fails != 0))
