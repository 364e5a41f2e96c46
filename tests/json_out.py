#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""json_out.py — every command's --json is strict JSON, and run's equals its file.

Usage: json_out.py [TARMAC SOURCE_DIR] (default: $TARMAC_BIN, $TARMAC_SRC, as
ctest sets them; the outputs go to a temporary folder, removed at the end)

1. For each command with --json (run, compare, size, breakeven, sweep
   status, place) the output parses with json.loads with NaN, Infinity and
   -Infinity refused (they are not JSON), and the document is one object.
2. For `tarmac run --json` of scenarios with services, tenants, classes and a
   cost model, every scalar dataset of /summary (its groups too), every row
   of /tenants, /ledger/fleet, /ledger/pools, /ledger/consumers and every
   scalar and row of /cost equals the JSON figure of the same name (NaN in
   the file: null in the JSON), exactly: the JSON prints doubles so that they
   read back to the same value.
3. A scenario whose class name is not valid UTF-8 is refused with exit 65,
   naming the file and the JSON path.
Exit 1 with one line per failure.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

BIN = sys.argv[1] if len(sys.argv) > 2 else os.environ["TARMAC_BIN"]
SRC = sys.argv[2] if len(sys.argv) > 2 else os.environ["TARMAC_SRC"]
WORK = tempfile.mkdtemp(prefix="json_out.")
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)


def no_const(name):
    raise ValueError("not JSON: " + name)


def run(args, stdin=None):
    p = subprocess.run([BIN] + args, capture_output=True, input=stdin, cwd=WORK)
    return p.returncode, p.stdout, p.stderr


def strict(label, out):
    try:
        doc = json.loads(out.decode("utf-8"), parse_constant=no_const)
    except (ValueError, UnicodeDecodeError) as e:
        fail("%s: --json is not strict JSON: %s" % (label, e))
        return None
    if not isinstance(doc, dict):
        fail("%s: --json is not an object" % label)
        return None
    return doc


def same(label, want, got):
    """want: the file's value (numpy scalar or bytes); got: the JSON's."""
    if isinstance(want, bytes):
        want = want.decode()
    if isinstance(want, str):
        if want != got:
            fail("%s: got %r, want %r" % (label, got, want))
        return
    w = float(want)
    if math.isnan(w):
        if got is not None:
            fail("%s: got %r, want null (NaN in the file)" % (label, got))
        return
    if got is None or not isinstance(got, (int, float)) or float(got) != w:
        fail("%s: got %r, want %r" % (label, got, w))
    elif isinstance(want, (np.integer, int)) and not isinstance(got, int):
        fail("%s: got %r, want an integer" % (label, got))


def by_name(rows, key, label):
    out = {}
    for r in rows:
        out[r[key]] = r
    if len(out) != len(rows):
        fail("%s: names repeated" % label)
    return out


def scalars(label, group, obj):
    """Every scalar dataset of an HDF5 group equals obj's member; subgroups
    are left to the caller. Returns the number compared."""
    n = 0
    for k, v in group.items():
        if isinstance(v, h5py.Dataset) and v.shape == () and k != "parameters":
            if k not in obj:
                fail("%s/%s: missing from the JSON" % (label, k))
                continue
            same("%s/%s" % (label, k), v[()], obj[k])
            n += 1
    return n


def labels(ds):
    raw = ds.attrs["labels"]
    if isinstance(raw, (bytes, str)):
        raw = raw.decode() if isinstance(raw, bytes) else raw
        return raw.split("\n") if "\n" in raw else raw.split(",")
    return [x.decode() if isinstance(x, bytes) else str(x) for x in raw]


