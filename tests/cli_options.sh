#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# cli_options.sh — the option conventions every command shares (docs/cli.md,
# "Options"): --opt=V is --opt V, "--" ends the options, short options
# group, operands go anywhere, "-o -" is standard output for text outputs and
# a usage error for HDF5, and a bad option exits 64 with the --help hint.
set -u
. "$(dirname "$0")/cli_common.sh" # BIN, W, fail
SRC=${TARMAC_SRC:?}
SCEN=$SRC/tests/analysis_small.json
ok() { echo "ok: $*"; }

# same FILE1 FILE2 WHAT: the two files hold the same bytes
same() {
    if cmp -s "$1" "$2"; then ok "$3"; else fail "$3: $1 and $2 differ"; fi
}

# usage CODE PATTERN CMD ARGS...: tarmac exits CODE and says PATTERN on stderr
usage() {
    code=$1 pattern=$2
    shift 2
    "$BIN" "$@" >"$W/out" 2>"$W/err"
    got=$?
    if [ "$got" -ne "$code" ]; then
        fail "tarmac $*: exit $got, want $code ($(cat "$W/err"))"
    elif ! grep -q -- "$pattern" "$W/err"; then
        fail "tarmac $*: message '$(cat "$W/err")' lacks '$pattern'"
    else
        ok "tarmac $*: $(head -1 "$W/err")"
    fi
}

# --seed=7 is --seed 7 (same trace bytes), and operands go anywhere
"$BIN" synth "$SCEN" --seed=7 -q -o "$W/eq.csv" || fail "synth --seed=7"
"$BIN" synth --seed 7 -q -o "$W/sp.csv" "$SCEN" || fail "synth --seed 7"
same "$W/eq.csv" "$W/sp.csv" "--seed=7 and --seed 7 give the same trace"
"$BIN" synth --seed 8 -q -o "$W/s8.csv" "$SCEN" || fail "synth --seed 8"
cmp -s "$W/eq.csv" "$W/s8.csv" && fail "--seed 8 gives the trace of --seed 7 (the seed was not read)"
# a long option may be shortened while it is unambiguous
"$BIN" synth "$SCEN" --se=7 --qui --out="$W/ab.csv" || fail "synth --se=7 --qui --out="
same "$W/eq.csv" "$W/ab.csv" "abbreviated long options"
usage 64 "ambiguous option '--polic'" compare "$SCEN" --polic fifo-first-fit

# grouped short options: -qo FILE is -q -o FILE
"$BIN" synth "$SCEN" --seed 7 -qo "$W/grp.csv" >"$W/out" 2>&1 || fail "synth -qo"
same "$W/eq.csv" "$W/grp.csv" "-qo FILE"
[ -s "$W/out" ] && fail "-qo: -q was not taken: $(cat "$W/out")"
# -qj2 is -q -j 2; -qj0 is -q -j 0, a bad value
"$BIN" compare "$SCEN" --policies fifo-first-fit,fifo-best-fit --replications 2 \
    -qj2 -o "$W/cmp.h5" >"$W/out" 2>&1 || fail "compare -qj2: $(cat "$W/out")"
[ -s "$W/out" ] && fail "compare -qj2 printed: $(cat "$W/out")"
[ -s "$W/cmp.h5" ] || fail "compare -qj2 wrote no file"
usage 64 "-j needs a number of workers" compare "$SCEN" --policies fifo-first-fit -qj0
usage 64 "unknown option '-x' (in '-qx')" run -qx

# "--" ends the options: an operand may start with "-"
cp "$SCEN" "$W/-s.json"
(cd "$W" && "$BIN" validate -- -s.json >"$W/out" 2>&1) && grep -q '^-s.json: ok' "$W/out" &&
    ok "validate -- -s.json" || fail "validate -- -s.json: $(cat "$W/out")"
(cd "$W" && "$BIN" validate -s.json >"$W/out" 2>"$W/err")
[ $? -eq 64 ] && grep -q "unknown option '-s'" "$W/err" && ok "without --, -s.json is an option" ||
    fail "validate -s.json: $(cat "$W/err")"
