#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# h5io_enospc.sh — the HDF5 writer on a full and on a read-only file system.
#
# Usage: sh h5io_enospc.sh TEST_H5IO_BINARY
#
# Mounts a 64 KiB tmpfs on a fresh folder (needs root, as in CI and the
# sandbox), runs `test_h5io --enospc` there (the run must fail with ENOSPC
# and leave no file), remounts it read-only and runs `test_h5io --erofs`
# (open must fail with EROFS). Where mounting is not allowed it says why and
# exits 77 (skipped).
set -u
bin=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/tarmac-h5io-full.XXXXXX") || exit 1
mounted=0
cleanup() {
    rc=$?
    [ "$mounted" = 1 ] && umount "$dir"
    rmdir "$dir"
    exit $rc
}
trap cleanup EXIT

if ! err=$(mount -t tmpfs -o size=64k,mode=0700 tmpfs "$dir" 2>&1); then
    echo "SKIPPED: cannot mount a 64 KiB tmpfs on $dir (needs root or CAP_SYS_ADMIN): $err"
    exit 77
fi
mounted=1

"$bin" --enospc "$dir/out.h5" || exit 1
left=$(ls -A "$dir")
if [ -n "$left" ]; then
    echo "FAIL: left on the full file system: $left"
    exit 1
fi

if ! err=$(mount -o remount,ro "$dir" 2>&1); then
    echo "FAIL: cannot remount $dir read-only: $err"
    exit 1
fi
"$bin" --erofs "$dir/out.h5" || exit 1
echo "h5io_enospc: all checks passed"
