#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# valgrind.sh — the fast unit tests under valgrind memcheck.
#
# Usage: sh scripts/valgrind.sh [--quick] BUILD_DIR [TEST...]
#
# Runs every ctest test labelled `unit` whose command is one of our compiled
# test programs (not a shell or Python script), with its ctest environment,
# under
#     valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect
# and fails if any reports an error or a leak. Left out, and why:
#   - tests labelled slow, validation or integration (minutes under valgrind;
#     the ASan + UBSan build runs them in CI);
#   - test_engine and test_h5io: unit tests, but each takes minutes under
#     valgrind (long simulated runs; large compressed HDF5 files), so the ASan
#     build covers them;
#   - test_failalloc runs with TARMAC_FAILALLOC_STRIDE=5 (every fifth failing
#     allocation; the ASan build tries them all).
# --quick (what .ci/run uses) also leaves out the five that take minutes
# under valgrind on a 2-core machine: test_place (16 min), test_model (8),
# test_traces (4), test_arrival (4) and test_evq (3); the 35 left took
# 1,164 s in CI's rehearsal of 2026-12-04 (test_gavel 134 s of it, its
# 5,000-job ftf solve). Without it, the five run too; both are clean.
# TEST... names tests to run instead (exclusions do not apply then).
# Suppressions: none; a report is a bug to fix, not to silence.
set -u
quick=0
if [ "${1:-}" = "--quick" ]; then
    quick=1
    shift
fi
build=${1:?usage: scripts/valgrind.sh [--quick] BUILD_DIR [TEST...]}
shift
command -v valgrind >/dev/null 2>&1 || { echo "valgrind.sh: valgrind is not installed (apt-get install valgrind)"; exit 2; }
[ -f "$build/CTestTestfile.cmake" ] || { echo "valgrind.sh: $build is not a configured build"; exit 2; }
build=$(cd "$build" && pwd)
log="$build/valgrind-logs"
mkdir -p "$log"
# the tests as ctest knows them: name, command, environment, labels
list=$(cd "$build" && ctest --show-only=json-v1) || exit 2
plan=$(printf '%s' "$list" | python3 -c '
import json, os, sys
skip = {"test_engine", "test_h5io"}
if sys.argv[1] == "1":
    skip |= {"test_place", "test_model", "test_traces", "test_arrival", "test_evq"}
build = os.path.realpath(sys.argv[2]) + os.sep
only = set(sys.argv[3:])
for t in json.load(sys.stdin)["tests"]:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    labels = props.get("LABELS", [])
    cmd = t.get("command", [])
    # our compiled test programs only (not sh or python3 running a script)
    if not cmd or not os.path.realpath(cmd[0]).startswith(build):
        continue
    if not os.path.isfile(cmd[0]) or open(cmd[0], "rb").read(4) != b"\x7fELF":
        continue
    if only:
        if t["name"] not in only:
            continue
    elif "unit" not in labels or {"slow", "validation", "integration"} & set(labels) or t["name"] in skip:
        continue
    env = props.get("ENVIRONMENT", [])
    if t["name"] == "test_failalloc":
        env = env + ["TARMAC_FAILALLOC_STRIDE=5"]
    cwd = props.get("WORKING_DIRECTORY", build)
    # "-" for no environment: the shell reads the fields with IFS=tab, which
    # (a blank) would merge an empty field with its neighbour
    print("\t".join([t["name"], cwd, "\x1f".join(env) or "-", "\x1f".join(cmd)]))
' "$quick" "$build" "$@") || exit 2
[ -n "$plan" ] || { echo "valgrind.sh: no test to run"; exit 2; }

failed=0 n=0
tab=$(printf '\t')
us=$(printf '\037')
start=$(date +%s)
while IFS="$tab" read -r name cwd envs cmd; do
    n=$((n + 1))
    t0=$(date +%s)
    # shellcheck disable=SC2086
    (
        IFS=$us
        set -f
        for e in $envs; do [ "$e" = - ] || export "$e"; done
        cd "$cwd" && exec valgrind -q --error-exitcode=1 --leak-check=full \
            --errors-for-leak-kinds=definite,indirect --track-origins=yes \
            --log-file="$log/$name.log" $cmd
    ) >"$log/$name.out" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
        echo "FAIL: $name (exit $rc; valgrind log: $log/$name.log)"
        head -40 "$log/$name.log"
        tail -5 "$log/$name.out"
        failed=1
    else
        echo "ok: $name ($(( $(date +%s) - t0 )) s)"
    fi
done <<EOF
$plan
EOF
echo "valgrind: $n tests in $(( $(date +%s) - start )) s"
exit $failed
