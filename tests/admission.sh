#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# admission.sh — nothing runs away: ranges of single numbers, the admission
# estimate of a whole scenario, --limit, the near-linear loader, and the
# empirical-distribution reader (docs/cli.md "Limits", scenarios/SCHEMA.md
# "Ranges", docs/hardening.md).
#
# Every case here ran away, overflowed or leaked before: validate passed and
# the run never ended while memory climbed, an offered load wrapped round to
# a negative rate with exit 0, a FIFO blocked the loader for ever, a secret
# file's first line came back in a message. Each command gets a time limit;
# a refused scenario must leave no output file.
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, W, fail
SRC=${TARMAC_SRC:?}

# expect NAME CODE PATTERN CMD...: CMD exits CODE within 60 s with PATTERN
# (an extended regex) on stderr; when CODE is not 0, $W/NAME.h5 is not there
expect() {
    name=$1 code=$2 pattern=$3
    shift 3
    timeout -s KILL 60 "$@" >"$W/out" 2>"$W/err"
    got=$?
    msg=$(head -c 400 "$W/err")
    if [ $got -ne "$code" ]; then
        fail "$name: exit $got, want $code ($msg)"
    elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$W/err"; then
        fail "$name: message '$msg' lacks '$pattern'"
    else
        echo "ok: $name: exit $got${msg:+: $msg}"
    fi
    if [ "$code" -ne 0 ] && [ -e "$W/$name.h5" ]; then
        fail "$name: output left behind"
    fi
}

F='"fleet":{"pools":[{"gpu_type":"H100","nodes":4}]}'
# cls NAME ARRIVAL [MORE]: a scenario of one class with that arrival process
cls() {
    printf '{"horizon":"30d",%s,"workload":{"classes":[{"name":"a","arrival":%s,"duration":"1h"%s}]}}' \
        "$F" "$2" "${3:-}" >"$W/$1.json"
}
# svc NAME LOAD [HORIZON]: a scenario of one service with that load
svc() {
    printf '{"horizon":"%s",%s,"workload":{"services":[{"name":"s","preset":"llama-3.1-8b-fp8","overflow":"api","load":%s}]}}' \
        "${3:-30d}" "$F" "$2" >"$W/$1.json"
}
ONES23='1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1'

# --- ranges of single numbers (each was accepted before) ---
cls rate-1e9 '{"rate_per_s":1e9}'
expect rate-1e9 65 'rate-1e9.json: workload.classes\[0\].arrival.rate_per_s: expected a number in \[0, 1e\+06\], got 1e\+09' \
    "$BIN" validate "$W/rate-1e9.json"
svc daily-1e15 "{\"rate_per_s\":100,\"daily\":[1e15,$ONES23]}"
expect daily-1e15 65 'load.daily\[0\]: expected a multiplier in \[0, 1e\+06\], got 1e\+15' \
    "$BIN" run "$W/daily-1e15.json" -q -o "$W/daily-1e15.h5"
svc weekly-1e15 '{"rate_per_s":100,"weekly":[1,1,1e15,1,1,1,1]}'
expect weekly-1e15 65 'load.weekly\[2\]: expected a multiplier in \[0, 1e\+06\]' \
    "$BIN" validate "$W/weekly-1e15.json"
svc growth-100 '{"rate_per_s":1,"growth_per_month":100}'
expect growth-100 65 'load.growth_per_month: expected a number in \[-0.999, 10\], got 100' \
    "$BIN" validate "$W/growth-100.json"
cls mmpp-1e300 '{"rate_per_s":1,"mmpp":{"multipliers":[1,1e300],"sojourn":["1h","1m"]}}'
expect mmpp-1e300 65 'arrival.mmpp.multipliers\[1\]: expected a multiplier in \[0, 1e\+06\], got 1e\+300' \
    "$BIN" validate "$W/mmpp-1e300.json"
cls sojourn-1us '{"rate_per_s":1,"mmpp":{"multipliers":[1,2],"sojourn":["1us","1h"]}}'
expect sojourn-1us 65 'arrival.mmpp.sojourn\[0\]: expected a mean sojourn within \[1 s' \
    "$BIN" validate "$W/sojourn-1us.json"
cls offset-30d '{"rate_per_s":1,"start_offset":"30d"}'
expect offset-30d 65 'arrival.start_offset: expected a place in the week' \
    "$BIN" validate "$W/offset-30d.json"
cls speed-1e300 '{"rate_per_hour":1}' ',"speeds":{"H100":1e300}'
expect speed-1e300 65 'speeds.H100: expected a speed in \[1e-06, 1e\+06\], got 1e\+300' \
    "$BIN" validate "$W/speed-1e300.json"
printf '{"horizon":"73000d",%s,"workload":{"classes":[{"name":"a","arrival":{"rate_per_hour":1},"duration":"1h"}]}}' \
    "$F" >"$W/horizon-200y.json"
expect horizon-200y 65 'horizon: expected a horizon in \(0, 100 years\]' \
    "$BIN" validate "$W/horizon-200y.json"
