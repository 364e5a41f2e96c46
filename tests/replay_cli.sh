#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replay_cli.sh — `tarmac synth` and `tarmac replay` end to end: synth -> replay
# of the tarmac trace, every real trace format of ../shared/data through its
# protocol (the HDF5 files read back with h5py), and bad input with file:line.
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, PY, W, fail
D=${TARMAC_DATA_DIR:-}

# synth writes a trace that replays against the scenario's own fleet
"$BIN" synth -o "$W/default.csv" -q || fail "synth"
n=$(($(wc -l <"$W/default.csv") - 1))
[ "$n" -gt 100 ] || fail "synth wrote $n jobs"
"$BIN" run -q -o "$W/run.h5" || fail "run"
SRC=${TARMAC_SRC:?}
"$BIN" replay "$W/default.csv" --format tarmac --fleet "$SRC/scenarios/enterprise.json" \
    -o "$W/replay.h5" -q || fail "replay of the synth trace"
# the replay saw the synthesized jobs up to the horizon; the run stopped at it
"$PY" - "$W/run.h5" "$W/replay.h5" "$n" <<'PYEOF' || fail "synth/replay HDF5 check"
import sys, h5py
run, rep, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with h5py.File(rep) as f:
    a = int(f["summary/jobs_arrived"][()])
    assert a == n, (a, n)
    assert set(f["summary/classes"].keys()) == {"training", "fine-tuning", "quantization", "batch-inference", "embedding", "evaluation"}
with h5py.File(run) as g:
    assert int(g["summary/jobs_arrived"][()]) == n
print("ok: synth -> replay:", n, "jobs")
PYEOF

# bad input: file:line and exit 65
printf 'id,submit_us,duration_us\n1,0,5\n2,x,5\n' >"$W/bad.csv"
"$BIN" replay "$W/bad.csv" --format tarmac --fleet "$SRC/scenarios/enterprise.json" \
    -o "$W/bad.h5" 2>"$W/err"
code=$?
[ "$code" -eq 65 ] || fail "bad trace: exit $code, want 65"
grep -q "bad.csv:3" "$W/err" || fail "bad trace: message lacks bad.csv:3: $(cat "$W/err")"
[ ! -e "$W/bad.h5" ] || fail "bad trace left an output file"
"$BIN" replay "$W/bad.csv" --format tarmac --fleet "$SRC/scenarios/enterprise.json" --lenient \
    -o "$W/ok.h5" >"$W/out" 2>"$W/err" || fail "lenient replay"
grep -q "1 malformed skipped" "$W/out" || fail "lenient count: $(cat "$W/out")"
grep -q "skipped .*bad.csv:3" "$W/err" || fail "lenient report: $(cat "$W/err")"

# a trace with no job (a header only; or every row dropped): exit 65, no file
printf 'id,submit_us,duration_us\n' >"$W/empty.csv"
"$BIN" replay "$W/empty.csv" --format tarmac --fleet "$SRC/scenarios/enterprise.json" \
    -o "$W/empty.h5" 2>"$W/err"
code=$?
[ "$code" -eq 65 ] || fail "empty trace: exit $code, want 65"
grep -q "no job to replay" "$W/err" || fail "empty trace: message: $(cat "$W/err")"
[ ! -e "$W/empty.h5" ] || fail "empty trace left an output file"

# SWF estimates (docs/traces.md, "Estimates"), worked by hand. 4 one-processor
# nodes; job 1 (t 0, 2 procs, runs 100 s); job 2 (t 1, 4 procs, 10 s) waits
# for job 1; job 3 (t 2, 2 procs, 200 s) fits now. With estimates, job 2's
# shadow time is 100 with no extra processors and job 3 would end at 202 >
# 100, so EASY holds it: job 2 runs 100-110, job 3 110-310; waits 0, 99, 108,
# mean 69.0. Without estimates (field 9 = -1) job 1's end is unknown, job 2
# gets no reservation and EASY backfills greedily: job 3 runs 2-202, job 2
# 202-212; waits 0, 201, 0, mean 67.0.
cat >"$W/est.swf" <<'SWF'
; MaxNodes: 4
; MaxProcs: 4
1 0 -1 100 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1
2 1 -1 10 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1
3 2 -1 200 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1
SWF
mean_wait() { awk '$1 == "mean" { print $2 }' "$1"; }
"$BIN" replay "$W/est.swf" --format swf --protocol window --policy easy >"$W/est0" 2>"$W/est0.err" ||
    fail "swf estimates: requested"