def table(label, ds, rows, codes):
    """A compound /tenants-like table against rows (a list of dicts): each
    column by name; code columns (codes: name -> label list) as labels."""
    if len(ds) != len(rows):
        fail("%s: %d rows in the JSON, %d in the file" % (label, len(rows), len(ds)))
        return 0
    n = 0
    for col in ds.dtype.names:
        for i, r in enumerate(rows):
            if col not in r:
                fail("%s[%d].%s: missing from the JSON" % (label, i, col))
                break
            v = ds[i][col]
            if col in codes:
                lab = codes[col]
                v = None if int(v) < 0 else lab[int(v)]
                if v != r[col]:
                    fail("%s[%d].%s: got %r, want %r" % (label, i, col, r[col], v))
            else:
                same("%s[%d].%s" % (label, i, col), v, r[col])
            n += 1
    return n


def group_tables(f, path):
    """Columns of a table written as a group of 1-D datasets (tarmac's h5t)."""
    g = f[path]
    return {k: g[k] for k in g if isinstance(g[k], h5py.Dataset)}


def cols_table(label, f, path, rows, codes, skip=()):
    """A table stored as a group of equal-length columns."""
    g = f[path]
    n = 0
    # the columns; the dimension scales (the *_name lists of labels, which
    # the code columns' labels already give, and a table's bare row index)
    # are not
    names = [k for k in g if isinstance(g[k], h5py.Dataset) and g[k].ndim == 1 and k not in skip
             and g[k].dtype.kind not in "SOU" and g[k].attrs.get("CLASS") != b"DIMENSION_SCALE"]
    for col in names:
        d = g[col]
        if len(d) != len(rows):
            fail("%s.%s: %d rows in the JSON, %d in the file" % (label, col, len(rows), len(d)))
            return n
        lab = labels(d) if col in codes else None
        for i, r in enumerate(rows):
            if col not in r:
                fail("%s[%d].%s: missing from the JSON" % (label, i, col))
                break
            if lab is not None:
                want = None if int(d[i]) < 0 else lab[int(d[i])]
                if want != r[col]:
                    fail("%s[%d].%s: got %r, want %r" % (label, i, col, r[col], want))
            else:
                same("%s[%d].%s" % (label, i, col), d[i], r[col])
            n += 1
    return n


def check_run(scenario, extra=()):
    label = "run " + os.path.basename(scenario)
    h5 = os.path.join(WORK, "run-%s.h5" % os.path.basename(scenario))
    code, out, err = run(["run", scenario, "-o", h5, "--json"] + list(extra))
    if code != 0:
        fail("%s: exit %d: %s" % (label, code, err.decode(errors="replace")))
        return
    doc = strict(label, out)
    if doc is None:
        return
    n = 0
    with h5py.File(h5, "r") as f:
        s = f["summary"]
        n += scalars(label + " /summary", s, doc)
        n += scalars(label + " /summary/shape_blocked", s["shape_blocked"], doc["shape_blocked"])
        classes = by_name(doc["classes"], "name", label + " classes")
        for name, g in s.get("classes", {}).items():
            if name not in classes:
                fail("%s: class %s missing" % (label, name))
                continue
            c = classes[name]
            n += scalars(label + " /summary/classes/" + name, g, c)
            same(label + " classes/%s.kind" % name, g.attrs["kind"], c["kind"])
            same(label + " classes/%s.index" % name, g.attrs["index"], c["index"])
            if "specialization" in g:
                if "specialization" not in c:
                    fail("%s: class %s has no specialization" % (label, name))
                else:
                    n += scalars(label + " specialization", g["specialization"],
                                 c["specialization"])
            elif "specialization" in c:
                fail("%s: class %s has a specialization the file lacks" % (label, name))
        if len(classes) != len(s.get("classes", {})) + 1:
            fail("%s: %d classes in the JSON, %d (+ all) in the file"
                 % (label, len(classes), len(s.get("classes", {}))))
        for grp in ("services", "pools", "types"):
            objs = by_name(doc[grp], "name", label + " " + grp)
            have = s.get(grp, {})
            if len(objs) != len(have):
                fail("%s: %d %s in the JSON, %d in the file" % (label, len(objs), grp, len(have)))
            for name, g in have.items():
                if name not in objs:
                    fail("%s: %s %s missing" % (label, grp, name))
                    continue
                n += scalars("%s /summary/%s/%s" % (label, grp, name), g, objs[name])
                for a, v in g.attrs.items():
                    same("%s %s/%s@%s" % (label, grp, name, a), v, objs[name].get(a))
        # the tables: /tenants, /ledger/*, /cost/*
        n += cols_table(label + " /tenants", f, "/tenants", doc["tenants"], {"tenant"})
        n += cols_table(label + " /ledger/fleet", f, "/ledger/fleet", doc["ledger"]["fleet"],
                        {"bucket", "group"})
        n += cols_table(label + " /ledger/pools", f, "/ledger/pools", doc["ledger"]["pools"],
                        {"pool"})
        n += cols_table(label + " /ledger/consumers", f, "/ledger/consumers",
                        doc["ledger"]["consumers"], {"consumer", "kind"})
        cost = doc["cost"]
        n += scalars(label + " /cost", f["cost"], cost)
        n += cols_table(label + " /cost/pools", f, "/cost/pools", cost["pools"],
                        {"pool", "ownership"})
        n += cols_table(label + " /cost/breakdown", f, "/cost/breakdown", cost["breakdown"],
                        {"category", "pool"})
        n += cols_table(label + " /cost/chargeback", f, "/cost/chargeback", cost["chargeback"],
                        {"consumer", "kind"})
        n += cols_table(label + " /cost/tenants", f, "/cost/tenants", cost["tenants"], {"tenant"})
        params = f["cost/parameters"][()]
        params = params.decode() if isinstance(params, bytes) else params
        if json.loads(params) != cost["parameters"]:
            fail("%s: /cost/parameters differs from cost.parameters" % label)
    print("%s: %d figures equal the file's" % (label, n))
    if n < 100:
        fail("%s: only %d figures compared" % (label, n))


