#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""h5cf_check.py — every kind of result file tarmac writes opens in xarray
(h5netcdf engine) and netCDF4 with named dimensions and valid units.

Writes, from small inputs, a run, a compare, a breakeven, a size (with
growth), sweep points and their merge, a replay and (with TARMAC_DATA_DIR) a
packing experiment and a packing sweep, then for each file:
  - every table (a group with a `columns` attribute) opens with
    xarray.open_dataset(engine="h5netcdf") WITHOUT phony_dims, and each
    column's dimension is a named one (no phony_dim_*);
  - netCDF4.Dataset opens the file; each table's variables have the same
    named dimensions;
  - every other group opens WITHOUT phony_dims too (a merged sweep's
    /sweep with its external links to the points included), and every array
    (tables, matrices, lists) is attached to a dimension scale on every
    axis; in a study's file (compare, breakeven, size, merged sweep) no
    dimension is the default `row`;
  - every numeric dataset has `units` that UDUNITS-2 parses (libudunits2
    through ctypes) and a `long_name`; every dataset has a `long_name`;
  - label lists (`*_name`) are variable-length UTF-8 string datasets, and
    every list kept in an attribute (`labels`, `values`, /compare@policies,
    /sweep/params@paths, ...) has its string dataset with the same names.
Exit 77 (skipped) when xarray, h5netcdf, netCDF4 or libudunits2 is missing,
unless CI=true, where that is a failure.
Usage: h5cf_check.py (TARMAC_BIN, TARMAC_SRC, TARMAC_DATA_DIR from ctest)
"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile

CI = os.environ.get("CI") == "true"


def missing(what):
    print(f"h5cf_check: {what} missing", file=sys.stderr)
    sys.exit(1 if CI else 77)


try:
    import h5py
    import netCDF4
    import xarray as xr
    import h5netcdf  # noqa: F401  (the engine xarray loads)
except ImportError as ex:
    missing(f"Python module {ex.name} (Debian python3-xarray python3-h5netcdf python3-netcdf4)")

try:
    UD = ctypes.CDLL("libudunits2.so.0")
except OSError:
    missing("libudunits2.so.0 (Debian libudunits2-0)")
UD.ut_read_xml.restype = ctypes.c_void_p
UD.ut_read_xml.argtypes = [ctypes.c_char_p]
UD.ut_parse.restype = ctypes.c_void_p
UD.ut_parse.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
UD.ut_free.argtypes = [ctypes.c_void_p]
UD.ut_set_error_message_handler(UD.ut_ignore)
UNITS = UD.ut_read_xml(None)
if not UNITS:
    missing("the UDUNITS-2 database (Debian libudunits2-data)")
UT_UTF8 = 2

BIN = os.environ.get("TARMAC_BIN", "build/sim/tarmac")
SRC = os.environ.get("TARMAC_SRC", ".")
DATA = os.environ.get("TARMAC_DATA_DIR", "")
failures = []


def check(ok, msg):
    if not ok:
        failures.append(msg)


def udunits_ok(u):
    p = UD.ut_parse(UNITS, u.encode(), UT_UTF8)
    if p:
        UD.ut_free(p)
    return bool(p)


def tm(*args):
    r = subprocess.run([BIN, *args], cwd=SRC, capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"tarmac {' '.join(args)}: exit {r.returncode}: {r.stderr[-400:]}")
    return r.returncode == 0


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


# Label lists stored as attributes of a group, and the string dataset that
# must hold the same strings (a coordinate when it is a dimension scale).
GROUP_LISTS = {("compare", "policies"): "compare/policy_name",
               ("compare", "policy_specs"): "compare/policy_spec",
               ("compare", "policy_settings"): "compare/policy_settings",
               ("sweep/params", "paths"): "sweep/param_name",
               ("sweep/failed", "messages"): "sweep/failed/message"}


def vlen_utf8(o):
    t = h5py.check_string_dtype(o.dtype)
    return t is not None and t.length is None and t.encoding == "utf-8"


def lines(v):
    v = s(v)
    return v.split("\n") if v else []


def check_lists(name, f, n, o):
    """A list of names in an attribute (`labels` of a code column, `values`
    of a sweep parameter, the GROUP_LISTS) has its variable-length UTF-8
    string dataset with the same names."""
    for a in ("labels", "values"):
        if a in o.attrs and isinstance(o, h5py.Dataset):
            ln = f.get(n + "_name")
            check(ln is not None, f"{name}:/{n}@{a}: no {n}_name dataset")
            if ln is not None:
                check(vlen_utf8(ln) and "CLASS" in ln.attrs,
                      f"{name}:/{n}_name: not a variable-length UTF-8 coordinate")
                check(ln.asstr()[()].tolist() == lines(o.attrs[a]),
                      f"{name}:/{n}_name differs from /{n}@{a}")
    for (g, a), d in GROUP_LISTS.items():
        if n == g and a in o.attrs:
            ds = f.get(d)
            check(ds is not None, f"{name}:/{g}@{a}: no /{d} dataset")
            if ds is not None:
                check(vlen_utf8(ds), f"{name}:/{d}: not variable-length UTF-8")
                want = lines(o.attrs[a])
                if a == "messages":  # one line per failed point
                    got = [m for x in ds.asstr()[()].tolist() for m in x.split("\n")]
                else:
                    got = ds.asstr()[()].tolist()
                check(got == want, f"{name}:/{d} differs from /{g}@{a}")


