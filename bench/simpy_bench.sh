#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# simpy_bench.sh — tarmac against SimPy on the same M/M/c queue, side by side
# (bench/README.md, "Against SimPy").
#
#     sh bench/simpy_bench.sh [BUILD [REPS [JOBS]]]    (default build 3 1000000)
#
# The queue is bench/simpy_mmc.json: M/M/32 at utilization 0.9, JOBS jobs
# (one million), service exponential of mean 1 s, FIFO. SimPy's model is
# bench/simpy_mmc.py (SimPy 2.3, Debian 12's python3-simpy; installed with
# apt-get when missing and this runs as root, else the script says how).
# Runs alternate tarmac and SimPy, REPS times each; medians of:
#   end to end: the whole process, wall and CPU (user + sys), tarmac run with
#               --jobs full (the default: /jobs, a row per job), summary and
#               none; python3 simpy_mmc.py (interpreter start and import
#               included)
#   engine:     tarmac's engine and placement core alone (BUILD/bench/bench_run,
#               no output: scenario loaded, the clock around sim_run), and
#               SimPy's simulate() (simpy_mmc.py's engine_s and engine_cpu_s)
# Then the mean wait of each (jobs after the first 1 %, standard error by 20
# batch means) against Erlang C: both must be within 4 standard errors of it
# and of each other.
set -eu
BUILD=${1:-build}
REPS=${2:-3}
JOBS=${3:-1000000}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
TARMAC=$BUILD/sim/tarmac
BENCH_RUN=$BUILD/bench/bench_run
for f in "$TARMAC" "$BENCH_RUN"; do
    [ -x "$f" ] || { echo "simpy_bench: $f missing (cmake --build $BUILD --target tarmac bench_run)" >&2; exit 66; }
done
if ! $PY -c 'import SimPy.Simulation' 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "simpy_bench: installing python3-simpy (Debian)" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y python3-simpy >&2
    else
        echo "simpy_bench: SimPy 2 missing: as root, apt-get install python3-simpy" >&2
        exit 69
    fi
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
SCEN=$TMP/mmc.json
sed "s/\"max_jobs\": 1000000/\"max_jobs\": $JOBS/" "$HERE/simpy_mmc.json" >"$SCEN"

# time_cmd OUT CMD...: append "wall cpu" of CMD to OUT (stdout of CMD to OUT.stdout)
time_cmd() {
    out=$1
    shift
    /usr/bin/time -f '%e %U %S' -o "$TMP/t" "$@" >"$out.stdout"
    awk '{printf "%s %.3f\n", $1, $2 + $3}' "$TMP/t" >>"$out"
}

echo "tarmac $("$TARMAC" --version 2>/dev/null | head -1), $($PY -c 'import SimPy; print("SimPy", SimPy.__version__)' 2>/dev/null || echo SimPy 2), $JOBS jobs, $REPS runs each, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$REPS"); do
    for mode in full summary none; do
        time_cmd "$TMP/tarmac-$mode" "$TARMAC" run "$SCEN" -q --jobs "$mode" -o "$TMP/out-$mode.h5"
    done
    time_cmd "$TMP/simpy" $PY "$HERE/simpy_mmc.py" "$JOBS"
    cat "$TMP/simpy.stdout" >>"$TMP/simpy.lines"
done
"$BENCH_RUN" "$SCEN" "$REPS" >"$TMP/engine"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

$PY - "$TMP" "$JOBS" <<'PYEOF'
import math, statistics as st, sys
import h5py, numpy as np
tmp, jobs = sys.argv[1], int(sys.argv[2])
def med(path, col):
    return st.median(float(l.split()[col]) for l in open(path))
e2e = {m: (med(f"{tmp}/tarmac-{m}", 0), med(f"{tmp}/tarmac-{m}", 1)) for m in ("full", "summary", "none")}
spy = (med(f"{tmp}/simpy", 0), med(f"{tmp}/simpy", 1))
kv = [dict(x.split("=") for x in l.split()) for l in open(f"{tmp}/simpy.lines")]
spy_eng = (st.median(float(k["engine_s"]) for k in kv), st.median(float(k["engine_cpu_s"]) for k in kv))
line = [l for l in open(f"{tmp}/engine") if l.startswith("no output")][0].split()
eng = (float(line[line.index("wall") + 1]), float(line[line.index("cpu") + 1]))
print(f"{'':34s} {'wall s':>8s} {'CPU s':>8s} {'SimPy/tarmac wall':>18s} {'CPU':>6s}")
print(f"{'SimPy end to end':34s} {spy[0]:8.3f} {spy[1]:8.3f}")
for m in ("full", "summary", "none"):
    w, c = e2e[m]
    print(f"{'tarmac run --jobs ' + m:34s} {w:8.3f} {c:8.3f} {spy[0] / w:17.1f}x {spy[1] / c:5.1f}x")
print(f"{'SimPy engine (simulate())':34s} {spy_eng[0]:8.3f} {spy_eng[1]:8.3f}")
print(f"{'tarmac engine (bench_run, no output)':34s} {eng[0]:8.3f} {eng[1]:8.3f} {spy_eng[0] / eng[0]:17.1f}x {spy_eng[1] / eng[1]:5.1f}x")
# the mean wait of each against Erlang C
with h5py.File(f"{tmp}/out-full.h5", "r") as f:
    ids, w = f["jobs/id"][()], f["jobs/wait_s"][()]
w = w[np.argsort(ids, kind="stable")][jobs // 100:]
m = len(w) // 20
bm = np.array([w[i * m:(i + 1) * m].mean() for i in range(20)])
t_mean, t_se = w.mean(), bm.std(ddof=1) / math.sqrt(20)
k = kv[0]
s_mean, s_se, ec = float(k["wait_mean_s"]), float(k["wait_se_s"]), float(k["erlang_c_s"])
print(f"mean wait: tarmac {t_mean:.5f} s (SE {t_se:.5f}), SimPy {s_mean:.5f} s (SE {s_se:.5f}), "
      f"Erlang C {ec:.5f} s")
zt, zs = (t_mean - ec) / t_se, (s_mean - ec) / s_se
zd = (t_mean - s_mean) / math.hypot(t_se, s_se)
print(f"  tarmac - Erlang C: {zt:+.2f} SE; SimPy - Erlang C: {zs:+.2f} SE; tarmac - SimPy: {zd:+.2f} SE")
ok = max(abs(zt), abs(zs), abs(zd)) < 4
print("  agree within 4 standard errors" if ok else "  DISAGREE beyond 4 standard errors")
sys.exit(0 if ok else 1)
PYEOF
