#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# cli_faults.sh — injected faults on the command line: signals, kill -9, a
# file-size limit, a full or missing output and a broken stdout.
#
# Each case checks the promise of docs/hardening.md: a clear message naming
# the file, a non-zero exit code, nothing under the final name unless it is
# complete, and no temporary file left behind (except after kill -9, which
# no process can clean up after: then only a "*.tmp.PID.N" file may remain).
#
#   SIGINT, SIGTERM during a long `tarmac run` and `tarmac synth`: stops
#     within a second, exit 130, says so on stderr, no output, no temporary;
#   kill -9 during `tarmac run`: no file under the final name;
#   RLIMIT_FSIZE (ulimit -f; EFBIG, SIGXFSZ ignored) for run and synth: exit
#     74, the message names the file, nothing left;
#   an output path under a regular file (ENOTDIR) or in a folder that does
#     not exist (ENOENT), for run, synth, export and plot: exit 73 (the output
#     cannot be created; a write that fails part-way is 74), nothing left;
#   /dev/full as synth's and replay --protocol profile's output, and as
#     stdout of run --json, place and export: exit 74, "write error" /
#     "cannot write";
#   a 64 KiB tmpfs (ENOSPC: exit 74) and a read-only one (EROFS: exit 73) for
#     run and synth, where mount is allowed (root, as in CI); said and skipped
#     otherwise.
set -u
BIN=${TARMAC_BIN:?}
SRC=${TARMAC_SRC:?}
W=$(mktemp -d "${TMPDIR:-/tmp}/tarmac-faults.XXXXXX") || exit 1
mnt=""
cleanup() {
    [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
    rm -rf "$W"
}
trap cleanup EXIT
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# A run that takes minutes: ten years of one-hour jobs on 128 GPUs.
cat >"$W/long.json" <<'EOF'
{"name": "long", "seed": 1, "horizon": "3650d", "sample": "1h",
 "fleet": {"pools": [{"gpu_type": "H100", "nodes": 16}]},
 "workload": {"classes": [{"name": "a", "arrival": {"offered_load": 0.9}, "duration": "1h", "gpus": 1}]}}
EOF
# A run of a second or so whose output is a few MiB.
cat >"$W/small.json" <<'EOF'
{"name": "small", "seed": 1, "horizon": "30d", "sample": "1h",
 "fleet": {"pools": [{"gpu_type": "H100", "nodes": 16}]},
 "workload": {"classes": [{"name": "a", "arrival": {"offered_load": 0.9}, "duration": "1h", "gpus": 1}]}}
EOF

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# left DIR NAME: what is left in DIR under NAME or its temporaries
left() { ls -A "$1" | grep "^$2" | tr '\n' ' '; }

# wait_tmp DIR NAME: wait (up to 30 s) until the command has made its
# temporary file, i.e. is past its set-up and writing
wait_tmp() {
    i=0
    while [ $i -lt 300 ]; do
        ls -A "$1" | grep -q "^$2\.tmp\." && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# signal SIG CMD OUTNAME ARGS...: start `tarmac CMD ARGS`, send SIG while it
# runs, check how it stops
signal_case() {
    sig=$1 cmd=$2 out=$3
    shift 3
    d="$W/sig-$cmd-$sig"
    mkdir -p "$d"
    "$BIN" "$cmd" "$@" -o "$d/$out" -q >"$d/stdout" 2>"$d/stderr" &
    pid=$!
    if ! wait_tmp "$d" "$out"; then
        kill -KILL $pid 2>/dev/null
        wait $pid 2>/dev/null
        fail "$cmd $sig: no temporary file appeared ($(cat "$d/stderr"))"
        return
    fi
    sleep 0.3
    t0=$(now_ms)
    kill -"$sig" $pid
    wait $pid
    rc=$?
    ms=$(($(now_ms) - t0))
    msg=$(cat "$d/stderr")
    if [ "$sig" = KILL ]; then
        [ -e "$d/$out" ] && fail "$cmd kill -9: a file under the final name $out"
        echo "ok: $cmd kill -9: exit $rc; nothing under the final name (left: $(left "$d" "$out"))"
        return
    fi
    [ $rc -eq 130 ] || fail "$cmd $sig: exit $rc, want 130 ($msg)"
    [ $ms -le 1000 ] || fail "$cmd $sig: took $ms ms to stop, want <= 1000"
    echo "$msg" | grep -q "signal\|interrupted" || fail "$cmd $sig: stderr does not say it was stopped: '$msg'"
    l=$(left "$d" "$out")
    [ -z "$l" ] || fail "$cmd $sig: left $l"
    echo "ok: $cmd $sig: exit $rc after $ms ms: $msg"
}

signal_case INT run out.h5 "$W/long.json"
signal_case TERM run out.h5 "$W/long.json"
signal_case KILL run out.h5 "$W/long.json"
signal_case INT synth out.csv "$W/long.json"
signal_case TERM synth out.csv.gz "$W/long.json"

# expect_code CODE NAME DIR OUT PATTERN CMD...: exit CODE, PATTERN on stderr,
# nothing under OUT or its temporaries in DIR
expect_code() {
    want=$1 name=$2 dir=$3 out=$4 pattern=$5
    shift 5
    "$@" >"$W/stdout" 2>"$W/stderr"
    rc=$?
    msg=$(cat "$W/stderr")
    if [ $rc -ne "$want" ]; then
        fail "$name: exit $rc, want $want ($msg)"
    elif ! echo "$msg" | grep -q -- "$pattern"; then
        fail "$name: message '$msg' lacks '$pattern'"
    else
        echo "ok: $name: $msg"
    fi
    if [ -n "$out" ] && [ -d "$dir" ]; then
        l=$(left "$dir" "$out")
        [ -z "$l" ] || fail "$name: left $l"
    fi
}
# expect_io ...: a write failed (EX_IOERR); expect_create ...: the output
# cannot be created, opened or renamed into place (EX_CANTCREAT)
expect_io() { expect_code 74 "$@"; }
expect_create() { expect_code 73 "$@"; }

# a file-size limit of 64 blocks (32 KiB in dash's 512-byte blocks)
mkdir -p "$W/fsize"
expect_io "run, file-size limit" "$W/fsize" out.h5 "out.h5.*File too large" \
    sh -c "ulimit -f 64 && exec \"$BIN\" run \"$W/small.json\" -q -o \"$W/fsize/out.h5\""
expect_io "synth, file-size limit" "$W/fsize" out.csv "out.csv: cannot write: File too large" \
    sh -c "ulimit -f 64 && exec \"$BIN\" synth \"$W/small.json\" -q -o \"$W/fsize/out.csv\""

# the CSV of `replay --protocol profile` (an afile, like the packing .dat)
AZ="${TARMAC_DATA_DIR:-}/azure-llm-inference-2023/splitwise_code.csv"
if [ -f "$AZ" ]; then
    expect_io "replay profile CSV, file-size limit" "$W/fsize" prof.csv "prof.csv: cannot write: File too large" \
        sh -c "ulimit -f 1 && exec \"$BIN\" replay \"$AZ\" --format azure-llm --protocol profile -q -o \"$W/fsize/prof.csv\""
    expect_io "replay profile -o /dev/full" "" "" "/dev/full: cannot write: No space left" \
        "$BIN" replay "$AZ" --format azure-llm --protocol profile -q -o /dev/full
else
    echo "skipped: replay profile CSV: no $AZ"
fi

# a folder that is a regular file, and one that does not exist
: >"$W/afile"
expect_create "run, output under a file" "$W" afile/ "afile/out.h5.*Not a directory" \
    "$BIN" run "$W/small.json" -q -o "$W/afile/out.h5"
expect_create "synth, output under a file" "$W" afile/ "afile/out.csv.*Not a directory" \
    "$BIN" synth "$W/small.json" -q -o "$W/afile/out.csv"
expect_create "run, no such folder" "$W" nodir "nodir/out.h5.*No such file or directory" \
    "$BIN" run "$W/small.json" -q -o "$W/nodir/out.h5"
expect_create "synth, no such folder" "$W" nodir "nodir/out.csv.*No such file or directory" \
    "$BIN" synth "$W/small.json" -q -o "$W/nodir/out.csv"
"$BIN" run "$W/small.json" -q -o "$W/create-src.h5" || fail "run for export and plot"
expect_create "export, no such folder" "$W" nodir "nodir/jobs.csv.*No such file or directory" \
    "$BIN" export "$W/create-src.h5" --table jobs -o "$W/nodir/jobs.csv"
expect_create "plot, output folder under a file" "$W" afile/ "afile/figs: cannot create the folder" \
    "$BIN" plot "$W/create-src.h5" -q -o "$W/afile/figs"
expect_create "plot, output folder is a file" "" "" "afile: exists and is not a folder" \
    "$BIN" plot "$W/create-src.h5" -q -o "$W/afile"

# /dev/full: the device is written directly, and is always full
expect_io "synth -o /dev/full" "" "" "/dev/full: cannot write: No space left" \
    "$BIN" synth "$W/small.json" -q -o /dev/full
expect_io "run --json > /dev/full" "" "" "stdout: write error" \
    sh -c "exec \"$BIN\" run \"$W/small.json\" --json -o \"$W/full-run.h5\" >/dev/full"
expect_io "place > /dev/full" "" "" "stdout: write error" \
    sh -c "exec \"$BIN\" place \"$SRC/fuzz/corpus/place/doc-example.json\" >/dev/full"
expect_io "export > /dev/full" "" "" "stdout: write failed" \
    sh -c "exec \"$BIN\" export \"$W/full-run.h5\" --table jobs >/dev/full"

# a full and a read-only file system, where we may mount one
mnt="$W/tmpfs"
mkdir -p "$mnt"
if err=$(mount -t tmpfs -o size=64k,mode=0700 tmpfs "$mnt" 2>&1); then
    expect_io "run, full disk" "$mnt" out.h5 "out.h5.*No space left on device" \
        "$BIN" run "$W/small.json" -q -o "$mnt/out.h5"
    expect_io "synth, full disk" "$mnt" out.csv "out.csv: cannot write: No space left" \
        "$BIN" synth "$W/small.json" -q -o "$mnt/out.csv"
    if mount -o remount,ro "$mnt"; then
        expect_create "run, read-only folder" "$mnt" out.h5 "out.h5.*Read-only file system" \
            "$BIN" run "$W/small.json" -q -o "$mnt/out.h5"
        expect_create "synth, read-only folder" "$mnt" out.csv "out.csv.*Read-only file system" \
            "$BIN" synth "$W/small.json" -q -o "$mnt/out.csv"
    else
        fail "cannot remount $mnt read-only"
    fi
    umount "$mnt"
else
    echo "skipped: full and read-only file systems: cannot mount a tmpfs ($err)"
fi
mnt=""

[ $fails -eq 0 ] && echo "cli_faults: all checks passed" || echo "cli_faults: $fails failure(s)"
[ $fails -eq 0 ]
