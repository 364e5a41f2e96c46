#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# place_json_bad.sh — `tarmac place` on malformed snapshots: each gets an error
# object on stdout naming the JSON path, a message on stderr, and exit 65 (64
# for a bad command line); none crashes or prints decisions.
set -u
BIN=${TARMAC_BIN:?run through ctest}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
T='"gpu_types":[{"name":"H100","mem_mib":81920}],"nodes":[{"type":"H100","gpus":8}]'

# expect CODE NEEDLE INPUT [ARGS...]: exit CODE, and NEEDLE in the error object
expect() {
    code=$1 needle=$2 input=$3
    shift 3
    printf '%s' "$input" > "$W/in.json"
    "$BIN" place "$@" "$W/in.json" > "$W/out" 2> "$W/err"
    got=$?
    if [ "$got" -ne "$code" ]; then
        echo "FAIL: exit $got, want $code for: $input"; cat "$W/out" "$W/err"; fail=1; return
    fi
    if [ "$code" -eq 65 ] && ! grep -q '^{"error":{"where":' "$W/out"; then
        echo "FAIL: no error object for: $input"; cat "$W/out"; fail=1; return
    fi
    if ! grep -qF -- "$needle" "$W/out" "$W/err"; then
        echo "FAIL: '$needle' not in the error for: $input"; cat "$W/out" "$W/err"; fail=1; return
    fi
    if grep -q '"decisions"' "$W/out"; then
        echo "FAIL: decisions printed for bad input: $input"; fail=1
    fi
}

expect 65 'malformed JSON' '{"now_us": '
expect 65 'malformed JSON' ''
printf '{"now_us":0,\000}' > "$W/nul.json"
"$BIN" place "$W/nul.json" > "$W/out" 2>&1; [ $? -eq 65 ] && grep -q 'NUL' "$W/out" || { echo "FAIL: NUL byte"; fail=1; }
expect 65 'now_us' "{$T}"
expect 65 'expected an object' '[1,2]'
expect 65 'unknown key' "{\"now_us\":0,$T,\"colour\":1}"
expect 65 'nodes[0].type' '{"now_us":0,"gpu_types":[{"name":"H100","mem_mib":81920}],"nodes":[{"type":"B200"}]}'
expect 65 'nodes[0].gpus' '{"now_us":0,"gpu_types":[{"name":"H100","mem_mib":81920}],"nodes":[{"type":0,"gpus":65}]}'
expect 65 'queue[0].gpu_milli' "{\"now_us\":0,$T,\"queue\":[{\"id\":1,\"gpus\":2,\"gpu_milli\":500}]}"
expect 65 'queue[0].id' "{\"now_us\":0,$T,\"queue\":[{\"gpus\":2}]}"
expect 65 'queue[0].id' "{\"now_us\":0,$T,\"queue\":[{\"id\":1.5}]}"
expect 65 'queue[0].id' "{\"now_us\":0,$T,\"queue\":[{\"id\":1e300}]}"
expect 65 'only a running job' "{\"now_us\":0,$T,\"queue\":[{\"id\":1,\"parts\":[]}]}"
expect 65 'queue[0].flags[0]' "{\"now_us\":0,$T,\"queue\":[{\"id\":1,\"flags\":[\"fast\"]}]}"
expect 65 'queue[0].speed' "{\"now_us\":0,$T,\"queue\":[{\"id\":1,\"speed\":[1,2]}]}"
expect 65 'running[0].parts' "{\"now_us\":0,$T,\"running\":[{\"id\":1}]}"
expect 65 'running[0]' "{\"now_us\":0,$T,\"running\":[{\"id\":1,\"gpus\":2,\"parts\":[{\"node\":0,\"gpus\":2,\"gpu_ids\":[0]}]}]}"
expect 65 'running[1]' "{\"now_us\":0,$T,\"running\":[{\"id\":1,\"gpus\":2,\"parts\":[{\"node\":0,\"gpus\":2,\"gpu_ids\":[0,1]}]},{\"id\":2,\"gpus\":1,\"parts\":[{\"node\":0,\"gpus\":1,\"gpu_ids\":[1]}]}]}"
expect 65 'running[0].parts[0].node' "{\"now_us\":0,$T,\"running\":[{\"id\":1,\"parts\":[{\"node\":3,\"gpus\":1,\"gpu_ids\":[0]}]}]}"
expect 65 'gpu_ids[1]' "{\"now_us\":0,$T,\"running\":[{\"id\":1,\"gpus\":2,\"parts\":[{\"node\":0,\"gpus\":2,\"gpu_ids\":[1,1]}]}]}"
expect 65 'policy' "{\"now_us\":0,$T,\"policy\":\"placement=nowhere\"}"
expect 65 'nowhere' "{\"now_us\":0,$T}" --policy 'placement=nowhere'
expect 65 'policy: the string holds the character U+0000' "{\"now_us\":0,$T,\"policy\":\"fifo-first-fit\\u0000x\"}"
expect 65 'given twice' '{"now_us":0,"gpu_types":[{"name":"A","mem_mib":1},{"name":"A","mem_mib":2}],"nodes":[]}'
expect 64 'unknown option' "{\"now_us\":0,$T}" --frobnicate
expect 64 'seed' "{\"now_us\":0,$T}" --seed -3

