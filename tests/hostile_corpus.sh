#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# hostile_corpus.sh — run every case of the hostile-input corpus, tests/hostile/.
#
# Usage: sh tests/hostile_corpus.sh [NAME...]     (TARMAC_BIN, TARMAC_SRC set)
#
# A case is tests/hostile/NAME.case and its inputs (tests/hostile/NAME.* or
# the folder tests/hostile/NAME/). The .case file is `key: value` lines, `#`
# comments (each case says what its input is and why it is hostile):
#
#   args: run @/NAME.json -q -o %/out.h5     tarmac's arguments, split on spaces
#   exit: 65                                 the exit status wanted
#   stderr: REGEX                            grep -E, must match (repeatable)
#   stdout: REGEX                            grep -E, must match (repeatable)
#   stdin: @/NAME.in                         fed on standard input (default /dev/null)
#   time: 30                                 seconds of wall time (default 30)
#   memory: 1024                             MiB of virtual memory (default 1024)
#
# In args and stdin, `@/` stands for the tests/hostile folder and `%/` for an
# empty scratch folder of the case (a lone `@` or `%` for the folder itself);
# tarmac runs in the scratch folder, so default output names land there too.
# Each case runs under `ulimit -v` (memory) and `timeout` (time): an input
# that makes tarmac run away fails its case instead of hanging the suite.
# When the exit wanted is not 0, the scratch folder must be empty afterwards
# (nothing half-written, no temporary). One `ok:` or `FAIL:` line per case;
# the run fails if a case fails or if there is no case at all.
#
# Under AddressSanitizer a virtual-memory limit cannot work (ASan reserves
# terabytes of shadow memory at start): when the binary is an ASan build
# (TARMAC_SANITIZE=ON from the cmake fragment, or an __asan_init symbol in
# it), `ulimit -v` is left out, and the run says so; ASan's own
# hard_rss_limit_mb, at twice the case's memory (ASan's shadow and
# quarantine take their share), stops a run-away instead.
set -u
BIN=${TARMAC_BIN:?TARMAC_BIN: the tarmac binary}
SRC=${TARMAC_SRC:?TARMAC_SRC: the source tree}
# absolute paths: each case runs in its own scratch folder
case "$BIN" in */*) BIN=$(cd "$(dirname "$BIN")" && pwd)/${BIN##*/} ;; esac
SRC=$(cd "$SRC" && pwd) || exit 1
DIR="$SRC/tests/hostile"
[ -d "$DIR" ] || { echo "FAIL: no corpus folder $DIR"; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/tarmac-corpus.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM

asan=0
case "${TARMAC_SANITIZE:-}" in
ON | on | 1 | TRUE | true | YES | yes) asan=1 ;;
esac
if [ $asan -eq 0 ] && command -v nm >/dev/null 2>&1 &&
    { nm "$BIN" 2>/dev/null; nm -D "$BIN" 2>/dev/null; } | grep -q '__asan_init'; then
    asan=1
fi
if [ $asan -eq 1 ]; then
    echo "note: $BIN is an AddressSanitizer build: no virtual-memory limit (ulimit -v);" \
        "ASan's hard_rss_limit_mb (twice the case's memory) stands in for it"
fi

# expand WORD SCRATCH: WORD with @/ and %/ (or a lone @ or %) replaced
expand() {
    case "$1" in
    @) printf '%s' "$DIR" ;;
    %) printf '%s' "$2" ;;
    *) printf '%s' "$1" | sed -e "s|@/|$DIR/|g" -e "s|%/|$2/|g" ;;
    esac
}

