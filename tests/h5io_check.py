# SPDX-License-Identifier: Apache-2.0
"""h5io_check.py — read tarmac's HDF5 output with real external readers.

Usage: /usr/bin/python3 h5io_check.py TEST_H5IO_BINARY

Runs `test_h5io --write`, `--write-filter` and `--write-bad` into a fresh
temporary folder, checks the good file with h5py (names, dtypes, shapes,
chunking and compression, values, units and description attributes, column
order) and with `h5dump`, checks that its chunks (compressed by tarmac's
worker and written directly) decode with plain zlib to the same bytes as
those HDF5's own filter pipeline stored in the --write-filter file, namely
the shuffled, zero-padded values (the compressed bytes differ: tarmac's
deflate uses the Z_RLE strategy, HDF5's filter the default one), then
checks that the same checks reject the bad file (one value and one unit
changed), so this test can fail. Exit 0 when all holds.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import zlib

import h5py
import numpy as np

NROWS = 100003
CHUNK = 16384
NBIG = 40000
BAD_ROW = 77777


def check_file(path):
    """All the problems found in `path`, as 'what: got X, want Y' strings."""
    bad = []

    def want(what, got, exp):
        if got != exp:
            bad.append(f"{what}: got {got!r}, want {exp!r}")

    def dataset(f, name, dtype, shape, units):
        if name not in f:
            bad.append(f"{name}: missing")
            return None
        d = f[name]
        name = d.name  # the full path, in messages
        want(f"{name} dtype", d.dtype, np.dtype(dtype))
        want(f"{name} shape", d.shape, shape)
        want(f"{name} units", d.attrs.get("units"), units)
        desc = d.attrs.get("description")
        if not isinstance(desc, str) or not desc:
            bad.append(f"{name} description: got {desc!r}, want a non-empty str")
        return d

    with h5py.File(path, "r") as f:
        want("/ title", f.attrs.get("title"), "tarmac h5io test")
        want("/ schema_version", int(f.attrs.get("schema_version", -1)), 1)
        want("root members", sorted(f.keys()), ["arrays", "jobs", "provenance", "summary", "tables"])

        # scalars
        d = dataset(f, "/summary/wait_mean_s", "<f8", (), "s")
        if d is not None:
            want("/summary/wait_mean_s", float(d[()]), 12.5)
            want("/summary/wait_mean_s method", d.attrs.get("method"), "arithmetic mean")
        d = dataset(f, "/summary/jobs", "<i8", (), "1")
        if d is not None:
            want("/summary/jobs", int(d[()]), NROWS)
        d = dataset(f, "/summary/min_i64", "<i8", (), "1")
        if d is not None:
            want("/summary/min_i64", int(d[()]), -(2**63))
        want("/summary horizon_s", float(f["/summary"].attrs.get("horizon_s", -1)), 3600.0)
        v = f["/provenance/version"]
        want("/provenance/version", v.asstr()[()], "0.1.0-test")
        want("/provenance/version units", "units" in v.attrs, False)
        want("/provenance/libraries/hdf5", f["/provenance/libraries/hdf5"].asstr()[()], "1.10")
        want("/provenance/empty note", f["/provenance/empty"].attrs.get("note"), "caf\u00e9 \u00b5s")

        # fixed arrays
        d = dataset(f, "/arrays/edges_s", "<f8", (5,), "s")
        if d is not None:
            want("/arrays/edges_s", d[()].tolist(), [0.0, 1.5, 60.0, 3600.0, 86400.25])
        d = dataset(f, "/arrays/empty_i64", "<i8", (0,), "1")
        d = dataset(f, "/arrays/big", "<f8", (NBIG,), "s")
        if d is not None:
            want("/arrays/big chunks", d.chunks, (CHUNK,))
            want("/arrays/big compression", d.compression, "gzip")
            if not np.array_equal(d[()], np.arange(NBIG) * 0.25):
                bad.append("/arrays/big: values differ from i * 0.25")

        # the table
        jobs = f["/jobs"]
        want("/jobs columns", [str(c) for c in jobs.attrs.get("columns", [])],
             ["t_s", "id", "gpus", "flag"])
        want("/jobs description", jobs.attrs.get("description"), "one row per job")
        i = np.arange(NROWS, dtype=np.int64)
        expect = {
            "t_s": ("<f8", "s", i * 0.5),
            "id": ("<i8", "1", 3 * i - 7),
            "gpus": ("<i4", "1", (i % 17) - 8),  # GPU: not UDUNITS, in long_name
            "flag": ("|u1", "1", (i * 7) % 251),
        }
        for name, (dtype, units, values) in expect.items():
            d = dataset(jobs, name, dtype, (NROWS,), units)
            if d is None:
                continue
            want(f"/jobs/{name} chunks", d.chunks, (CHUNK,))
            want(f"/jobs/{name} maxshape", d.maxshape, (None,))
            want(f"/jobs/{name} compression", d.compression, "gzip")
            want(f"/jobs/{name} shuffle", d.shuffle, True)
            got = d[()]
            want(f"/jobs/{name} sum", int(np.sum(got, dtype=np.float64 if dtype == "<f8" else np.int64)),
                 int(np.sum(values)))
            if not np.array_equal(got, values):
                k = int(np.flatnonzero(got != values)[0])
                bad.append(f"/jobs/{name}[{k}]: got {got[k]!r}, want {values[k]!r}")

        # the empty table
        e = f["/tables/empty"]
        want("/tables/empty columns", [str(c) for c in e.attrs.get("columns", [])], ["x", "n"])
        dataset(e, "x", "<f8", (0,), "s")
        dataset(e, "n", "<i8", (0,), "1")
        if "x" in e:
            want("/tables/empty/x maxshape", e["x"].maxshape, (None,))
            want("/tables/empty/x chunks", e["x"].chunks, (CHUNK,))

        # a table that ends inside its first chunk: chunks of its length;
        # one whose group got a label list while open: whole chunks, and
        # its columns before the list in creation order
        for tab, n, chunk, v, k in (("small", 3, 3, [0.0, 1.5, 3.0], [0, 1, 0]),
                                    ("labelled", 5, CHUNK, [0.0, -1.0, -2.0, -3.0, -4.0],
                                     [1, 0, 1, 0, 1])):
            g = f[f"/tables/{tab}"]
            for name, dtype, units, values in (("v", "<f8", "s", v), ("k", "<i4", "1", k)):
                d = dataset(g, name, dtype, (n,), units)
                if d is None:
                    continue
                want(f"/tables/{tab}/{name} chunks", d.chunks, (chunk,))
                want(f"/tables/{tab}/{name} maxshape", d.maxshape, (None,))
                want(f"/tables/{tab}/{name} compression", d.compression, "gzip")
                want(f"/tables/{tab}/{name} values", d[()].tolist(), values)
            order = []
            g.id.links.iterate(order.append, idx_type=h5py.h5.INDEX_CRT_ORDER)
            want(f"/tables/{tab} creation order", [o.decode() for o in order][:3],
                 ["v", "k", "k_name"])
            want(f"/tables/{tab}/k labels", g["k"].attrs.get("labels"), "zero\none")
    return bad


def chunked_datasets(f):
    names = []
    f.visititems(lambda n, o: names.append(n)
                 if isinstance(o, h5py.Dataset) and o.chunks else None)
    return sorted(names)


def check_chunks(ours, ref):
    """Chunk by chunk, `ours` decodes to what HDF5's filters stored in `ref`
    (filter mask 0: every filter applied), and each chunk is the dataset's
    values, zero-padded to a whole chunk, shuffled and zlib-compressed."""
    bad = []
    with h5py.File(ours, "r") as fa, h5py.File(ref, "r") as fb:
        names = chunked_datasets(fa)
        if names != chunked_datasets(fb):
            return [f"chunked datasets differ: {names} vs {chunked_datasets(fb)}"]
        nchunks = 0
        for n in names:
            da, db = fa[n], fb[n]
            want_filters = [("shuffle", da.shuffle, True), ("gzip", da.compression, "gzip"),
                            ("level", da.compression_opts, 1)]
            for what, got, exp in want_filters:
                if got != exp:
                    bad.append(f"/{n} {what}: got {got!r}, want {exp!r}")
            rows = da.chunks[0]
            values = da[()]
            es = da.dtype.itemsize
            for k in range((da.shape[0] + rows - 1) // rows):
                off = (k * rows,)
                ma, ba = da.id.read_direct_chunk(off)
                mb, bb = db.id.read_direct_chunk(off)
                nchunks += 1
                if ma != 0 or mb != 0:
                    bad.append(f"/{n} chunk {k}: filter masks {ma}, {mb}, want 0")
                if zlib.decompress(ba) != zlib.decompress(bb):
                    bad.append(f"/{n} chunk {k}: decodes to other bytes than the chunk "
                               f"HDF5's filters stored")
                    continue
                full = np.zeros(rows, dtype=da.dtype)
                part = values[k * rows:(k + 1) * rows]
                full[:len(part)] = part
                raw = np.frombuffer(full.tobytes(), dtype=np.uint8).reshape(rows, es)
                if zlib.decompress(ba) != raw.T.tobytes():
                    bad.append(f"/{n} chunk {k}: not the shuffled, zlib-compressed values")
        if nchunks < 20:
            bad.append(f"only {nchunks} chunks compared")
    return bad


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    writer = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="tarmac-h5io-py.")
    good, badf = os.path.join(tmp, "good.h5"), os.path.join(tmp, "bad.h5")
    ref = os.path.join(tmp, "filter.h5")
    failures = []
    for flag, path in (("--write", good), ("--write-filter", ref), ("--write-bad", badf)):
        r = subprocess.run([writer, flag, path], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"{writer} {flag} {path}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    if not failures:
        failures += check_file(good)
        failures += check_file(ref)
        failures += check_chunks(good, ref)

        h5dump = shutil.which("h5dump")
        if not h5dump:
            failures.append("h5dump not found (Debian package hdf5-tools)")
        else:
            r = subprocess.run([h5dump, "-H", good], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"h5dump -H {good}: exit {r.returncode}: {r.stderr.strip()}")
            for s in ('DATASET "t_s"', 'ATTRIBUTE "units"', "H5T_STD_U8LE", "H5T_STD_I32LE"):
                if s not in r.stdout:
                    failures.append(f"h5dump -H {good}: no {s!r} in its output")
            # h5dump decompresses through the declared filters: the last,
            # partial chunk of /jobs/id (id = 3 i - 7) and its filter list.
            r = subprocess.run([h5dump, "-p", "-d", "/jobs/id", "-s", "100000", "-c", "3", good],
                               capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"h5dump -d /jobs/id {good}: exit {r.returncode}: {r.stderr.strip()}")
            for s in ("SHUFFLE", "COMPRESSION DEFLATE { LEVEL 1 }", "299993, 299996, 299999"):
                if s not in r.stdout:
                    failures.append(f"h5dump -p -d /jobs/id {good}: no {s!r} in its output")

        # The checks must catch a wrong value and a wrong unit.
        caught = check_file(badf)
        print("on the perturbed file the checks report (expected):")
        for c in caught:
            print("   ", c)
        if not any(c.startswith("/jobs/id[") for c in caught):
            failures.append(f"bad file: the wrong /jobs/id[{BAD_ROW}] went unnoticed")
        if not any(c.startswith("/jobs/t_s units") for c in caught):
            failures.append("bad file: the wrong /jobs/t_s units went unnoticed")

    if failures:
        for m in failures:
            print("FAIL:", m, file=sys.stderr)
        print(f"files kept in {tmp}", file=sys.stderr)
        return 1
    shutil.rmtree(tmp)
    print("h5io_check: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
