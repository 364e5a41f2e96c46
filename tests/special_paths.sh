#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# special_paths.sh — `-o` naming something that is not a regular file: a
# FIFO gets the whole file as a stream, a device node stays a device node,
# and no temporary is left anywhere (sim/base/afile.c). Before, the HDF5
# writers renamed their temporary over the path, replacing the device or the
# FIFO with a regular file (run -o /dev/null, as root, destroyed /dev/null).
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, PY, W, fail
SRC=${TARMAC_SRC:?}
export TMPDIR="$W/tmp"
mkdir "$TMPDIR"
S="$SRC/tests/golden/small.json"

# a FIFO: the reader gets a complete HDF5 file; the FIFO stays a FIFO
mkfifo "$W/fifo" || { echo "SKIPPED: no mkfifo"; exit 77; }
for cmd in run compare; do
    timeout 30 cat "$W/fifo" >"$W/got.h5" &  # bounded: a FIFO replaced by a file never gets a writer
    reader=$!
    case $cmd in
    run) "$BIN" run "$S" -q -o "$W/fifo" ;;
    compare) "$BIN" compare "$S" --policies fifo-first-fit,fifo-best-fit --replications 2 -q \
        -o "$W/fifo" ;;
    esac
    code=$?
    [ -p "$W/fifo" ] || kill "$reader" 2>/dev/null
    wait "$reader"
    [ "$code" -eq 0 ] || fail "$cmd -o FIFO: exit $code"
    [ -p "$W/fifo" ] || fail "$cmd -o FIFO: the FIFO was replaced"
    "$PY" -c 'import h5py, sys; f = h5py.File(sys.argv[1]); assert "provenance" in f' "$W/got.h5" ||
        fail "$cmd -o FIFO: the reader did not get a whole HDF5 file"
done
"$BIN" run "$S" -q -o "$W/run.h5" || fail "run to a regular file"
timeout 30 cat "$W/fifo" >"$W/got.csv" &
reader=$!
"$BIN" export "$W/run.h5" --table jobs -o "$W/fifo" || fail "export -o FIFO"
[ -p "$W/fifo" ] || kill "$reader" 2>/dev/null
wait "$reader"
[ -p "$W/fifo" ] || fail "export -o FIFO: the FIFO was replaced"
"$BIN" export "$W/run.h5" --table jobs -o "$W/want.csv"
cmp -s "$W/got.csv" "$W/want.csv" || fail "export -o FIFO: not the file's bytes"

# a null device node of our own (as root: mknod), never the system's
if [ "$(id -u)" -eq 0 ] && mknod "$W/null" c 1 3 2>/dev/null; then
    "$BIN" run "$S" -q -o "$W/null" || fail "run -o a null device: exit $?"
    [ -c "$W/null" ] || fail "run -o a null device: the device was replaced by a regular file"
    "$BIN" replay "$W/got.csv" --format tarmac --fleet "$S" -q -o "$W/null" 2>/dev/null
    [ -c "$W/null" ] || fail "replay -o a null device: replaced"
    "$BIN" export "$W/run.h5" --table jobs -o "$W/null" || fail "export -o a null device"
    [ -c "$W/null" ] || fail "export -o a null device: replaced"
    "$BIN" plot "$W/run.h5" -o "$W/plots" -q >/dev/null 2>&1
    echo "ok: device node"
else
    echo "note: not root, the device-node case is not run"
fi
left=$(ls -A "$TMPDIR")
[ -z "$left" ] || fail "temporary files left in TMPDIR: $left"

if [ "$fails" -eq 0 ]; then echo "special_paths: all checks passed"; exit 0; fi
echo "special_paths: $fails check(s) failed"
exit 1
