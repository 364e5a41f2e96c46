#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# size_screen_cli.sh — `tarmac size` with and without the screen (docs/cost.md
# §6, "Screening"): the same fleet on the golden size case and on other
# targets, the screen's decision and the confirmation printed, a screen
# whose verdict is wrong corrected in full, the option's bad values refused.
set -u
T=${TARMAC_BIN:?}
S=${TARMAC_SRC:?}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
SC="$S/tests/golden/small.json"

# the chosen fleet, the neighbours and the frontier of a --json summary
pick() {
    sed -n 's/.*"nodes":[[:space:]]*\([0-9]*\).*/\1/p' "$1" | tr '\n' ' '
}

n=0
for args in "wait_p95<=30m 2 7 6h" "wait_p95<=30m 2 7 36h" "wait_mean<=5m 3 3 12h" \
    "wait_p99<=1h 3 3 12h" "wait_p95<=10m 3 5 1d"; do
    set -- $args
    n=$((n + 1))
    "$T" size "$SC" --target "$1" --pools h100 --replications "$2" --seed "$3" -j 2 \
        --no-screen --json >"$W/plain$n.json" 2>"$W/plain$n.err" || fail "case $n: --no-screen"
    "$T" size "$SC" --target "$1" --pools h100 --replications "$2" --seed "$3" -j 2 \
        --screen "$4" --json >"$W/scr$n.json" 2>"$W/scr$n.err" || fail "case $n: --screen $4"
    "$T" size "$SC" --target "$1" --pools h100 --replications "$2" --seed "$3" -j 2 \
        --screen "$4" >"$W/scr$n.txt" 2>&1 || fail "case $n: --screen $4 (text)"
    a=$(pick "$W/plain$n.json")
    b=$(pick "$W/scr$n.json")
    [ -n "$a" ] || fail "case $n: no fleet in $(cat "$W/plain$n.json")"
    [ "$a" = "$b" ] || fail "case $n ($args): unscreened fleets [$a], screened [$b]"
    grep -q '"screen"' "$W/scr$n.json" || fail "case $n: no screen object in the JSON"
    grep -q '"screen"' "$W/plain$n.json" && fail "case $n: a screen object with --no-screen"
    grep -Eq "^screened [0-9]+ fleets first" "$W/scr$n.txt" ||
        fail "case $n: the screen's line missing: $(cat "$W/scr$n.txt")"
    grep -Eq "the screen's answer, h100 [0-9]+ nodes, (confirmed|corrected) in full: [0-9]+ meets" \
        "$W/scr$n.txt" || fail "case $n: what the screen decided missing: $(cat "$W/scr$n.txt")"
    echo "case $n ($args): fleets [$a] with and without the screen; $(grep -o "the screen's answer.*" "$W/scr$n.txt")"
done
# a wrong screen (6 h after the warm-up: too lenient here) is corrected in full
grep -q "corrected in full: 12 meets the targets, one fewer fails them" "$W/scr1.txt" ||
    fail "case 1: no correction: $(cat "$W/scr1.txt")"
# the golden size case as the goldens run it: the horizon is too short for
# the default screen (4 d after the warm-up), so it is off and the output is
# the unscreened one
"$T" size "$SC" --target "wait_p95<=30m" --pools h100 --replications 2 --seed 7 -j 2 \
    --json >"$W/def.json" 2>/dev/null || fail "size without screen options"
cmp -s "$W/def.json" "$W/plain1.json" || fail "the default differs from --no-screen on a 2-day horizon"
# bad values
for bad in 0 -1h soon; do
    "$T" size "$SC" --target "wait_p95<=30m" --pools h100 --screen "$bad" >/dev/null 2>"$W/bad.err"
    rc=$?
    [ $rc -eq 64 ] || fail "--screen $bad: exit $rc, want 64"
    grep -q -- "--screen" "$W/bad.err" || fail "--screen $bad: message does not name it: $(cat "$W/bad.err")"
done
echo "size screen: same fleets on $n cases, corrections and confirmations reported"
