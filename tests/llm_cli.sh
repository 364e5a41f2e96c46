#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# llm_cli.sh — `tarmac replay --format azure-llm` with a fleet: the request-
# level serving protocol end to end (the HDF5 file read back with h5py), its
# options, and bad input (a malformed iteration profile named by line, a
# deployment the fleet cannot hold) with nothing left behind.
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, PY, W, fail, expect
D=${TARMAC_DATA_DIR:-}

# a small trace: 400 requests over 40 s, prompts 100..1600, outputs 20..220
"$PY" - "$W/t.csv" <<'PYEOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("arrived_at,num_prefill_tokens,num_decode_tokens\n")
    for i in range(400):
        f.write(f"{i * 0.1:.3f},{100 + (i * 37) % 1500},{20 + (i * 53) % 200}\n")
PYEOF
printf '{"fleet": {"pools": [{"name": "h", "gpu_type": "H100", "nodes": 1, "gpus_per_node": 8}]}}\n' >"$W/fleet.json"

# --fleet selects the serve protocol; replicas default to what the fleet holds
"$BIN" replay "$W/t.csv" --format azure-llm --fleet "$W/fleet.json" -o "$W/a.h5" >"$W/a.txt" ||
    fail "serve with --fleet"
grep -q "8 replicas" "$W/a.txt" || fail "serve: not 8 replicas: $(head -2 "$W/a.txt")"
grep -q "^SLO (TTFT <= 2 s, TPOT <= 200 ms)" "$W/a.txt" || fail "serve: no SLO line"
"$PY" - "$W/a.h5" <<'PYEOF' || fail "serve HDF5 check"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1]) as f:
    s = f["llm/service"]
    assert int(s["counted"][()]) == 400
    d = f["llm/deployment"].attrs
    assert d["replicas"] == 8 and d["tp"] == 1 and d["gpu_type"] == "H100", dict(d)
    ttft = f["llm/requests/ttft_s"][()]
    assert np.all(ttft > 0) and abs(np.percentile(ttft, 50) - s["ttft_p50_s"][()]) < 0.01
    per = sum(int(f[f"llm/replicas/r{k:04d}/counted"][()]) for k in range(8))
    assert per == 400, per
    assert f["llm/series/batch_mean"].shape[0] == 8
    assert "provenance" in f and "tarmac_version" in f["provenance"]
PYEOF

# TP 2 of the 70B model on 8 GPUs: 4 replicas; Sarathi; a replica count too large
"$BIN" replay "$W/t.csv" --format azure-llm --fleet "$W/fleet.json" --model llama-3.1-70b-fp8 \
    --tp 2 --batching sarathi --chunk 256 -o "$W/b.h5" >"$W/b.txt" || fail "serve TP2"
grep -q "4 replicas, sarathi" "$W/b.txt" || fail "TP2: $(head -1 "$W/b.txt")"
expect 64 "the fleet holds 4 replicas of 2 x H100 in one node, not 5" replay "$W/t.csv" \
    --format azure-llm --fleet "$W/fleet.json" --model llama-3.1-70b-fp8 --tp 2 --replicas 5 \
    -o "$W/c.h5"
expect 64 "leave no KV-cache block" replay "$W/t.csv" --format azure-llm --protocol serve \
    --model llama-3.1-405b-fp8 --gpu L4 -o "$W/c.h5"
expect 64 "unknown model 'gpt'" replay "$W/t.csv" --format azure-llm --protocol serve --model gpt \
    -o "$W/c.h5"
expect 64 "--tp needs 1, 2, 4 or 8" replay "$W/t.csv" --format azure-llm --protocol serve --tp 3
expect 64 "need --protocol serve" replay "$W/t.csv" --format azure-llm --protocol profile \
    --model llama-3.1-8b
expect 64 "cannot go to standard output" replay "$W/t.csv" --format azure-llm --fleet "$W/fleet.json" -o -
[ -e "$W/c.h5" ] && fail "a failed serve left c.h5"

# API overflow: one replica of batch 4 and a queue of 2: some go to the API, with their cost
"$BIN" replay "$W/t.csv" --format azure-llm --protocol serve --replicas 1 --max-batch 4 \
    --max-queue 2 --api-price 1:3 --load-scale 20 -o "$W/d.h5" >"$W/d.txt" || fail "serve API"
"$PY" - "$W/d.h5" <<'PYEOF' || fail "API HDF5 check"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1]) as f:
    s = f["llm/service"]
    api = int(s["api"][()])
    assert api > 0 and api + int(s["counted"][()]) == 400, api
    rep = f["llm/requests/replica"][()]
    i, o = f["llm/requests/prompt_tokens"][()], f["llm/requests/output_tokens"][()]
    want = ((i * 1.0 + o * 3.0)[rep == -1]).sum() / 1e6
    assert abs(s["api_usd"][()] - want) < 1e-9 * max(want, 1), (s["api_usd"][()], want)
PYEOF

