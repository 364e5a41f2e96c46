#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""golden_h5.py — text summaries for the golden tests (scripts/goldens.sh).

Run with /usr/bin/python3 (Debian's python3-h5py and numpy).

    golden_h5.py h5 FILE [--sub OLD=NEW]...    every dataset and attribute of FILE
    golden_h5.py json FILE [--sub OLD=NEW]...  a --json summary, flattened
    golden_h5.py text FILE [--sub OLD=NEW]...  a text summary, wall-clock times removed

Numbers are printed with fixed decimals (never %g): integers as integers,
floats with FLOAT_DECIMALS (fewer for the paths in DECIMALS), NaN as `nan`,
-0 as 0. A dataset of more than LONG elements is printed as its count, NaN
count, min, max and sum, and a sha256 of its values rounded to those decimals
(fmt_values says how). Strings
longer than LONG_STR characters are printed as their length and sha256 (the
JSON texts); shorter ones JSON-quoted. Provenance (scenario texts, versions, library versions, paths of
input files, fingerprints that hash the version) is left out: PROVENANCE below,
from docs/output.md. A group of more than COLLAPSE subgroups (the 405 pools
of the openb node list) is printed as one line per relative path, over all
subgroups. --sub replaces a path (a temporary folder, the data folder)
by a placeholder wherever it appears in a string.
"""
import hashlib
import json
import math
import re
import sys

FLOAT_DECIMALS = 6
LONG = 40
LONG_STR = 160
# A group of more than COLLAPSE subgroups is printed collapsed (walk_collapsed).
COLLAPSE = 12

# Items whose last printed digit differs between builds get fewer decimals
# here (a regular expression on the path, its decimals). None so far: the
# Release and the Debug ASan build agree at 6 decimals everywhere.
DECIMALS = []

# Datasets and attributes that are provenance, not results (docs/output.md).
PROVENANCE = [
    r"^/provenance/scenario_(given|resolved|source)$",
    r"^/provenance/tarmac_version$",
    r"^/provenance/libraries(/.*)?$",
    r"^/@created_by$",
    r"^/sweep/(sweep_file|sweep_given|base|base_source|points_dir|tarmac_version)$",
    r"^/sweep_point/(fingerprint|sweep_file)$",
]

# --json keys that are wall-clock time, versions or output paths.
JSON_SKIP = {"wall_s", "tarmac_version", "output"}

SUBS = []


def subst(s):
    for old, new in SUBS:
        s = s.replace(old, new)
    return s


def decimals_for(path):
    for rx, d in DECIMALS:
        if re.search(rx, path):
            return d
    return FLOAT_DECIMALS


def fmt_float(x, dec):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    s = "%.*f" % (dec, x)
    if s.startswith("-") and float(s) == 0:
        s = s[1:]
    return s


def fmt_str(s):
    s = subst(s)
    if len(s) > LONG_STR:
        return "<string of %d chars, sha256 %s>" % (
            len(s), hashlib.sha256(s.encode()).hexdigest()[:16])
    return json.dumps(s, ensure_ascii=False)


def fmt_scalar(v, dec):
    import numpy as np
    if isinstance(v, bytes):
        return fmt_str(v.decode("utf-8", "replace"))
    if isinstance(v, str):
        return fmt_str(v)
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return "%d" % int(v)
    if isinstance(v, (float, np.floating)):
        return fmt_float(float(v), dec)
    if isinstance(v, np.void) and v.dtype.names:
        return "{" + ", ".join("%s: %s" % (n, fmt_scalar(v[n], dec)) for n in v.dtype.names) + "}"
    return fmt_str(repr(v))


def fmt_values(path, value, force_long=False):
    """One line: the value, or for a long array its count, min, max, sum and hash."""
    import numpy as np
    dec = decimals_for(path)
    a = np.asarray(value)
    if a.shape == ():
        return fmt_scalar(a[()], dec)
    flat = a.reshape(-1)
    if flat.size <= LONG and not force_long:
        return "[" + ", ".join(fmt_scalar(v, dec) for v in flat) + "]"
    if a.dtype.kind == "f":
        # the hash of the values rounded to dec decimals: as integers of
        # 10^-dec (float64, so that 1e12 at 6 decimals still fits), -0 as 0,
        # one NaN; formatting a million values as text would take seconds
        q = np.rint(flat.astype(np.float64) * 10.0**dec) + 0.0
        q[np.isnan(q)] = np.nan
        h = hashlib.sha256(q.astype("<f8").tobytes()).hexdigest()[:16]
    elif a.dtype.kind in "iub":
        h = hashlib.sha256(flat.astype("<i8").tobytes()).hexdigest()[:16]
    else:
        items = [v if isinstance(v, str) else fmt_scalar(v, dec) for v in flat]
        h = hashlib.sha256("\n".join(items).encode()).hexdigest()[:16]
    if a.dtype.kind in "iub":
        return "count %d min %d max %d sum %d sha256 %s" % (
            flat.size, int(flat.min()), int(flat.max()), int(flat.astype(np.int64).sum()), h)
    if a.dtype.kind == "f":
        ok = flat[~np.isnan(flat)]
        nan = flat.size - ok.size
        if ok.size == 0:
            return "count %d nan %d sha256 %s" % (flat.size, nan, h)
        return "count %d nan %d min %s max %s sum %s sha256 %s" % (
            flat.size, nan, fmt_float(float(ok.min()), dec), fmt_float(float(ok.max()), dec),
            fmt_float(float(np.sum(ok.astype(np.float64))), dec), h)
    return "count %d sha256 %s" % (flat.size, h)


def is_provenance(path):
    return any(re.search(rx, path) for rx in PROVENANCE)


def dtype_name(dt):
    import h5py
    if h5py.check_string_dtype(dt) is not None:
        return "string"
    if dt.names:
        return "compound(" + ",".join("%s:%s" % (n, dtype_name(dt[n])) for n in dt.names) + ")"
    return dt.name


def attrs_lines(path, obj, out):
    for k in sorted(obj.attrs.keys()):
        ap = (path.rstrip("/") or "") + "/@" + k
        if path == "/":
            ap = "/@" + k
        if is_provenance(ap):
            continue
        v = obj.attrs[k]
        out.append("%s = %s" % (ap, fmt_values(ap, v)))


def collect(grp, rel, items):
    """Every dataset and attribute under grp as (relative path, value), in order."""
    import h5py
    for k in sorted(grp.attrs.keys()):
        items.append((rel + "/@" + k, grp.attrs[k]))
    for name in sorted(grp.keys()):
        link = grp.get(name, getlink=True)
        if not isinstance(link, h5py.HardLink):
            items.append((rel + "/" + name, "link"))
            continue
        obj = grp[name]
        if isinstance(obj, h5py.Group):
            collect(obj, rel + "/" + name, items)
        else:
            v = obj.asstr()[()] if h5py.check_string_dtype(obj.dtype) is not None else obj[()]
            items.append((rel + "/" + name, v))
            for k in sorted(obj.attrs.keys()):
                items.append((rel + "/" + name + "/@" + k, obj.attrs[k]))


def walk_collapsed(path, members, out):
    """A group of many alike subgroups (pools of a node list, classes of a
    trace): one line per relative path, over all members in name order."""
    import numpy as np
    names = sorted(members)
    out.append("%s/* %d groups, names sha256 %s" % (
        path, len(names), hashlib.sha256("\n".join(names).encode()).hexdigest()[:16]))
    by_rel = {}
    for n in names:
        items = []
        collect(members[n], "", items)
        for rel, v in items:
            by_rel.setdefault(rel, []).append(v)
    for rel, vs in by_rel.items():
        p = path + "/*" + rel
        if is_provenance(p):
            continue
        arrs = [np.asarray(v).reshape(-1) for v in vs]
        if all(a.dtype.kind in "iuf" for a in arrs):
            arr = np.concatenate(arrs)
        else:
            arr = np.asarray([fmt_scalar(x, decimals_for(p)) for a in arrs for x in a],
                             dtype=object)
        out.append("%s in %d groups = %s" % (p, len(vs), fmt_values(p, arr, force_long=True)))


def walk(f, path, out):
    import h5py
    grp = f[path]
    attrs_lines(path, grp, out)
    subgroups = {n: grp[n] for n in grp.keys()
                 if isinstance(grp.get(n, getlink=True), h5py.HardLink) and
                 isinstance(grp[n], h5py.Group)}
    if len(subgroups) > COLLAPSE:
        walk_collapsed(path.rstrip("/"), subgroups, out)
    for name in sorted(grp.keys()):
        p = (path.rstrip("/")) + "/" + name
        if is_provenance(p) or (len(subgroups) > COLLAPSE and name in subgroups):
            continue
        link = grp.get(name, getlink=True)
        if isinstance(link, h5py.ExternalLink):
            out.append("%s -> external %s:%s" % (p, subst(link.filename), link.path))
            continue
        if isinstance(link, h5py.SoftLink):
            out.append("%s -> soft %s" % (p, link.path))
            continue
        obj = grp[name]
        if isinstance(obj, h5py.Group):
            out.append("%s/ group" % p)
            walk(f, p, out)
        else:
            shape = "x".join(str(n) for n in obj.shape) if obj.shape else "scalar"
            dt = dtype_name(obj.dtype)
            v = obj[()]
            if dt == "string":
                v = obj.asstr()[()] if obj.shape else obj.asstr()[()]
            out.append("%s %s %s = %s" % (p, shape, dt, fmt_values(p, v)))
            attrs_lines(p, obj, out)


def cmd_h5(fname):
    import h5py
    out = []
    with h5py.File(fname, "r") as f:
        walk(f, "/", out)
    print("\n".join(out))


def flatten(prefix, v, out):
    if isinstance(v, dict):
        for k, x in v.items():
            if k in JSON_SKIP:
                continue
            flatten("%s.%s" % (prefix, k) if prefix else k, x, out)
    elif isinstance(v, list):
        if not v:
            out.append("%s = []" % prefix)
        for i, x in enumerate(v):
            flatten("%s[%d]" % (prefix, i), x, out)
    elif v is None:
        out.append("%s = null" % prefix)
    elif isinstance(v, bool):
        out.append("%s = %s" % (prefix, "true" if v else "false"))
    elif isinstance(v, int):
        out.append("%s = %d" % (prefix, v))
    elif isinstance(v, float):
        out.append("%s = %s" % (prefix, fmt_float(v, decimals_for(prefix))))
    else:
        out.append("%s = %s" % (prefix, fmt_str(str(v))))


def cmd_json(fname):
    with open(fname) as f:
        v = json.load(f)
    out = []
    flatten("", v, out)
    print("\n".join(out))


# Wall-clock times and the version in the text summaries.
WALL = [
    (re.compile(r"in [0-9.]+ s of wall time: ([0-9]+) events \([0-9.]+ million/s\)"),
     r"in <wall> s of wall time: \1 events"),
    (re.compile(r"; [0-9.]+ s wall"), "; <wall> s wall"),
    (re.compile(r" run in [0-9.]+ s:"), " run in <wall> s:"),
    (re.compile(r"^tarmac [0-9][^ :]*:"), "tarmac <version>:"),
]


def cmd_text(fname):
    with open(fname) as f:
        for line in f:
            line = subst(line.rstrip("\n"))
            for rx, rep in WALL:
                line = rx.sub(rep, line)
            print(line)


def main(argv):
    if len(argv) < 3 or argv[1] not in ("h5", "json", "text"):
        sys.stderr.write(__doc__)
        return 64
    rest = argv[3:]
    while rest:
        if rest[0] == "--sub" and len(rest) > 1 and "=" in rest[1]:
            old, new = rest[1].split("=", 1)
            if old:
                SUBS.append((old, new))
            rest = rest[2:]
        else:
            sys.stderr.write("golden_h5.py: bad argument %r\n" % rest[0])
            return 64
    # the longest path first, so that a folder inside another is replaced whole
    SUBS.sort(key=lambda s: -len(s[0]))
    {"h5": cmd_h5, "json": cmd_json, "text": cmd_text}[argv[1]](argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