awk 'BEGIN { printf "{\"tenants\":["; for (i = 0; i < 1001; i++) printf "%s{\"name\":\"t%d\"}", i ? "," : "", i;
             printf "],\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":1}]},\"workload\":{\"classes\":[{\"name\":\"a\",\"arrival\":{\"rate_per_hour\":1},\"duration\":\"1h\"}]}}" }' \
    >"$W/tenants-1001.json"
expect tenants-1001 65 'tenants: expected at most 1000 tenants, got 1001' "$BIN" validate "$W/tenants-1001.json"

# --- admission: the product of numbers in range (validate passed, the run ran away) ---
cls arrivals-2e12 '{"rate_per_s":1e6}'
expect arrivals-2e12 65 'arrivals-2e12.json: workload.classes\[0\].arrival: about 2.6e12 arrivals over the horizon, more than the limit 1e8 \(raise it with --limit arrivals=3e12\)' \
    "$BIN" validate "$W/arrivals-2e12.json"
expect arrivals-2e12 65 'about 2.6e12 arrivals' "$BIN" run "$W/arrivals-2e12.json" -q -o "$W/arrivals-2e12.h5"
for cmd in "compare --policies fifo-first-fit -q" "synth -o $W/arrivals-2e12.h5" \
    "size --target wait_p95<=1h -q"; do
    # shellcheck disable=SC2086
    expect "arrivals-2e12 ($cmd)" 65 'more than the limit 1e8' "$BIN" $cmd "$W/arrivals-2e12.json"
done
[ -e "$W/arrivals-2e12.h5" ] && fail "synth left a file behind"
# offered_load turns into a rate after the ranges: 100 x 32 GPUs / 1 us
printf '{"horizon":"30d",%s,"workload":{"classes":[{"name":"a","arrival":{"offered_load":100},"duration":"1us"}]}}' \
    "$F" >"$W/load-1us.json"
expect load-1us 65 'workload.classes\[0\].arrival: about 8.3e15 arrivals' "$BIN" validate "$W/load-1us.json"
# a service load in range whose product passes what the time series holds:
# before, offered_rps came out as -9.2e12 with exit 0
svc peak-1e18 "{\"rate_per_s\":1e6,\"daily\":[1e6,$ONES23],\"weekly\":[1e6,1,1,1,1,1,1]}"
expect peak-1e18 65 'workload.services\[0\].*peak rate .*at most 1e.12 per second, got 1e.18' \
    "$BIN" run "$W/peak-1e18.json" -q -o "$W/peak-1e18.h5" --limit request_rate=1e12
svc growth-10y '{"rate_per_s":10,"growth_per_month":10}' 3650d
expect growth-10y 65 'an offered load of up to 7.6e125 requests/s' "$BIN" validate "$W/growth-10y.json"
# failures drawn at GPUs / MTBF: 32 GPUs failing every 3.6 s for 30 days
printf '{"horizon":"30d","failures":{"mtbf_h":0.001},"fleet":{"pools":[{"gpu_type":"H100","nodes":400}]},"workload":{"classes":[{"name":"a","arrival":{"rate_per_hour":1},"duration":"1h"}]}}' \
    >"$W/mtbf.json"
expect mtbf 65 'mtbf.json: failures.mtbf_h: about 4.6e9 events over the horizon, more than the limit 1e9 \(raise it with --limit events=5e9\)' \
    "$BIN" validate "$W/mtbf.json"
# a fleet over the node limit
printf '{"horizon":"1d","fleet":{"pools":[{"gpu_type":"H100","nodes":3000000,"gpus_per_node":1}]},"workload":{"classes":[{"name":"a","arrival":{"rate_per_hour":1},"duration":"1h"}]}}' \
    >"$W/nodes.json"
expect nodes 65 'fleet.pools: 3e6 nodes in all pools, more than the limit 2e6 \(raise it with --limit nodes=3e6\)' \
    "$BIN" run "$W/nodes.json" -q -o "$W/nodes.h5"

# --- --limit raises a limit on purpose; validate then passes, and -v says why ---
expect limit-raised 0 '' "$BIN" validate -v "$W/arrivals-2e12.json" --limit arrivals=3e12 --limit events=6e12
for h in arrivals requests fleet 'time series' events; do
    grep -q "^  $h: " "$W/out" || fail "validate -v lacks the line '$h': $(cat "$W/out")"
done
grep -q 'about 2.6e12 jobs over the horizon' "$W/out" || fail "validate -v: $(cat "$W/out")"
expect limit-bad-name 64 "--limit needs NAME=VALUE with NAME one of arrivals, request_rate" \
    "$BIN" validate "$W/arrivals-2e12.json" --limit jobs=1
expect limit-bad-value 64 "--limit needs arrivals=VALUE with VALUE a number > 0, got '-1'" \
    "$BIN" run --limit arrivals=-1 "$W/arrivals-2e12.json"
expect limit-past-most 64 "request_rate=VALUE with VALUE a number in \(0, 1e12\], got '1e13'" \
    "$BIN" validate --limit request_rate=1e13 "$W/arrivals-2e12.json"
