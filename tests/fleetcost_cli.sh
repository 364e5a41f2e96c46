#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# fleetcost_cli.sh — `tarmac breakeven --fleet` end to end on
# tests/fleetcost_small.json (the file with provenance, its figure, the verdict
# in words) and its bad input; `tarmac size` early rejection on the command
# line (the evidence printed, the same answer as without it).
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, PY, W, fail
SRC=${TARMAC_SRC:?}
S="$SRC/tests/fleetcost_small.json"

"$BIN" breakeven --fleet "$S" --target 'wait_p95<=30m' --scale 0.25:4:5 -j 2 \
    -o "$W/fbe.h5" >"$W/out.txt" 2>"$W/err.txt" || fail "breakeven --fleet: $(cat "$W/err.txt")"
grep -q "whole-fleet breakeven" "$W/out.txt" || fail "no heading"
grep -Eq "costs less than .* above x[0-9.]+ of the scenario's load|is the cheapest at every scale" \
    "$W/out.txt" || fail "no verdict in words: $(cat "$W/out.txt")"
"$PY" - "$W/fbe.h5" <<'PYEOF' || fail "fleet breakeven HDF5 check"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1]) as f:
    assert f.attrs["kind"] == b"fleet_breakeven" or f.attrs["kind"] == "fleet_breakeven"
    s = f["fleet_breakeven/scale"]
    sc = s["scale"][:]
    assert len(sc) == 5 and abs(sc[0] - 0.25) < 1e-12 and abs(sc[-1] - 4) < 1e-12
    own, api = s["own_usd_per_month"][:], s["api_usd_per_month"][:]
    assert np.all(np.isfinite(own)) and np.all(own > 0)
    # a larger load never needs a smaller fleet
    g = s["gpus"][:]
    assert np.all(np.diff(g) >= 0), g
    # every crossover lies inside the range, between the two points whose order changes
    c = f["fleet_breakeven/crossovers"]
    for x in c["scale"][:]:
        assert 0.25 < x < 4, x
    # provenance: the resolved scenario
    assert "provenance" in f, list(f.keys())
    r = f["provenance/scenario_resolved"][()]
    r = r.decode() if isinstance(r, bytes) else r
    assert "fleetcost-small" in r and "cost" in r
    assert len(f["fleet_breakeven/cost_parameters"][()]) > 20
    assert len(f["fleet_breakeven/summary"][()]) > 20
PYEOF
"$BIN" plot "$W/fbe.h5" -o "$W/plots" >/dev/null 2>&1 || fail "plot of the fleet breakeven file"
[ -s "$W/plots/fleet_breakeven.png" ] || fail "no fleet_breakeven.png"

# bad input: a clear message, exit 64, no file left
bad() {
    want=$1
    shift
    "$BIN" "$@" -o "$W/bad.h5" >/dev/null 2>"$W/err.txt"
    rc=$?
    [ "$rc" -eq 64 ] || fail "$* exited $rc, not 64"
    grep -Eq -- "$want" "$W/err.txt" || fail "$*: '$(cat "$W/err.txt")' lacks '$want'"
    [ ! -e "$W/bad.h5" ] || fail "$*: left bad.h5"
}
bad "--scale needs LO:HI" breakeven --fleet "$S" --target 'wait_p95<=30m' --scale 4:1
bad "--scale needs LO:HI" breakeven --fleet "$S" --target 'wait_p95<=30m' --scale 0:1
bad "--scale needs LO:HI" breakeven --fleet "$S" --target 'wait_p95<=30m' --scale 1:2:1
bad "--scale and --target go with --fleet" breakeven "$S" --scale 1:2
bad "give their targets with --target" breakeven --fleet "$S"
bad "unknown metric" breakeven --fleet "$S" --target 'latency<=1s'
# --pools: one parser for size, plan and breakeven --fleet (sim__cli_pools)
bad "--pools and --volumes do not go with --fleet" breakeven --fleet "$S" --target 'wait_p95<=30m' --pools h100
bad "--pools and --volumes do not go with --fleet" breakeven --fleet "$S" --target 'wait_p95<=30m' --volumes 1M:1B
bad "--pools: no pool named 'a100' in the scenario" breakeven "$S" --pools a100
bad "--pools: 'h100' given twice" breakeven "$S" --pools h100,h100
bad "--pools: no pool named 'a100' in the scenario" size "$S" --target 'wait_p95<=30m' --pools h100,a100
bad "--pools: 'h100' given twice" plan "$S" --target 'wait_p95<=30m' --periods 2 --growth 5% --pools h100,h100

# size: an overloaded candidate is stopped with the evidence; the answer is
# the one without early rejection
"$BIN" size "$SRC/tests/golden/small.json" --target 'wait_p95<=30m' --replications 3 -j 2 -v \
    --json >"$W/early.json" 2>"$W/early.txt" || fail "size with early rejection"
grep -q "grows without bound: waiting jobs grew" "$W/early.txt" ||
    fail "no early rejection evidence: $(cat "$W/early.txt")"
"$BIN" size "$SRC/tests/golden/small.json" --target 'wait_p95<=30m' --replications 3 -j 2 \
    --no-early-reject --json >"$W/whole.json" 2>/dev/null || fail "size --no-early-reject"
"$PY" - "$W/early.json" "$W/whole.json" <<'PYEOF' || fail "early and whole answers differ"
import sys, json
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["chosen"]["pools"] == b["chosen"]["pools"], (a["chosen"]["pools"], b["chosen"]["pools"])
assert a["runs"] < b["runs"], (a["runs"], b["runs"])
print("size: %d runs with early rejection, %d without, the same fleet" % (a["runs"], b["runs"]))
PYEOF
[ "$fails" -eq 0 ] || exit 1
echo "fleetcost_cli: all checks passed"
