#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# sweep_slurm.sh -- the recipes of docs/sweeps.md as they are written: the
# Slurm array script (docs/examples/sweep.sbatch) run once per array task with
# the variables Slurm sets, and the GNU parallel / xargs script
# (docs/examples/sweep_parallel.sh); each task runs exactly its shard's points,
# and the merged results equal a single process's point for point.
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, PY, W, fail
SRC=${TARMAC_SRC:?}

cat >"$W/tiny.json" <<'JSON'
{"name": "tiny", "seed": 4, "horizon": "12h", "sample": "1h", "policy": "fifo-first-fit",
 "fleet": {"pools": [{"name": "a", "gpu_type": "H100", "nodes": 2, "gpus_per_node": 8}]},
 "workload": {"classes": [{"name": "c", "arrival": {"offered_load": 0.6}, "gpus": 2,
   "duration": {"dist": "exponential", "mean": "1h"}}]}}
JSON
cat >"$W/study.json" <<'JSON'
{"scenario": "tiny.json", "replications": 3,
 "grid": {"policy": ["fifo-first-fit", "fifo-best-fit"], "fleet.pools[0].nodes": [1, 2]}}
JSON
# 12 points over 5 array tasks
N=5
K=0
while [ $K -lt $N ]; do
    SLURM_ARRAY_TASK_ID=$K SLURM_ARRAY_TASK_COUNT=$N SLURM_CPUS_PER_TASK=1 \
        SWEEP="$W/study.json" TARMAC="$BIN" sh "$SRC/docs/examples/sweep.sbatch" >"$W/task$K.log" 2>&1 ||
        fail "array task $K: $(cat "$W/task$K.log")"
    # the task ran the points i with i mod N = K, and no other
    got=$(sed -n 's/^\[[0-9]*\/[0-9]*\] point \([0-9]*\) ok$/\1/p' "$W/task$K.log" | sort -n | tr '\n' ' ')
    want=$(seq 0 11 | awk -v k=$K -v n=$N '$1 % n == k' | tr '\n' ' ')
    [ "$got" = "$want" ] || fail "task $K ran points '$got', want '$want'"
    K=$((K + 1))
done
"$BIN" sweep merge "$W/study.json" -o "$W/array.h5" -q || fail "merge after the array"
# a task submitted again resumes: nothing left to do
SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=$N SWEEP="$W/study.json" TARMAC="$BIN" \
    sh "$SRC/docs/examples/sweep.sbatch" >"$W/again.log" 2>&1 || fail "task resubmitted"
grep -q "^0 points run" "$W/again.log" || fail "a resubmitted task ran points again: $(cat "$W/again.log")"

# GNU parallel (or xargs) over 3 shards, into another folder
sed 's/"replications": 3/"replications": 3, "output": "par.points"/' "$W/study.json" >"$W/par.json"
SWEEP="$W/par.json" TARMAC="$BIN" SHARDS=3 sh "$SRC/docs/examples/sweep_parallel.sh" >"$W/par.log" 2>&1 ||
    fail "parallel recipe: $(cat "$W/par.log")"
grep -q "12 ok, 0 failed, 0 missing" "$W/par.log" || fail "parallel recipe merge: $(cat "$W/par.log")"

# one process, for reference
"$BIN" sweep run "$W/study.json" -j 1 -o "$W/one" --merge "$W/one.h5" -q || fail "single process"

"$PY" "$SRC/tests/sweep_same.py" 12 "$W/one" "$W/one.h5" --points "$W/study.points" \
    --merged "$W/array.h5" --tables points,mean,sd || fail "the array's results differ from one process's"
# par.points belongs to another sweep file (its "output"): the same points
"$PY" "$SRC/tests/sweep_same.py" 12 "$W/one" "$W/one.h5" --points "$W/par.points" \
    --merged "$W/par.points/merged.h5" --tables points,mean,sd --ignore sweep_point/sweep_file ||
    fail "the parallel recipe's results differ from one process's"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "Slurm array and GNU parallel recipes: every point once, results equal to one process's"