[ "$(mean_wait "$W/est0")" = "67.0" ] || fail "EASY without estimates: mean wait $(mean_wait "$W/est0"), want 67.0"
[ "$(grep -c 'have no run-time estimate' "$W/est0.err")" -eq 1 ] ||
    fail "no warning (once) for jobs without estimates: $(cat "$W/est0.err")"
for e in runtime requested-else-runtime; do
    "$BIN" replay "$W/est.swf" --format swf --protocol window --policy easy --estimates "$e" \
        >"$W/est1" 2>"$W/est1.err" || fail "swf estimates: $e"
    [ "$(mean_wait "$W/est1")" = "69.0" ] || fail "EASY, estimates $e: mean wait $(mean_wait "$W/est1"), want 69.0"
    [ ! -s "$W/est1.err" ] || fail "estimates $e: unexpected warning: $(cat "$W/est1.err")"
done
"$BIN" replay "$W/est.swf" --format swf --protocol window --policy fifo-first-fit >/dev/null 2>"$W/est2.err"
[ ! -s "$W/est2.err" ] || fail "a policy without estimates got a warning: $(cat "$W/est2.err")"
"$BIN" replay "$W/est.swf" --format swf --estimates exact 2>/dev/null
[ $? -eq 64 ] || fail "--estimates exact: want exit 64"
"$BIN" replay "$W/bad.csv" --format tarmac --fleet "$SRC/scenarios/enterprise.json" \
    --estimates runtime 2>/dev/null
[ $? -eq 64 ] || fail "--estimates on a tarmac trace: want exit 64"

if [ -z "$D" ] || [ ! -d "$D" ]; then
    if [ "${CI:-}" = true ]; then fail "TARMAC_DATA_DIR missing under CI"; exit 1; fi
    echo "SKIPPED: real traces (TARMAC_DATA_DIR not found)"
    [ "$fails" -eq 0 ] && exit 77
    exit 1
fi
OB=$D/alibaba-gpu-v2023-openb
"$BIN" replay "$D/pwa-swf-logs/NASA-iPSC-1993-3.1-cln.swf.gz" --format swf --protocol window \
    --window 0:2000 --window 2000:2000 >"$W/win" || fail "swf window"
grep -q "mean" "$W/win" || fail "swf window output: $(cat "$W/win")"
"$BIN" replay "$D/rlscheduler-lublin-swf/lublin_256.swf" --format swf -o "$W/lublin.h5" -q ||
    fail "swf time replay"
"$BIN" replay "$OB/openb_pod_list_default.csv" --format openb --protocol pack \
    --nodes "$OB/openb_node_list_gpu_node.csv" --seeds 2 --step 5 -o "$W/pack.h5" \
    --dat "$W/pack.dat" -q || fail "openb pack"
"$BIN" replay "$OB/openb_pod_list_gpuspec10.csv" --format openb \
    --nodes "$OB/openb_node_list_all_node.csv" -o "$W/openb.h5" -q || fail "openb time replay"
"$BIN" replay "$D/alibaba-gpu-v2023-openb/openb_pod_list_gpushare40.csv" --format openb \
    --nodes "$OB/openb_node_list_gpu_node.csv" -o "$W/x.h5" 2>"$W/err"
grep -q "openb_pod_list_gpushare40.csv:[0-9]*: expected rows in non-decreasing submit order" \
    "$W/err" || fail "unsorted pod list: $(cat "$W/err")"
"$BIN" replay "$D/gavel/traces/msr/seed=0/0e4a51.trace" --format gavel \
    --throughputs "$D/gavel/simulation_throughputs.json" --gavel-cluster 64:64:64 \
    -o "$W/gavel.h5" -q || fail "gavel replay"
"$BIN" replay "$D/azure-llm-inference-2023/splitwise_code.csv" --format azure-llm --bin 60 \
    -o "$W/profile.csv" -q || fail "azure profile"
[ "$(wc -l <"$W/profile.csv")" -eq 59 ] || fail "azure profile rows: $(wc -l <"$W/profile.csv")"
"$PY" - "$W" "$D" <<'PYEOF' || fail "HDF5 read-back"
import sys, csv, json, h5py, numpy as np
w, d = sys.argv[1], sys.argv[2]
with h5py.File(w + "/pack.h5") as f:
    x = f["packing/arrived_pct"][()]
    assert x[0] == 0 and abs(x[-1] - 130) < 1e-9, x
    for p in ("p00", "p01"):
        g = f["packing/policies/" + p]
        assert "placement=" in g.attrs["spec"]
        a = g["alloc_pct_mean"][()]
        assert len(a) == len(x) and np.all(np.diff(a) >= -1e-9) and a[-1] <= 100
        assert g["failed_pods_mean"][-1] > 0
        assert g["frag_pct_mean"].attrs["units"] == "percent"
        assert len(g["pods"][()]) == 2
        assert np.allclose(g["seeds/s00/alloc_pct"][()] + 0, g["seeds/s00/alloc_pct"][()])
