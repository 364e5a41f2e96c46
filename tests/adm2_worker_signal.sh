#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# adm2_worker_signal.sh -- a worker process of `compare -j 2` killed by a
# signal from outside (SIGKILL, as the kernel's OOM killer sends it) is not a
# bug of tarmac: the parent exits 71 (system error, was 70) with a message
# naming the signal ("a worker was killed by signal 9 (Killed) ...; out of
# memory?"), and leaves no output file.
set -u
BIN=${TARMAC_BIN:?}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat >"$W/s.json" <<'JSON'
{"name": "long", "seed": 3, "horizon": "400d", "sample": "1d",
 "fleet": {"pools": [{"name": "a", "gpu_type": "H100", "nodes": 8, "gpus_per_node": 8}]},
 "workload": {"classes": [{"name": "c", "arrival": {"offered_load": 0.8},
   "gpus": {"dist": "discrete", "values": [1, 2, 8], "weights": [0.6, 0.3, 0.1]},
   "duration": {"dist": "lognormal", "mean": "20m", "sigma": 1.0}}]}}
JSON

command -v pgrep >/dev/null 2>&1 || { echo "skip: no pgrep"; exit 77; }
# a child of $1, once there is one (the workers are forked at the start)
child_of() {
    i=0
    while [ $i -lt 100 ]; do
        c=$(pgrep -P "$1" | head -n 1)
        [ -n "$c" ] && { echo "$c"; return 0; }
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

"$BIN" compare "$W/s.json" --policies fifo-first-fit,fifo-best-fit --replications 8 -j 2 -q \
    -o "$W/c.h5" >"$W/out" 2>"$W/err" &
pid=$!
sleep 0.3
c=$(child_of $pid) || fail "no worker process of $pid found"
[ -n "${c:-}" ] && kill -9 "$c"
wait $pid
rc=$?
[ $rc -eq 71 ] || fail "exit $rc, want 71: $(cat "$W/err")"
grep -q "a worker was killed by signal 9 (Killed) while running job [0-9]*; out of memory?" "$W/err" ||
    fail "no message naming the signal: $(cat "$W/err")"
left=$(ls "$W" | grep -v -e '^s.json$' -e '^out$' -e '^err$')
[ -z "$left" ] || fail "output left behind: $left"

[ $fails -eq 0 ] && echo "ok: a worker killed by SIGKILL: exit 71, the signal named, no output"
exit $((fails != 0))
