#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""h5cf_check.py — every kind of result file tarmac writes opens in xarray
(h5netcdf engine) and netCDF4 with named dimensions and valid units.

Writes, from small inputs, a run, a compare, a breakeven, sweep points and
their merge, a replay and (with TARMAC_DATA_DIR) a packing experiment, then
for each file:
  - every table (a group with a `columns` attribute) opens with
    xarray.open_dataset(engine="h5netcdf") WITHOUT phony_dims, and each
    column's dimension is a named one (no phony_dim_*);
  - netCDF4.Dataset opens the file; each table's variables have the same
    named dimensions;
  - every other group opens with phony_dims="sort" (groups of scalars and
    arrays without a table);
  - every numeric dataset has `units` that UDUNITS-2 parses (libudunits2
    through ctypes) and a `long_name`; every dataset has a `long_name`;
  - label lists (`*_name`) are variable-length UTF-8 string datasets.
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


def check_file(path, all_scaled):
    """all_scaled: every array of the file (not only tables) must have
    named dimensions: the files written by sim/output (run, replay, point,
    packing), not the studies' arrays and matrices."""
    name = os.path.basename(path)
    tables, others = [], []
    with h5py.File(path, "r") as f:
        def visit(n, o):
            if isinstance(o, h5py.Group):
                (tables if "columns" in o.attrs else others).append(n)
            elif isinstance(o, h5py.Dataset):
                check("long_name" in o.attrs, f"{name}:/{n} has no long_name")
                if all_scaled and o.ndim and "CLASS" not in o.attrs:
                    check(all(len(o.dims[k]) for k in range(o.ndim)),
                          f"{name}:/{n}: an array without a dimension scale")
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
    check(tables or "packing" in name, f"{name}: no tables found")
    if "packing" in name:  # its arrays open without phony dimensions
        for g in ["packing", "packing/policies/p00", "packing/policies/p00/seeds/s00"]:
            try:
                ds = xr.open_dataset(path, engine="h5netcdf", group=g)
                check(all(not d.startswith("phony") for d in ds.dims), f"{name}:/{g}: dims {dict(ds.dims)}")
                ds.close()
            except Exception as ex:
                failures.append(f"{name}:/{g}: xarray: {type(ex).__name__}: {str(ex)[:160]}")
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
        # h5netcdf's phony_dims="sort" visits every group of the file first,
        # following external links (a merged sweep's /sweep/files): such files
        # get their tables checked only
        if any(isinstance(f.get(g, getlink=True), h5py.ExternalLink)
               for f in [h5py.File(path, "r")] for g in [o + "/" + k for o in others
                                                         for k in f[o].keys()]):
            others = None
        for g in ["/"] + others if others is not None else []:
            try:
                xr.open_dataset(path, engine="h5netcdf", group=g, phony_dims="sort").close()
            except Exception as ex:
                failures.append(f"{name}:{g}: xarray (phony_dims): {type(ex).__name__}: {str(ex)[:160]}")
    finally:
        nc.close()
    return len(tables)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        small = os.path.join(SRC, "tests/golden/small.json")
        files = []
        if tm("run", small, "--seed", "7", "-q", "-o", f"{tmp}/run.h5"):
            files.append(f"{tmp}/run.h5")
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
            n = check_file(p, not os.path.basename(p).startswith(("compare", "breakeven", "merged")))
            print(f"h5cf_check: {os.path.basename(p)}: {n} tables")
    for m in failures[:40]:
        print("FAIL:", m)
    if len(failures) > 40:
        print(f"... {len(failures) - 40} more")
    print("h5cf_check:", "FAIL" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
