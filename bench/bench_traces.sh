#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench_traces.sh — `tarmac replay` end to end on the real traces that
# bench_replay does not cover (bench/README.md, "Trace replay", table 2).
#
#   bench_traces [RUNS]          (default 3 runs per case; medians)
#
# bench_replay times the SWF window replays and the openb packing runs through
# the library, without output. This script times whole commands, process
# start, trace reading and the HDF5 (or CSV) output included:
#   - openb: the default pod list replayed in time (creation and deletion
#     times) on the 1213 GPU nodes of the node list, FIFO + best-fit;
#   - Gavel: the two largest msr traces and the physical-cluster trace, with
#     the simulation throughput matrix (per-type speeds), on Gavel's
#     heterogeneous cluster spec (300 V100, 300 P100, 300 K80), FIFO +
#     heterogeneity-aware placement;
#   - Azure LLM 2023: both traces aggregated into a load profile (60 s bins);
#   - LANL-CM5 on its header's machine, FIFO + first-fit + EASY, HDF5 written
#     (bench_replay's row for it writes nothing).
# Per case: the jobs (or requests) the command reports, median wall and CPU
# (user + system) time and peak RSS over RUNS runs (/usr/bin/time).
#
# TARMAC: the tarmac binary (default: the build's); TARMAC_DATA_DIR: the
# public traces (default ../shared/data). The load average is printed first:
# figures from a loaded machine are not comparable (read CPU time then).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# bench/traces.cmake fills these in when it copies the script into the build
SRC_DIR="@CMAKE_SOURCE_DIR@"
BIN_DIR="@CMAKE_BINARY_DIR@"
case $SRC_DIR in @*) SRC_DIR=$here/.. BIN_DIR=$here/../build ;; esac
TARMAC=${TARMAC:-$BIN_DIR/sim/tarmac}
DATA=${TARMAC_DATA_DIR:-$SRC_DIR/../shared/data}
RUNS=${1:-3}
[ -x "$TARMAC" ] || { echo "bench_traces: no tarmac binary at $TARMAC"; exit 2; }
[ -d "$DATA" ] || { echo "bench_traces: no data folder at $DATA (TARMAC_DATA_DIR)"; exit 2; }
[ -x /usr/bin/time ] || { echo "bench_traces: needs /usr/bin/time (apt-get install time)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs per case, medians"
echo "| trace | protocol, policy | jobs | wall | CPU | peak RSS |"
echo "|---|---|---:|---:|---:|---:|"

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# case NAME WHAT COUNT_REGEX -- COMMAND...: COUNT_REGEX picks the count from
# the command's output (a sed expression printing one number)
bench() {
    name=$1 what=$2 count=$3
    shift 4
    : >"$tmp/times"
    n=""
    k=0
    while [ "$k" -lt "$RUNS" ]; do
        if ! /usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$@" >"$tmp/out" 2>&1; then
            echo "bench_traces: $name failed:" >&2
            cat "$tmp/out" >&2
            exit 1
        fi
        cat "$tmp/t" >>"$tmp/times"
        n=$(sed -n "$count" "$tmp/out" | head -1)
        k=$((k + 1))
    done
    wall=$(awk '{print $1}' "$tmp/times" | median)
    cpu=$(awk '{print $2 + $3}' "$tmp/times" | median)
    rss=$(awk '{print $4}' "$tmp/times" | median)
    printf '| %s | %s | %s | %.2f s | %.2f s | %.1f MiB |\n' "$name" "$what" "${n:-?}" "$wall" \
        "$cpu" "$(echo "$rss" | awk '{print $1 / 1024}')"
}

jobs_re='s/^jobs: \([0-9]*\) arrived.*/\1/p'
O=$DATA/alibaba-gpu-v2023-openb
bench openb_pod_list_default.csv "time (creation/deletion), fifo, best-fit" "$jobs_re" -- \
    "$TARMAC" replay "$O/openb_pod_list_default.csv" --format openb \
    --nodes "$O/openb_node_list_gpu_node.csv" \
    --policy "order=fifo placement=best-fit backfill=none" -o "$tmp/openb.h5"
G=$DATA/gavel
for t in msr/seed=0/ee9e8c msr/seed=0/b436b2 physical_cluster/small_test; do
    bench "gavel $t.trace" "time, 300:300:300, fifo, hetero" "$jobs_re" -- \
        "$TARMAC" replay "$G/traces/$t.trace" --format gavel \
        --throughputs "$G/simulation_throughputs.json" --gavel-cluster 300:300:300 \
        --policy "order=fifo placement=hetero backfill=none" -o "$tmp/gavel.h5"
done
for t in splitwise_code splitwise_conv; do
    bench "azure $t.csv" "profile, 60 s bins" 's/^\([0-9]*\) requests.*/\1/p' -- \
        "$TARMAC" replay "$DATA/azure-llm-inference-2023/$t.csv" --format azure-llm \
        --protocol profile --bin 60 -o "$tmp/profile.csv"
done
bench LANL-CM5-1994-4.1-cln.swf.gz "time, header machine, fifo, first-fit, EASY, HDF5" "$jobs_re" -- \
    "$TARMAC" replay "$DATA/pwa-swf-logs/LANL-CM5-1994-4.1-cln.swf.gz" --format swf \
    --policy "order=fifo placement=first-fit backfill=easy" -o "$tmp/lanl.h5"
