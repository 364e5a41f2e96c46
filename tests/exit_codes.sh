#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# exit_codes.sh — one representative case per exit code of docs/cli.md
# (sysexits), and bad inputs that once gave 70 (a bug) or 74 (an I/O error):
#
#   64 usage        an option out of range
#   65 data         a malformed scenario; a text file given to plot (was 74);
#                   a result file with a dataset of the wrong type (was 70; the
#                   folder plot made for it is removed again) or a labels
#                   attribute of two strings (export --labels, was 70); a
#                   service whose daily profile makes its rate infinite (was
#                   70, mid-run)
#   66 no input     a missing scenario; a folder as the scenario (was 74) or
#                   as the result to plot (was 74); an empty file name (was 70)
#   69 unavailable  plot with no gnuplot in PATH
#   71 system       out of memory under `ulimit -v` (skipped where the limit
#                   cannot be applied, as under ASan)
#   73 cannot create  an output in a missing folder (was 74); -o '' (was 70)
#   74 I/O          synth -o /dev/full
#   130 interrupted SIGINT during a long run
#
# Every case must print a message; none may leave its output behind.
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, PY, W, fail

# expect CODE NAME LEFT CMD...: exit CODE with a message on stderr, and
# nothing named LEFT (a glob in $W) afterwards; LEFT "" checks nothing
expect() {
    want=$1 name=$2 left=$3
    shift 3
    "$@" >"$W/stdout" 2>"$W/stderr"
    rc=$?
    msg=$(head -c 300 "$W/stderr" | tr '\n' ' ')
    if [ "$rc" -ne "$want" ]; then
        fail "$name: exit $rc, want $want ($msg)"
        return
    fi
    [ -n "$msg" ] || fail "$name: exit $rc without a message"
    if [ -n "$left" ] && ls -d "$W"/$left >/dev/null 2>&1; then
        fail "$name: left $(cd "$W" && ls -d $left | tr '\n' ' ')"
        rm -rf "$W"/$left
    fi
    echo "ok: $name: exit $rc: $msg"
}

cat >"$W/small.json" <<'EOF'
{"name": "small", "seed": 1, "horizon": "2d", "sample": "1h",
 "fleet": {"pools": [{"gpu_type": "H100", "nodes": 4}]},
 "workload": {"classes": [{"name": "a", "arrival": {"offered_load": 0.5}, "duration": "1h", "gpus": 1}]}}
EOF
"$BIN" run "$W/small.json" -q -o "$W/run.h5" || fail "the run the file cases start from"

# 64
expect 64 "usage: --seed -3" "out.h5*" "$BIN" run "$W/small.json" --seed -3 -q -o "$W/out.h5"

# 65
printf '{"seed": 1,' >"$W/trunc.json"
expect 65 "data: truncated scenario" "out.h5*" "$BIN" run "$W/trunc.json" -q -o "$W/out.h5"
printf 'not HDF5\n' >"$W/text.h5"
expect 65 "data: plot of a text file" "figs-text" \
    "$BIN" plot "$W/text.h5" -q -o "$W/figs-text"
"$PY" - "$W/run.h5" "$W/strings.h5" "$W/labels.h5" <<'PYEOF' || fail "making the damaged result files"
import shutil, sys, h5py, numpy as np
src, strings, labels = sys.argv[1:4]
shutil.copy(src, strings)
with h5py.File(strings, "a") as f:  # the first figure's series stored as text
    n = f["timeseries/alloc_util"].shape[0]
    del f["timeseries/alloc_util"]
    f["timeseries/alloc_util"] = np.array([b"x"] * n)
shutil.copy(src, labels)
with h5py.File(labels, "a") as f:  # a coded column with two labels strings
    f["jobs/state"].attrs["labels"] = np.array([b"a", b"b"])
PYEOF
expect 65 "data: plot of a result whose time series is text" "figs-strings" \
    env PATH=/nonexistent "$BIN" plot "$W/strings.h5" -q -o "$W/figs-strings"
expect 65 "data: export --labels of a labels attribute of two strings" "jobs.csv*" \
    "$BIN" export "$W/labels.h5" --table jobs --labels -o "$W/jobs.csv"
