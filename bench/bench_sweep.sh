#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench_sweep.sh — what `tarmac sweep` costs and gains (bench/README.md, "Sweeps").
#
#   bench_sweep [--policies "SPEC;SPEC;..." | --policies-file FILE] [--only 64|overhead|fgd]
#
# 1. a 64-point sweep of the embedded default scenario (enterprise.json: 30
#    days, 512 GPUs, seven kinds of work and two services; 2 policies x 4
#    training loads x 8 replications): wall time and points/s with -j 1,
#    -j 2 and under mpirun at 2 ranks (rank 0 hands out, 1 worker) and 3 ranks
#    (2 workers, oversubscribed on 2 cores), each as a ratio to -j 1;
# 2. the overhead per point: 256 trivial points (1 h, no job arrives: the
#    engine does next to nothing), -j 1, against `tarmac run` of the same
#    scenario as a process of its own;
# 3. the headline: the openb grid of the FGD paper (policies x the paper's 17
#    pod lists x 10 seeds, target 130 %) as one packing sweep with -j 2, and
#    the merged file checked to hold every curve. The policies are an input:
#    one placement-core specification per line of --policies-file, or
#    separated by ';' in --policies (default: the paper's six, FGD,
#    dot-product, GPU-packing, GPU-clustering, best-fit and random, each with
#    FIFO order and no backfilling).
#
# TARMAC: the tarmac binary (default: the build's); TARMAC_MPI: an MPI build's
# (default SOURCE/build-mpi/sim/tarmac, skipped when absent); TARMAC_DATA_DIR: the public traces
# (default ../shared/data). Wall times are of the whole command, process
# start, HDF5 writes and the merge included. Figures from a loaded machine
# are not comparable: the load average is printed first.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# bench/sweep.cmake fills these in when it copies the script into the build
SRC_DIR="@CMAKE_SOURCE_DIR@"
BIN_DIR="@CMAKE_BINARY_DIR@"
case $SRC_DIR in @*) SRC_DIR=$here/.. BIN_DIR=$here/../build ;; esac
TARMAC=${TARMAC:-$BIN_DIR/sim/tarmac}
TARMAC_MPI=${TARMAC_MPI:-$SRC_DIR/build-mpi/sim/tarmac}
DATA=${TARMAC_DATA_DIR:-../shared/data}
# the six of the FGD paper's openb figures: FGD and its baselines
POLICIES="order=fifo placement=fgd backfill=none;order=fifo placement=dotprod backfill=none"
POLICIES="$POLICIES;order=fifo placement=gpu-packing backfill=none"
POLICIES="$POLICIES;order=fifo placement=gpu-clustering backfill=none"
POLICIES="$POLICIES;order=fifo placement=best-fit backfill=none;order=fifo placement=random backfill=none"
ONLY=""
while [ $# -gt 0 ]; do
    case $1 in
    --policies) POLICIES=$2; shift 2 ;;
    --policies-file) POLICIES=$(grep -v '^[[:space:]]*\(#\|$\)' "$2" | paste -sd ';' -); shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    *) echo "usage: bench_sweep [--policies 'A;B'] [--policies-file F] [--only 64|overhead|fgd]" >&2
       exit 64 ;;
    esac