fails=0 n=0
# run_case NAME: run tests/hostile/NAME.case; prints its ok:/FAIL: line
run_case() {
    name=$1 file="$DIR/$1.case"
    args="" want="" time=30 memory=1024 stdin="" bad=""
    : >"$W/re.stderr"
    : >"$W/re.stdout"
    lineno=0
    while IFS= read -r line || [ -n "$line" ]; do
        lineno=$((lineno + 1))
        case "$line" in '#'* | '') continue ;; esac
        key=${line%%:*}
        [ "$key" = "$line" ] && { bad="line $lineno: no 'key: value'"; break; }
        val=${line#*:}
        val=${val#"${val%%[! ]*}"} # leading blanks off
        case "$key" in
        args) args=$val ;;
        exit) want=$val ;;
        stderr) printf '%s\n' "$val" >>"$W/re.stderr" ;;
        stdout) printf '%s\n' "$val" >>"$W/re.stdout" ;;
        stdin) stdin=$val ;;
        time) time=$val ;;
        memory) memory=$val ;;
        *) bad="line $lineno: unknown key '$key'" && break ;;
        esac
    done <"$file"
    [ -z "$bad" ] && [ -z "$args" ] && bad="no args"
    [ -z "$bad" ] && case "$want" in '' | *[!0-9]*) bad="exit: '$want' is not a number" ;; esac
    [ -z "$bad" ] && case "$time$memory" in *[!0-9]*) bad="time or memory is not a whole number" ;; esac
    if [ -n "$bad" ]; then
        echo "FAIL: $name: $file: $bad"
        fails=$((fails + 1))
        return
    fi
    scratch="$W/scratch/$name"
    mkdir -p "$scratch"
    set -f # no globbing of the split words
    set --
    for a in $args; do
        set -- "$@" "$(expand "$a" "$scratch")"
    done
    set +f
    in=/dev/null
    [ -n "$stdin" ] && in=$(expand "$stdin" "$scratch")
    start=$(date +%s.%N)
    (
        cd "$scratch" || exit 125
        if [ $asan -eq 0 ]; then
            ulimit -v $((memory * 1024)) || exit 125
        else
            ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=$((memory * 2))"
            export ASAN_OPTIONS
        fi
        exec timeout -k 5 "$time" "$BIN" "$@"
    ) <"$in" >"$W/out" 2>"$W/err"
    got=$?
    secs=$(echo "$start $(date +%s.%N)" | awk '{ printf "%.2f", $2 - $1 }')
    msg=$(sed "s|$DIR/|@/|g" "$W/err" | head -c 200 | LC_ALL=C tr -c '\040-\176' ' ')
    why=""
    if [ $got -eq 124 ] || [ $got -eq 137 ]; then
        why="no exit within the time limit of $time s (timeout: $got)"
    elif [ $got -ne "$want" ]; then
        why="exit $got, want $want"
    fi
    if [ -z "$why" ]; then
        while IFS= read -r re; do
            grep -E -q -- "$re" "$W/err" || { why="stderr does not match '$re'" && break; }
        done <"$W/re.stderr"
    fi
    if [ -z "$why" ]; then
        while IFS= read -r re; do
            grep -E -q -- "$re" "$W/out" ||
                { why="stdout does not match '$re': $(head -c 200 "$W/out")" && break; }
        done <"$W/re.stdout"
    fi
    if [ -z "$why" ] && [ "$want" -ne 0 ] && [ -n "$(ls -A "$scratch")" ]; then
        why="exit $got left files behind: $(ls -A "$scratch" | tr '\n' ' ')"
    fi
    if [ -n "$why" ]; then
        echo "FAIL: $name: $why (${secs} s; stderr: $msg)"
        fails=$((fails + 1))
    else
        echo "ok: $name: exit $got in ${secs} s${msg:+: $msg}"
    fi
    rm -rf "$scratch"
}

if [ $# -gt 0 ]; then
    for name; do
        name=${name%.case}
        name=${name##*/}
        [ -f "$DIR/$name.case" ] || { echo "FAIL: $name: no $DIR/$name.case"; fails=$((fails + 1)); continue; }
        n=$((n + 1))
        run_case "$name"
    done
else
    for f in "$DIR"/*.case; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        name=${f##*/}
        run_case "${name%.case}"
    done
fi
if [ $n -eq 0 ]; then
    echo "FAIL: no case in $DIR"
    exit 1
fi
echo "hostile corpus: $n case(s), $fails failed"
[ $fails -eq 0 ]