# every example scenario passes the default limits (the embedded default is
# scenarios/enterprise.json), and the embedded default goes through admission
# too: with a limit lowered on purpose it is refused before it runs
for f in "$SRC"/scenarios/*.json; do
    expect "example $(basename "$f")" 0 '' "$BIN" validate "$f"
done
expect default-scenario 65 '^tarmac: \(embedded default\): workload.classes\[5\].arrival: about 54835 arrivals over the horizon, more than the limit 1000 \(raise it with --limit arrivals=54836\)' \
    "$BIN" run -q -o "$W/default-scenario.h5" --limit arrivals=1000

# --- sweeps: every combination to run is admitted before any runs ---
cp "$SRC/tests/golden/small.json" "$W/small.json"
printf '{"scenario":"small.json","replications":2,"grid":{"workload.classes[1].arrival.offered_load":[0.2,100],"workload.classes[1].duration":["15m","1us"]}}' \
    >"$W/sweep.json"
expect sweep-run 65 'small.json: workload.classes\[1\].arrival: sweep point 2 \(combination 1\): about' \
    "$BIN" sweep run "$W/sweep.json" -o "$W/sweep.points" -j 1 -q
[ -e "$W/sweep.points" ] && fail "sweep run: a points folder was made before admission"
# a grid whose values do not fit in memory: 8 parameters of 7 values
awk 'BEGIN { printf "{\"scenario\":\"small.json\",\"grid\":{"; for (p = 0; p < 8; p++) printf "%s\"k%d\":[1,2,3,4,5,6,7]", p ? "," : "", p; printf "}}" }' \
    >"$W/sweep-big.json"
expect sweep-cells 65 'grid: 5764801 combinations of 8 parameters: more than 4000000 values to hold' \
    "$BIN" sweep plan "$W/sweep-big.json"

# --- the loader is near-linear: 150,000 pools, one name repeated at the end
# (20 s of CPU for 100,000 before, comparing each name with every earlier
# one; 0.2 s now, 1.1 s under ASan). The bound is on CPU time (ulimit -t),
# which a busy machine does not stretch; the wall-time limit only keeps a
# hang from stalling the suite. ---
awk 'BEGIN { printf "{\"fleet\":{\"pools\":["; for (i = 0; i < 150000; i++) printf "%s{\"name\":\"p%d\",\"gpu_type\":\"H100\",\"nodes\":1}", i ? "," : "", i == 149999 ? 7 : i;
             printf "]},\"workload\":{\"classes\":[{\"name\":\"a\",\"arrival\":{\"rate_per_hour\":1},\"duration\":60}]}}" }' \
    >"$W/pools.json"
(ulimit -t 20 && exec timeout -s KILL 300 "$BIN" validate "$W/pools.json") >/dev/null 2>"$W/err"
got=$?
if [ $got -eq 65 ] && grep -q 'fleet.pools\[149999\].name: pool name "p7" used twice' "$W/err"; then
    echo "ok: 150000 pools: $(cat "$W/err")"
else
    fail "150000 pools: exit $got (137: killed, over 20 s of CPU or 300 s): $(head -c 300 "$W/err")"
fi

# --- empirical distributions: a regular file, bounded, never quoted ---
# emp NAME FILE: a class whose durations come from FILE's column "x"
emp() {
    printf '{"horizon":"1d",%s,"workload":{"classes":[{"name":"a","arrival":{"rate_per_hour":1},"duration":{"dist":"empirical","file":"%s","column":"x"}}]}}' \
        "$F" "$2" >"$W/$1.json"
}
printf 'root:SECRET-TOKEN-1:0:0\nx\n' >"$W/secret.txt"
emp secret "$W/secret.txt"
expect secret 65 'secret.txt:1: expected a header row with a column named "x", got 1 column without it' \
    "$BIN" validate "$W/secret.json"
grep -q SECRET "$W/err" && fail "a message quotes the file: $(cat "$W/err")"
printf 'x\n1\nSECRET-TOKEN-2\n' >"$W/secret2.csv"
emp secret2 "$W/secret2.csv"
expect secret2 65 'secret2.csv:3: expected a number in column "x" \(field 1\)' "$BIN" validate "$W/secret2.json"
grep -q SECRET "$W/err" && fail "a message quotes the file: $(cat "$W/err")"
emp dev-zero /dev/zero
expect dev-zero 65 '/dev/zero: expected a regular file \(a CSV file\), got a device' "$BIN" validate "$W/dev-zero.json"
mkfifo "$W/fifo.csv"
emp fifo "$W/fifo.csv"
expect fifo 65 'fifo.csv: expected a regular file \(a CSV file\), got a FIFO' "$BIN" validate "$W/fifo.json"
emp folder "$W"
expect folder 65 'expected a regular file \(a CSV file\), got a folder' "$BIN" validate "$W/folder.json"
truncate -s 65M "$W/huge.csv"
emp huge "$W/huge.csv"
expect huge 65 'huge.csv: larger than 64 MiB' "$BIN" validate "$W/huge.json"
rm -f "$W/huge.csv"

[ $fails -eq 0 ] && echo "admission: every case handled" || echo "$fails failure(s)"
exit $fails
