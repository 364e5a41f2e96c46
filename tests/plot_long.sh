#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# plot_long.sh — a small file holding a huge series (a run report whose
# /timeseries/t_s is 3e8 points of fill value: 0.5 MB on disk, 2.4 GB of
# doubles) is refused by plot with a message, unread, in bounded memory.
# Before, plot read it whole (4.7 GB of memory). No ulimit -v here: the
# sanitizer build reserves far more address space than it uses.
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, PY, W, fail
SRC=${TARMAC_SRC:?}
"$BIN" run "$SRC/tests/golden/small.json" -q -o "$W/long.h5" || fail "run"
"$PY" - "$W/long.h5" <<'PYEOF' || fail "making the long series"
import sys, h5py
with h5py.File(sys.argv[1], "a") as f:
    ts = f["timeseries"]
    attrs = dict(ts["t_s"].attrs)
    del ts["t_s"]
    d = ts.create_dataset("t_s", shape=(300_000_000,), dtype="f8", chunks=(1 << 20,),
                          compression="gzip")
    for k, v in attrs.items():
        d.attrs[k] = v
PYEOF
"$BIN" plot "$W/long.h5" -o "$W/plots" -q 2>"$W/err"
code=$?
[ "$code" -eq 65 ] || fail "plot of a 3e8-point series: exit $code, want 65 ($(cat "$W/err"))"
grep -q "300000000 points, more than" "$W/err" || fail "plot: message: $(cat "$W/err")"
if [ "$fails" -eq 0 ]; then echo "plot_long: all checks passed"; exit 0; fi
echo "plot_long: $fails check(s) failed"
exit 1
