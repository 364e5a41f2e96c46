#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# sweep_realpath.sh — a sweep's points stay valid whichever path names the
# sweep file: run as `sweep run s.json` in its folder, then merged as
# /abs/s.json and as ../s.json from a subfolder, and resumed from there.
# Before, a point's fingerprint hashed the base scenario's path as written, so
# every point was "missing" to a merge that named the file differently.
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, W, fail
SRC=${TARMAC_SRC:?}
sed 's/"horizon": "2d"/"horizon": "6h"/' "$SRC/tests/golden/small.json" >"$W/base.json"
printf '{"scenario": "base.json", "replications": 2, "grid": {"policy": ["fifo-first-fit", "fifo-best-fit"]}}\n' \
    >"$W/s.json"
mkdir -p "$W/sub"
(cd "$W" && "$BIN" sweep run s.json -q) || fail "sweep run s.json: exit $?"
out=$("$BIN" sweep merge "$W/s.json" -o "$W/m1.h5" 2>&1)
echo "$out" | grep -q '4 ok, 0 failed, 0 missing' || fail "merge of $W/s.json: $out"
out=$(cd "$W/sub" && "$BIN" sweep merge ../s.json -o m2.h5 2>&1)
echo "$out" | grep -q '4 ok, 0 failed, 0 missing' || fail "merge of ../s.json: $out"
out=$(cd "$W/sub" && "$BIN" sweep run ../s.json --resume 2>&1)
echo "$out" | grep -q '4 valid already, skipped' || fail "run --resume of ../s.json: $out"
[ "$fails" -eq 0 ] && echo "sweep_realpath: all checks passed"
[ "$fails" -eq 0 ]
