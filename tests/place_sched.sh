#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# place_sched.sh — `tarmac place` with the scheduler state a snapshot carries
# (docs/place-json.md, "Round and Gittins state"): Gavel's allocation X,
# given or solved, steering which job gets which GPU type; the seconds
# received steering the round; Tiresias' gittins=class over the snapshot's
# per-class distributions; and each malformed value refused at its JSON path.
#
# The Gavel cases, by hand: types A and B, one GPU each; job 1 runs at the
# same speed on both, job 2 three times faster on A. Max-min fairness over
# normalised throughput (speed / the speed of an even split: 1 for job 1,
# (3 + 1) / 2 = 2 for job 2): job 1's level is at most 1 (its row sums to
# at most 1), so the first level is 1; water-filling (max-min-wf) then
# raises job 2, which does best with all of A: X = job 1 [0, 1], job 2
# [1, 0], and the round puts job 2 on A (node 0), job 1 on B (node 1). The
# one LP of max-min (Gavel's max_min_fairness_perf) fixes only that first
# level, so its X is any of several (job 2 needs 3 x_A + x_B >= 2); the
# round still puts job 2 on A, where its share is the larger. FIFO rounds give
# the fastest type to the earlier job: job 1 on A, job 2 on B. Makespan with
# 100 s of work left for job 1 and 300 s for job 2: every job done by
# T = 100 s needs job 1 running all the time and job 2 on A all the time,
# the same X. Finish-time fairness on one GPU gives the job that has waited
# the golden-ratio share (worked below).
set -u
BIN=${TARMAC_BIN:?run through ctest}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
T='"gpu_types":[{"name":"A","mem_mib":81920},{"name":"B","mem_mib":24576}],"nodes":[{"type":"A","gpus":1},{"type":"B","gpus":1}]'
Q='"queue":[{"id":1,"speed":[1,1]},{"id":2,"speed":[3,1]}]'

# starts WANT POLICY JSON: the started jobs as "ID@NODE ..." (in decision order) equal WANT
starts() {
    want=$1 pol=$2
    printf '%s' "$3" > "$W/in.json"
    if ! "$BIN" place --policy "$pol" "$W/in.json" > "$W/out" 2> "$W/err"; then
        echo "FAIL: exit $? for '$pol': $3"; cat "$W/out" "$W/err"; fail=1; return
    fi
    got=$(grep '"kind":"start"' "$W/out" | sed 's/.*"job_id":\([0-9]*\),"parts":\[{"node":\([0-9]*\).*/\1@\2/' | tr '\n' ' ' | sed 's/ $//')
    if [ "$got" != "$want" ]; then
        echo "FAIL: '$pol': started '$got', want '$want' for: $3"; cat "$W/out"; fail=1
    fi
}

# has NEEDLE: the last output holds NEEDLE
has() {
    grep -qF -- "$1" "$W/out" || { echo "FAIL: '$1' not in:"; cat "$W/out"; fail=1; }
}

# refuse NEEDLE POLICY JSON: exit 65, an error object, "WHERE: MESSAGE" on
# stderr holding NEEDLE, no decisions
refuse() {
    needle=$1 pol=$2
    printf '%s' "$3" > "$W/in.json"
    "$BIN" place --policy "$pol" "$W/in.json" > "$W/out" 2> "$W/err"
    got=$?
    if [ "$got" -ne 65 ]; then
        echo "FAIL: exit $got, want 65 for: $3"; cat "$W/out" "$W/err"; fail=1; return
    fi
    grep -q '^{"error":{"where":' "$W/out" || { echo "FAIL: no error object: $3"; fail=1; }
    grep -qF -- "$needle" "$W/err" || { echo "FAIL: '$needle' not in:"; cat "$W/err"; fail=1; }
    ! grep -q '"decisions"' "$W/out" || { echo "FAIL: decisions printed for: $3"; fail=1; }
}

# --- Gavel: X solved by tarmac place ---------------------------------------
starts '1@1 2@0' 'gavel' "{\"now_us\":0,$T,$Q}"
starts '1@1 2@0' 'gavel max-min-wf' "{\"now_us\":0,$T,$Q}"
has '{"id":1,"x":[0,1]}'
has '{"id":2,"x":[1,0]}'
starts '1@1 2@0' 'gavel max-min@600' "{\"now_us\":1800000000,$T,$Q}"
starts '1@0 2@1' 'gavel fifo' "{\"now_us\":0,$T,$Q}"
has '{"id":1,"x":[1,0]}'
starts '1@1 2@0' 'gavel makespan' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":1,\"left_s\":100},{\"id\":2,\"left_s\":300}]}"
refuse 'queue[0]: policy gavel makespan needs the work job 1 has left' 'gavel makespan' \
    "{\"now_us\":0,$T,$Q}"
