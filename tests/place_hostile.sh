#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# place_hostile.sh — `tarmac place` against requests a careless or hostile
# scheduler could send (docs/hardening.md, "`tarmac place` requests"):
#
#  1. U+0000 (\u0000) inside any string or key: cJSON would cut the string
#     there ("fifo-first-fit\u0000junk" read as "fifo-first-fit"); refused
#     with exit 65 at the string's JSON path.
#  2. queued jobs that no node could ever hold: listed under "unplaceable"
#     with the simulator's rejection reason, the decisions unchanged.
#  3. large requests that used to run away: priority preemption on 5,000
#     nodes with 50,000 queued jobs, conservative backfilling on 20,000 nodes
#     (bench/place_snapshot_gen.py builds them); each must answer within
#     --timeout (the old code took minutes; the new one a few seconds).
set -u
BIN=${TARMAC_BIN:?run through ctest}
SRC=${TARMAC_SRC:?run through ctest}
PY=${TARMAC_PY:-/usr/bin/python3}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
T='"gpu_types":[{"name":"H100","mem_mib":81920}],"nodes":[{"type":"H100","gpus":8}]'

# refused CODE WHERE INPUT: exit CODE, an error object whose "where" is WHERE
# (after the input's name), the U+0000 message, and no decision
refused() {
    code=$1 where=$2 input=$3
    printf '%s' "$input" >"$W/in.json"
    "$BIN" place "$W/in.json" >"$W/out" 2>"$W/err"
    got=$?
    if [ "$got" -ne "$code" ]; then
        echo "FAIL: exit $got, want $code for: $input"
        cat "$W/out" "$W/err"
        fail=1
        return
    fi
    if ! grep -qF "{\"error\":{\"where\":\"$W/in.json: $where\"" "$W/out"; then
        echo "FAIL: the error does not name '$where' for: $input"
        cat "$W/out"
        fail=1
        return
    fi
    if ! grep -q 'U+0000' "$W/err"; then
        echo "FAIL: no word of U+0000 for: $input"
        cat "$W/err"
        fail=1
    fi
    if grep -q '"decisions"' "$W/out"; then
        echo "FAIL: decisions printed for: $input"
        fail=1
    fi
}

# --- 1. U+0000 in every kind of string ----------------------------------------
J='{"id":1,"gpus":1,"flags":["preemptible"],"parts":[{"node":0,"gpus":1,"gpu_ids":[0]}]}'
refused 65 'policy' "{\"now_us\":0,$T,\"policy\":\"fifo-first-fit\\u0000junk\"}"
refused 65 'policy' "{\"now_us\":0,$T,\"policy\":\"\\u0000\"}"
refused 65 'gpu_types[1].name' '{"now_us":0,"gpu_types":[{"name":"A","mem_mib":1},{"name":"A\u0000B","mem_mib":1}],"nodes":[]}'
refused 65 'nodes[0].type' '{"now_us":0,"gpu_types":[{"name":"H100","mem_mib":1}],"nodes":[{"type":"H100\u0000"}]}'
refused 65 'queue[1].gpu_types[0]' "{\"now_us\":0,$T,\"queue\":[{\"id\":1},{\"id\":2,\"gpu_types\":[\"H100\\u0000x\"]}]}"
refused 65 'queue[0].flags[1]' "{\"now_us\":0,$T,\"queue\":[{\"id\":1,\"flags\":[\"can_span\",\"service\\u0000\"]}]}"
refused 65 'running[0].flags[0]' "{\"now_us\":0,$T,\"running\":[{\"id\":1,\"flags\":[\"preemptible\\u0000\"],\"parts\":[{\"node\":0,\"gpus\":1,\"gpu_ids\":[0]}]}]}"
refused 65 'running[1].parts[0]' "{\"now_us\":0,$T,\"running\":[$J,{\"id\":2,\"parts\":[{\"node\":0,\"gpu_ids\":[1],\"gpus\\u0000\":1}]}]}"
refused 65 'queue[0]' "{\"now_us\":0,$T,\"queue\":[{\"id\\u0000x\":1}]}"
refused 65 '(top level)' "{\"now_us\":0,$T,\"seed\\u0000\":3}"
# a string after escaped quotes and backslashes is still found at its path
refused 65 'queue[0].gpu_types[1]' "{\"now_us\":0,$T,\"queue\":[{\"id\":1,\"gpu_types\":[\"a\\\\\\\"b\",\"\\u0000\"]}]}"
# an escaped backslash followed by u0000 is six ordinary characters: no U+0000
printf '%s' "{\"now_us\":0,$T,\"policy\":\"fifo\\\\u0000\"}" >"$W/in.json"
"$BIN" place "$W/in.json" >"$W/out" 2>"$W/err"
if [ $? -ne 65 ] || grep -q 'U+0000' "$W/err" || ! grep -qF "no such policy: 'fifo\\u0000'" "$W/err"; then
    echo "FAIL: an escaped backslash before u0000 was taken for U+0000"
    cat "$W/out" "$W/err"
    fail=1
fi