# a measured profile: a flat 10 ms per iteration without batching gives TPOT
# 10 ms exactly (with batching, prefills of others pause a decode: longer)
printf 'prefill_tokens,decode_seqs,kv_tokens,time_ms\n0,1,0,10\n' >"$W/flat.csv"
"$BIN" replay "$W/t.csv" --format azure-llm --protocol serve --iter-profile "$W/flat.csv" \
    --replicas 4 --max-batch 1 -q -o "$W/e.h5" || fail "serve with a profile"
"$PY" -c "
import h5py, numpy as np
f = h5py.File('$W/e.h5')
t = f['llm/requests/tpot_s'][()]
assert np.allclose(t[~np.isnan(t)], 0.010), t[:5]
assert f['llm/deployment'].attrs['iteration_time'] == '$W/flat.csv'
" || fail "flat profile TPOT"
printf 'prefill_tokens,decode_seqs,kv_tokens,time_ms\n0,1,0,10\n0,2,zero,12\n' >"$W/bad.csv"
expect 65 "bad.csv:3: kv_tokens: expected an integer" replay "$W/t.csv" --format azure-llm \
    --protocol serve --iter-profile "$W/bad.csv" -o "$W/f.h5"
printf 'prefill_tokens,decode_seqs,kv_tokens,time_ms\n0,1,0,10\n0,8,0,12\n512,1,0,30\n' >"$W/hole.csv"
expect 65 "hole.csv: expected a full grid .* got no row for 512, 8, 0" replay "$W/t.csv" \
    --format azure-llm --protocol serve --iter-profile "$W/hole.csv" -o "$W/f.h5"
expect 66 "nope.csv" replay "$W/t.csv" --format azure-llm --protocol serve \
    --iter-profile "$W/nope.csv" -o "$W/f.h5"
[ -e "$W/f.h5" ] && fail "a failed serve left f.h5"

# "mode": "request" on a scenario service: the fleet run's accounting of the
# service simulates its requests. A TPOT SLO of 1 ms no replica can meet
# shows the hook is live (the hourly model has no TPOT: it meets its SLO).
SRC=${TARMAC_SRC:?}
"$PY" - "$SRC/scenarios/chat-breakeven.json" "$W" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["horizon"] = "3h"
s.pop("cost", None)
v = s["workload"]["services"][0]
v["load"] = {"rate_per_s": 5}
json.dump(s, open(sys.argv[2] + "/hourly.json", "w"))
v["mode"] = "request"
json.dump(s, open(sys.argv[2] + "/req.json", "w"))
v["request"] = {"batching": "sarathi", "tpot": "1ms"}
json.dump(s, open(sys.argv[2] + "/tight.json", "w"))
v["request"] = {"batching": "orca"}
json.dump(s, open(sys.argv[2] + "/bad1.json", "w"))
v["request"] = {"model": "gpt-5"}
json.dump(s, open(sys.argv[2] + "/bad2.json", "w"))
v["mode"] = "hourly"
v["request"] = {"tpot": "1ms"}
json.dump(s, open(sys.argv[2] + "/bad3.json", "w"))
v.pop("request")
v["mode"] = "exact"
json.dump(s, open(sys.argv[2] + "/bad4.json", "w"))
PYEOF
for f in hourly req tight; do
    "$BIN" run "$W/$f.json" -q -o "$W/$f.h5" || fail "run $f.json"
done
"$PY" - "$W" <<'PYEOF' || fail "request mode in a fleet run"
import sys, h5py
att = {}
for f in ("hourly", "req", "tight"):
    with h5py.File(f"{sys.argv[1]}/{f}.h5") as h:
        att[f] = h["summary/services/chat/slo_attainment"][()]
assert att["hourly"] > 0.99 and att["req"] > 0.99, att
assert att["tight"] < 0.01, att
PYEOF
expect 65 'workload.services\[0\].request.batching: expected "vllm" or "sarathi", got "orca"' \
    run "$W/bad1.json" -q -o "$W/x.h5"
expect 65 'workload.services\[0\].request.model: request mode needs a model' run "$W/bad2.json" \
    -q -o "$W/x.h5"
expect 65 'workload.services\[0\].request: only with "mode": "request"' run "$W/bad3.json" -q \
    -o "$W/x.h5"
expect 65 'workload.services\[0\].mode: expected "hourly" or "request", got "exact"' \
    run "$W/bad4.json" -q -o "$W/x.h5"
[ -e "$W/x.h5" ] && fail "a refused scenario left x.h5"

# the Azure conversation hour against one 8-replica deployment
if [ -n "$D" ] && [ -f "$D/azure-llm-inference-2023/splitwise_conv.csv" ]; then
    "$BIN" replay "$D/azure-llm-inference-2023/splitwise_conv.csv" --format azure-llm \
        --fleet "$W/fleet.json" -o "$W/az.h5" >"$W/az.txt" || fail "azure conv"
    grep -q "^served 19366, API 0" "$W/az.txt" || fail "azure: $(sed -n 3p "$W/az.txt")"
fi
[ "$fails" -eq 0 ] || exit 1
echo "llm_cli: all checks passed"