refuse 'queue[1]: policy gavel ftf needs the work job 2 has left' 'gavel ftf' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":1,\"left_s\":100}]}"
# ftf, one GPU, two jobs with 100 s of work left at speed 1 (isolated time: a
# half share, 200 s); job 2 has waited 100 s. rho_1 = (100 / x1) / 200,
# rho_2 = (100 + 100 / x2) / 200, equal at x1 + x2 = 1: x2^2 + x2 - 1 = 0,
# x2 = (sqrt 5 - 1) / 2 = 0.618, x1 = 0.382, so job 2 (FIFO's second) gets
# the GPU
F='"gpu_types":[{"name":"A","mem_mib":81920}],"nodes":[{"type":"A","gpus":1}],"queue":[{"id":1,"submit_us":360000000},{"id":2,"submit_us":260000000}]'
starts '2@0' 'gavel ftf' \
    "{\"now_us\":360000000,$F,\"timeshare\":[{\"id\":1,\"left_s\":100},{\"id\":2,\"left_s\":100}]}"
x2=$(grep '"id":2,"x"' "$W/out" | sed 's/.*"x":\[\([^]]*\)\].*/\1/')
awk -v x="$x2" 'BEGIN { d = x - (sqrt(5) - 1) / 2; exit !(d < 1e-3 && d > -1e-3) }' ||
    { echo "FAIL: ftf gives job 2 x = '$x2', want 0.618"; cat "$W/out"; fail=1; }
starts '1@0' 'gavel fifo' "{\"now_us\":360000000,$F}"
# between round boundaries nothing starts and nothing is solved
starts '' 'gavel' "{\"now_us\":1000000,$T,$Q}"
! grep -q '"allocation"' "$W/out" || { echo "FAIL: an allocation between boundaries"; fail=1; }
# a running job whose type X moves is preempted (and restarts on its new type
# in the caller's next pass); the waiting job takes its GPU
R='"running":[{"id":1,"speed":[1,1],"flags":["preemptible"],"parts":[{"node":0,"gpus":1,"gpu_ids":[0]}]}],"queue":[{"id":2,"speed":[3,1]}]'
starts '2@0' 'gavel' "{\"now_us\":0,$T,$R}"
has '{"kind":"preempt","running_index":0,"job_id":1}'