SC = os.path.join(SRC, "scenarios")
SMALL = os.path.join(SRC, "tests", "golden", "small.json")
for sc in ("enterprise.json", "chat-breakeven.json", "inference-heavy.json",
           "training-failures.json"):
    check_run(os.path.join(SC, sc))
check_run(SMALL, ["--seed", "3"])

# the other commands' --json: strict JSON
others = [
    ("compare", ["compare", SMALL, "--policies", "fifo-first-fit,fifo-best-fit",
                 "--replications", "2", "--seed", "7", "-j", "1", "-o",
                 os.path.join(WORK, "c.h5"), "--json"]),
    ("size", ["size", SMALL, "--target", "wait_p95<=30m", "--pools", "h100",
              "--replications", "1", "--seed", "7", "-j", "1", "--json"]),
    ("breakeven", ["breakeven", os.path.join(SC, "chat-breakeven.json"), "--volumes",
                   "10B:1T:2", "--replications", "1", "--refine", "1", "--seed", "1", "-j", "1",
                   "-o", os.path.join(WORK, "b.h5"), "--json"]),
]
for label, args in others:
    code, out, err = run(args)
    if code != 0:
        fail("%s: exit %d: %s" % (label, code, err.decode(errors="replace")[-400:]))
        continue
    if strict(label, out) is not None:
        print("%s: strict JSON" % label)

# a class name that is not UTF-8, and one with a newline: refused at load
for tag, name in (("utf8", b"tr\xffaining"), ("newline", b"tr\\naining")):
    with open(SMALL, "rb") as fh:
        text = fh.read().replace(b'"name": "training"', b'"name": "' + name + b'"', 1)
    bad = os.path.join(WORK, "bad-%s.json" % tag)
    with open(bad, "wb") as fh:
        fh.write(text)
    code, out, err = run(["run", bad, "-o", os.path.join(WORK, "bad.h5"), "--json"])
    if code != 65 or b"workload.classes[0].name" not in err or bad.encode() not in err:
        fail("bad %s name: exit %d, %r" % (tag, code, err))
    elif os.path.exists(os.path.join(WORK, "bad.h5")) or out:
        fail("bad %s name: output left" % tag)
    else:
        print("bad %s name: refused" % tag)

shutil.rmtree(WORK, ignore_errors=True)
sys.exit(1 if fails else 0)
