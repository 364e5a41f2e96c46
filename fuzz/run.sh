#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh — replay the stored corpus through every fuzz target, then fuzz each
# for a bounded time.
#
# Usage: sh fuzz/run.sh BUILD_DIR            (a build configured with -DTARMAC_FUZZ=ON)
#
#   TARMAC_FUZZ_SECONDS   fuzzing time per target (default 8; 0 = replay only)
#   TARMAC_FUZZ_TARGETS   space-separated targets (default: every fuzz_* in BUILD_DIR/fuzz)
#   TARMAC_FUZZ_JOBS      parallel fuzzing processes per target (default 1)
#   TARMAC_FUZZ_TIMEOUT   seconds one input may take (default 10)
#   TARMAC_FUZZ_RSS_MB    resident memory a target may reach (default 2048)
#   TARMAC_FUZZ_MALLOC_MB largest single allocation (default 512)
#
# Limits make a run-away a finding, in the replay as in the fuzzing: an input
# that takes longer than TARMAC_FUZZ_TIMEOUT (-timeout), grows the process
# past TARMAC_FUZZ_RSS_MB (-rss_limit_mb) or asks for one block of
# TARMAC_FUZZ_MALLOC_MB or more (-malloc_limit_mb) fails the run like a
# crash, with the input kept. The inputs are at most 64 KiB (-max_len), and
# every reader bounds what one input can make it hold (16 MiB per trace line,
# 10^7 profile or time-series bins): 512 MB in one allocation is a bug.
#
# The stored corpus is fuzz/corpus/TARGET (seeds from real files, and every
# input that once crashed, fuzz/README.md). Replay runs each stored input once
# and fails on any crash, leak, UB report or timeout. Fuzzing then starts from
# the stored corpus and a working corpus in BUILD_DIR/fuzz-work/TARGET (kept
# between runs, not stored); a crash is written to BUILD_DIR/fuzz-artifacts/
# and fails the run: reproduce it with `BUILD_DIR/fuzz/TARGET FILE`, fix it,
# and store the input under fuzz/corpus/TARGET as a regression case.
set -u
build=${1:?usage: fuzz/run.sh BUILD_DIR}
src=$(cd "$(dirname "$0")" && pwd)
secs=${TARMAC_FUZZ_SECONDS:-8}
jobs=${TARMAC_FUZZ_JOBS:-1}
timeout=${TARMAC_FUZZ_TIMEOUT:-10}
rss_mb=${TARMAC_FUZZ_RSS_MB:-2048}
malloc_mb=${TARMAC_FUZZ_MALLOC_MB:-512}
for v in "$secs" "$jobs" "$timeout" "$rss_mb" "$malloc_mb"; do
    case "$v" in '' | *[!0-9]*) echo "fuzz/run.sh: '$v' is not a whole number (TARMAC_FUZZ_*)"; exit 2 ;; esac
done
limits="-timeout=$timeout -rss_limit_mb=$rss_mb -malloc_limit_mb=$malloc_mb"
bin="$build/fuzz"
[ -d "$bin" ] || { echo "fuzz/run.sh: no $bin: configure with -DTARMAC_FUZZ=ON"; exit 2; }
targets=${TARMAC_FUZZ_TARGETS:-$(cd "$bin" && ls fuzz_* 2>/dev/null | grep -v '\.' | sort)}
[ -n "$targets" ] || { echo "fuzz/run.sh: no fuzz targets built in $bin"; exit 2; }
mkdir -p "$build/fuzz-work" "$build/fuzz-artifacts" "$build/fuzz-logs"
# detect_leaks: libFuzzer's -detect_leaks checks each input; UBSan aborts on
# its first report, so "UB" is a crash like any other.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# -jobs makes libFuzzer write fuzz-N.log into the current folder: only with
# more than one job (those logs are ignored by git)
par=""
[ "$jobs" -gt 1 ] && par="-jobs=$jobs -workers=$jobs"
failed=0 n_ok=0 n_fail=0
start=$(date +%s)
for t in $targets; do
    stored="$src/corpus/${t#fuzz_}"
    work="$build/fuzz-work/${t#fuzz_}"
    log="$build/fuzz-logs/$t.log"
    mkdir -p "$work"
    [ -d "$stored" ] || { echo "FAIL: $t: no stored corpus $stored"; failed=1; n_fail=$((n_fail + 1)); continue; }
    # 1. replay: every stored input, once, under the same limits as fuzzing
    if ! "$bin/$t" $limits "$stored"/* >"$log" 2>&1; then
        echo "FAIL: $t: a stored input fails (log: $log)"
        grep -m1 -A12 'ERROR:\|runtime error\|deadly signal\|timeout\|out-of-memory\|malloc(' "$log" ||
            tail -30 "$log"
        failed=1; n_fail=$((n_fail + 1)); continue
    fi
    n_in=$(ls "$stored" | wc -l)
    # 2. fuzz for a bounded time (an input past a limit is a finding)
    if [ "$secs" -gt 0 ]; then
        if ! "$bin/$t" -max_total_time="$secs" $limits -max_len=65536 \
            $par -print_final_stats=1 \
            -artifact_prefix="$build/fuzz-artifacts/$t-" "$work" "$stored" >>"$log" 2>&1; then
            echo "FAIL: $t: the fuzzer found a crash (log: $log; input in $build/fuzz-artifacts/)"
            grep -m1 -A12 'ERROR:\|runtime error\|deadly signal\|timeout\|out-of-memory\|malloc(' "$log"
            failed=1; n_fail=$((n_fail + 1)); continue
        fi
        execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
        echo "ok: $t: $n_in stored inputs replayed; fuzzed ${secs}s, ${execs:-?} executions"
    else
        echo "ok: $t: $n_in stored inputs replayed"
    fi
    n_ok=$((n_ok + 1))
done
echo "fuzz: replay and fuzzing took $(( $(date +%s) - start )) s"
echo "fuzz: $n_ok passed, $n_fail failed"
exit $failed
