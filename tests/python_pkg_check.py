#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""python_pkg_check.py — the Python package (python/tarmac, docs/python.md)
reads every kind of result file tarmac writes, and agrees with the file.

Writes from small inputs a run, two replays, a compare, a breakeven, a sweep
(points and merge), `size --json` saved to a file and, with TARMAC_DATA_DIR,
a packing file and a packing sweep; then for each: tarmac.open gives the
right kind, and its tables and figures equal what h5py reads directly and
agree with each other (job rows and class counts with the summary, the
ledger with gpu_hours_owned, the time series with the allocated GPU-hours,
the compare differences with its runs, a merged sweep with its point files).
Then the errors (missing, non-tarmac HDF5, truncated, not HDF5, an unknown
kind), the two example scripts (docs/examples/read_results.py,
compare_figure.py: a PNG that is not blank), the README's "Python" snippet
and the example of docs/python.md, whose printed output must be the one the
page shows. With a build folder argument, `cmake --install` puts the package
where Debian's python3 finds it.
Exit 77 (skipped) when a Python module it needs is missing, unless CI=true.
Usage: python_pkg_check.py [BUILD_DIR CMAKE] (TARMAC_BIN, TARMAC_SRC, TARMAC_DATA_DIR from ctest)
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

CI = os.environ.get("CI") == "true"
try:
    import h5py
    import numpy as np
    import pandas as pd  # noqa: F401
    import xarray  # noqa: F401
    import h5netcdf  # noqa: F401
    import matplotlib
except ImportError as ex:
    print(f"python_pkg_check: Python module {ex.name} missing (Debian python3-h5py python3-pandas "
          f"python3-xarray python3-h5netcdf python3-matplotlib)", file=sys.stderr)
    sys.exit(1 if CI else 77)
matplotlib.use("Agg")

BIN = os.path.abspath(os.environ.get("TARMAC_BIN", "build/sim/tarmac"))
SRC = os.path.abspath(os.environ.get("TARMAC_SRC", "."))
DATA = os.environ.get("TARMAC_DATA_DIR", "")
PY = os.environ.get("TARMAC_PY", sys.executable)
sys.path.insert(0, os.path.join(SRC, "python"))
import tarmac  # noqa: E402

failures = []
SMALL = os.path.join(SRC, "tests/golden/small.json")


def check(ok, msg):
    if not ok:
        failures.append(msg)
    return ok


def close(a, b, rel=1e-9):
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-9)


