#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# signal_phases.sh — SIGINT and SIGTERM end every long phase of every command
# (docs/hardening.md, "Injected faults"): exit 130, a message saying what was
# interrupted, no output file and no temporary left, and the time from the
# signal to the exit, measured and printed. The promise is "within a second";
# on a loaded 2-core machine a phase fails only past 5 s.
#
# Inputs big enough to keep each phase busy for seconds are made on the fly
# in a temporary folder: a job trace (replay, and the file export reads), a
# 10-year scenario (run), a packing experiment of 3000 nodes, an Azure trace
# whose load profile has millions of bins (the CSV being written), an SWF
# window, a scenario of 120 days (compare, size, sweep points), a scenario of
# 100 million arrivals (synth), a `place` request of 40000 queued jobs on
# 4000 nodes, and a gnuplot that never finishes its picture (plot). Machines
# differ in speed, so a phase whose command finished before its signal was
# due is not a pass or a failure but a too-small input: where the input has a
# size (the job trace, the SWF window, the profile's bins, size's horizon) it
# is made four times larger and the phase is tried again, at most three times. Each
# command runs in its own folder, so anything it leaves is seen; a watchdog
# kills a command that does not stop within 30 s (a failure, not a hang).
set -u
BIN=${TARMAC_BIN:?}
SRC=${TARMAC_SRC:?}
W=$(mktemp -d "${TMPDIR:-/tmp}/tarmac-sigphase.XXXXXX") || exit 1
# a fake gnuplot that outlived its tarmac (a failure) is not left running
trap 'for p in $(cat "$W/gnuplot.pids" 2>/dev/null); do kill "$p" 2>/dev/null; done; rm -rf "$W"' EXIT
fails=0 worst=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
now_ms() { date +%s%3N; }

# phase NAME SIG DELAY PATTERN KEEP GROW CMD...: run CMD in the folder
# W/NAME.SIG (made empty), send SIG after DELAY seconds; it must exit 130 with
# PATTERN (grep -E) on stderr and leave nothing in its folder but files
# matching KEEP (grep -E on the relative path; "" keeps nothing), never a
# temporary. If CMD has already ended when the signal is due, GROW (a shell
# function, or - for none) makes its input larger and the phase runs again.
# DELAY "tmp+S" waits (up to 30 s) for CMD's temporary output file to appear,
# then S seconds: the signal then lands in the writing phase however long the
# start took on a loaded machine.
running() { # PID: is it alive and not yet a zombie?
    st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
    [ -n "$st" ] && [ "$st" != Z ]
}
phase() {
    name=$1 sig=$2 delay=$3 pat=$4 keep=$5 grow=$6
    shift 6
    d="$W/$name.$sig"
    tries=0
    while :; do
        rm -rf "$d"
        mkdir -p "$d"
        (cd "$d" && exec "$@") >"$d.out" 2>"$d.err" &
        pid=$!
        case $delay in
        tmp+*)
            i=0
            while [ $i -lt 300 ] && running "$pid" && ! ls -A "$d" | grep -q '\.tmp\.'; do
                sleep 0.1
                i=$((i + 1))
            done
            sleep "${delay#tmp+}"
            ;;
        *) sleep "$delay" ;;
        esac
        running "$pid" && break
        wait "$pid"
        rc=$?
        tries=$((tries + 1))
        if [ "$grow" = - ] || [ "$tries" -gt 3 ]; then
            fail "$name, SIG$sig: the command ended (exit $rc) before its signal at ${delay}s; the input is too small for this machine"
            return
        fi
        echo "note: $name, SIG$sig: ended before its signal at ${delay}s; input made 4x larger"
        "$grow"
    done
    t0=$(now_ms)
    kill -"$sig" "$pid" 2>/dev/null
    (sleep 30 && kill -9 "$pid" 2>/dev/null) &
    dog=$!
    wait "$pid"
    code=$?
    t1=$(now_ms)
    kill "$dog" 2>/dev/null
    wait "$dog" 2>/dev/null
    ms=$((t1 - t0))
    [ "$ms" -gt "$worst" ] && worst=$ms
    msg=$(tr '\n' ' ' <"$d.err" | cut -c1-220)
    left=$(cd "$d" && find . -mindepth 1 ! -type d | sed 's|^\./||' | sort)
    bad=$(printf '%s\n' "$left" | grep -v '^$' | grep -E '\.tmp\.|\.run\.' || true)
    if [ -n "$keep" ]; then
        bad="$bad$(printf '%s\n' "$left" | grep -v '^$' | grep -v -E "$keep" || true)"
    else
        bad="$bad$left"
    fi
    if [ "$code" -ne 130 ]; then
        fail "$name, SIG$sig after ${delay}s: exit $code, want 130 (${ms} ms; $msg)"
    elif ! grep -q -E "$pat" "$d.err"; then
        fail "$name, SIG$sig: the message lacks '$pat': $msg"
    elif [ -n "$bad" ]; then
        fail "$name, SIG$sig: left behind: $(echo $bad)"
    elif [ "$ms" -gt 5000 ]; then
        fail "$name, SIG$sig: exit 130, but ${ms} ms after the signal"
    else
        echo "ok: $name, SIG$sig after ${delay}s: exit 130 in ${ms} ms: $msg"
    fi
}

