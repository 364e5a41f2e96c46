#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""sweep_check.py — `tarmac sweep` end to end, files read with h5py.

- plan: counts, order, parameters, seeds deterministic; --shard K/N over N
  shards covers every point exactly once (i mod N = K);
- run -j 1, run -j 2 and `--point I` alone write bit-for-bit the same point
  files (every dataset and attribute);
- merge: the points table equals the point files' /summary values, the
  mean/sd tables equal numpy over the replications, the params table the
  plan, the external links resolve from any folder;
- failed points leave .failed records and rows in /sweep/failed, exit 1;
  missing points are rows with status 2, exit 1;
- SIGTERM mid-way: exit 130, no half file under a final name, no temporary
  file; --resume redoes a truncated file and nothing valid; SIGKILL of the
  whole process group mid-way, then --resume completes and cleans up.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

from checklib import BIN, SRC, check, failures


def tarmac(*args, cwd=None):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=cwd)


TINY = {
    "name": "tiny", "seed": 11, "horizon": "1d", "sample": "1h", "policy": "fifo-first-fit",
    "fleet": {"pools": [{"name": "a", "gpu_type": "H100", "nodes": 2, "gpus_per_node": 8},
                        {"name": "b", "gpu_type": "L40S", "nodes": 2, "gpus_per_node": 4}]},
    "workload": {"classes": [
        {"name": "train", "arrival": {"offered_load": 0.4}, "gpus": {"dist": "discrete", "values": [1, 2, 4],
         "weights": [0.5, 0.3, 0.2]}, "duration": {"dist": "exponential", "mean": "2h"}},
        {"name": "eval", "arrival": {"offered_load": 0.3}, "gpus": 1,
         "duration": {"dist": "exponential", "mean": "20m"}}]},
}