(cd "$W" && "$BIN" synth -q -o - -- -s.json --seed=7 >"$W/dd.csv" 2>"$W/err")
[ $? -eq 64 ] && grep -q "more than one scenario given ('--seed=7')" "$W/err" &&
    ok "after --, --seed=7 is an operand" || fail "synth -- -s.json --seed=7: $(cat "$W/err")"

# -o - is standard output for synth (a regular file, a pipe) and export
"$BIN" synth "$SCEN" --seed 7 -o - >"$W/stdout.csv" 2>"$W/err" || fail "synth -o -"
same "$W/eq.csv" "$W/stdout.csv" "synth -o - > FILE"
grep -q "to stdout" "$W/err" || fail "synth -o -: the summary is not on stderr: $(cat "$W/err")"
"$BIN" synth "$SCEN" --seed 7 -q -o - | cat >"$W/pipe.csv" || fail "synth -o - | cat"
same "$W/eq.csv" "$W/pipe.csv" "synth -o - | cat"
[ -e "$W/-" ] && fail "synth -o - wrote a file named '-'"
"$BIN" run "$SCEN" -q -o "$W/run.h5" || fail "run"
"$BIN" export "$W/run.h5" --table jobs -o "$W/jobs.csv" || fail "export -o FILE"
"$BIN" export "$W/run.h5" --table=jobs -o - >"$W/jobs-dash.csv" || fail "export -o -"
"$BIN" export "$W/run.h5" --table jobs >"$W/jobs-none.csv" || fail "export (stdout)"
same "$W/jobs.csv" "$W/jobs-dash.csv" "export -o -"
same "$W/jobs.csv" "$W/jobs-none.csv" "export without -o"
ls "$W" | grep -q '\.tmp' && fail "a temporary file was left: $(ls "$W")"
# HDF5 and folders do not go to standard output: a usage error, no file "-"
usage 64 "cannot go to standard output" run "$SCEN" -o -
usage 64 "cannot go to standard output" run "$SCEN" --output=-
usage 64 "cannot go to standard output" compare "$SCEN" --policies fifo-first-fit -o -
usage 64 "cannot go to standard output" plot "$W/run.h5" -o -
usage 64 "cannot go to standard output" replay "$W/eq.csv" --format tarmac --fleet "$SCEN" -o -
[ -e ./- ] && fail "a file named '-' was written"

# values and their messages
usage 64 "--seed needs an integer in \[0, 2^53)" run --seed=-3
usage 64 "--seed needs an integer in \[0, 2^53)" run --seed
usage 64 "-o needs a file name" run -o
usage 64 "--output needs a file name" run --output
usage 64 "--quiet takes no value" run --quiet=1
usage 64 "more than one scenario given ('b.json')" run a.json b.json

# every command: an unknown option exits 64 and points at its --help
for cmd in $("$BIN" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && $1 != "help" { print $1 }'); do
    usage 64 "Try 'tarmac $cmd --help'" "$cmd" --no-such-option
    grep -q "unknown option '--no-such-option'" "$W/err" || fail "$cmd: $(cat "$W/err")"
    "$BIN" "$cmd" --help >"$W/out" 2>&1 && grep -q "^Usage: tarmac $cmd" "$W/out" ||
        fail "$cmd --help: $(head -1 "$W/out")"
    "$BIN" "$cmd" -h >"$W/out2" 2>&1 && cmp -s "$W/out" "$W/out2" || fail "$cmd -h is not --help"
done

# replay's formats come from the trace-format table, in its help and messages
"$BIN" help replay | grep -q '^  azure-llm ' || fail "replay --help lacks the formats"
usage 64 "unknown format 'nope' (formats: tarmac, swf," replay "$W/eq.csv" --format nope

[ $fails -eq 0 ] && echo "all option conventions hold" || echo "$fails failure(s)"
exit $fails
