#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# cli_bad_input.sh — bad input gets a clear message naming the file and the
# JSON path (or line), a non-zero exit code, and leaves no output file.
set -u
BIN=${TARMAC_BIN:?}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fails=0

# expect CODE PATTERN FILE: run `tarmac run FILE -o $W/out.h5`
expect() {
    code=$1 pattern=$2 file=$3
    "$BIN" run "$file" -o "$W/out.h5" >"$W/stdout" 2>"$W/stderr"
    got=$?
    msg=$(cat "$W/stderr")
    if [ "$got" -ne "$code" ]; then
        echo "FAIL: $file: exit $got, want $code ($msg)"; fails=$((fails + 1))
    elif ! grep -q -- "$pattern" "$W/stderr"; then
        echo "FAIL: $file: message '$msg' lacks '$pattern'"; fails=$((fails + 1))
    else
        echo "ok: $(basename "$file"): $msg"
    fi
    if ls "$W" | grep -q '^out.h5'; then
        echo "FAIL: $file: an output file was left: $(ls "$W" | grep '^out.h5')"; fails=$((fails + 1))
        rm -f "$W"/out.h5*
    fi
}

good='"fleet":{"pools":[{"gpu_type":"H100","nodes":2}]},"workload":{"classes":[{"name":"a","arrival":{"rate_per_hour":1},"duration":"1h"},{"name":"b","arrival":{"rate_per_hour":1},"duration":"1h"}]}'

printf '{"name": "x",\n  "seed": 1,\n  "fleet": {\n' >"$W/truncated.json"
expect 65 'truncated.json:4:' "$W/truncated.json"

printf '{"seed": "abc", %s}' "$good" >"$W/wrongtype.json"
expect 65 'wrongtype.json: seed: expected an integer' "$W/wrongtype.json"

printf '{"fleet":{"pools":[{"gpu_type":"H100","nodes":-2}]},"workload":{"classes":[{"arrival":{"rate_per_hour":1},"duration":"1h"}]}}' >"$W/negative.json"
expect 65 'fleet.pools\[0\].nodes: expected an integer in \[0' "$W/negative.json"

printf '{"fleet":{"pools":[{"gpu_type":"H100","nodes":2}]},"workload":{"classes":[{"name":"a","arrival":{"rate_per_hour":1},"duration":"1h"},{"name":"b","arrival":{"rate_per_hour":1},"duration":"1h","gpus":-2}]}}' >"$W/gpus.json"
expect 65 'workload.classes\[1\].gpus: ' "$W/gpus.json"

printf '{"colour": "blue", %s}' "$good" >"$W/unknown.json"
expect 65 'unknown.json: colour: unknown key' "$W/unknown.json"

printf '{"horizon": "3 fortnights", %s}' "$good" >"$W/unit.json"
expect 65 'horizon: unknown time unit' "$W/unit.json"

printf '{"fleet":{"pools":[{"gpu_type":"H900","nodes":2}]},"workload":{"classes":[{"arrival":{"rate_per_hour":1},"duration":"1h"}]}}' >"$W/type.json"
expect 65 'fleet.pools\[0\].gpu_type: no GPU type named "H900"' "$W/type.json"

printf '{"policy": "placement=worst-ever", %s}' "$good" >"$W/policy.json"
expect 65 'policy: unknown placement' "$W/policy.json"

printf '{"horizon": 1e300, %s}' "$good" >"$W/huge.json"
expect 65 'horizon: duration of' "$W/huge.json"

printf '[1, 2, 3]' >"$W/array.json"
expect 65 'expected an object' "$W/array.json"

: >"$W/empty.json"
expect 65 'empty.json:1:1' "$W/empty.json"

expect 66 'no-such-file.json: cannot open' "$W/no-such-file.json"

# an output folder that does not exist: the output cannot be created (73,
# EX_CANTCREAT; it was 74, an I/O error), nothing written
printf '{%s}' "$good" >"$W/ok.json"
"$BIN" run "$W/ok.json" -o "$W/missing-dir/out.h5" >/dev/null 2>"$W/stderr"
got=$?
if [ "$got" -ne 73 ] || [ -e "$W/missing-dir" ]; then
    echo "FAIL: missing output folder: exit $got ($(cat "$W/stderr"))"; fails=$((fails + 1))
else
    echo "ok: missing output folder: $(cat "$W/stderr")"
fi

