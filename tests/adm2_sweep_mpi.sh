#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# adm2_sweep_mpi.sh -- `mpirun -np 2 tarmac sweep run --mpi` is held to the
# admission limits as `sweep run` is: a sweep with one combination over the
# arrivals limit is refused by rank 0 before any point runs or the points
# folder is made, every rank exits 65 (not 70: the ranks that were ready end
# with the status of the one that was not), and --limit raises the limit.
# Before, --mpi ran the points with no admission. Registered only in a
# -DTARMAC_MPI=ON build.
set -u
BIN=${TARMAC_BIN:?}
SRC=${TARMAC_SRC:?}
command -v mpirun >/dev/null 2>&1 || { echo "FAIL: mpirun not found (apt-get install openmpi-bin)"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

S=$SRC/tests/hostile/adm-sweep/sweep.json
timeout 60 mpirun -np 2 --oversubscribe "$BIN" sweep run "$S" --mpi -q -o "$W/pts" >"$W/out" 2>"$W/err"
rc=$?
[ $rc -eq 65 ] || fail "over the limit: exit $rc, want 65: $(cat "$W/err")"
grep -q 'sweep point 2 (combination 1): about 2.6e12 arrivals over the horizon, more than the limit 1e8 (raise it with --limit arrivals=3e12)' "$W/err" ||
    fail "over the limit: no message naming the point and the limit: $(cat "$W/err")"
[ -e "$W/pts" ] && fail "over the limit: the points folder was made"

# with the limit lowered further, the first combination is refused too
timeout 60 mpirun -np 2 --oversubscribe "$BIN" sweep run "$S" --mpi -q -o "$W/pts2" --limit arrivals=1 >"$W/out" 2>"$W/err"
rc=$?
[ $rc -eq 65 ] || fail "--limit arrivals=1: exit $rc, want 65: $(cat "$W/err")"
grep -q 'sweep point 0 (combination 0)' "$W/err" || fail "--limit arrivals=1: point 0 not named: $(cat "$W/err")"

[ $fails -eq 0 ] && echo "ok: sweep run --mpi admits its points"
exit $((fails != 0))