def studies(name):
    """A file of a study (sim/studies): compare, breakeven, size, merged sweeps."""
    return name.startswith(("compare", "breakeven", "size", "merged"))


def check_file(path):
    """Every array of the file (tables, label lists, matrices) has named
    dimensions, and every group opens in xarray without phony dimensions."""
    name = os.path.basename(path)
    tables, others = [], []
    with h5py.File(path, "r") as f:
        def visit(n, o):
            check_lists(name, f, n, o)
            if isinstance(o, h5py.Group):
                (tables if "columns" in o.attrs else others).append(n)
            elif isinstance(o, h5py.Dataset):
                check("long_name" in o.attrs, f"{name}:/{n} has no long_name")
                if o.ndim and "CLASS" not in o.attrs:
                    check(all(len(o.dims[k]) for k in range(o.ndim)),
                          f"{name}:/{n}: an array without a dimension scale")
                if o.ndim and "CLASS" in o.attrs:
                    # a study's dimensions say what they count (policy,
                    # run, volume, combination, ...), not the default 'row'
                    check(n.rsplit("/", 1)[-1] != "row" or not studies(name),
                          f"{name}:/{n}: a study table's dimension named 'row'")
                if h5py.check_string_dtype(o.dtype) is not None:
                    return
                if n.endswith("_name") and "CLASS" in o.attrs:
                    failures.append(f"{name}:/{n}: a name list that is not strings")
                    return
                if o.dtype.kind in "iuf":
                    u = o.attrs.get("units")
                    check(u is not None, f"{name}:/{n} has no units")
                    if u is not None:
                        check(udunits_ok(s(u)), f"{name}:/{n}: units {s(u)!r} are not UDUNITS-2")
        f.visititems(visit)
        for t in tables:
            for c in f[t].attrs["columns"]:
                d = f[t][s(c)]
                check(len(d.dims[0]) == 1, f"{name}:/{t}/{s(c)} has no dimension scale")
    check(tables or name.startswith(("packing", "size")), f"{name}: no tables found")
    nc = netCDF4.Dataset(path)
    try:
        for t in tables:
            try:
                ds = xr.open_dataset(path, engine="h5netcdf", group=t)
            except Exception as ex:  # what h5netcdf says for a column without a scale
                failures.append(f"{name}:/{t}: xarray: {type(ex).__name__}: {str(ex)[:160]}")
                continue
            with h5py.File(path, "r") as f:
                cols = [s(c) for c in f[t].attrs["columns"]]
            for c in cols:
                check(c in ds.variables, f"{name}:/{t}: xarray lacks column {c}")
                if c in ds.variables:
                    dims = ds[c].dims
                    check(len(dims) == 1 and not dims[0].startswith("phony_dim"),
                          f"{name}:/{t}/{c}: xarray dims {dims}")
                    ncv = nc[t].variables.get(c)
                    check(ncv is not None and ncv.dimensions == dims,
                          f"{name}:/{t}/{c}: netCDF4 dims "
                          f"{ncv.dimensions if ncv is not None else None}, xarray {dims}")
                    check("units" in ds[c].attrs and "long_name" in ds[c].attrs,
                          f"{name}:/{t}/{c}: xarray attrs lack units/long_name")
            ds.close()
        # every other group, without phony dimensions (h5netcdf would raise
        # on an array without a dimension scale), a merged sweep's /sweep and
        # /sweep/files too (h5netcdf follows their external links into the
        # point files, which are checked themselves)
        for g in ["/"] + others:
            try:
                ds = xr.open_dataset(path, engine="h5netcdf", group=g)
                check(all(not d.startswith("phony") for d in ds.dims), f"{name}:/{g}: dims {dict(ds.dims)}")
                ds.close()
            except Exception as ex:
                failures.append(f"{name}:{g}: xarray: {type(ex).__name__}: {str(ex)[:160]}")
    finally:
        nc.close()
    return len(tables)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        small = os.path.join(SRC, "tests/golden/small.json")
        files = []
        if tm("run", small, "--seed", "7", "-q", "-o", f"{tmp}/run.h5"):
            files.append(f"{tmp}/run.h5")
        # the same run keeping the job shapes only, and nothing of the jobs
        for mode in ("summary", "none"):
            if tm("run", small, "--seed", "7", "--jobs", mode, "-q", "-o", f"{tmp}/run-{mode}.h5"):
                files.append(f"{tmp}/run-{mode}.h5")
        if tm("compare", small, "--policies", "fifo-first-fit,fifo-best-fit", "--replications",
              "2", "--seed", "7", "-j", "2", "--per-class", "-q", "-o", f"{tmp}/compare.h5"):
            files.append(f"{tmp}/compare.h5")
        if tm("breakeven", "scenarios/chat-breakeven.json", "--volumes", "10B:1T:3",
              "--replications", "1", "--refine", "1", "--seed", "1", "-j", "1", "-q",
              "-o", f"{tmp}/breakeven.h5"):
            files.append(f"{tmp}/breakeven.h5")
        if (tm("sweep", "run", "tests/golden/sweep.json", "-o", f"{tmp}/points", "-j", "2") and
                tm("sweep", "merge", "tests/golden/sweep.json", "--dir", f"{tmp}/points",
                   "-o", f"{tmp}/merged.h5")):
            pts = sorted(p for p in os.listdir(f"{tmp}/points") if p.endswith(".h5"))
            files += [f"{tmp}/points/{pts[0]}", f"{tmp}/merged.h5"]
        # a sizing with growth: the search trace, the choice (a few seconds)
        if tm("size", small, "--target", "wait_p95<=30m", "--pools", "h100", "--replications", "2",
              "--growth", "0.1", "--growth-months", "6", "--seed", "7", "-j", "2", "-q",
              "-o", f"{tmp}/size.h5"):
            files.append(f"{tmp}/size.h5")
        if tm("replay", "tests/golden/traces/helios.csv", "--format", "helios", "--fleet", small,
              "-q", "-o", f"{tmp}/replay.h5"):
            files.append(f"{tmp}/replay.h5")
        openb = os.path.join(DATA, "alibaba-gpu-v2023-openb")
        if DATA and os.path.isdir(openb):
            if tm("replay", f"{openb}/openb_pod_list_default.csv", "--format", "openb",
                  "--protocol", "pack", "--nodes", f"{openb}/openb_node_list_gpu_node.csv",
                  "--policy", "placement=best-fit", "--seeds", "1", "--seed", "1", "--step", "25",
                  "-q", "-o", f"{tmp}/packing.h5"):
                files.append(f"{tmp}/packing.h5")
            # a packing sweep: its curves are matrices (point x step)
            with open(f"{tmp}/pack-sweep.json", "w") as f:
                json.dump({"kind": "pack", "replications": 1,
                           "pack": {"nodes": "data:alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv",
                                    "pods": "data:alibaba-gpu-v2023-openb/openb_pod_list_default.csv",
                                    "target_pct": 30, "step_pct": 10, "seed": 1},
                           "grid": {"policy": ["order=fifo placement=first-fit backfill=none",
                                               "order=fifo placement=best-fit backfill=none"]}}, f)
            if tm("sweep", f"{tmp}/pack-sweep.json", "-j", "2", "-q"):
                os.rename(f"{tmp}/pack-sweep.points/merged.h5", f"{tmp}/pack-sweep.points/merged-pack.h5")
                files.append(f"{tmp}/pack-sweep.points/merged-pack.h5")
        # 300 classes with long names: 13.5 KB of names, once cut at 8 KiB and 256 names
        names = ["a workload class with a rather long name %03d" % i for i in range(300)]
        classes = [{"name": n, "arrival": {"offered_load": 0.002}, "gpus": 1,
                    "duration": {"dist": "exponential", "mean": "30m"}} for n in names]
        with open(f"{tmp}/many.json", "w") as f:
            json.dump({"name": "many-classes", "seed": 1, "horizon": "6h", "sample": "1h",
                       "policy": "fifo-first-fit",
                       "fleet": {"pools": [{"name": "h100", "gpu_type": "H100", "nodes": 8,
                                            "gpus_per_node": 8}]},
                       "workload": {"classes": classes}}, f)
        if tm("run", f"{tmp}/many.json", "-q", "-o", f"{tmp}/many.h5"):
            with h5py.File(f"{tmp}/many.h5", "r") as f:
                lab = s(f["jobs/class"].attrs["labels"]).split("\n")
                check(lab == names, f"many.h5: /jobs/class@labels has {len(lab)} names, want 300 whole")
                ds = f["jobs/class_name"]
                check(h5py.check_string_dtype(ds.dtype) is not None and
                      h5py.check_string_dtype(ds.dtype).length is None and
                      h5py.check_string_dtype(ds.dtype).encoding == "utf-8",
                      "many.h5: /jobs/class_name is not variable-length UTF-8")
                check(ds.asstr()[()].tolist() == names, "many.h5: /jobs/class_name differs")
            x = xr.open_dataset(f"{tmp}/many.h5", engine="h5netcdf", group="jobs")
            check(list(x["class_name"].values) == names, "many.h5: xarray's class_name coordinate")
            x.close()
        for p in files:
            n = check_file(p)
            print(f"h5cf_check: {os.path.basename(p)}: {n} tables")
    for m in failures[:40]:
        print("FAIL:", m)
    if len(failures) > 40:
        print(f"... {len(failures) - 40} more")
    print("h5cf_check:", "FAIL" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
