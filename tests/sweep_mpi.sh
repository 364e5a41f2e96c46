#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# sweep_mpi.sh -- `mpirun -np 2 tarmac sweep run --mpi` (and -np 3: two
# workers that take points as they finish) against the single-process run:
# the same point files, bit for bit, and the same merged tables. Registered
# only in a -DTARMAC_MPI=ON build. As root, Open MPI needs its allow-run-as-root
# variables (set here).
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, PY, W, fail
command -v mpirun >/dev/null 2>&1 || { echo "FAIL: mpirun not found (apt-get install openmpi-bin)"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cat >"$W/tiny.json" <<'JSON'
{"name": "tiny", "seed": 8, "horizon": "1d", "sample": "1h", "policy": "fifo-first-fit",
 "fleet": {"pools": [{"name": "a", "gpu_type": "H100", "nodes": 2, "gpus_per_node": 8}]},
 "workload": {"classes": [{"name": "c", "arrival": {"offered_load": 0.7},
   "gpus": {"dist": "discrete", "values": [1, 2, 8], "weights": [0.6, 0.3, 0.1]},
   "duration": {"dist": "lognormal", "mean": "1h", "sigma": 1.0}}]}}
JSON
cat >"$W/study.json" <<'JSON'
{"scenario": "tiny.json", "replications": 3,
 "grid": {"policy": ["fifo-first-fit", "fifo-best-fit"], "fleet.pools[0].nodes": [1, 2, 4]}}
JSON
for np in 2 3; do
    mpirun -np $np --oversubscribe "$BIN" sweep run "$W/study.json" --mpi -o "$W/mpi$np" \
        --merge "$W/mpi$np.h5" >"$W/mpi$np.log" 2>&1 || fail "mpirun -np $np: $(cat "$W/mpi$np.log")"
    grep -q "18 points run in .*18 ok, 0 failed" "$W/mpi$np.log" ||
        fail "mpirun -np $np did not run 18 points: $(cat "$W/mpi$np.log")"
    grep -q "merged 18 points into .*18 ok" "$W/mpi$np.log" || fail "rank 0 did not merge (-np $np)"
done
"$BIN" sweep run "$W/study.json" -j 1 -o "$W/one" --merge "$W/one.h5" -q || fail "single process"

"$PY" "$(dirname "$0")/sweep_same.py" 18 "$W/one" "$W/one.h5" --points "$W/mpi2" "$W/mpi3" \
    --merged "$W/mpi2.h5" "$W/mpi3.h5" || fail "the MPI runs differ from the single-process run"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "mpirun -np 2 and -np 3 equal the single-process sweep point for point"