def tm(*args, stdout=None):
    r = subprocess.run([BIN, *args], cwd=SRC, stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return check(r.returncode == 0, f"tarmac {' '.join(args)}: exit {r.returncode}: {r.stderr[-400:]}")


def h5scalars(f, g):
    return {k: (d.asstr()[()] if h5py.check_string_dtype(d.dtype) else d[()].item())
            for k, d in f[g].items() if isinstance(d, h5py.Dataset) and d.shape == ()}


def same(a, b):
    """Equal values, NaN equal to NaN."""
    if isinstance(a, float) or isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return a == b


def check_run(path, seed, kind):
    r = tarmac.open(path)
    name = os.path.basename(path)
    if not check(r.kind == kind and isinstance(r, tarmac.Run), f"{name}: kind {r.kind}, want {kind}"):
        return r
    check(repr(r).startswith(f"<tarmac.{type(r).__name__} {kind} {path!r}"), f"{name}: repr {r!r}")
    s = r.summary
    with h5py.File(path, "r") as f:
        want = h5scalars(f, "summary")
        check(s.keys() == want.keys() and all(same(s[k], want[k]) for k in want), f"{name}: summary differs from h5py")
        raw = f["jobs/class"][()][np.argsort(f["jobs/id"][()], kind="stable")]
        ts_busy = f["timeseries/gpus_busy"][()]
        cls_names = list(f["summary/classes"].keys())
        created = f.attrs["created_by"]
        given = f["provenance/scenario_given"].asstr()[()]
    jobs = r.jobs
    check(len(jobs) == s["jobs_arrived"], f"{name}: {len(jobs)} job rows, jobs_arrived {s['jobs_arrived']}")
    check(list(jobs["id"]) == sorted(jobs["id"]), f"{name}: jobs not sorted by id")
    check(np.array_equal(jobs["class"].cat.codes.to_numpy(), raw), f"{name}: class codes differ from /jobs/class")
    cl = r.classes
    check(sorted(cl.index) == sorted(cls_names), f"{name}: classes {list(cl.index)}")
    counts = jobs["class"].value_counts()
    for c in cl.index:
        check(counts.get(c, 0) == cl.loc[c, "jobs_arrived"],
              f"{name}: class {c}: {counts.get(c, 0)} job rows, jobs_arrived {cl.loc[c, 'jobs_arrived']}")
    check(cl["jobs_arrived"].sum() == s["jobs_arrived"], f"{name}: class jobs_arrived do not add up")
    led = r.ledger
    owned = s["gpu_hours_owned"]
    check(close(led["gpu_hours"].sum(), owned), f"{name}: ledger adds up to {led['gpu_hours'].sum()}, owned {owned}")
    check(close(led["share"].sum(), 1.0), f"{name}: ledger shares add up to {led['share'].sum()}")
    useful = led.loc[led["group"] == "useful", "gpu_hours"].sum()
    check(close(useful, s["fleet_gpu_hours_goodput"], 1e-6), f"{name}: useful {useful} != fleet goodput")
    lp = r.ledger_pools
    buckets = [c for c in lp.columns if c.endswith("_gpu_hours")]
    check(all(close(lp[buckets].sum(axis=1)[i], lp["gpu_hours_owned"][i]) for i in range(len(lp))),
          f"{name}: a pool's ledger row does not add up to its gpu_hours_owned")
    check(close(r.pools["gpu_hours_owned"].sum(), owned), f"{name}: pools' gpu_hours_owned")
    check(close(r.ledger_consumers[buckets].to_numpy().sum(), owned), f"{name}: consumers' ledger")
    check(r.tenants["jobs_arrived"].sum() == s["jobs_arrived"], f"{name}: tenants' jobs_arrived")
    ts = r.timeseries
    check(np.array_equal(ts["gpus_busy"].to_numpy(), ts_busy), f"{name}: timeseries differs from h5py")
    integral = (ts.gpus_alloc * (ts.t_end_s - ts.t_s)).sum() / 3600
    check(close(integral, s["fleet_gpu_hours_alloc"], 1e-6),
          f"{name}: time series integrates to {integral}, fleet_gpu_hours_alloc {s['fleet_gpu_hours_alloc']}")
    by = r.timeseries_by("class")
    check(sorted(by) == sorted(cls_names) and all(len(t) == len(ts) for t in by.values()),
          f"{name}: timeseries_by('class')")
    ds = r.dataset("timeseries")
    check(ds["gpus_busy"].dims == ("t",) and np.array_equal(ds["gpus_busy"].values, ts_busy),
          f"{name}: xarray timeseries {ds['gpus_busy'].dims}")
    check(isinstance(r.cost["total_usd"], float), f"{name}: cost")
    p = r.provenance
    check(p.seed == seed and p.version == created.split(" ", 1)[1] and p.replication == 0,
          f"{name}: provenance {p}")
    check(p.scenario_given == given and p.scenario["name"] == p.scenario_name and p.policy,
          f"{name}: provenance scenario")
    check("hdf5" in p.libraries and p.command.startswith("tarmac "), f"{name}: provenance libraries/command")
    if p.command.startswith("tarmac sweep"):
        # a sweep's point files are the same bytes however the point ran
        check(p.command_line is None, f"{name}: a sweep point records command_line {p.command_line!r}")
    else:
        check(p.command_line is not None and p.command_line.startswith(p.command + " "),
              f"{name}: provenance command_line {p.command_line!r} (kind's command {p.command!r})")
    return r


def check_compare(path):
    c = tarmac.open(path)
    if not check(c.kind == "compare" and isinstance(c, tarmac.Compare), f"compare: kind {c.kind}"):
        return
    check(c.policies == ["fifo-first-fit", "fifo-best-fit"], f"compare: policies {c.policies}")
    check(c.figures["replications"] == 2, "compare: replications")
    with h5py.File(path, "r") as f:
        mean = f["compare/metrics/wait_mean_s/mean"][()]
        names = list(f["compare/metrics"].keys())
    t = c.metric("wait_mean_s")
    check(np.array_equal(t["mean"].to_numpy(), mean), "compare: wait_mean_s differs from h5py")
    check(list(c.summary.columns) == names and np.array_equal(c.summary["wait_mean_s"].to_numpy(), mean),
          "compare: summary")
    runs = c.runs
    for m in ("wait_mean_s", "alloc_util"):  # the means and paired differences come from the runs
        w = runs.pivot(index="replication", columns="policy", values=m)
        t = c.metric(m).set_index("policy")
        for pol in c.policies:
            check(close(w[pol].mean(), t.loc[pol, "mean"]), f"compare: {m} mean of {pol}")
            d = (w[pol] - w[c.policies[0]]).mean()
            check(close(d, t.loc[pol, "diff_mean"], 1e-7) or abs(d - t.loc[pol, "diff_mean"]) < 1e-9,
                  f"compare: {m} paired difference of {pol}: {d} vs {t.loc[pol, 'diff_mean']}")
    cm = c.class_metrics
    check(set(cm["class"]) == {"training", "evaluation"} and set(cm["metric"]) >= {"wait_mean_s", "gpu_hours"},
          "compare: class_metrics")
    check(len(c.class_runs) == 2 * 2 * 2, f"compare: {len(c.class_runs)} class_runs")
    check(c.provenance.seed == 7 and c.provenance.replication is None, f"compare: provenance {c.provenance}")


def check_breakeven(path):
    b = tarmac.open(path)
    if not check(b.kind == "breakeven", f"breakeven: kind {b.kind}"):
        return
    with h5py.File(path, "r") as f:
        want = h5scalars(f, "breakeven")
        vol = f["breakeven/volume/tokens_per_month"][()]
    check(all(same(b.summary[k], want[k]) for k in want), "breakeven: summary differs from h5py")
    check(np.array_equal(b.volume["tokens_per_month"].to_numpy(), vol) and len(vol) == 3, "breakeven: volume")
    check(set(b.fleet["point"]) == {0, 1, 2} and len(b.utilization) > 0, "breakeven: fleet, utilization")


def check_sweep(merged, points_dir):
    sw = tarmac.open(merged)
    if not check(sw.kind == "sweep" and sw.sweep_kind == "scenario", f"sweep: kind {sw.kind}"):
        return
    pts = sw.points
    check(len(pts) == sw.summary["n_points"] == 2, "sweep: points")
    joined = sw.table_joined
    check(list(joined["policy"].astype(str)) == ["fifo-first-fit", "fifo-best-fit"], f"sweep: params {joined}")
    for i in range(2):
        p = sw.point_file(i)
        direct = tarmac.open(os.path.join(points_dir, f"p{i:06d}.h5"))
        check(p.kind == direct.kind == "sweep-point" and isinstance(p, tarmac.Run), f"sweep: point {i} kind")
        check(p.point["point"] == i and p.point["params"] == {"policy": joined["policy"][i]},
              f"sweep: point {i}: {p.point}")
        check(same(p.summary["wait_mean_s"], pts["wait_mean_s"][i]), f"sweep: point {i} wait_mean_s")
        check(p.provenance.policy == joined["policy"][i], f"sweep: point {i} policy")
    check(len(sw.failed) == 0 and len(sw.mean) == 2, "sweep: failed, mean")


def check_pack(path, merged):
    p = tarmac.open(path)
    if not check(p.kind == "pack" and isinstance(p, tarmac.Pack), f"pack: kind {p.kind}"):
        return
    with h5py.File(path, "r") as f:
        grid = f["packing/arrived_pct"][()]
        alloc = f["packing/policies/p00/alloc_pct_mean"][()]
        spec = f["packing/policies/p00"].attrs["spec"]
    c = p.curves
    check(len(c) == len(grid) and np.array_equal(c["alloc_pct_mean"].to_numpy(), alloc), "pack: curves")
    check(p.policies == [spec] and p.summary["alloc_pct_mean"].iloc[0] == alloc[-1], "pack: policies, summary")
    check(len(p.seed_curves) == len(grid) and list(p.pods["seed"]) == [0], "pack: seed curves")
    sw = tarmac.open(merged)
    check(sw.kind == "sweep" and sw.sweep_kind == "pack", f"pack sweep: {sw!r}")
    cv = sw.curves()
    check(cv["alloc_pct"].dims == ("point", "grid") and cv.sizes["point"] == 2, "pack sweep: curves")
    pt = sw.point_file(1)
    check(pt.kind == "sweep-point" and isinstance(pt, tarmac.Pack) and pt.point["replication"] == 1,
          f"pack sweep: point {pt!r}")
    check(same(pt.curves["alloc_pct_mean"].iloc[-1], sw.points["alloc_pct"][1]), "pack sweep: point 1 alloc_pct")


def check_size(path):
    z = tarmac.open(path)
    if not check(z.kind == "size", f"size: kind {z.kind}"):
        return
    with open(path) as f:
        doc = json.load(f)
    chosen = z.fleets[z.fleets["role"] == "chosen"]
    check(list(chosen["nodes"]) == [p["nodes"] for p in doc["chosen"]["pools"]], "size: chosen fleet")
    check(bool(z.targets["bound"][0] <= z.targets["limit"][0]), "size: the chosen fleet meets its target")


def check_size_file(path, json_path):
    z = tarmac.open(path)
    if not check(z.kind == "size" and type(z).__name__ == "SizeFile", f"size file: {z!r}"):
        return
    with open(json_path) as f:
        doc = json.load(f)
    c = z.chosen
    check([int(c[p["name"]]) for p in doc["chosen"]["pools"]] == [p["nodes"] for p in doc["chosen"]["pools"]]
          and int(c["runs_meeting"]) == doc["chosen"]["replications_meeting"],
          f"size file: the chosen fleet and its spread as --json gives them: {dict(c)}")
    check(len(z.candidates) == doc["fleets_simulated"], "size file: one candidate per fleet simulated")


def expect_error(path, cls, words):
    try:
        r = tarmac.open(path)
        failures.append(f"{path}: opened as {r!r}, want {cls.__name__}")
    except cls as ex:
        check(str(ex).startswith(path) and all(w in str(ex) for w in words), f"{path}: message {ex}")
    except Exception as ex:
        failures.append(f"{path}: {type(ex).__name__}: {ex}, want {cls.__name__}")


def check_errors(d, run):
    expect_error(f"{d}/no-such.h5", tarmac.MissingFile, ["no such file"])
    with h5py.File(f"{d}/other.h5", "w") as f:
        f["x"] = 1
    expect_error(f"{d}/other.h5", tarmac.NotTarmacFile, ["not a tarmac result"])
    with open(run, "rb") as f:
        data = f.read()
    with open(f"{d}/cut.h5", "wb") as f:
        f.write(data[: len(data) // 2])
    expect_error(f"{d}/cut.h5", tarmac.DamagedFile, ["truncated"])
    with open(f"{d}/notes.txt", "w") as f:
        f.write("not a result\n")
    expect_error(f"{d}/notes.txt", tarmac.NotTarmacFile, ["neither HDF5 nor JSON"])
    with h5py.File(f"{d}/plan.h5", "w") as f:
        f.attrs["created_by"] = "tarmac 9.9"
        f.attrs["schema_version"] = 1
        f.attrs["kind"] = "plan"
    expect_error(f"{d}/plan.h5", tarmac.NotTarmacFile, ["'plan'", "does not know"])
    expect_error(d, tarmac.NotTarmacFile, ["directory"])
    check(issubclass(tarmac.MissingFile, FileNotFoundError), "MissingFile is a FileNotFoundError")


def run_py(args, cwd, env_path=True):
    env = dict(os.environ, MPLBACKEND="Agg")
    if env_path:
        env["PYTHONPATH"] = os.path.join(SRC, "python")
    return subprocess.run([PY, *args], cwd=cwd, capture_output=True, text=True, env=env)


def check_examples(d, run, compare):
    ex = os.path.join(SRC, "docs/examples")
    r = run_py([f"{ex}/read_results.py", run], d, env_path=False)
    check(r.returncode == 0 and "checks:" in r.stdout and "gpu_hours_owned" in r.stdout,
          f"read_results.py: exit {r.returncode}: {r.stderr[-600:]}")
    r = run_py([f"{ex}/read_results.py", compare], d, env_path=False)
    check(r.returncode == 0 and "<tarmac.Compare compare" in r.stdout,
          f"read_results.py on a compare: {r.stderr[-400:]}")
    png = f"{d}/compare.png"
    r = run_py([f"{ex}/compare_figure.py", compare, png], d, env_path=False)
    if check(r.returncode == 0 and os.path.isfile(png), f"compare_figure.py: exit {r.returncode}: {r.stderr[-600:]}"):
        import matplotlib.image
        img = matplotlib.image.imread(png)
        check(os.path.getsize(png) > 10000 and img.shape[0] > 300 and img.shape[1] > 600,
              f"compare.png: {os.path.getsize(png)} bytes, {img.shape}")
        rgb = img[..., :3].reshape(-1, 3)
        check(len(np.unique((rgb * 255).astype(np.uint8), axis=0)) > 20 and float(rgb.std()) > 0.05,
              "compare.png: blank or nearly so")


def code_block(text, after, lang):
    """The first ```lang block after the line matching `after`."""
    m = re.search(after, text, re.M)
    if not m:
        return None
    b = re.search(rf"^```{lang}\n(.*?)^```", text[m.end():], re.M | re.S)
    return b.group(1) if b else None


def check_snippets(d):
    with open(os.path.join(SRC, "README.md")) as f:
        readme = f.read()
    snippet = code_block(readme, r"^## Python\b", "python")
    if check(snippet, "README.md: no ```python block under '## Python'"):
        w = f"{d}/readme"
        os.makedirs(w)
        tm("run", SMALL, "-q", "-o", f"{w}/tarmac-out.h5")
        r = run_py(["-c", snippet], w)
        check(r.returncode == 0 and "<tarmac.Run run 'tarmac-out.h5'" in r.stdout,
              f"README.md's Python snippet: exit {r.returncode}: {r.stdout[-300:]} {r.stderr[-600:]}")
    with open(os.path.join(SRC, "docs/python.md")) as f:
        page = f.read()
    code = code_block(page, r"^## Example\b", "python")
    want = code_block(page, r"^## Example\b", "text")
    if check(code and want, "docs/python.md: no ```python and ```text block under '## Example'"):
        w = f"{d}/page"
        os.makedirs(w)
        # the page's commands (the ```sh block), run from the source folder
        for line in (code_block(page, r"^## Example\b", "sh") or "").splitlines():
            if line.startswith("tarmac "):  # its outputs (*.h5) written in w
                tm(*[os.path.join(w, a) if a.endswith(".h5") else a for a in line.split()[1:]])
        r = run_py(["-c", code], w)
        check(r.returncode == 0 and r.stdout == want,
              f"docs/python.md's example prints something else (exit {r.returncode}):\n{r.stdout}{r.stderr[-600:]}")


def check_install(build, cmake, d):
    prefix = f"{d}/prefix"
    r = subprocess.run([cmake, "--install", build, "--component", "python", "--prefix", prefix],
                       capture_output=True, text=True)
    if not check(r.returncode == 0, f"cmake --install: {r.stderr[-400:]}"):
        return
    pkg = f"{prefix}/lib/python3/dist-packages"
    check(os.path.isfile(f"{pkg}/tarmac/__init__.py") and os.path.isfile(f"{pkg}/tarmac/kinds.py"),
          f"cmake --install: no package under {pkg}")
    env = dict(os.environ, PYTHONPATH=pkg)
    r = subprocess.run([PY, "-c", "import tarmac; print(tarmac.__file__)"], cwd=d, capture_output=True,
                       text=True, env=env)
    check(r.returncode == 0 and r.stdout.startswith(pkg), f"the installed package: {r.stdout} {r.stderr[-300:]}")


def main():
    d = tempfile.mkdtemp(prefix="python_pkg.")
    try:
        run, replay, compare = f"{d}/run.h5", f"{d}/replay.h5", f"{d}/compare.h5"
        if tm("run", SMALL, "--seed", "7", "-q", "-o", run):
            check_run(run, 7, "run")
            check_errors(d, run)
        if tm("replay", "tests/golden/traces/helios.csv", "--format", "helios", "--fleet", SMALL, "-q", "-o", replay):
            check_run(replay, 7, "replay")
        # a tarmac-format trace keeps the fleet file's classes: still a replay
        if (tm("synth", SMALL, "-q", "-o", f"{d}/small.csv") and
                tm("replay", f"{d}/small.csv", "--format", "tarmac", "--fleet", SMALL, "--max-jobs", "400",
                   "-q", "-o", f"{d}/replay-tarmac.h5")):
            check_run(f"{d}/replay-tarmac.h5", 7, "replay")
        if tm("compare", SMALL, "--policies", "fifo-first-fit,fifo-best-fit", "--replications", "2", "--seed",
              "7", "-j", "2", "--per-class", "-q", "-o", compare):
            check_compare(compare)
        if tm("breakeven", "scenarios/chat-breakeven.json", "--volumes", "10B:1T:3", "--replications", "1",
              "--refine", "1", "--seed", "1", "-j", "1", "-q", "-o", f"{d}/breakeven.h5"):
            check_breakeven(f"{d}/breakeven.h5")
        if (tm("sweep", "run", "tests/golden/sweep.json", "-o", f"{d}/points", "-j", "2", "-q") and
                tm("sweep", "merge", "tests/golden/sweep.json", "--dir", f"{d}/points", "-o", f"{d}/merged.h5", "-q")):
            check_sweep(f"{d}/merged.h5", f"{d}/points")
            check_run(f"{d}/points/p000000.h5", 7, "sweep-point")
        with open(f"{d}/size.json", "w") as out:
            if tm("size", SMALL, "--target", "wait_p95<=2h", "--replications", "2", "-j", "2", "--json", "-q",
                  "-o", f"{d}/size.h5", stdout=out):
                check_size(f"{d}/size.json")
                check_size_file(f"{d}/size.h5", f"{d}/size.json")
        openb = os.path.join(DATA, "alibaba-gpu-v2023-openb")
        if DATA and os.path.isdir(openb):
            with open(f"{d}/pack.json", "w") as f:
                json.dump({"kind": "pack", "replications": 2,
                           "pack": {"nodes": f"{openb}/openb_node_list_gpu_node.csv",
                                    "pods": f"{openb}/openb_pod_list_default.csv",
                                    "target_pct": 100, "step_pct": 25, "seed": 1}}, f)
            if (tm("replay", f"{openb}/openb_pod_list_default.csv", "--format", "openb", "--protocol", "pack",
                   "--nodes", f"{openb}/openb_node_list_gpu_node.csv", "--policy", "placement=best-fit",
                   "--seeds", "1", "--seed", "1", "--step", "25", "-q", "-o", f"{d}/packing.h5") and
                    tm("sweep", f"{d}/pack.json", "-j", "2", "-q", "-o", f"{d}/ppoints")):
                check_pack(f"{d}/packing.h5", f"{d}/ppoints/merged.h5")
        else:
            print("python_pkg_check: no TARMAC_DATA_DIR: packing files not checked")
        if os.path.isfile(run) and os.path.isfile(compare):
            check_examples(d, run, compare)
        check_snippets(d)
        if len(sys.argv) > 2:
            check_install(sys.argv[1], sys.argv[2], d)
    except Exception:
        import traceback
        failures.append("exception:\n" + traceback.format_exc())
    finally:
        shutil.rmtree(d, ignore_errors=True)
    for m in failures:
        print("FAIL:", m)
    print("python_pkg_check:", "FAIL" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