def dump(path):
    """Every dataset's value and every attribute of a file, for equality."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            for k, v in obj.attrs.items():
                # dimension scales (H5DS): references compared by what they name
                if k == "DIMENSION_LIST":
                    v = [[f[r].name for r in refs] for refs in v]
                elif k == "REFERENCE_LIST":
                    v = [(f[x[0]].name, int(x[1])) for x in v]
                out[f"{name}@{k}"] = v
            if isinstance(obj, h5py.Dataset):
                out[name] = obj[()]
        for k, v in f.attrs.items():
            out[f"@{k}"] = v
        f.visititems(visit)
    return out


def same_value(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) or isinstance(a, (float, np.floating)):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind == "f":
            return a.tobytes() == b.tobytes()  # bit for bit, NaN included
        return np.array_equal(a, b)
    return a == b


def same_file(p, q):
    a, b = dump(p), dump(q)
    if a.keys() != b.keys():
        return sorted(set(a) ^ set(b))
    return [k for k in a if not same_value(a[k], b[k])]


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)


def plan(sweep, *extra):
    p = tarmac("sweep", "plan", sweep, "--json", *extra)
    check(p.returncode == 0, f"plan {extra}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout) if p.returncode == 0 else {"points": []}


def point_files(d):
    return sorted(n for n in os.listdir(d) if re.fullmatch(r"p\d{6}\.h5", n)) if os.path.isdir(d) else []


def leftovers(d):
    return sorted(n for n in os.listdir(d) if ".tmp" in n or ".run." in n) if os.path.isdir(d) else []


def valid(path, fingerprint):
    try:
        with h5py.File(path, "r") as f:
            return f["sweep_point/fingerprint"].asstr()[()] == fingerprint and "summary/events" in f
    except Exception:
        return False


with tempfile.TemporaryDirectory() as w:
    write_json(os.path.join(w, "tiny.json"), TINY)
    sweep = os.path.join(w, "grid.json")
    write_json(sweep, {"description": "test grid", "scenario": "tiny.json", "replications": 2,
                       "grid": {"policy": ["fifo-first-fit", "fifo-best-fit"],
                                "fleet.pools[0].nodes": [1, 3]}})

    # ---- plan
    pl = plan(sweep)
    pts = pl["points"]
    check(pl["n_points"] == 8 and len(pts) == 8 and pl["combinations"] == 4, f"plan counts {pl.get('n_points')}")
    check([p["point"] for p in pts] == list(range(8)), "plan order")
    check([p["combo"] for p in pts] == [i // 2 for i in range(8)], "combo = i / R")
    check([p["replication"] for p in pts] == [i % 2 for i in range(8)], "replication = i mod R")
    check([p["params"]["policy"] for p in pts][::2] == ["fifo-first-fit"] * 2 + ["fifo-best-fit"] * 2,
          "grid row-major: the first parameter varies slowest")
    check([p["params"]["fleet.pools[0].nodes"] for p in pts][::2] == [1, 3, 1, 3], "last parameter fastest")
    check(all(p["seed"] == 11 for p in pts), "seed from the scenario")
    check(len({p["stream_seed"] for p in pts if p["replication"] == 0}) == 1, "common random numbers")
    check(len({p["stream_seed"] for p in pts}) == 2, "replications differ")
    check(len({p["fingerprint"] for p in pts}) == 8, "fingerprints differ")
    check(plan(sweep) == pl, "plan is deterministic")
    txt = tarmac("sweep", "plan", sweep)
    check(txt.returncode == 0 and "8 points" in txt.stdout and "fifo-best-fit" in txt.stdout,
          f"plan table: {txt.stdout[:300]}")
    for n in (2, 3, 5):
        seen = []
        for k in range(n):
            sp = plan(sweep, "--shard", f"{k}/{n}")["points"]
            check(all(p["point"] % n == k for p in sp), f"shard {k}/{n} holds i mod {n} = {k} only")
            seen += [p["point"] for p in sp]
        check(sorted(seen) == list(range(8)), f"shards of {n}: every point exactly once ({sorted(seen)})")
    bad = tarmac("sweep", "plan", sweep, "--shard", "3/3")
    check(bad.returncode == 64, f"--shard 3/3: exit {bad.returncode}")

    # ---- run -j 1, -j 2, one point alone: the same files
    A, B, C = (os.path.join(w, x) for x in ("A", "B", "C"))
    r1 = tarmac("sweep", "run", sweep, "-j", "1", "-o", A)
    check(r1.returncode == 0, f"run -j 1: exit {r1.returncode}: {r1.stderr}")
    check("8 points run" in r1.stdout and "8 ok" in r1.stdout, f"run -j 1 output: {r1.stdout[-300:]}")
    r2 = tarmac("sweep", "run", sweep, "-j", "2", "-o", B, "-q")
    check(r2.returncode == 0 and r2.stdout == "", f"run -j 2 -q: exit {r2.returncode} {r2.stdout!r}")
    check(point_files(A) == [f"p{i:06d}.h5" for i in range(8)], f"files of -j 1: {point_files(A)}")
    check(point_files(B) == point_files(A), "files of -j 2")
    for n in point_files(A):
        diff = same_file(os.path.join(A, n), os.path.join(B, n))
        check(not diff, f"-j 1 and -j 2 differ in {n}: {diff[:5]}")
    r3 = tarmac("sweep", "run", sweep, "--point", "5", "-o", C, "-q")
    check(r3.returncode == 0 and point_files(C) == ["p000005.h5"], f"--point 5: {r3.stderr} {point_files(C)}")
    if point_files(C):
        diff = same_file(os.path.join(A, "p000005.h5"), os.path.join(C, "p000005.h5"))
        check(not diff, f"point 5 alone differs from the sweep's: {diff[:5]}")
    with h5py.File(os.path.join(A, "p000005.h5")) as f:
        check(int(f["sweep_point/point"][()]) == 5 and int(f["sweep_point/replication"][()]) == 1,
              "point file identity")
        check(f["sweep_point/params/policy"].asstr()[()] == "fifo-best-fit", "point file parameter")
        check(f["sweep_point/params/fleet.pools[0].nodes"].attrs["json"] == "1", "parameter JSON")
        check(int(f["provenance/replication"][()]) == 1, "the run report's replication")
        check(f["sweep_point/fingerprint"].asstr()[()] == pts[5]["fingerprint"], "fingerprint as planned")
    check(tarmac("sweep", "run", sweep, "--point", "8", "-o", C).returncode == 64, "--point out of range")
    check(not leftovers(A) and not leftovers(B), "no temporary files after a run")

    # ---- merge: tables against the point files
    merged = os.path.join(w, "merged.h5")
    m = tarmac("sweep", "merge", sweep, "--dir", A, "-o", merged)
    check(m.returncode == 0 and "8 ok, 0 failed, 0 missing" in m.stdout, f"merge: {m.returncode} {m.stdout} {m.stderr}")
    keys = ["jobs_arrived", "jobs_completed", "wait_mean_s", "wait_p95_s", "alloc_util", "queue_len_mean",
            "gpu_hours_up", "events"]
    with h5py.File(merged, "r") as f:
        g = f["sweep"]
        check(f.attrs["kind"] == "sweep" and g.attrs["sweep_kind"] == "scenario", "merged kind")
        check(int(g["n_points"][()]) == 8 and int(g["n_combos"][()]) == 4 and int(g["n_ok"][()]) == 8,
              "merged counts")
        t = g["points"]
        check(list(t["point"][()]) == list(range(8)) and list(t["status"][()]) == [0] * 8, "points rows")
        check(list(t["combo"][()]) == [i // 2 for i in range(8)], "points combo")
        for i in range(8):
            with h5py.File(os.path.join(A, f"p{i:06d}.h5"), "r") as p:
                for k in keys:
                    check(same_value(np.float64(t[k][i]), np.float64(p["summary"][k][()])),
                          f"merged {k} of point {i}: {t[k][i]} vs {p['summary'][k][()]}")
                check(int(t["seed"][i]) == int(p["sweep_point/seed"][()]), "merged seed")
        for k in keys:
            v = t[k][()].reshape(4, 2)
            check(np.allclose(g["mean"][k][()], v.mean(axis=1), rtol=1e-12, atol=0), f"mean of {k}")
            check(np.allclose(g["sd"][k][()], v.std(axis=1, ddof=1), rtol=1e-9, atol=1e-12), f"sd of {k}")
        check(list(g["mean/n"][()]) == [2] * 4, "mean n")
        pol = g["params/policy"]
        labels = pol.attrs["values"].split("\n")
        check([labels[c] for c in pol[()]] == ["fifo-first-fit"] * 2 + ["fifo-best-fit"] * 2, "params policy")
        check(list(g["params"]["fleet.pools[0].nodes"][()]) == [1, 3, 1, 3], "params nodes")
        check(g["params"].attrs["paths"].split("\n") == ["policy", "fleet.pools[0].nodes"], "params paths")
        check(len(g["failed/point"][()]) == 0, "no failures")
        check(sorted(g["files"].keys()) == [f"p{i:06d}" for i in range(8)], "links")
    # the links resolve from another folder (relative to the merged file)
    probe = subprocess.run([sys.executable, "-c",
                            "import h5py,sys; f=h5py.File(sys.argv[1]); "
                            "print(int(f['sweep/files/p000003/summary/jobs_arrived'][()]))", merged],
                           capture_output=True, text=True, cwd="/")
    with h5py.File(os.path.join(A, "p000003.h5")) as p:
        want = int(p["summary/jobs_arrived"][()])
    check(probe.returncode == 0 and probe.stdout.strip() == str(want), f"link from /: {probe.stderr[-300:]}")
    mb = os.path.join(w, "merged_b.h5")
    tarmac("sweep", "merge", sweep, "--dir", B, "-o", mb, "-q")
    with h5py.File(merged) as f, h5py.File(mb) as g:
        for tab in ("points", "mean", "sd", "params"):
            for col in f["sweep"][tab].attrs["columns"]:
                check(same_value(f["sweep"][tab][col][()], g["sweep"][tab][col][()]), f"merge of -j 2: {tab}/{col}")

    # ---- failed and missing points
    fsweep = os.path.join(w, "fail.json")
    write_json(fsweep, {"scenario": "tiny.json", "replications": 2, "grid": {"fleet.pools[0].nodes": [2, -1]}})
    F = os.path.join(w, "F")
    rf = tarmac("sweep", "fail.json", "-j", "2", "-o", "F", cwd=w)
    check(rf.returncode == 1, f"a sweep with failed points exits 1, got {rf.returncode}: {rf.stderr}")
    check("FAILED" in rf.stdout and "2 failed" in rf.stdout, f"failed points reported: {rf.stdout[-400:]}")
    check(point_files(F) == ["p000000.h5", "p000001.h5"], f"ok points written: {point_files(F)}")
    for i in (2, 3):
        rec = os.path.join(F, f"p{i:06d}.failed")
        check(os.path.exists(rec), f"record of failed point {i}")
        if os.path.exists(rec):
            text = open(rec).read()
            check(f"point {i}\n" in text and "status TM_ERR_SCENARIO 65" in text and "got -1" in text,
                  f"record text: {text}")
    with h5py.File(os.path.join(F, "merged.h5")) as f:
        g = f["sweep"]
        check(list(g["points/status"][()]) == [0, 0, 1, 1], f"status {g['points/status'][()]}")
        check(list(g["failed/point"][()]) == [2, 3] and list(g["failed/exit_code"][()]) == [65, 65], "failed table")
        msgs = g["failed"].attrs["messages"].split("\n")
        check(len(msgs) == 2 and all("got -1" in x for x in msgs), f"messages {msgs}")
        check(np.isnan(g["points/wait_mean_s"][2]) and int(g["n_failed"][()]) == 2, "failed rows are NaN")
        check(list(g["mean/n"][()]) == [2, 0] and np.isnan(g["mean/wait_mean_s"][1]), "mean over no replication")
    M = os.path.join(w, "M")
    tarmac("sweep", "run", sweep, "--shard", "0/2", "-o", M, "-q")
    check(point_files(M) == [f"p{i:06d}.h5" for i in (0, 2, 4, 6)], f"shard 0/2 files: {point_files(M)}")
    mm = tarmac("sweep", "merge", sweep, "--dir", M, "-o", os.path.join(w, "mm.h5"))
    check(mm.returncode == 1 and "4 missing" in mm.stdout, f"merge with missing points: {mm.returncode} {mm.stdout}")
    with h5py.File(os.path.join(w, "mm.h5")) as f:
        check(list(f["sweep/points/status"][()]) == [0, 2] * 4, "missing rows")
        check(sorted(f["sweep/files"].keys()) == [f"p{i:06d}" for i in (0, 2, 4, 6)], "links of ok points only")

    # ---- SIGTERM mid-way, resume
    ksweep = os.path.join(w, "kill.json")
    write_json(ksweep, {"scenario": os.path.join(SRC, "tests", "analysis_small.json"), "replications": 5,
                        "grid": {"policy": ["fifo-first-fit", "fifo-best-fit"]}})
    kp = plan(ksweep)["points"]
    K = os.path.join(w, "K")
    proc = subprocess.Popen([BIN, "sweep", "run", ksweep, "-j", "2", "-o", K], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    while len(point_files(K)) < 2 and proc.poll() is None and time.time() - t0 < 300:
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=300)
    done = point_files(K)
    check(proc.returncode == 130, f"SIGTERM: exit {proc.returncode} (want 130): {err[-300:]}")
    check(2 <= len(done) < 10, f"SIGTERM mid-way: {len(done)} of 10 points done")
    check(not leftovers(K), f"SIGTERM left temporary files: {leftovers(K)}")
    for n in done:
        i = int(n[1:7])
        check(valid(os.path.join(K, n), kp[i]["fingerprint"]), f"{n} under its final name is not complete")
    before = {n: os.stat(os.path.join(K, n)) for n in done}
    victim = done[0]
    vp = os.path.join(K, victim)
    with open(vp, "r+b") as f:
        f.truncate(os.path.getsize(vp) // 2)
    rr = tarmac("sweep", "run", ksweep, "-j", "2", "-o", K, "--resume")
    check(rr.returncode == 0, f"resume: exit {rr.returncode}: {rr.stderr}")
    want_run = 10 - (len(done) - 1)
    check(f"{want_run} points run" in rr.stdout and f"{len(done) - 1} valid already" in rr.stdout,
          f"resume ran {want_run}? {rr.stdout[-300:]}")
    check(point_files(K) == [f"p{i:06d}.h5" for i in range(10)], "resume completed every point")
    for n, st in before.items():
        now = os.stat(os.path.join(K, n))
        if n == victim:
            check(now.st_ino != st.st_ino and valid(os.path.join(K, n), kp[int(n[1:7])]["fingerprint"]),
                  "the truncated file was redone")
        else:
            check(now.st_ino == st.st_ino and now.st_mtime_ns == st.st_mtime_ns, f"valid {n} was redone")
    # the redone file equals the point run alone
    i = int(victim[1:7])
    K1 = os.path.join(w, "K1")
    tarmac("sweep", "run", ksweep, "--point", str(i), "-o", K1, "-q")
    diff = same_file(os.path.join(K, victim), os.path.join(K1, victim))
    check(not diff, f"redone {victim} differs from the point alone: {diff[:5]}")

    # ---- SIGKILL of the whole process group mid-way, resume
    for n in point_files(K)[4:]:
        os.unlink(os.path.join(K, n))
    proc = subprocess.Popen([BIN, "sweep", "run", ksweep, "-j", "2", "-o", K, "--resume", "-q"],
                            start_new_session=True)
    t0 = time.time()
    while len(point_files(K)) < 5 and proc.poll() is None and time.time() - t0 < 300:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(0.2)
    check(proc.returncode == -signal.SIGKILL, f"SIGKILL: {proc.returncode}")
    for n in point_files(K):
        check(valid(os.path.join(K, n), kp[int(n[1:7])]["fingerprint"]),
              f"after SIGKILL {n} is under its final name but not complete")
    rk = tarmac("sweep", "run", ksweep, "-j", "2", "-o", K, "--resume", "-q")
    check(rk.returncode == 0, f"resume after SIGKILL: exit {rk.returncode}: {rk.stderr}")
    check(point_files(K) == [f"p{i:06d}.h5" for i in range(10)], "resume after SIGKILL completed")
    check(not leftovers(K), f"resume left temporary files: {leftovers(K)}")
    for n in point_files(K):
        check(valid(os.path.join(K, n), kp[int(n[1:7])]["fingerprint"]), f"{n} valid after resume")

    # ---- the examples of the docs plan as written
    ex = plan(os.path.join(SRC, "docs", "examples", "sweep_fleet.json"))
    check(ex.get("n_points") == 36, f"docs/examples/sweep_fleet.json: {ex.get('n_points')} points")
    with open(os.path.join(SRC, "docs", "sweeps.md"), encoding="utf-8") as f:
        blocks = re.findall(r"```json\n(.*?)```", f.read(), re.S)
    check(len(blocks) >= 2, "docs/sweeps.md has its examples")
    for k, b in enumerate(blocks):
        doc = json.loads(b)
        if isinstance(doc.get("scenario"), str):  # relative to docs/, where the text lives
            doc["scenario"] = os.path.normpath(os.path.join(SRC, "docs", doc["scenario"]))
        p = os.path.join(w, f"doc{k}.json")
        write_json(p, doc)
        want = doc.get("replications", 1)
        for v in doc.get("grid", {}).values():
            want *= len(v)
        got = plan(p).get("n_points")
        check(got == want, f"docs/sweeps.md example {k + 1}: {got} points, want {want}")

    # ---- usage errors
    for args, code in ((["sweep"], 64), (["sweep", "plan"], 64), (["sweep", "merge", sweep, "--shard", "0/2"], 64),
                       (["sweep", "run", sweep, "-j", "0"], 64), (["sweep", "plan", sweep, "--resume"], 64),
                       (["sweep", "run", os.path.join(w, "nope.json")], 66)):
        p = tarmac(*args)
        check(p.returncode == code, f"{args[1:]}: exit {p.returncode}, want {code}")
    nompi = tarmac("sweep", "run", sweep, "--mpi", "-o", os.path.join(w, "X"))
    check(nompi.returncode in (0, 64), f"--mpi: exit {nompi.returncode}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("sweep: plan, shards, workers, points, merge, failures, resume agree")