with h5py.File(w + "/openb.h5") as f:
    assert int(f["summary/jobs_arrived"][()]) == 8152
    # a trace's durations are run times on whatever GPU ran them: every pod
    # runs its recorded time, on any type (the list read here with csv)
    # (except the pods no node can ever hold: more CPU than any node of
    # their GPU models has, which the replay rejects)
    ob = d + "/alibaba-gpu-v2023-openb/"
    max_cpu = {}
    with open(ob + "openb_node_list_all_node.csv") as c:
        for row in csv.DictReader(c):
            max_cpu[row["model"]] = max(max_cpu.get(row["model"], 0), int(row["cpu_milli"]))
    state = f["jobs/state"][()]
    states = f["jobs/state"].attrs["labels"].split("\n")
    ids, run = f["jobs/trace_id"][()], f["jobs/run_s"][()]
    got = dict(zip(ids.tolist(), run.tolist()))
    rejected = set(ids[state == states.index("rejected")].tolist())
    want, gpu_s = {}, 0.0
    with open(ob + "openb_pod_list_gpuspec10.csv") as c:
        for row in csv.DictReader(c):
            i = int(row["name"].rsplit("-", 1)[1])
            if int(row["num_gpu"]) > 0:
                models = row["gpu_spec"].split("|") if row["gpu_spec"] else [
                    k for k in max_cpu if k]
                fits = int(row["cpu_milli"]) <= max(max_cpu.get(k, 0) for k in models)
                assert fits == (i not in rejected), ("rejected?", i, row)
            if i in rejected or not row["deletion_time"]:
                continue
            # docs/traces.md: from scheduled_time, or creation_time for a pod
            # never scheduled (Pending)
            run_s = float(row["deletion_time"]) - float(
                row["scheduled_time"] or row["creation_time"])
            want[i] = run_s
            gpu_s += int(row["num_gpu"]) * int(row["gpu_milli"]) / 1000 * run_s
    assert 0 < len(rejected) < 10, rejected
    bad = [i for i in want if not abs(got[i] - want[i]) <= 1e-6 * max(1.0, want[i])]
    assert not bad, ("openb run times", bad[:5], [(got[i], want[i]) for i in bad[:5]])
    alloc = f["summary/gpu_hours_alloc"][()] * 3600
    assert abs(alloc - gpu_s) <= 1e-6 * gpu_s, (alloc, gpu_s)
with h5py.File(w + "/gavel.h5") as f:
    assert int(f["summary/jobs_arrived"][()]) == 1181
    assert len(f["summary/classes"].keys()) == 26
    # per-type speeds: a job on one node runs total_steps / its throughput on
    # that node's type (the matrix read here with json)
    m = json.load(open(d + "/gavel/simulation_throughputs.json"))
    rows = open(d + "/gavel/traces/msr/seed=0/0e4a51.trace").read().split("\n")
    labels = f["jobs/gpu_type"].attrs["labels"].split("\n")
    j = f["jobs"]
    n_checked = 0
    for k, (i, t, r, nn) in enumerate(zip(j["trace_id"][()], j["gpu_type"][()], j["run_s"][()],
                                          j["n_nodes"][()])):
        jt, steps, scale = (lambda x: (x[0], float(x[4]), int(x[6])))(rows[i - 1].split("\t"))
        key = "('%s', %d)" % (jt, scale)
        tp = m[labels[t].lower()].get(key, {}).get("null")
        assert tp != 0, ("placed where the matrix says it cannot run", i, labels[t], key)
        if nn == 1 and tp:
            assert abs(r - steps / tp) <= 1e-6 * r + 1, (i, labels[t], key, r, steps / tp)
            n_checked += 1
    assert n_checked > 500, n_checked
with h5py.File(w + "/lublin.h5") as f:
    assert int(f["summary/jobs_completed"][()]) == 10000
print("ok: HDF5 read back")
PYEOF
if [ "$fails" -eq 0 ]; then echo "replay_cli: all checks passed"; exit 0; fi
echo "replay_cli: $fails check(s) failed"
exit 1