# --- 2. jobs no node could ever hold --------------------------------------------
# Nodes: H100 x8 (48 cores), L4 x4 (64 cores) out of service; types X and
# B200 have no node; each node has 1 TiB of host memory. Jobs: 0 nine GPUs;
# 1 only X; 2 more memory than an H100; 3 needs 50 cores, which only the L4
# node (down, but it may come back) has;
# 4 spans nodes but needs more than the 12 GPUs; 5 fits and starts; 6 the L4
# node can hold once it is back; 7 more host memory than any node; 8 B200 and X
# only; 9 the H100 node is the only one with its memory, and it has 48 cores.
cat >"$W/never.json" <<'EOF'
{"now_us":0,
 "gpu_types":[{"name":"H100","mem_mib":81920},{"name":"L4","mem_mib":24576},
              {"name":"X","mem_mib":1},{"name":"B200","mem_mib":184320}],
 "nodes":[{"type":"H100","gpus":8,"cpu_milli":48000,"mem_mib":1048576},
          {"type":"L4","gpus":4,"up":false,"cpu_milli":64000,"mem_mib":1048576}],
 "queue":[{"id":10,"gpus":9},
          {"id":11,"gpu_types":["X"]},
          {"id":12,"gpu_mem_mib":90000},
          {"id":13,"cpu_milli":50000},
          {"id":14,"gpus":13,"flags":["can_span"]},
          {"id":15,"gpus":2},
          {"id":16,"gpus":4,"gpu_types":["L4"]},
          {"id":17,"host_mem_mib":2000000},
          {"id":18,"gpu_types":["B200","X"]},
          {"id":19,"gpu_mem_mib":30000,"cpu_milli":50000}]}
EOF
"$BIN" place --policy 'order=fifo placement=first-fit backfill=greedy' "$W/never.json" \
    >"$W/out" 2>"$W/err"
st=$?
if [ $st -ne 0 ]; then
    echo "FAIL: exit $st for the unplaceable jobs"
    cat "$W/out" "$W/err"
    fail=1
fi
"$PY" - "$W/out" <<'EOF' || fail=1
import json, sys
out = json.load(open(sys.argv[1]))
want = {10: "gang", 11: "type", 12: "memory", 14: "total", 17: "host", 18: "type", 19: "host"}
msg = {"gang": "needs more GPUs on one node than any allowed node has",
       "type": "no GPU type it allows is in the fleet",
       "memory": "needs more GPU memory than any allowed type has",
       "host": "needs more host CPU or memory than any node has",
       "total": "needs more GPUs than the fleet has"}
got = {u["job_id"]: u["reason"] for u in out["unplaceable"]}
ok = got == want
for u in out["unplaceable"]:
    ok = ok and u["message"] == msg[u["reason"]] and u["queue_index"] == u["job_id"] - 10
started = [d["job_id"] for d in out["decisions"] if d["kind"] == "start"]
ok = ok and started == [15] and out["stats"]["started"] == 1
ok = ok and list(out.keys()) == ["decisions", "stats", "policy", "unplaceable"]
if not ok:
    print("FAIL: unplaceable jobs: got", got, "want", want, "started", started)
    print(json.dumps(out, indent=1))
    sys.exit(1)
EOF
# nothing to list: an empty list (and the job that fits starts)
printf '%s' "{\"now_us\":0,$T,\"queue\":[{\"id\":1,\"gpus\":8}]}" >"$W/in.json"
"$BIN" place "$W/in.json" >"$W/out" 2>"$W/err"
if ! grep -q '^"unplaceable":\[\]}$' "$W/out" || ! grep -q '"kind":"start"' "$W/out"; then
    echo "FAIL: a job that fits is listed, or not started"
    cat "$W/out"
    fail=1
fi

# --- 3. large requests that used to run away ---------------------------------
# Each must be answered within a CPU-time limit (ulimit -t: CPU time, so that a
# loaded machine does not fail the test) well above what the placement core
# needs now and well below what it took before (bench/README.md, "tarmac place
# at scale"): priority preemption, 5,000 nodes, 50,000 queued jobs, most of
# them shares on a full cluster: 28.0 s before, 2.5 s after; conservative
# backfilling, 20,000 full nodes, 50,000 queued jobs: 35.0 s before, 2.7 s
# after. A sanitizer build (libasan linked) runs everything several times
# slower: the limits are five times as long there.
scale=1
if command -v ldd >/dev/null 2>&1 && ldd "$BIN" 2>/dev/null | grep -q 'libasan'; then
    scale=5
fi
runaway() { # NAME LIMIT_S POLICY GENERATOR-ARGS...
    name=$1 limit=$(($2 * scale)) policy=$3
    shift 3
    if ! "$PY" "$SRC/bench/place_snapshot_gen.py" "$@" >"$W/$name.json"; then
        echo "FAIL: $name: the snapshot generator failed"
        fail=1
        return
    fi
    (
        ulimit -t "$limit"
        exec "$BIN" place --timeout 0 --policy "$policy" "$W/$name.json"
    ) >"$W/$name.out" 2>"$W/$name.err"
    st=$?
    if [ $st -ne 0 ] || ! grep -q '^"stats":{"started":[1-9]' "$W/$name.out"; then
        echo "FAIL: $name: exit $st within $limit s of CPU time"
        head -c 400 "$W/$name.err"
        fail=1
    fi
    rm -f "$W/$name.json" "$W/$name.out" "$W/$name.err"
}
runaway preempt 10 priority-preempt --seed 4 --nodes 5000 --queue 50000 --running-fill 1.0 \
    --shares 0.6
runaway conservative 12 conservative --seed 2 --nodes 20000 --queue 50000 --running-fill 1.0 \
    --span 0

exit $fail
