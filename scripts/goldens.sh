#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# goldens.sh — golden text summaries of every command at fixed seeds.
#
# Usage: sh scripts/goldens.sh [--check|--update] BUILD_DIR [GOLDEN_DIR]
#
# Each case runs BUILD_DIR/sim/tarmac with fixed seeds and writes one text
# file, GOLDEN_DIR/CASE.txt (GOLDEN_DIR defaults to the project's
# tests/golden; ctest's test_golden runs --check on its build): a header
# line with the command (paths relative to the project root, $DATA for the
# data folder, $TMP for the case's scratch folder), the command's summary on
# stdout (its --json, flattened, where it has one) and every dataset and
# attribute of each HDF5 file it writes (scripts/golden_h5.py: fixed decimals,
# never %g; long arrays as count, min, max, sum and a hash; provenance,
# wall-clock times and temporary paths left out). PNG and plot outputs are
# not goldened.
#
#   --check  (default) write into a temporary folder and diff -u against the
#            stored goldens; exit 1 on any difference or failed command
#   --update write GOLDEN_DIR/CASE.txt
#
# The public traces come from TARMAC_DATA_DIR (default ../shared/data from
# the project root). Without that folder the cases that need it are reported
# skipped (exit 0), unless CI=true, where that is a failure. The other cases
# always run.
#
# A golden that changes is a behaviour change: the commit that regenerates it
# says why. Regenerate with `sh scripts/goldens.sh --update build`.
#
# The whole set takes a few seconds in a Release build (about 10 s on 2
# cores) and passes unchanged in a Debug ASan build: no result depends on the
# -O level (golden_h5.py's DECIMALS is where an item would get fewer digits if
# one did).
set -u
mode=check
case "${1:-}" in
--check) shift ;;
--update) mode=update; shift ;;
-*) echo "usage: sh scripts/goldens.sh [--check|--update] BUILD_DIR [GOLDEN_DIR]" >&2; exit 64 ;;
esac
[ $# -ge 1 ] || { echo "usage: sh scripts/goldens.sh [--check|--update] BUILD_DIR [GOLDEN_DIR]" >&2; exit 64; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "$1" 2>/dev/null && pwd)/sim/tarmac
[ -x "$BIN" ] || { echo "goldens.sh: $1/sim/tarmac is not built" >&2; exit 2; }
GOLDEN=${2:-$ROOT/tests/golden}
case "$GOLDEN" in /*) ;; *) GOLDEN=$(pwd)/$GOLDEN ;; esac
PY=/usr/bin/python3
H=$ROOT/scripts/golden_h5.py
DATA_DIR=${TARMAC_DATA_DIR:-$ROOT/../shared/data}
have_data=0
if [ -d "$DATA_DIR" ]; then
    DATA_DIR=$(cd "$DATA_DIR" && pwd)
    have_data=1
fi
# Commands run from the project root so that their paths (and what they
# print of them) are the relative ones of the header lines.
cd "$ROOT" || exit 2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/goldens.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
if [ "$mode" = update ]; then OUT=$GOLDEN; mkdir -p "$OUT"; else OUT=$WORK/out; mkdir -p "$OUT"; fi
export TZ=UTC LC_ALL=C

failed=0 differ=0 skipped=0 passed=0
CASE= F= T=

# --- helpers --------------------------------------------------------------

# the command as the header shows it: tarmac for the binary, $DATA and $TMP
# for the folders, arguments with a space or a shell character quoted
show() {
    s=
    for a in "$@"; do
        a=$(printf '%s' "$a" | sed -e "s|$BIN|tarmac|g" -e "s|$T|\$TMP|g" -e "s|$DATA_DIR|\$DATA|g")
        case "$a" in *[!A-Za-z0-9_./:=,+@%\$-]*) a="'$a'" ;; esac
        s="$s${s:+ }$a"
    done
    printf '%s' "$s"
}

# tm ARGS...: run tarmac, stdout to $T/stdout, record the command in the golden
tm() {
    printf '# $ %s\n' "$(show "$BIN" "$@")" >>"$T/cmds"
    printf '## $ %s\n' "$(show "$BIN" "$@")" >>"$F"
    "$BIN" "$@" >"$T/stdout" 2>"$T/stderr"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: $CASE: tarmac exited $rc: $(show "$BIN" "$@")"
        sed 's/^/    /' "$T/stderr" | head -20
        case_ok=0
    fi
    return "$rc"
}

subs() { printf '%s\n' --sub "$T=\$TMP" --sub "$DATA_DIR=\$DATA" --sub "$ROOT/=" ; }

# json: the --json stdout, flattened with fixed decimals
json() {
    echo "## stdout (--json)" >>"$F"
    # shellcheck disable=SC2046
    "$PY" "$H" json "$T/stdout" $(subs) >>"$F" || { echo "FAIL: $CASE: bad JSON"; case_ok=0; }
}

# text: the stdout text, paths and wall-clock times replaced
text() {
    echo "## stdout" >>"$F"
    # shellcheck disable=SC2046
    "$PY" "$H" text "$T/stdout" $(subs) >>"$F"
}

# h5 FILE: every dataset and attribute
h5() {
    echo "## file $(show "$1")" >>"$F"
    # shellcheck disable=SC2046
    "$PY" "$H" h5 "$1" $(subs) >>"$F" || { echo "FAIL: $CASE: cannot read $1"; case_ok=0; }
}

# verbatim FILE: a text output (CSV) as it is
verbatim() {
    echo "## file $(show "$1")" >>"$F"
    cat "$1" >>"$F"
}

now_ms() { date +%s%3N; }

# run_case NAME NEEDS_DATA(0|1) TITLE: runs case_NAME
run_case() {
    CASE=$1
    if [ "$2" = 1 ] && [ "$have_data" = 0 ]; then
        if [ "${CI:-}" = true ]; then
            echo "FAIL: $CASE: needs the data folder $DATA_DIR (missing under CI=true)"
            failed=$((failed + 1))
        else
            echo "SKIP: $CASE (no data folder: $DATA_DIR)"
            skipped=$((skipped + 1))
        fi
        return
    fi
    T=$WORK/$CASE
    mkdir -p "$T"
    F=$T/body
    : >"$T/cmds"
    : >"$F"
    case_ok=1
    t0=$(now_ms)
    "case_$(echo "$CASE" | tr '-' '_')"
    ms=$(($(now_ms) - t0))
    # the commands first, then what the case is, then its outputs
    F=$OUT/$CASE.txt
    { cat "$T/cmds"; printf '# golden %s: %s\n' "$CASE" "$3"; cat "$T/body"; } >"$F"
    if [ "$case_ok" = 0 ]; then
        failed=$((failed + 1))
        return
    fi
    if [ "$mode" = check ]; then
        if [ ! -f "$GOLDEN/$CASE.txt" ]; then
            echo "DIFF: $CASE: no stored golden $GOLDEN/$CASE.txt"
            differ=$((differ + 1))
        elif ! diff -u "$GOLDEN/$CASE.txt" "$F" >"$T/diff"; then
            echo "DIFF: $CASE differs from $GOLDEN/$CASE.txt (${ms} ms):"
            head -60 "$T/diff"
            differ=$((differ + 1))
        else
            echo "ok: $CASE (${ms} ms)"
            passed=$((passed + 1))
        fi
    else
        echo "wrote: $F (${ms} ms)"
        passed=$((passed + 1))
    fi
}

# --- cases ----------------------------------------------------------------
# Scenario runs: every example scenario at its own seed, whole (run has no
# option to shorten the horizon; the longest, training-failures, takes about
# 2.5 s in Release).
run_scenario() {
    tm run "scenarios/$1.json" --seed 1 -o "$T/out.h5" --json && { json; h5 "$T/out.h5"; }
}
case_run_enterprise() { run_scenario enterprise; }
case_run_chat_breakeven() { run_scenario chat-breakeven; }
case_run_inference_heavy() { run_scenario inference-heavy; }
case_run_training_failures() { run_scenario training-failures; }

case_run_small_text() {
    # the table for people, once (wall-clock time replaced)
    tm run tests/golden/small.json --seed 7 --replication 1 -o "$T/out.h5" && text
}

case_compare() {
    tm compare tests/golden/small.json --policies fifo-first-fit,fifo-best-fit \
        --policy "easy: order=fifo placement=first-fit backfill=easy" \
        --replications 2 --seed 7 -j 2 -o "$T/compare.h5" --json &&
        { json; h5 "$T/compare.h5"; }
}

case_size() {
    tm size tests/golden/small.json --target "wait_p95<=30m" --pools h100 --replications 2 \
        --growth 0.1 --growth-months 6 --seed 7 -j 2 --json && json
    # the same on one process: the answer does not depend on -j
    tm size tests/golden/small.json --target "wait_p95<=30m" --pools h100 --replications 2 \
        --growth 0.1 --growth-months 6 --seed 7 -j 1 && text
}

case_breakeven() {
    tm breakeven scenarios/chat-breakeven.json --volumes 10B:1T:4 --replications 2 --refine 3 \
        --seed 1 -j 1 -o "$T/breakeven.h5" --json && { json; h5 "$T/breakeven.h5"; }
}

case_validate() {
    tm validate scenarios/enterprise.json tests/golden/small.json && text
}

case_export() {
    tm run tests/golden/small.json --seed 7 -o "$T/run.h5" -q &&
        tm export "$T/run.h5" --table timeseries --csv -o "$T/timeseries.csv" &&
        verbatim "$T/timeseries.csv"
    tm replay tests/golden/traces/helios.csv --format helios --fleet tests/golden/small.json \
        -o "$T/helios.h5" -q &&
        tm export "$T/helios.h5" --table jobs --csv --labels -o "$T/jobs.csv" &&
        verbatim "$T/jobs.csv"
}

case_sweep() {
    tm sweep plan tests/golden/sweep.json -o "$T/points" && text
    tm sweep run tests/golden/sweep.json -o "$T/points" -j 2 &&
        # the workers finish in any order: the per-point lines are sorted
        { sed -n '/^\[/!p' "$T/stdout" >"$T/a"; grep '^\[' "$T/stdout" | sed 's/^\[[0-9]*\/[0-9]*\] //' |
            sort >>"$T/a"; mv "$T/a" "$T/stdout"; text; }
    tm sweep merge tests/golden/sweep.json --dir "$T/points" -o "$T/merged.h5" && text
    for p in "$T"/points/p*.h5; do h5 "$p"; done
    h5 "$T/merged.h5"
}

# Replay: a slice of every trace format
case_replay_tarmac() {
    tm synth tests/golden/small.json --seed 7 -o "$T/small.csv" -q &&
        tm replay "$T/small.csv" --format tarmac --fleet tests/golden/small.json --max-jobs 400 \
            -o "$T/replay.h5" && { text; h5 "$T/replay.h5"; }
}
case_replay_helios() {
    tm replay tests/golden/traces/helios.csv --format helios --fleet tests/golden/small.json \
        -o "$T/replay.h5" && { text; h5 "$T/replay.h5"; }
}
case_replay_philly() {
    tm replay tests/golden/traces/philly.json --format philly --fleet tests/golden/small.json \
        -o "$T/replay.h5" && { text; h5 "$T/replay.h5"; }
}
case_replay_pai() {
    tm replay tests/golden/traces/pai_task.csv --format pai-tasks \
        --nodes "$DATA_DIR/alibaba-gpu-v2020-pai/pai_machine_spec.csv" --nodes-format pai \
        -o "$T/replay.h5" && { text; h5 "$T/replay.h5"; }
}
case_replay_swf_time() {
    tm replay "$DATA_DIR/pwa-swf-logs/KTH-SP2-1996-2.1-cln.swf.gz" --format swf --max-jobs 500 \
        -o "$T/replay.h5" && { text; h5 "$T/replay.h5"; }
}
case_replay_swf_window() {
    tm replay "$DATA_DIR/rlscheduler-lublin-swf/lublin_256.swf" --format swf --protocol window \
        --window 0:300 --window 300:300 \
        --policy "order=fifo placement=first-fit backfill=none" \
        --policy "order=fifo placement=first-fit backfill=easy" && text
}
case_replay_openb() {
    tm replay "$DATA_DIR/alibaba-gpu-v2023-openb/openb_pod_list_default.csv" --format openb \
        --nodes "$DATA_DIR/alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv" --max-jobs 1000 \
        -o "$T/replay.h5" && { text; h5 "$T/replay.h5"; }
}
case_replay_gavel() {
    tm replay "$DATA_DIR/gavel/traces/msr/seed=0/0e4a51.trace" --format gavel \
        --throughputs "$DATA_DIR/gavel/simulation_throughputs.json" --gavel-cluster 16:16:16 \
        --max-jobs 200 -o "$T/replay.h5" && { text; h5 "$T/replay.h5"; }
}
case_replay_azure() {
    tm replay "$DATA_DIR/azure-llm-inference-2023/splitwise_code.csv" --format azure-llm \
        --protocol profile --bin 300 -o "$T/profile.csv" && { text; verbatim "$T/profile.csv"; }
}
case_pack() {
    tm replay "$DATA_DIR/alibaba-gpu-v2023-openb/openb_pod_list_default.csv" --format openb \
        --protocol pack --nodes "$DATA_DIR/alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv" \
        --policy placement=fgd --policy placement=best-fit --seeds 2 --seed 1 --step 10 \
        -o "$T/pack.h5" --dat "$T/pack.dat" && { text; h5 "$T/pack.h5"; verbatim "$T/pack.dat"; }
}

run_case run-enterprise 0 "tarmac run of scenarios/enterprise.json, whole (30 d)"
run_case run-chat-breakeven 0 "tarmac run of scenarios/chat-breakeven.json, whole (7 d)"
run_case run-inference-heavy 0 "tarmac run of scenarios/inference-heavy.json, whole (14 d)"
run_case run-training-failures 0 "tarmac run of scenarios/training-failures.json, whole"
run_case run-small-text 0 "tarmac run's text table on tests/golden/small.json, replication 1"
run_case compare 0 "tarmac compare: three policies, two replications, tests/golden/small.json"
run_case size 0 "tarmac size: one pool of tests/golden/small.json, with growth"
run_case breakeven 0 "tarmac breakeven of scenarios/chat-breakeven.json, four volumes"
run_case validate 0 "tarmac validate of two scenarios"
run_case export 0 "tarmac export to CSV of a run's time series and of a replay's jobs (labels)"
run_case sweep 0 "tarmac sweep plan, run and merge of tests/golden/sweep.json (two points)"
run_case replay-tarmac 0 "tarmac synth, then replay of the first 400 jobs (format tarmac)"
run_case replay-helios 0 "replay of a hand-written Helios cluster_log (tests/golden/traces)"
run_case replay-philly 0 "replay of a hand-written Philly cluster_job_log (tests/golden/traces)"
run_case replay-pai 1 "replay of a hand-written PAI task table on the PAI machine table"
run_case replay-swf-time 1 "replay of the first 500 jobs of KTH-SP2 (SWF, gzip, time protocol)"
run_case replay-swf-window 1 "two 300-job windows of Lublin-256 (SWF), FCFS and EASY"
run_case replay-openb 1 "replay of the first 1000 pods of openb_pod_list_default on the GPU nodes"
run_case replay-gavel 1 "replay of the first 200 jobs of Gavel msr 0e4a51 on a 16:16:16 cluster"
run_case replay-azure 1 "Azure LLM code trace as a load profile, 5-minute bins"
run_case pack 1 "openb packing experiment (FGD, best-fit), 2 seeds, 10 % steps"

echo "goldens: $passed ok, $differ differ, $failed failed, $skipped skipped ($mode)"
if [ "$differ" -gt 0 ] || [ "$failed" -gt 0 ]; then
    if [ "$mode" = check ]; then
        echo "A golden that differs is a behaviour change. If it is intended, regenerate with"
        echo "    sh scripts/goldens.sh --update build"
        echo "and say in the commit why each changed golden changed."
    fi
    exit 1
fi
exit 0