# --- inputs ---
printf '{"pools":[{"gpu_type":"H100","nodes":1000}]}\n' >"$W/fleet.json"
# the job trace: N jobs, each half a second, one per millisecond (1.6
# million: with the trace parsed on a second core, 400,000 were replayed in
# about 0.3 s, and a SIGINT at 0.3 s could land after the last event, where
# the run ends with exit 0)
n_trace=1600000
make_trace() {
    awk -v n=$n_trace 'BEGIN { print "id,submit_us,duration_us"; for (i = 1; i <= n; i++) print i "," i * 1000 ",500000" }' \
        >"$W/trace.csv"
}
grow_trace() { n_trace=$((n_trace * 4)); make_trace; }
make_trace
sed 's/"horizon": "2d"/"horizon": "3650d"/' "$SRC/tests/golden/small.json" >"$W/ten-years.json"
sed 's/"horizon": "2d"/"horizon": "120d"/' "$SRC/tests/golden/small.json" >"$W/days120.json"
# size's scenario: 120 days take about a second of a quiet machine's search,
# so it grows (4x the horizon) where its search ends before the signal
size_days=120
make_size() {
    sed "s/\"horizon\": \"2d\"/\"horizon\": \"${size_days}d\"/" "$SRC/tests/golden/small.json" \
        >"$W/size.json"
}
grow_size() { size_days=$((size_days * 4)); make_size; }
make_size
awk 'BEGIN { print "sn,cpu_milli,memory_mib,gpu,model"
    for (i = 0; i < 3000; i++) printf "n%d,96000,786432,8,V100M32\n", i }' >"$W/nodes.csv"
awk 'BEGIN { print "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time"
    split("100 250 500 750 1000", m, " ")
    for (i = 0; i < 60000; i++) printf "openb-pod-%d,1000,1024,1,%d,,LS,Running,%d,%d,%d\n", i, m[1 + i % 5], i, i + 100, i }' \
    >"$W/pods.csv"
# two requests this far apart (seconds): the profile has span/60 bins
span_azure=200000000
make_azure() {
    printf 'arrived_at,num_prefill_tokens,num_decode_tokens\n0,5,10\n%d,5,10\n' $span_azure >"$W/azure.csv"
}
grow_azure() { span_azure=$((span_azure * 4)); make_azure; }
make_azure
n_window=400000
make_window() {
    awk -v n=$n_window 'BEGIN { print "; MaxNodes: 64"; print "; MaxProcs: 64"
        for (i = 1; i <= n; i++) printf "%d %d -1 600 4 -1 -1 4 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n", i, i * 10 }' \
        >"$W/window.swf"
}
grow_window() { n_window=$((n_window * 4)); make_window; }
make_window
printf '{"horizon": "3650d", "fleet": {"pools": [{"gpu_type": "H100", "nodes": 1}]},
 "workload": {"classes": [{"name": "a", "arrival": {"rate_per_hour": 1000000}, "duration": "1h"}]}}\n' \
    >"$W/flood.json"
printf '{"scenario": "%s", "replications": 4, "grid": {"policy": ["fifo-first-fit", "fifo-best-fit"], "fleet.pools[0].nodes": [6, 8, 10]}}\n' \
    "$W/days120.json" >"$W/sweep.json"
# a scheduling pass of seconds: N queued jobs, conservative backfilling
n_queue=160000
make_snapshot() {
    awk -v q=$n_queue 'BEGIN { printf "{\"now_us\": 0, \"gpu_types\": [{\"name\": \"H100\", \"mem_mib\": 81920}], \"nodes\": ["
        for (i = 0; i < 4000; i++) printf "%s{\"type\": \"H100\", \"gpus\": 8}", i ? "," : ""
        printf "], \"queue\": ["
        for (i = 0; i < q; i++) printf "%s{\"id\": %d, \"submit_us\": %d, \"gpus\": %d, \"estimate_us\": 3600000000}", i ? "," : "", i + 1, i, 1 + i % 8
        print "], \"policy\": \"order=fifo placement=best-fit backfill=conservative\"}" }' >"$W/snapshot.json"
}
grow_snapshot() { n_queue=$((n_queue * 4)); make_snapshot; }
make_snapshot
# the file export reads (the job trace's jobs) and one plot draws from
make_jobs() {
    "$BIN" replay "$W/trace.csv" --format tarmac --fleet "$W/fleet.json" -q -o "$W/jobs.h5" ||
        fail "cannot make the export input"
}
grow_jobs() { grow_trace; make_jobs; }
make_jobs
"$BIN" run "$SRC/tests/golden/small.json" -q -o "$W/small.h5" || fail "cannot make the plot input"
# a gnuplot that never finishes its picture (its pid noted, to see it killed)
mkdir -p "$W/bin"
printf '#!/bin/sh\necho $$ >>"%s/gnuplot.pids"\nexec sleep 60\n' "$W" >"$W/bin/gnuplot"
chmod +x "$W/bin/gnuplot"

