#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# hostile.sh — hostile values in scenarios, traces and `tarmac place` input.
#
# Every case has a defined outcome (docs/hardening.md): a clear error naming
# the file and the JSON path or line (exit 65), a rejection with its reason,
# or a bounded run. None may crash, hang (each command gets a time limit) or
# leave an output file behind when it fails. Inputs that would be large are
# generated here (a sparse file, a FIFO fed by awk); nothing big is stored.
set -u
BIN=${TARMAC_BIN:?}
SRC=${TARMAC_SRC:?}
W=$(mktemp -d "${TMPDIR:-/tmp}/tarmac-hostile.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# run_limited SECONDS CMD...: CMD with a time limit (a hang is a failure: 137)
run_limited() {
    secs=$1
    shift
    timeout -s KILL "$secs" "$@"
}

# scen NAME CODE PATTERN JSON: `tarmac run` of the scenario JSON exits CODE
# with PATTERN on stderr (CODE 0: the run completes), and leaves no output
# file when it fails
scen() {
    name=$1 code=$2 pattern=$3
    printf '%s' "$4" >"$W/$name.json"
    run_limited 60 "$BIN" run "$W/$name.json" -q -o "$W/$name.h5" >"$W/out" 2>"$W/err"
    got=$?
    msg=$(head -c 300 "$W/err")
    if [ $got -ne "$code" ]; then
        fail "$name: exit $got, want $code ($msg)"
    elif [ -n "$pattern" ] && ! grep -q -- "$pattern" "$W/err"; then
        fail "$name: message '$msg' lacks '$pattern'"
    else
        echo "ok: $name: exit $got${msg:+: $msg}"
    fi
    if [ "$code" -ne 0 ] && ls "$W" | grep -q "^$name.h5"; then
        fail "$name: output left behind"
    fi
}

F='"fleet":{"pools":[{"gpu_type":"H100","nodes":2}]}'
C='"name":"a","arrival":{"rate_per_hour":10},"duration":"1h"'
WL="\"workload\":{\"classes\":[{$C}]}"
H='"horizon":"2d"'

# --- numbers JSON does not have, and numbers out of range ---
scen nan-literal 65 'nan-literal.json:1:10: malformed JSON' "{\"seed\": NaN, $F, $WL}"
scen infinity-literal 65 'infinity-literal.json:1:10: malformed JSON' "{\"seed\": Infinity, $F, $WL}"
scen seed-1e400 65 'seed: expected an integer in \[0, 9007199254740991\], got inf' "{\"seed\": 1e400, $F, $WL}"
scen seed-2e64 65 'seed: expected an integer in' "{\"seed\": 18446744073709551616, $F, $WL}"
scen horizon-1e400 65 'horizon: expected a duration >= 0, got inf' "{\"horizon\": 1e400, $F, $WL}"
scen horizon-1e300 65 'horizon: duration of' "{\"horizon\": 1e300, $F, $WL}"
scen nodes-1e400 65 'fleet.pools\[0\].nodes: expected an integer in \[0, 10000000\], got inf' \
    "{\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":1e400}]}, $WL}"
scen nodes-1e30 65 'fleet.pools\[0\].nodes: expected an integer' \
    "{\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":1e30}]}, $WL}"
scen gpus-per-node-2e32 65 'gpus_per_node: expected an integer in \[1, 64\]' \
    "{\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":1,\"gpus_per_node\":4294967297}]}, $WL}"
scen rate-1e400 65 'arrival.rate_per_hour: expected a number in \[0, 1e+09\], got inf' \
    "{$F,\"workload\":{\"classes\":[{\"name\":\"a\",\"arrival\":{\"rate_per_hour\":1e400},\"duration\":\"1h\"}]}}"
scen load-minus-1e400 65 'arrival.offered_load: expected a number in \[0, 100\], got -inf' \
    "{$F,\"workload\":{\"classes\":[{\"name\":\"a\",\"arrival\":{\"offered_load\":-1e400},\"duration\":\"1h\"}]}}"
scen gpus-1e400 65 'classes\[0\].gpus: expected a finite number, got inf' \
    "{$F,\"workload\":{\"classes\":[{$C,\"gpus\":1e400}]}}"
scen duration-1e400 65 'classes\[0\].duration: expected a duration >= 0, got inf' \
    "{$F,\"workload\":{\"classes\":[{\"name\":\"a\",\"arrival\":{\"rate_per_hour\":1},\"duration\":1e400}]}}"