# validate reports the same errors and succeeds on a good file
"$BIN" validate "$W/ok.json" >/dev/null 2>&1 || { echo "FAIL: validate rejects a good file"; fails=$((fails + 1)); }
"$BIN" validate "$W/negative.json" >/dev/null 2>&1 && { echo "FAIL: validate accepts a bad file"; fails=$((fails + 1)); }
# usage errors exit 64
"$BIN" run --seed -3 >/dev/null 2>&1
[ $? -eq 64 ] || { echo "FAIL: --seed -3 is not a usage error"; fails=$((fails + 1)); }
"$BIN" frobnicate >/dev/null 2>&1
[ $? -eq 64 ] || { echo "FAIL: an unknown command is not a usage error"; fails=$((fails + 1)); }

# names (scenarios/SCHEMA.md, "Names"): refused at load, naming the JSON path,
# before anything runs; before, "", "." and ".." failed only when the report
# was written (exit 70, the run lost) and "/" or a newline broke plots
name_case() {
    tag=$1 where=$2 json=$3
    printf '%s' "$json" >"$W/name-$tag.json"
    expect 65 "$where: .*a name is not empty" "$W/name-$tag.json"
}
pool='{"gpu_type":"H100","nodes":2}'
cls='{"name":"a","arrival":{"rate_per_hour":1},"duration":"1h"}'
name_case empty 'workload.classes\[0\].name' \
    "{\"fleet\":{\"pools\":[$pool]},\"workload\":{\"classes\":[{\"name\":\"\",\"arrival\":{\"rate_per_hour\":1},\"duration\":\"1h\"}]}}"
name_case dot 'fleet.pools\[0\].name' \
    "{\"fleet\":{\"pools\":[{\"name\":\".\",\"gpu_type\":\"H100\",\"nodes\":2}]},\"workload\":{\"classes\":[$cls]}}"
name_case dotdot 'fleet.pools\[0\].name' \
    "{\"fleet\":{\"pools\":[{\"name\":\"..\",\"gpu_type\":\"H100\",\"nodes\":2}]},\"workload\":{\"classes\":[$cls]}}"
name_case slash 'workload.classes\[0\].name' \
    "{\"fleet\":{\"pools\":[$pool]},\"workload\":{\"classes\":[{\"name\":\"a/\",\"arrival\":{\"rate_per_hour\":1},\"duration\":\"1h\"}]}}"
name_case newline 'tenants\[0\].name' \
    "{\"tenants\":[{\"name\":\"a\\nb\",\"share\":1}],\"fleet\":{\"pools\":[$pool]},\"workload\":{\"classes\":[$cls]}}"
printf '{"fleet":{"pools":[{"name":"p\377","gpu_type":"H100","nodes":2}]},"workload":{"classes":[%s]}}' "$cls" >"$W/name-utf8.json"
expect 65 'fleet.pools\[0\].name: a name that is not valid UTF-8' "$W/name-utf8.json"
# names outside ASCII are names
printf '{"fleet":{"pools":[{"name":"b\303\266rse","gpu_type":"H100","nodes":2}]},"workload":{"classes":[%s]}}' "$cls" >"$W/name-ok.json"
"$BIN" validate "$W/name-ok.json" >/dev/null 2>&1 || { echo "FAIL: a UTF-8 name was refused"; fails=$((fails + 1)); }

# a fleet with no GPU at any time: accepted, but said so (every job would be
# rejected); a fleet with GPUs gets no such word
cat >"$W/zero.json" <<'EOF2'
{"name": "zero", "seed": 1, "horizon": "1d",
 "fleet": {"pools": [{"name": "p", "gpu_type": "H100", "nodes": 0}]},
 "workload": {"classes": [{"name": "c", "arrival": {"rate_per_hour": 10}, "duration": "1h"}]}}
EOF2
for cmd in validate "run -q -o $W/zero.h5"; do
    # shellcheck disable=SC2086
    "$BIN" $cmd "$W/zero.json" >/dev/null 2>"$W/zero.err" ||
        { echo "FAIL: $cmd of a zero-GPU fleet: exit $?"; fails=$((fails + 1)); }
    grep -q "no GPU is in service at any time" "$W/zero.err" ||
        { echo "FAIL: $cmd of a zero-GPU fleet: no warning: $(cat "$W/zero.err")"; fails=$((fails + 1)); }
done
"$BIN" validate "$TARMAC_SRC/scenarios/enterprise.json" >/dev/null 2>"$W/ok.err"
[ ! -s "$W/ok.err" ] || { echo "FAIL: a warning for a fleet with GPUs: $(cat "$W/ok.err")"; fails=$((fails + 1)); }

[ $fails -eq 0 ] && echo "all bad inputs handled" || echo "$fails failure(s)"
exit $fails