# --- the phases, each with both signals ---
for sig in INT TERM; do
    phase run $sig 1 'run: stopped by a signal' '' - \
        "$BIN" run "$W/ten-years.json" -q -o out.h5
    phase replay-time $sig 0.3 'stopped by a signal|interrupted while (reading|writing)' '' grow_trace \
        "$BIN" replay "$W/trace.csv" --format tarmac --fleet "$W/fleet.json" -q -o out.h5
    phase replay-window $sig 0.3 'interrupted' '' grow_window \
        "$BIN" replay "$W/window.swf" --format swf --protocol window -q
    phase replay-pack $sig 1 'pack: interrupted while placing the pods' '' - \
        "$BIN" replay "$W/pods.csv" --format openb --protocol pack --nodes "$W/nodes.csv" \
        --policy placement=fgd:scan --seeds 2 -q -o out.h5 --dat out.dat
    phase replay-profile $sig tmp+0.2 'interrupted while writing the load profile' '' grow_azure \
        "$BIN" replay "$W/azure.csv" --format azure-llm --protocol profile --bin 60 -q -o profile.csv
    phase synth $sig 1 'synth: interrupted' '' - \
        "$BIN" synth "$W/flood.json" --limit arrivals=1e12 --limit events=1e13 -q -o trace.csv
    phase compare $sig 1 'compare: interrupted while running the replications' '' - \
        "$BIN" compare "$W/days120.json" --policies fifo-first-fit,fifo-best-fit --replications 100 \
        -j 2 -q -o out.h5
    phase compare-j1 $sig 1 'compare: interrupted while running the replications' '' - \
        "$BIN" compare "$W/days120.json" --policies fifo-first-fit,fifo-best-fit --replications 100 \
        -j 1 -q -o out.h5
    phase size $sig 1 'size: interrupted while simulating the fleet' '' grow_size \
        "$BIN" size "$W/size.json" --target 'wait_p95<=1m' -j 2 -q
    phase breakeven $sig 1 'breakeven: interrupted while simulating the fleet' '' - \
        "$BIN" breakeven "$SRC/scenarios/chat-breakeven.json" -j 2 -q -o out.h5
    # finished points stay (whole files, for --resume); nothing else
    phase sweep $sig 2 'sweep: interrupted while running the points' '^points/p[0-9]{6}\.h5$' - \
        "$BIN" sweep run "$W/sweep.json" -o points -j 2 -q
    phase export $sig 0.5 'export: interrupted while (reading the table|writing out\.csv)' '' grow_jobs \
        "$BIN" export "$W/jobs.h5" --table jobs --labels -o out.csv
    # stdout holds the error object alone, no decision
    fails_before=$fails
    phase place $sig 0.5 'place: .*interrupted while answering' '' grow_snapshot \
        "$BIN" place "$W/snapshot.json" --timeout 0
    if [ "$fails" -eq "$fails_before" ] && ! { grep -q -x '{"error":{"where":".*","message":"interrupted (SIGINT or SIGTERM) before an answer","status":"TM_ERR_INTERRUPTED"}}' \
        "$W/place.$sig.out" && [ "$(wc -l <"$W/place.$sig.out")" -eq 1 ]; }; then
        fail "place, SIG$sig: stdout is not the error object alone: $(head -c 300 "$W/place.$sig.out")"
    fi
    : >>"$W/gnuplot.pids"
    n_before=$(wc -l <"$W/gnuplot.pids")
    # the figures' data and scripts are written before gnuplot is started
    # (each whole); no picture, no temporary
    phase plot $sig 2 'plot: interrupted while gnuplot drew' '^figs/[a-z_]+\.(dat|gp)$' - \
        env PATH="$W/bin:$PATH" "$BIN" plot "$W/small.h5" -o figs -q
    for p in $(tail -n +$((n_before + 1)) "$W/gnuplot.pids"); do
        kill -0 "$p" 2>/dev/null && fail "plot, SIG$sig: gnuplot ($p) still runs"
    done
done

echo "signal_phases: the slowest exit took $worst ms after its signal"
if [ "$fails" -eq 0 ]; then echo "signal_phases: all checks passed"; exit 0; fi
echo "signal_phases: $fails check(s) failed"
exit 1