scen sample-1us 65 'sample: more than 10 million time-series bins' "{\"sample\":\"1us\",\"horizon\":\"3650d\", $F, $WL}"

# --- time past the int64 horizon: a run time of 10^18 hours is capped at the
# end of simulated time (SIM_T_MAX_US); the run to its 2-day horizon completes
scen duration-1e18h 0 '' \
    "{$H,$F,\"workload\":{\"classes\":[{\"name\":\"a\",\"arrival\":{\"rate_per_hour\":1},\"duration\":\"1e18 h\"}]}}"

# --- nesting and size ---
python3 -c 'print("[" * 100000)' >"$W/deep-array.json"
run_limited 60 "$BIN" run "$W/deep-array.json" -q -o "$W/deep.h5" 2>"$W/err"
[ $? -eq 65 ] && grep -q 'deep-array.json:1:1001: malformed JSON.*nesting deeper than 1000' "$W/err" ||
    fail "100000 nested arrays: $(head -c 200 "$W/err")"
echo "ok: 100000 nested arrays: $(head -c 120 "$W/err")..."
scen nested-in-key 65 'nested-in-key.json:1:1010: malformed JSON' \
    "{\"fleet\": $(python3 -c 'print("[" * 5000 + "]" * 5000)'), $WL}"
# 65 MiB (sparse: no disk used): refused before it is parsed
truncate -s 65M "$W/enormous.json"
run_limited 60 "$BIN" run "$W/enormous.json" -q -o "$W/enormous.h5" 2>"$W/err"
got=$?
[ $got -eq 65 ] && grep -q 'enormous.json: larger than 64 MiB' "$W/err" ||
    fail "enormous scenario: exit $got: $(head -c 200 "$W/err")"
echo "ok: enormous (65 MiB) scenario: $(cat "$W/err")"

# --- fleets that cannot run the jobs: bounded runs, every job rejected with its reason ---
# reasons_of NAME: the distinct reject_reason labels of the run's jobs
reasons_of() {
    "$BIN" export "$W/$1.h5" --table jobs --labels | awk -F, 'NR > 1 { print $5 ": " $6 }' | sort -u
}
scen zero-gpus 0 '' "{$H,\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":0}]}, $WL}"
r=$(reasons_of zero-gpus)
[ "$r" = "rejected: no GPU type it allows is in the fleet" ] || fail "zero GPUs: reasons '$r'"
echo "ok: zero GPUs: every job $r"
scen zero-gpus-load 65 'offered_load: needs GPUs in service at time 0' \
    "{$H,\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":0}]},\"workload\":{\"classes\":[{\"name\":\"a\",\"arrival\":{\"offered_load\":0.5},\"duration\":\"1h\"}]}}"
scen no-pools 65 'fleet.pools: expected at least one pool' "{\"fleet\":{\"pools\":[]}, $WL}"
scen job-larger-than-node 0 '' "{$H,$F,\"workload\":{\"classes\":[{$C,\"gpus\":16}]}}"
r=$(reasons_of job-larger-than-node)
[ "$r" = "rejected: needs more GPUs on one node than any allowed node has" ] ||
    fail "job larger than any node: reasons '$r'"
echo "ok: a job larger than any node: every job $r"

# --- traces: numbers out of range, times past the horizon, very long lines ---
printf '{"pools":[{"gpu_type":"H100","nodes":2}]}' >"$W/fleet.json"
# trace NAME CODE PATTERN CONTENT: replay the tarmac trace CONTENT (printf format)
trace() {
    name=$1 code=$2 pattern=$3
    printf "$4" >"$W/$name.csv"
    run_limited 60 "$BIN" replay "$W/$name.csv" --format tarmac --fleet "$W/fleet.json" -q \
        -o "$W/$name.h5" >"$W/out" 2>"$W/err"
    got=$?
    msg=$(head -c 300 "$W/err")
    if [ $got -ne "$code" ]; then
        fail "trace $name: exit $got, want $code ($msg)"
    elif [ -n "$pattern" ] && ! grep -q -- "$pattern" "$W/err"; then
        fail "trace $name: message '$msg' lacks '$pattern'"
    else
        echo "ok: trace $name: exit $got${msg:+: $msg}"
    fi
    if [ "$code" -ne 0 ] && ls "$W" | grep -q "^$name.h5"; then
        fail "trace $name: output left behind"
    fi
    rm -f "$W/$name.csv"
}
T='id,submit_us,duration_us'
trace nan 65 'nan.csv:2: expected an integer in column "submit_us", got "nan"' "$T\n1,nan,1\n"
trace inf 65 'inf.csv:2: expected an integer in column "duration_us", got "inf"' "$T\n1,0,inf\n"
trace 1e400 65 '1e400.csv:2: expected an integer in column "submit_us", got "1e400"' "$T\n1,1e400,1\n"
trace int64-overflow 65 'int64-overflow.csv:2: expected an integer in column "submit_us"' \
    "$T\n1,9223372036854775808,1\n"
