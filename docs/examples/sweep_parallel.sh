#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# docs/examples/sweep_parallel.sh -- the shards of a sweep with GNU parallel
# (or xargs -P where GNU parallel is not installed), then the merge
# (docs/sweeps.md).
#
#   SWEEP=study.json SHARDS=8 sh docs/examples/sweep_parallel.sh
#
# Each shard is one single-worker process. GNU parallel's --sshloginfile FILE
# spreads them over machines that share the sweep's folder; the points are the
# same wherever they run. Run it again to resume.
# tests/sweep_slurm.sh runs this script.
set -eu
: "${SWEEP:?set SWEEP to the sweep file}"
TARMAC=${TARMAC:-tarmac}
SHARDS=${SHARDS:-4}
if command -v parallel >/dev/null 2>&1; then
    seq 0 $((SHARDS - 1)) |
        parallel -j "$SHARDS" "$TARMAC" sweep run "$SWEEP" --shard {}/"$SHARDS" -j 1 --resume -q
else
    seq 0 $((SHARDS - 1)) |
        xargs -P "$SHARDS" -I{} "$TARMAC" sweep run "$SWEEP" --shard {}/"$SHARDS" -j 1 --resume -q
fi
"$TARMAC" sweep merge "$SWEEP"