cat >"$W/inf-rate.json" <<'EOF'
{"name": "inf", "seed": 1, "horizon": "1d",
 "fleet": {"pools": [{"gpu_type": "H100", "nodes": 4}]},
 "workload": {"services": [{"name": "chat", "preset": "llama-3.1-8b-fp8", "tokens_out": 200,
   "load": {"rate_per_s": 6, "daily": [1e308, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                       1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]}}]}}
EOF
expect 65 "data: a service rate that overflows" "out.h5*" \
    "$BIN" run "$W/inf-rate.json" -q -o "$W/out.h5"

# 66
expect 66 "no input: missing scenario" "out.h5*" "$BIN" run "$W/nosuch.json" -q -o "$W/out.h5"
mkdir "$W/adir"
expect 66 "no input: a folder as the scenario" "out.h5*" "$BIN" run "$W/adir" -q -o "$W/out.h5"
expect 66 "no input: a folder to plot" "figs-dir" "$BIN" plot "$W/adir" -q -o "$W/figs-dir"
expect 66 "no input: an empty file name to export" "" "$BIN" export "" --table jobs

# 69
expect 69 "unavailable: no gnuplot" "" env PATH=/nonexistent "$BIN" plot "$W/run.h5" -q -o "$W/figs"

# 71: out of memory (a million nodes under a 100 MB address-space limit)
cat >"$W/big.json" <<'EOF'
{"name": "big", "seed": 1, "horizon": "1h",
 "fleet": {"pools": [{"gpu_type": "H100", "nodes": 1000000, "gpus_per_node": 8}]},
 "workload": {"classes": [{"name": "a", "arrival": {"rate_per_hour": 1}, "duration": "1h", "gpus": 1}]}}
EOF
if sh -c "ulimit -v 100000 && exec \"$BIN\" --version" >/dev/null 2>&1; then
    expect 71 "system: out of memory" "out.h5*" \
        sh -c "ulimit -v 100000 && exec \"$BIN\" run \"$W/big.json\" -q -o \"$W/out.h5\""
else
    echo "skipped: 71: tarmac does not start under ulimit -v (ASan?)"
fi

# 73
expect 73 "cannot create: output in a missing folder" "nodir" \
    "$BIN" run "$W/small.json" -q -o "$W/nodir/out.h5"
expect 73 "cannot create: an empty output name" ".tmp.*" \
    sh -c "cd \"$W\" && exec \"$BIN\" run small.json -q -o ''"
expect 73 "cannot create: export into a missing folder" "nodir" \
    "$BIN" export "$W/run.h5" --table jobs -o "$W/nodir/jobs.csv"

# 74
expect 74 "I/O: synth -o /dev/full" "" "$BIN" synth "$W/small.json" -q -o /dev/full

# 130: SIGINT while a long run writes its file
cat >"$W/long.json" <<'EOF'
{"name": "long", "seed": 1, "horizon": "3650d", "sample": "1h",
 "fleet": {"pools": [{"gpu_type": "H100", "nodes": 16}]},
 "workload": {"classes": [{"name": "a", "arrival": {"offered_load": 0.9}, "duration": "1h", "gpus": 1}]}}
EOF
"$BIN" run "$W/long.json" -q -o "$W/long.h5" >/dev/null 2>"$W/stderr-int" &
pid=$!
i=0
while [ $i -lt 300 ] && ! ls "$W" | grep -q '^long\.h5\.tmp\.'; do
    sleep 0.1
    i=$((i + 1))
done
kill -INT $pid
wait $pid
rc=$?
if [ $rc -ne 130 ]; then
    fail "interrupted: exit $rc, want 130 ($(cat "$W/stderr-int"))"
elif ls "$W" | grep -q '^long\.h5'; then
    fail "interrupted: left $(ls "$W" | grep '^long\.h5')"
else
    echo "ok: interrupted: exit 130: $(cat "$W/stderr-int")"
fi

[ $fails -eq 0 ] && echo "exit_codes: all checks passed" || echo "exit_codes: $fails failure(s)"
[ $fails -eq 0 ]
