#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# signal_read.sh — SIGINT and SIGTERM stop `tarmac replay` while it is still
# reading a trace (here a FIFO that sends blank lines for ever, so no job
# ever arrives): exit 130 within a second or two, "interrupted while reading"
# naming the line, no output file. Before, a read was deaf to signals until
# it handed out a job (minutes on a big file; never on this FIFO). Each run
# is bounded by timeout(1), so a regression fails instead of hanging.
set -u
BIN=${TARMAC_BIN:?}
SRC=${TARMAC_SRC:?}
W=$(mktemp -d)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
writer=
trap '[ -n "$writer" ] && kill "$writer" 2>/dev/null; rm -rf "$W"' EXIT
# signal_run SIG CASE PATTERN WRITER...: replay a FIFO that WRITER feeds,
# send SIG after a second; exit 130, PATTERN (grep, "" for none) on stderr,
# no output file.
signal_run() {
    sig=$1 case=$2 pattern=$3
    shift 3
    rm -f "$W/fifo"
    mkfifo "$W/fifo" || { echo "SKIPPED: no mkfifo"; exit 77; }
    "$@" >"$W/fifo" 2>/dev/null &
    writer=$!
    timeout 20 "$BIN" replay "$W/fifo" --format tarmac --fleet "$SRC/tests/golden/small.json" \
        -o "$W/out.h5" 2>"$W/err" &
    pid=$!
    sleep 1
    kill -"$sig" "$pid" 2>/dev/null
    wait "$pid"
    code=$?
    pkill -P "$writer" 2>/dev/null
    kill "$writer" 2>/dev/null
    wait "$writer" 2>/dev/null
    writer=
    [ "$code" -eq 130 ] || fail "SIG$sig $case: exit $code, want 130 ($(cat "$W/err"))"
    [ -z "$pattern" ] || grep -q "$pattern" "$W/err" || fail "SIG$sig $case: message: $(cat "$W/err")"
    [ -z "$(ls "$W" | grep '^out.h5')" ] || fail "SIG$sig $case: an output file was left"
}
blank_lines() { printf 'id,submit_us,duration_us\n'; yes ''; }
# A writer that sends some jobs (more than the reader's first 256 KiB, so
# the run starts) and then waits: the read blocks in read(2), which only the
# signal's EINTR on the reading thread ends (a trace that is not a regular
# file is read on the simulating thread, not ahead).
jobs_then_wait() { printf 'id,submit_us,duration_us\n'; seq 1 40000 | sed 's/$/,0,1000/'; sleep 60; }
for sig in INT TERM; do
    signal_run "$sig" "while reading" "interrupted while reading" blank_lines
    signal_run "$sig" "while the writer waits" "" jobs_then_wait
done
if [ "$fails" -eq 0 ]; then echo "signal_read: all checks passed"; exit 0; fi
echo "signal_read: $fails check(s) failed"
exit 1