trace negative-duration 65 'negative-duration.csv:2: expected column "duration_us" in \[0,' "$T\n1,0,-5\n"
trace value-nan 65 'value-nan.csv:2: expected a finite number in column "value"' \
    "id,submit_us,duration_us,value\n1,0,1,nan\n"
trace gpus-2e32 65 'gpus-2e32.csv:2: expected column "gpus" in \[0, 4294967295\]' \
    "id,submit_us,duration_us,gpus\n1,0,1,4294967296\n"
trace past-end-of-time 65 'job 1 arrives at 9223372036854775000 us, past the end of simulated time' \
    "$T\n1,9223372036854775000,1000000\n"
trace duration-int64-max 65 'time series: simulated time .* needs more than 10000000 bins' \
    "$T\n1,0,9223372036854775807\n"
trace gpus-2e32-1 0 '' "id,submit_us,duration_us,gpus\n1,0,1,4294967295\n"
# lines of 3 MB (a number too long) and of 30 MB (past the 16 MiB line limit)
{ printf "$T\n1,0,"; head -c 3000000 /dev/zero | tr '\0' '1'; echo; } >"$W/long3.csv"
run_limited 60 "$BIN" replay "$W/long3.csv" --format tarmac --fleet "$W/fleet.json" -q -o "$W/l.h5" 2>"$W/err"
[ $? -eq 65 ] && grep -q 'long3.csv:2: expected an integer in column "duration_us"' "$W/err" ||
    fail "3 MB line: $(head -c 200 "$W/err")"
echo "ok: a 3 MB line: $(head -c 100 "$W/err")..."
{ printf "$T\n1,0,1,"; head -c 30000000 /dev/zero | tr '\0' 'x'; echo; } >"$W/long30.csv"
run_limited 60 "$BIN" replay "$W/long30.csv" --format tarmac --fleet "$W/fleet.json" -q -o "$W/l.h5" 2>"$W/err"
[ $? -eq 65 ] && grep -q 'long30.csv:2: line longer than 16777216 bytes' "$W/err" ||
    fail "30 MB line: $(head -c 200 "$W/err")"
echo "ok: a 30 MB line: $(cat "$W/err")"
for f in swf; do
    { printf '; MaxNodes: 4\n1 0 -1 '; head -c 30000000 /dev/zero | tr '\0' '9'; echo; } >"$W/long.$f"
    run_limited 60 "$BIN" replay "$W/long.$f" --format "$f" -q -o "$W/l.h5" 2>"$W/err"
    [ $? -eq 65 ] && grep -q "long.$f:2: line longer than" "$W/err" || fail "$f 30 MB line: $(head -c 200 "$W/err")"
    echo "ok: a 30 MB line in $f: $(cat "$W/err")"
done
rm -f "$W"/long*

# --- a trace without end, cut by --max-jobs: awk writes tiny jobs into a FIFO
# for ever; the replay reads 200000 of them and stops (awk then dies of SIGPIPE)
mkfifo "$W/endless.fifo"
awk 'BEGIN { print "id,submit_us,duration_us"; for (i = 1; ; i++) print i "," i * 1000 ",1000000" }' \
    >"$W/endless.fifo" 2>/dev/null &
awk_pid=$!
run_limited 120 "$BIN" replay "$W/endless.fifo" --format tarmac --fleet "$W/fleet.json" \
    --max-jobs 200000 -o "$W/endless.h5" >"$W/out" 2>"$W/err"