# one id names one job (decisions refer to jobs by id): a repeat is refused
expect 65 "queue[2].id: job id 1 is already queue[0]'s" \
    "{\"now_us\":0,$T,\"queue\":[{\"id\":1,\"gpus\":1},{\"id\":2,\"gpus\":1},{\"id\":1,\"gpus\":2}]}"
expect 65 "queue[0].id: job id 7 is already running[0]'s" \
    "{\"now_us\":0,$T,\"running\":[{\"id\":7,\"gpus\":1,\"start_us\":0,\"parts\":[{\"node\":0,\"gpus\":1,\"gpu_ids\":[0]}]}],\"queue\":[{\"id\":7,\"gpus\":1}]}"

# deep nesting and a huge input are refused, not crashed on
python3 -c 'print("[" * 100000 + "]" * 100000)' > "$W/deep.json" 2>/dev/null ||
    awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]" }' > "$W/deep.json"
"$BIN" place "$W/deep.json" > "$W/out" 2>&1; [ $? -eq 65 ] || { echo "FAIL: deep nesting"; fail=1; }
# a missing file is 66
"$BIN" place "$W/none.json" > "$W/out" 2>&1; [ $? -eq 66 ] || { echo "FAIL: missing file"; fail=1; }
# a good snapshot from stdin works, and --help
printf '%s' "{\"now_us\":0,$T,\"queue\":[{\"id\":1,\"gpus\":8}]}" | "$BIN" place > "$W/out" 2>&1 &&
    grep -q '"job_id":1' "$W/out" || { echo "FAIL: stdin snapshot"; cat "$W/out"; fail=1; }
"$BIN" place --help | grep -q 'docs/place-json.md' || { echo "FAIL: --help"; fail=1; }
"$BIN" --help | grep -q '^  place' || { echo "FAIL: place not in tarmac --help"; fail=1; }
# a tiny --timeout is a tiny limit, not none (it rounded to 0 us, "no limit")
printf '%s' "{\"now_us\":0,$T,\"queue\":[{\"id\":1,\"gpus\":8}]}" |
    "$BIN" place --timeout 0.0000001 > "$W/out" 2>"$W/err"
[ $? -eq 65 ] && grep -q 'time limit of 1e-06 s' "$W/err" ||
    { echo "FAIL: --timeout 0.0000001 set no limit: $(cat "$W/err")"; fail=1; }
[ $fail -eq 0 ] && echo "tarmac place: every bad snapshot refused with its path"
exit $fail