done
[ -x "$TARMAC" ] || { echo "bench_sweep: no tarmac at $TARMAC (set TARMAC)" >&2; exit 66; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
now() { date +%s.%N; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.2f", n / t }'; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

echo "bench_sweep: $("$TARMAC" --version), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

if [ -z "$ONLY" ] || [ "$ONLY" = 64 ]; then
    cat >"$W/s64.json" <<'EOF'
{"scenario": "SCEN", "replications": 8,
 "grid": {"policy": ["fifo-best-fit", "easy"],
          "workload.classes[0].arrival.offered_load": [0.16, 0.22, 0.28, 0.34]}}
EOF
    scen=$(cd "$SRC_DIR" && pwd)/scenarios/enterprise.json # the embedded default, as a file
    sed -i "s#SCEN#$scen#" "$W/s64.json"
    echo
    echo "64-point sweep: the embedded default (enterprise), 2 policies x 4 training loads x 8 replications"
    printf '%-34s %9s %9s %9s\n' "mode" "wall s" "points/s" "vs -j 1"
    t0=$(now); "$TARMAC" sweep run "$W/s64.json" -j 1 -o "$W/j1" -q; t1=$(now)
    base=$(elapsed "$t0" "$t1")
    printf '%-34s %9s %9s %9s\n' "-j 1" "$base" "$(rate 64 "$base")" "1.00"
    t0=$(now); "$TARMAC" sweep run "$W/s64.json" -j 2 -o "$W/j2" -q; t1=$(now)
    e=$(elapsed "$t0" "$t1")
    printf '%-34s %9s %9s %9s\n' "-j 2" "$e" "$(rate 64 "$e")" "$(ratio "$base" "$e")"
    if [ -x "$TARMAC_MPI" ] && command -v mpirun >/dev/null 2>&1; then
        for np in 2 3; do
            t0=$(now)
            mpirun -np $np --oversubscribe "$TARMAC_MPI" sweep run "$W/s64.json" --mpi -o "$W/mpi$np" -q
            t1=$(now)
            e=$(elapsed "$t0" "$t1")
            printf '%-34s %9s %9s %9s\n' "mpirun -np $np ($((np - 1)) worker rank$([ $np -gt 2 ] && echo s))" \
                "$e" "$(rate 64 "$e")" "$(ratio "$base" "$e")"
        done
    else
        echo "(no MPI build at $TARMAC_MPI, or no mpirun: MPI rows skipped)"
    fi
fi

if [ -z "$ONLY" ] || [ "$ONLY" = overhead ]; then
    cat >"$W/tiny.json" <<'EOF'
{"name": "trivial", "seed": 1, "horizon": "1h", "sample": "1h", "policy": "fifo-first-fit",
 "fleet": {"pools": [{"name": "a", "gpu_type": "H100", "nodes": 1, "gpus_per_node": 8}]},
 "workload": {"classes": [{"name": "c", "arrival": {"rate_per_s": 0}, "gpus": 1, "duration": 60}]}}
EOF
    echo '{"scenario": "tiny.json", "replications": 256}' >"$W/trivial.json"
    t0=$(now); "$TARMAC" sweep run "$W/trivial.json" -j 1 -o "$W/triv" -q; t1=$(now)
    e=$(elapsed "$t0" "$t1")
    t0=$(now)
    i=0
    while [ $i -lt 32 ]; do "$TARMAC" run "$W/tiny.json" -q -o "$W/one.h5"; i=$((i + 1)); done
    t1=$(now)
    r=$(elapsed "$t0" "$t1")
    echo
    echo "overhead per point (a 1-hour scenario where no job arrives), -j 1:"
    echo "  in a sweep: $(awk -v t="$e" 'BEGIN { printf "%.1f", 1000 * t / 256 }') ms per point" \
        "(256 points in $e s: scenario from JSON, run, report, /sweep_point, two atomic commits)"
    echo "  as its own process: $(awk -v t="$r" 'BEGIN { printf "%.1f", 1000 * t / 32 }') ms per" \
        "\`tarmac run\` (32 runs in $r s)"
fi

if [ -z "$ONLY" ] || [ "$ONLY" = fgd ]; then
    OB=$DATA/alibaba-gpu-v2023-openb
    if [ ! -d "$OB" ]; then
        echo "(no openb trace in $OB: FGD grid skipped)"
        exit 0
    fi
    OB=$(cd "$OB" && pwd)
    # the paper's 17 pod lists (its simulator's experiments/run_scripts/generate_run_scripts.py)
    LISTS="default cpu050 cpu100 cpu200 cpu250 gpushare40 gpushare60 gpushare80 gpushare100
           gpuspec10 gpuspec20 gpuspec25 gpuspec33 multigpu20 multigpu30 multigpu40 multigpu50"
    {
        printf '{"kind": "pack", "replications": 10,\n'
        printf ' "pack": {"nodes": "%s/openb_node_list_gpu_node.csv", "pods": "%s/openb_pod_list_default.csv",\n' "$OB" "$OB"
        printf '          "target_pct": 130, "step_pct": 1, "seed": 42},\n'
        printf ' "grid": {"policy": ['
        echo "$POLICIES" | tr ';' '\n' | awk 'NF { printf "%s\"%s\"", n++ ? ", " : "", $0 }'
        printf '],\n          "pods": ['
        n=0
        for l in $LISTS; do
            [ $n -gt 0 ] && printf ', '
            printf '"%s/openb_pod_list_%s.csv"' "$OB" "$l"
            n=$((n + 1))
        done
        printf ']}}\n'
    } >"$W/fgd.json"
    npol=$(echo "$POLICIES" | tr ';' '\n' | awk 'NF' | wc -l)
    runs=$((npol * 17 * 10))
    echo
    echo "FGD openb grid: $npol policies x 17 pod lists x 10 seeds = $runs packing runs, -j 2, then merge"
    echo "$POLICIES" | tr ';' '\n' | awk 'NF { print "  policy: " $0 }'
    t0=$(now)
    "$TARMAC" sweep "$W/fgd.json" -j 2 -o "$W/fgd" -q
    t1=$(now)
    e=$(elapsed "$t0" "$t1")
    echo "  wall $e s, $(rate "$runs" "$e") runs/s; per policy $(awk -v t="$e" -v p="$npol" 'BEGIN { printf "%.1f", t / p }') s;" \
        "six policies at this cost: $(awk -v t="$e" -v p="$npol" 'BEGIN { printf "%.0f", 6 * t / p }') s"
    /usr/bin/python3 - "$W/fgd/merged.h5" "$runs" <<'PYEOF'
import sys, h5py
with h5py.File(sys.argv[1]) as f:
    g = f["sweep"]
    c = g["curves/frag_pct"]
    ok = int(g["n_ok"][()])
    print(f"  merged.h5: {ok} ok of {int(g['n_points'][()])} points; /sweep/curves/* {c.shape[0]} x {c.shape[1]} "
          f"per metric, /sweep/curves_mean/* {g['curves_mean/frag_pct'].shape[0]} x {c.shape[1]}")
    sys.exit(0 if ok == int(sys.argv[2]) == c.shape[0] else 1)
PYEOF
fi