# --- Gavel: X given in the snapshot ----------------------------------------
starts '1@1 2@0' 'gavel' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":1,\"x\":[0,1]},{\"id\":2,\"x\":{\"A\":1}}]}"
starts '1@0 2@1' 'gavel' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":2,\"x\":[0,1]},{\"id\":1,\"x\":[1,0]}]}"
! grep -q '"allocation"' "$W/out" || { echo "FAIL: a given X echoed as solved"; fail=1; }
# X = 1/2 everywhere: with nothing received the tie goes to the lower id (job
# 1 on A, the faster type, taken first); when job 1 has had its half of A
# (360 s of 720 active: priority 0.5 / 0.5 = 1) and job 2 its half of B,
# job 2's untouched share of A (priority 0.5 x 1e9) wins A
H='{"id":1,"x":[0.5,0.5]'
K='{"id":2,"x":[0.5,0.5]'
starts '1@0 2@1' 'gavel' "{\"now_us\":0,$T,$Q,\"timeshare\":[$H},$K}]}"
starts '1@1 2@0' 'gavel' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[$H,\"received_s\":[360,0],\"active_s\":720},$K,\"received_s\":{\"B\":360},\"active_s\":720}]}"
# a job without a row has X = 0 everywhere (solved for another job set, the
# engine's rule): it takes only GPUs left over, and none under fifo
starts '1@1 2@0' 'gavel' "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":2,\"x\":[1,0]}]}"
starts '2@0' 'gavel fifo' "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":2,\"x\":[1,0]}]}"

# --- Gavel: malformed rows ---------------------------------------------------
refuse 'timeshare[0].x[0]: expected a time fraction in [0, 1], got -0.5' 'gavel' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":1,\"x\":[-0.5,0]}]}"
refuse 'timeshare[1].x: the fractions sum to 1.3, more than 1' 'gavel' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":1,\"x\":[0,1]},{\"id\":2,\"x\":[0.7,0.6]}]}"
refuse 'timeshare[0].x.C: no GPU type named "C"' 'gavel' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":1,\"x\":{\"C\":1}}]}"
refuse 'timeshare[0].x[1]: expected a time fraction in [0, 1], got 1.5' 'gavel' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":1,\"x\":[0,1.5]}]}"
refuse 'timeshare[0].x: expected one time fraction per GPU type (2), got 3' 'gavel' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":1,\"x\":[0,0,1]}]}"
refuse 'timeshare[0].x: gives time on GPU type "B", which job 1' 'gavel' \
    "{\"now_us\":0,$T,\"queue\":[{\"id\":1,\"gpu_types\":[\"A\"]}],\"timeshare\":[{\"id\":1,\"x\":[0.5,0.5]}]}"
refuse 'timeshare[0].id: no job with id 9 in running or queue' 'gavel' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":9,\"x\":[1,0]}]}"
refuse 'timeshare[1].id: job id 1 already has a row (timeshare[0])' 'gavel' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":1,\"x\":[1,0]},{\"id\":1,\"x\":[0,1]}]}"
refuse 'timeshare[1]: has no "x" but timeshare[0] does' 'gavel' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":1,\"x\":[1,0]},{\"id\":2}]}"
refuse 'timeshare[0].received_s[0]: expected a number of seconds' 'gavel' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":1,\"received_s\":[-1,0]}]}"
refuse 'timeshare[0].active_s' 'gavel' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":1,\"active_s\":\"long\"}]}"
refuse 'timeshare[0].rounds' 'gavel' \
    "{\"now_us\":0,$T,$Q,\"timeshare\":[{\"id\":1,\"rounds\":3}]}"
refuse 'timeshare: expected an array of rows' 'gavel' "{\"now_us\":0,$T,$Q,\"timeshare\":{}}"

# --- Tiresias gittins=class ---------------------------------------------------
# One GPU; job 1 (class 1) arrived before job 2 (class 0). Class 0 is {10,
# 100} s evenly, G0(0) = 0.05 with D = 10; class 1 is {5 with probability p,
# 1000 otherwise}, G1(0) = p / (10 - 5 p): 0.0484 at p = 0.39 (job 2 first),
# 0.0516 at p = 0.41 (job 1 first). docs/tiresias.md; test_tiresias_class.c
# checks the same order on the view directly.
G='"gpu_types":[{"name":"A","mem_mib":81920}],"nodes":[{"type":"A","gpus":1}],"queue":[{"id":1,"class":1},{"id":2,"class":0}]'
P='tiresias-2dlas thresholds=1e9 gittins=class delta=10'
D0='{"class":0,"value":[10,100],"prob":[0.5,0.5]}'
starts '2@0' "$P" "{\"now_us\":1000000000,$G,\"service_dist\":[$D0,{\"class\":1,\"value\":[5,1000],\"prob\":[0.39,0.61]}]}"
starts '1@0' "$P" "{\"now_us\":1000000000,$G,\"service_dist\":[{\"class\":1,\"value\":[5,1000],\"prob\":[0.41,0.59]},$D0]}"
starts '1@0' 'tiresias-2dlas thresholds=1e9 delta=10' "{\"now_us\":1000000000,$G}"
refuse "gittins=class needs each class's service distribution, which this snapshot does not carry" "$P" \
    "{\"now_us\":1000000000,$G}"
has 'gittins=V:W,... or gittins=learn'
refuse 'service_dist[0].prob: the probabilities sum to 0.9, not 1' "$P" \
    "{\"now_us\":0,$G,\"service_dist\":[{\"class\":0,\"value\":[10,100],\"prob\":[0.5,0.4]}]}"
refuse 'service_dist[0].value[1]: values must ascend' "$P" \
    "{\"now_us\":0,$G,\"service_dist\":[{\"class\":0,\"value\":[100,10],\"prob\":[0.5,0.5]}]}"
refuse 'service_dist[0].value[0]: expected a number of GPU-seconds in [0, 1e+15], got -1' "$P" \
    "{\"now_us\":0,$G,\"service_dist\":[{\"class\":0,\"value\":[-1,10],\"prob\":[0.5,0.5]}]}"
refuse 'service_dist[0].prob[1]: expected a probability in (0, 1], got 0' "$P" \
    "{\"now_us\":0,$G,\"service_dist\":[{\"class\":0,\"value\":[1,10],\"prob\":[1,0]}]}"
refuse 'service_dist[0].prob: 1 probabilities for 2 values' "$P" \
    "{\"now_us\":0,$G,\"service_dist\":[{\"class\":0,\"value\":[1,10],\"prob\":[1]}]}"
refuse 'service_dist[1].class: class 0 given twice' "$P" \
    "{\"now_us\":0,$G,\"service_dist\":[$D0,$D0]}"
refuse 'service_dist[0].value: expected at least one point' "$P" \
    "{\"now_us\":0,$G,\"service_dist\":[{\"class\":0,\"value\":[],\"prob\":[]}]}"

[ "$fail" -eq 0 ] && echo "place_sched: all cases passed"
exit "$fail"
