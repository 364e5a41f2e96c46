#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# llm_scale.sh — the autoscaler of a request-mode service on a request-level
# signal (autoscale.signal "kv" or "queue", docs/llm-serving.md, "Scaling on
# a signal"): the same flat load of 30 requests/s, which the load model
# serves with 3 replicas, ends with more replicas under a low KV target and
# fewer under a high one; a queue target scales down while nothing waits and
# up once requests queue. Every request is counted once (demanded = within
# SLO + late + API + unserved), those in flight at the end included. Bad
# signal fields are refused with their JSON path.
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, PY, W, fail, expect
SRC=${TARMAC_SRC:?}
"$PY" - "$SRC/scenarios/chat-breakeven.json" "$W" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["horizon"] = "8h"
s.pop("cost", None)
v = s["workload"]["services"][0]
v["load"] = {"rate_per_s": 30}
v["mode"] = "request"
d = sys.argv[2]
json.dump(s, open(d + "/none.json", "w"))
def put(name, **a):
    v["autoscale"] = dict({"min": 1, "max": 16}, **a)
    json.dump(s, open(d + "/" + name + ".json", "w"))
put("kvhi", signal="kv", signal_target=0.5)
put("kvlo", signal="kv", signal_target=0.02, signal_period="2h")
put("qlo", signal="queue", signal_target=0.01)
put("bad1", signal="latency", signal_target=1)
put("bad2", signal="kv", signal_target=1.5)
put("bad3", signal="kv")
put("bad4", signal_target=2)
put("bad5", signal="kv", signal_target=0.5, signal_period="0s")
v["mode"] = "hourly"
put("bad6", signal="queue", signal_target=2)
PYEOF
for f in none kvhi kvlo qlo; do
    "$BIN" run "$W/$f.json" -q -o "$W/$f.h5" || fail "run $f.json"
done
"$PY" - "$W" <<'PYEOF' || fail "scaling on a request-level signal"
import sys, h5py, numpy as np
g = {}
for f in ("none", "kvhi", "kvlo", "qlo"):
    with h5py.File(f"{sys.argv[1]}/{f}.h5") as h:
        g[f] = np.asarray(h["timeseries_service/chat/gpus_alloc"][()])
        # every request counted once over the run, whatever crossed an hour
        # or a replica change: the last piece's requests in flight included
        s = h["summary/services/chat"]
        n = {k: int(np.asarray(s["requests_" + k][()]).ravel()[0])
             for k in ("demanded", "slo_ok", "late", "api", "unserved")}
        assert n["demanded"] > 0 and n["demanded"] == n["slo_ok"] + n["late"] + n["api"] + n["unserved"], (f, n)
print({k: [round(x, 2) for x in v] for k, v in g.items()})
# the load model: 3 replicas all along
assert np.allclose(g["none"], 3), g["none"]
# KV use of 3 replicas at 30 requests/s is between the two targets: a low
# target adds replicas at the first evaluation (1 h), a high one removes them
assert g["kvlo"][0] == 3 and g["kvlo"][-1] > 3, g["kvlo"]
assert np.all(g["kvlo"][2:4] == g["kvlo"][2]), g["kvlo"]  # 2 h period: no step at 3 h
assert g["kvhi"][-1] < 3 and g["kvhi"].mean() < 3, g["kvhi"]
# queue: nothing waits at 3 replicas (down to 1), then the one replica queues (up)
assert g["qlo"][1] < 2 and g["qlo"][2:].max() > 3, g["qlo"]
PYEOF
expect 65 'workload.services\[0\].autoscale.signal: expected "queue" or "kv", got "latency"' \
    run "$W/bad1.json" -q -o "$W/x.h5"
expect 65 'workload.services\[0\].autoscale.signal_target' run "$W/bad2.json" -q -o "$W/x.h5"
expect 65 'workload.services\[0\].autoscale.signal_target' run "$W/bad3.json" -q -o "$W/x.h5"
expect 65 'workload.services\[0\].autoscale.signal_target: only with "signal"' \
    run "$W/bad4.json" -q -o "$W/x.h5"
expect 65 'workload.services\[0\].autoscale.signal_period: expected a duration of at least 1s' \
    run "$W/bad5.json" -q -o "$W/x.h5"
expect 65 'workload.services\[0\].autoscale.signal: only with "mode": "request"' \
    run "$W/bad6.json" -q -o "$W/x.h5"
[ -e "$W/x.h5" ] && fail "a refused scenario left x.h5"
[ "$fails" -eq 0 ] || exit 1
echo "llm_scale: ok"