got=$?
kill $awk_pid 2>/dev/null
wait $awk_pid 2>/dev/null
if [ $got -ne 0 ] || ! grep -q '200000 arrived, 200000 completed' "$W/out"; then
    fail "--max-jobs on an endless trace: exit $got: $(cat "$W/out" "$W/err" | head -c 300)"
else
    echo "ok: --max-jobs 200000 on an endless trace: $(grep '^jobs:' "$W/out" | cut -c1-60)..."
fi
run_limited 10 "$BIN" replay "$W/fleet.json" --format tarmac --protocol window --max-jobs 5 2>"$W/err"
[ $? -eq 64 ] || fail "--max-jobs with --protocol window is not a usage error"

# --- tarmac place: an error object for every malformed request, and its limits ---
# place NAME CODE PATTERN ARGS...: exit CODE, PATTERN in the error object on stdout
place() {
    name=$1 code=$2 pattern=$3
    shift 3
    run_limited 60 "$BIN" place "$@" >"$W/out" 2>"$W/err"
    got=$?
    if [ $got -ne "$code" ]; then
        fail "place $name: exit $got, want $code ($(head -c 300 "$W/out" "$W/err"))"
    elif ! grep -q '^{"error":{"where":' "$W/out"; then
        fail "place $name: no error object: $(head -c 300 "$W/out")"
    elif ! grep -q -- "$pattern" "$W/out"; then
        fail "place $name: '$pattern' not in $(head -c 300 "$W/out")"
    else
        echo "ok: place $name: $(head -c 200 "$W/out")"
    fi
}
P='"gpu_types":[{"name":"H100","mem_mib":81920}],"nodes":[{"type":"H100","gpus":8}]'
printf '{"now_us": NaN, %s}' "$P" >"$W/p-nan.json"
place nan 65 'p-nan.json:1:12' "$W/p-nan.json"
printf '{"now_us": 1e400, %s}' "$P" >"$W/p-inf.json"
place 1e400 65 'now_us' "$W/p-inf.json"
printf '{"now_us": 0, %s, "queue": [{"id": 1, "submit_us": 0, "gpus": 1e30}]}' "$P" >"$W/p-gpus.json"
place gpus-1e30 65 'queue\[0\].gpus' "$W/p-gpus.json"
python3 -c 'print("[" * 100000)' >"$W/p-deep.json"
place nested-100000 65 'nesting deeper than 1000' "$W/p-deep.json"
head -c 4096 /dev/urandom >"$W/p-binary.json"
place binary 65 'p-binary.json' "$W/p-binary.json"
place max-input-bytes 65 'larger than 100 bytes (the limit of --max-input-bytes)' \
    --max-input-bytes 100 "$SRC/fuzz/corpus/place/doc-example.json"
truncate -s 300M "$W/p-huge.json"
place default-max-input 65 'larger than 67108864 bytes' "$W/p-huge.json"
rm -f "$W/p-huge.json"
place timeout 65 'no answer within the time limit of 1e-06 s (--timeout)' \
    --timeout 1us "$SRC/fuzz/corpus/place/doc-example.json"
# a job larger than any node is no error: it stays queued, no decision for it
printf '{"now_us": 0, %s, "queue": [{"id": 1, "submit_us": 0, "gpus": 64}]}' "$P" >"$W/p-big.json"
run_limited 60 "$BIN" place "$W/p-big.json" >"$W/out" 2>"$W/err"
[ $? -eq 0 ] && grep -q '"started":0' "$W/out" || fail "place: a job larger than any node: $(cat "$W/out" "$W/err")"
echo "ok: place: a job larger than any node: no decision"
# no nodes at all
printf '{"now_us": 0, "gpu_types":[{"name":"H100","mem_mib":81920}], "nodes": [], "queue": [{"id": 1, "submit_us": 0}]}' >"$W/p-empty.json"
run_limited 60 "$BIN" place "$W/p-empty.json" >"$W/out" 2>"$W/err"
got=$?
if [ $got -eq 0 ]; then
    grep -q '"started":0' "$W/out" || fail "place: no nodes: $(cat "$W/out")"
    echo "ok: place: no nodes: no decision"
else
    grep -q '^{"error":' "$W/out" || fail "place: no nodes: exit $got without an error object"
    echo "ok: place: no nodes: $(head -c 200 "$W/out")"
fi

[ $fails -eq 0 ] && echo "hostile: all checks passed" || echo "hostile: $fails failure(s)"
[ $fails -eq 0 ]
