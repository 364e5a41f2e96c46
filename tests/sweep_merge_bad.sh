#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# sweep_merge_bad.sh — a point file that looks whole but cannot be read does
# not lose the merge: the point is recorded as failed with the reason, the
# others are merged, and merge exits 1 (as for any failed point). Before,
# the first unreadable point file aborted the whole merge with no file.
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, PY, W, fail
SRC=${TARMAC_SRC:?}
cp "$SRC/tests/golden/sweep.json" "$SRC/tests/golden/small.json" "$W/"
"$BIN" sweep run "$W/sweep.json" -o "$W/points" -q || fail "sweep run"
# point 1's file: its key results deleted, its /sweep_point record kept (the
# file is a whole, valid HDF5 file that lacks what the merge reads)
"$PY" - "$W/points/p000001.h5" <<'PYEOF' || fail "damaging the point file"
import sys, h5py
with h5py.File(sys.argv[1], "a") as f:
    del f["summary/wait_mean_s"]
PYEOF
"$BIN" sweep merge "$W/sweep.json" --dir "$W/points" -o "$W/merged.h5" >"$W/out" 2>"$W/err"
code=$?
[ "$code" -eq 1 ] || fail "merge: exit $code, want 1 (a failed point)"
grep -q "point 1: its file cannot be read" "$W/err" || fail "merge did not say why: $(cat "$W/err")"
[ -f "$W/merged.h5" ] || fail "no merged file"
"$PY" - "$W/merged.h5" <<'PYEOF' || fail "merged file"
import math, sys, h5py
with h5py.File(sys.argv[1]) as f:
    assert int(f["sweep/n_ok"][()]) == 1, f["sweep/n_ok"][()]
    assert int(f["sweep/n_failed"][()]) == 1, f["sweep/n_failed"][()]
    st = f["sweep/points/status"][()]
    assert list(st) == [0, 1], st
    w = f["sweep/points/wait_mean_s"][()]
    assert not math.isnan(w[0]) and math.isnan(w[1]), w
print("ok: merged with point 1 failed")
PYEOF
if [ "$fails" -eq 0 ]; then echo "sweep_merge_bad: all checks passed"; exit 0; fi
echo "sweep_merge_bad: $fails check(s) failed"
exit 1
