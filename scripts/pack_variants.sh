#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# pack_variants.sh — the FGD paper's packing experiment (Weng et al., ATC'23)
# on every openb pod list, the six packing policies in their `:k8s` mode.
#
# Usage: sh scripts/pack_variants.sh BUILD_DIR DATA_DIR [REF_CSV] [SEEDS] [SEED]
#
#   BUILD_DIR  a tarmac build folder (BUILD_DIR/sim/tarmac)
#   DATA_DIR   the folder of the openb CSVs (alibaba-gpu-v2023-openb/)
#   REF_CSV    optional: the reference simulator's published allocations,
#              experiments/analysis/expected_results/analysis_allo_discrete.csv
#              of hkust-adsl/kubernetes-scheduler-simulator; its mean at 130 %
#              over its seeds is printed in parentheses (— where the list is
#              not in it; the reference ran 17 of the 24 lists)
#   SEEDS      seeds per policy (10); SEED: the base seed (42, as the reference)
#
# Each openb_pod_list_*.csv of DATA_DIR is packed on openb_node_list_gpu_node.csv
# up to 130 % of the GPU capacity by FGD, BestFit, DotProd, GpuPacking,
# GpuClustering and Random (`placement=NAME:k8s`, FIFO, no backfilling), one
# `tarmac replay --protocol pack` per list. Prints a Markdown table, one row per
# list, each cell "tarmac mean (reference mean)" of the GPU allocation ratio at
# 130 % arrived, then the same runs' standard deviations. Runs one process at a
# time; about 10 s per list.
set -eu

[ $# -ge 2 ] || { sed -n '2,22p' "$0" >&2; exit 2; }
BUILD=$1
DATA=$2
REF=${3:-}
SEEDS=${4:-10}
SEED=${5:-42}
TARMAC=$BUILD/sim/tarmac
NODES=$DATA/openb_node_list_gpu_node.csv
[ -x "$TARMAC" ] || { echo "pack_variants.sh: no $TARMAC" >&2; exit 2; }
[ -f "$NODES" ] || { echo "pack_variants.sh: no $NODES" >&2; exit 2; }
[ -z "$REF" ] || [ -f "$REF" ] || { echo "pack_variants.sh: no $REF" >&2; exit 2; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

# tarmac policy names, in the table's order, and the reference's names for them
POLS="fgd best-fit dotprod gpu-packing gpu-clustering random"
REFNAMES="06-FGD 05-BestFit 02-DotProd 04-GpuPacking 03-GpuClustering 01-Random"

# reference: "list policy mean min max" at 130 % (column "130")
: > "$TMP/ref"
if [ -n "$REF" ]; then
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "130") c = i; next }
             { k = $1 " " $2; n[k]++; s[k] += $c
               if (!(k in lo) || $c < lo[k]) lo[k] = $c
               if (!(k in hi) || $c > hi[k]) hi[k] = $c }
             END { for (k in n) printf "%s %.2f %.2f %.2f\n", k, s[k] / n[k], lo[k], hi[k] }' \
        "$REF" > "$TMP/ref"
fi

echo "| pod list | FGD | BestFit | DotProd | GpuPacking | GpuClustering | Random |"
echo "|---|---|---|---|---|---|---|"
: > "$TMP/sd"
for f in "$DATA"/openb_pod_list_*.csv; do
    list=$(basename "$f" .csv)
    set --
    for p in $POLS; do set -- "$@" --policy "order=fifo placement=$p:k8s backfill=none"; done
    "$TARMAC" replay "$f" --format openb --protocol pack --nodes "$NODES" \
        --target 130 --seeds "$SEEDS" --seed "$SEED" "$@" -o "$TMP/pack.h5" > "$TMP/out"
    # the rows at 130.0 % arrived, one per policy in the order given: "alloc (sd)"
    grep ' 130\.0% ' "$TMP/out" | sed 's/.* 130\.0% *\([0-9.]*\) (\([0-9.]*\)).*/\1 \2/' > "$TMP/rows"
    [ "$(wc -l < "$TMP/rows")" -eq 6 ] || { echo "pack_variants.sh: $list: unexpected output" >&2; cat "$TMP/out" >&2; exit 1; }
    name=${list#openb_pod_list_}
    line="| $name |"
    sdline="| $name |"
    i=0
    while read -r mean sd; do
        i=$((i + 1))
        rn=$(echo "$REFNAMES" | cut -d' ' -f$i)
        rm_=$(awk -v l="$list" -v p="$rn" '$1 == l && $2 == p { print $3 }' "$TMP/ref")
        line="$line $mean (${rm_:-—}) |"
        sdline="$sdline $sd |"
    done < "$TMP/rows"
    echo "$line"
    echo "$sdline" >> "$TMP/sd"
done
echo
echo "Standard deviation over the seeds:"
echo
echo "| pod list | FGD | BestFit | DotProd | GpuPacking | GpuClustering | Random |"
echo "|---|---|---|---|---|---|---|"
cat "$TMP/sd"
