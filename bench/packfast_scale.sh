#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# packfast_scale.sh — how FGD packing grows with the cluster (bench/README.md,
# "FGD packing without a scan").
#
#   sh bench/packfast_scale.sh [TARMAC] [RUNS] [POLICY]
#
# The openb node list (1,213 GPU nodes) copied 1, 4 and 17 times (node names
# made unique), openb_pod_list_default packed on each by `tarmac replay
# --protocol pack` (one seed, target 130 %, so the pods grow with the
# nodes), RUNS runs each (default 3). Prints the median CPU (user + system)
# per size and the growth exponent: the least-squares slope of log CPU over
# log nodes, and the slope of each segment. TARMAC: default build/sim/tarmac;
# TARMAC_DATA_DIR: default ../shared/data; POLICY: default
# "order=fifo placement=fgd backfill=none" ("placement=fgd:scan" times the
# scan every decision used to be).
set -eu
TARMAC=${1:-build/sim/tarmac}
RUNS=${2:-3}
POLICY=${3:-order=fifo placement=fgd backfill=none}
DATA=${TARMAC_DATA_DIR:-../shared/data}
OB=$DATA/alibaba-gpu-v2023-openb
[ -x "$TARMAC" ] || { echo "packfast_scale: no tarmac at $TARMAC" >&2; exit 66; }
[ -f "$OB/openb_node_list_gpu_node.csv" ] || { echo "packfast_scale: no openb data in $OB" >&2; exit 66; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
echo "packfast_scale: $POLICY, $RUNS runs per size, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for k in 1 4 17; do
    {
        head -1 "$OB/openb_node_list_gpu_node.csv"
        i=1
        while [ $i -le $k ]; do
            tail -n +2 "$OB/openb_node_list_gpu_node.csv" | sed "s/^\([^,]*\)/\1-r$i/"
            i=$((i + 1))
        done
    } >"$W/nodes_$k.csv"
    nodes=$(($(wc -l <"$W/nodes_$k.csv") - 1))
    r=0
    : >"$W/cpu_$k"
    while [ $r -lt "$RUNS" ]; do
        /usr/bin/time -f "%U %S" -o "$W/t" "$TARMAC" replay "$OB/openb_pod_list_default.csv" \
            --format openb --protocol pack --nodes "$W/nodes_$k.csv" --target 130 --seeds 1 \
            --seed 42 --limit tables=100000 --policy "$POLICY" -o "$W/out.h5" -q
        awk '{ printf "%.3f\n", $1 + $2 }' "$W/t" >>"$W/cpu_$k"
        r=$((r + 1))
    done
    med=$(sort -n "$W/cpu_$k" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    echo "$nodes $med" >>"$W/points"
    echo "  x$k: $nodes nodes, CPU s median $med (runs: $(paste -sd ' ' "$W/cpu_$k"))"
done
awk '{ x[NR] = log($1); y[NR] = log($2); sx += x[NR]; sy += y[NR] }
     END {
         mx = sx / NR; my = sy / NR
         for (i = 1; i <= NR; i++) { sxx += (x[i] - mx) ^ 2; sxy += (x[i] - mx) * (y[i] - my) }
         printf "  growth exponent: %.2f (least squares over the three sizes); segments", sxy / sxx
         for (i = 2; i <= NR; i++) printf " %.2f", (y[i] - y[i - 1]) / (x[i] - x[i - 1])
         printf "\n"
     }' "$W/points"
