#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# traces_hostile.sh — `tarmac replay` and `tarmac plot` on hostile traces
# (docs/hardening.md, "Traces"; docs/traces.md, "Labels", "Memory and limits").
#
#   - 1 GB of empty lines in a 1 MB gzip file (100 gzip members of 10 MB of
#     newlines each, made here): replayed within a time limit; a line at a
#     time, with "file:line" formatted for each, took 80 s of CPU per GB
#   - a Gavel throughput matrix of 200,000 job types: refused at the line of
#     the 257th, quickly and in little memory (it took 5 GB at 30,000)
#   - hostile labels (a quote, a leading ', '/', '..', bytes that are not
#     UTF-8, an escape sequence, 10 KB) in a Gavel matrix and trace, and in
#     an openb node list: the replay completes, the classes carry the safe
#     names, `tarmac plot` draws every figure; two labels with one safe name
#     are refused naming both
# Each command gets a time limit and a memory limit (ulimit -v); a failure
# must leave no output file.
set -u
BIN=${TARMAC_BIN:?}
SRC=${TARMAC_SRC:?}
PY=${TARMAC_PY:-/usr/bin/python3}
W=$(mktemp -d "${TMPDIR:-/tmp}/tarmac-traces-hostile.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# A sanitizer build reserves far more address space than it uses and cannot
# start under ulimit -v: there the memory limits are left out.
limit_memory=1
if ! (ulimit -v 1048576 && exec "$BIN" --version) >/dev/null 2>&1; then
    limit_memory=0
    echo "note: $BIN does not start under ulimit -v (a sanitizer build): no memory limits"
fi

# run NAME SECONDS MIB CODE PATTERN CMD...: CMD exits CODE within SECONDS and
# MIB of virtual memory, with PATTERN (grep -E) on stderr when not empty
run() {
    name=$1 secs=$2 mib=$3 code=$4 pattern=$5
    shift 5
    [ $limit_memory -eq 1 ] || mib=unlimited
    start=$(date +%s)
    (if [ "$mib" != unlimited ]; then ulimit -v $((mib * 1024)); fi &&
        exec timeout -s KILL "$secs" "$@") >"$W/out" 2>"$W/err"
    got=$?
    took=$(($(date +%s) - start))
    msg=$(head -c 300 "$W/err")
    if [ $got -ne "$code" ]; then
        fail "$name: exit $got after $took s, want $code ($msg)"
    elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$W/err"; then
        fail "$name: message '$msg' lacks '$pattern'"
    else
        echo "ok: $name: exit $got in $took s${msg:+: $msg}"
    fi
}

FLEET="$SRC/scenarios/enterprise.json"

# --- 1 GB of empty lines in 1 MB of gzip ---
head -c 10000000 /dev/zero | tr '\0' '\n' | gzip -9 >"$W/nl10m.gz"
{
    printf 'id,submit_us,duration_us\n' | gzip
    i=0
    while [ $i -lt 100 ]; do
        cat "$W/nl10m.gz"
        i=$((i + 1))
    done
    printf '1,0,1000000\n' | gzip
} >"$W/blank.csv.gz"
run blank-lines-gzip 60 1024 0 '' "$BIN" replay "$W/blank.csv.gz" --format tarmac \
    --fleet "$FLEET" -q -o "$W/blank.h5"
# the same lines before a malformed row: its line number is right
{
    printf 'id,submit_us,duration_us\n' | gzip
    i=0
    while [ $i -lt 10 ]; do
        cat "$W/nl10m.gz"
        i=$((i + 1))
    done
    printf '1,x,1\n' | gzip
} >"$W/blank-bad.csv.gz"
run blank-lines-then-bad-row 60 1024 65 'blank-bad.csv.gz:100000002: expected an integer' \
    "$BIN" replay "$W/blank-bad.csv.gz" --format tarmac --fleet "$FLEET" -q -o "$W/bad.h5"
[ -e "$W/bad.h5" ] && fail "blank-lines-then-bad-row: output left behind"
# SWF, whose header reader skips them too
{
    printf '; MaxProcs: 8\n' | gzip
    i=0
    while [ $i -lt 25 ]; do
        cat "$W/nl10m.gz"
        i=$((i + 1))
    done
    printf '1 0 -1 10 1 -1 -1 1 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n' | gzip
} >"$W/blank.swf.gz"
run blank-lines-swf 60 1024 0 '' "$BIN" replay "$W/blank.swf.gz" --format swf -q -o "$W/swf.h5"

# --- a Gavel matrix of 200,000 job types ---
"$PY" - "$W/m200k.json" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"v100": {\n')
    f.write(",\n".join('"(\'t%d\', 1)": {"null": 1.0}' % i for i in range(200000)))
    f.write("\n}}\n")
EOF
printf 't0\tcmd\t-n\tFalse\t1000\t0\t1\n' >"$W/one.trace"
run gavel-200k-types 20 512 65 'm200k.json:258: expected at most 256 job types in a throughput matrix, got another \("t256"\)' \
    "$BIN" replay "$W/one.trace" --format gavel --throughputs "$W/m200k.json" \
    --gavel-cluster 1:0:0 -q -o "$W/g200k.h5"
[ -e "$W/g200k.h5" ] && fail "gavel-200k-types: output left behind"

# --- hostile labels ---
"$PY" - "$W" <<'EOF'
import sys
d = sys.argv[1]
names = [b"it's \"quoted\"", b"'lead", b"a/b", b"..", b"bad\xff\xfeutf8", b"L" * 10240,
         b"esc\x1b]0;title\x07", b"ok name"]
def js(n):
    out = b""
    for c in n:
        if c in b'"\\':
            out += b"\\" + bytes([c])
        elif c < 0x20:
            out += b"\\u%04x" % c
        else:
            out += bytes([c])
    return out
with open(d + "/labels.json", "wb") as f:
    f.write(b'{"v100": {\n')
    f.write(b",\n".join(b'"(\'' + js(n) + b'\', 1)": {"null": %d.0}' % (i + 1)
                        for i, n in enumerate(names)))
    f.write(b"\n}}\n")
with open(d + "/labels.trace", "wb") as f:
    for i, n in enumerate(names):
        f.write(n + b"\tcmd\t-n\tFalse\t%d\t%d\t1\n" % (3600 * (i + 1), 60 * i))
with open(d + "/clash.json", "wb") as f:
    f.write(b'{"v100": {\n"(\'a/b\', 1)": {"null": 1},\n"(\'a_b\', 1)": {"null": 1}}}\n')
with open(d + "/nodes.csv", "wb") as f:
    f.write(b"sn,cpu_milli,memory_mib,gpu,model\n")
    f.write(b'"evil/\x1b[2J\xff..",64000,262144,2,P100\n')
    f.write(b'"' + b"N" * 10240 + b'",64000,262144,2,P100\n')
    f.write(b"..,64000,262144,2,T4\n")
with open(d + "/pods.csv", "wb") as f:
    f.write(b"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
            b"creation_time,deletion_time,scheduled_time\n")
    for i in range(6):
        f.write(b"pod-%d,1000,1024,1,1000,,LS,Running,%d,%d,%d\n" % (i, i * 10, i * 10 + 500, i * 10))
EOF
run labels-replay 60 1024 0 '' "$BIN" replay "$W/labels.trace" --format gavel \
    --throughputs "$W/labels.json" --gavel-cluster 1:0:0 -q -o "$W/labels.h5"
if [ -e "$W/labels.h5" ]; then
    "$PY" - "$W/labels.h5" >"$W/classes" 2>&1 <<'EOF' || fail "labels-replay: the class names ($(cat "$W/classes"))"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    got = sorted(f["/summary/classes"].keys())
want = sorted(["it's \"quoted\"", "'lead", "a_b", "_..", "bad??utf8", "L" * 63,
               "esc_]0;title_", "ok name"])
print(got)
sys.exit(0 if got == want else 1)
EOF
    run labels-plot 120 2048 0 '' "$BIN" plot "$W/labels.h5" -o "$W/plots" -q
    for fig in utilization wait_cdf slowdown; do
        [ -s "$W/plots/$fig.png" ] || fail "labels-plot: no $fig.png"
    done
fi
run labels-clash 20 512 65 'clash.json:3: expected job types with distinct names, got "a/b" and "a_b", which are both named "a_b"' \
    "$BIN" replay "$W/labels.trace" --format gavel --throughputs "$W/clash.json" \
    --gavel-cluster 1:0:0 -q -o "$W/clash.h5"
[ -e "$W/clash.h5" ] && fail "labels-clash: output left behind"
run node-names 60 1024 0 '' "$BIN" replay "$W/pods.csv" --format openb --nodes "$W/nodes.csv" \
    -q -o "$W/nodes.h5"
# a malformed row quoting a field with an escape sequence: printed as '?'
printf 'id,submit_us,duration_us\n1,\033]0;pwned\007,5\n' >"$W/esc.csv"
run message-escape 20 512 65 'esc.csv:2: expected an integer in column "submit_us", got "\?\]0;pwned\?"' \
    "$BIN" replay "$W/esc.csv" --format tarmac --fleet "$FLEET" -q -o "$W/esc.h5"
if grep -q "$(printf '\033')" "$W/err"; then
    fail "message-escape: an escape character reached stderr"
fi

if [ $fails -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "all passed"
