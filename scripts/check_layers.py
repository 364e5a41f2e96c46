#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_layers.py — the one-way dependencies of docs/architecture.md, checked.

Usage: check_layers.py [--objects BUILD_DIR] [SOURCE_DIR]

Reads every #include "..." of policies/, traces/ and sim/ and fails (exit 1,
one line per breach) when
  - a file includes a folder or room above its own: policies/ <- traces/ <-
    sim/, and inside sim/ base <- model <- config <- output <- studies <- plot
    <- cli (a room may include its own and the rooms before it);
  - the include graph has a cycle (a header that comes back to itself);
  - an outside library is included outside its room: cJSON in config/ only,
    HDF5 in output/ only, MPI in studies/sweep_mpi.c only; policies/ includes
    nothing but the C library.
With --objects BUILD_DIR it also reads the symbols of the built objects (nm)
and fails when an object of one room calls a function defined in a room above
it, or when two files of different folders or rooms call each other: an
include graph can be clean while the calls still climb (a function declared
low and defined high).

Plain Python 3 and nm, so that CI needs nothing more.
"""
import os
import re
import subprocess
import sys

ROOMS = ["base", "model", "config", "output", "studies", "plot", "cli"]
FOLDERS = ["policies", "traces", "sim"]
# outside libraries: include prefix -> where it may appear (room or file)
LIBS = [
    ("cjson/", ("sim/config/",)),
    ("hdf5", ("sim/output/",)),
    ("H5", ("sim/output/",)),
    ("mpi.h", ("sim/studies/sweep_mpi.c",)),
    ("glpk.h", ("sim/model/gavel_alloc.c",)),
]
# headers generated into the build folder, and where they belong
GENERATED = {"version.h": "sim/base"}

INC = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)


def level(path):
    """(folder index, room index) of a source path; room -1 outside sim/."""
    parts = path.split("/")
    f = FOLDERS.index(parts[0])
    if parts[0] != "sim":
        return (f, -1)
    if len(parts) == 2:  # sim/sim.h: the whole library, above every room
        return (f, len(ROOMS))
    return (f, ROOMS.index(parts[1]))


def where(lv):
    f, r = lv
    if FOLDERS[f] != "sim":
        return FOLDERS[f] + "/"
    return "sim/" + (ROOMS[r] + "/" if r < len(ROOMS) else "sim.h")


def sources(root):
    out = []
    for folder in FOLDERS:
        for d, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if name.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, name), root))
    return sorted(out)


def resolve(src, name, by_path, by_base):
    """The project file an include names, or None for an outside header."""
    if name in GENERATED:
        return GENERATED[name] + "/" + name
    cand = os.path.normpath(os.path.join(os.path.dirname(src), name))
    if cand in by_path:
        return cand
    if "/" in name:  # "model/evq_int.h": relative to sim/
        cand = os.path.normpath(os.path.join("sim", name))
        if cand in by_path:
            return cand
    hits = by_base.get(name, [])
    if len(hits) == 1:
        return hits[0]
    return None


def check_includes(root):
    errors = []
    files = sources(root)
    by_path = set(files)
    by_base = {}
    for f in files:
        by_base.setdefault(os.path.basename(f), []).append(f)
    graph = {}
    for src in files:
        text = open(os.path.join(root, src), encoding="utf-8", errors="replace").read()
        graph[src] = []
        for m in INC.finditer(text):
            kind, name = m.group(1), m.group(2)
            line = text.count("\n", 0, m.start()) + 1
            for prefix, allowed in LIBS:
                if name.startswith(prefix) and not src.startswith(allowed):
                    errors.append("%s:%d: includes <%s>, which belongs to %s only"
                                  % (src, line, name, " ".join(allowed)))
            if kind == "<":
                if src.startswith("policies/") and not re.match(
                        r"^(std|string|math|limits|errno|assert|float|inttypes)", name):
                    errors.append("%s:%d: policies/ includes <%s> (C library only)"
                                  % (src, line, name))
                continue
            dst = resolve(src, name, by_path, by_base)
            if dst is None:
                if name not in GENERATED:
                    errors.append('%s:%d: "%s" names no file of the project' % (src, line, name))
                continue
            graph[src].append(dst)
            if dst.split("/")[0] not in FOLDERS:
                continue
            ls, ld = level(src), level(dst)
            if ld > ls:
                errors.append('%s:%d: includes "%s" of %s, above its own %s'
                              % (src, line, name, where(ld), where(ls)))
    # cycles (iterative DFS, colours)
    colour = {f: 0 for f in graph}
    for start in graph:
        if colour[start]:
            continue
        stack = [(start, iter(graph[start]))]
        path = [start]
        colour[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = 2
                stack.pop()
                path.pop()
                continue
            if nxt not in colour:
                continue
            if colour[nxt] == 1:
                cyc = path[path.index(nxt):] + [nxt]
                errors.append("include cycle: " + " -> ".join(cyc))
            elif colour[nxt] == 0:
                colour[nxt] = 1
                stack.append((nxt, iter(graph[nxt])))
                path.append(nxt)
    return errors, len(files), sum(len(v) for v in graph.values())


def nm(obj):
    out = subprocess.run(["nm", "--defined-only", "-g", obj], capture_output=True, text=True,
                         check=True).stdout
    defined = {l.split()[-1] for l in out.splitlines() if len(l.split()) >= 3}
    out = subprocess.run(["nm", "-u", obj], capture_output=True, text=True, check=True).stdout
    used = {l.split()[-1] for l in out.splitlines() if l.split()}
    return defined, used


def check_objects(build):
    """Calls between objects of the project's libraries, by room."""
    errors = []
    objs = {}
    for d, _, files in os.walk(build):
        for name in files:
            if not name.endswith(".c.o"):
                continue
            full = os.path.join(d, name)
            m = re.search(r"/(tarmac_place|tarmac_traces|tarmac_sim)\.dir/(.*)\.o$", full)
            if not m:
                continue
            lib = {"tarmac_place": "policies", "tarmac_traces": "traces",
                   "tarmac_sim": "sim"}[m.group(1)]
            rel = m.group(2)
            if "/" not in rel and lib == "sim":
                continue  # generated sources (the embedded scenario)
            src = lib + "/" + rel
            if not src.startswith(tuple(f + "/" for f in FOLDERS)):
                continue
            objs[src] = nm(full)
    owner = {}
    for src, (defined, _) in objs.items():
        for s in defined:
            owner[s] = src
    calls = {}
    for src, (_, used) in objs.items():
        for s in used:
            dst = owner.get(s)
            if dst and dst != src:
                calls.setdefault((src, dst), []).append(s)
    for (src, dst), syms in sorted(calls.items()):
        ls, ld = level(src), level(dst)
        if ld > ls:
            errors.append("%s calls %s of %s, above its own %s"
                          % (src, ", ".join(sorted(syms)[:4]), dst, where(ls)))
        elif (dst, src) in calls and src < dst and ls != ld:
            errors.append("%s and %s call each other across rooms" % (src, dst))
    return errors, len(objs)


def main(argv):
    build = None
    args = argv[1:]
    if len(args) >= 2 and args[0] == "--objects":
        build = args[1]
        args = args[2:]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    root = os.path.abspath(root)
    errors, n_files, n_edges = check_includes(root)
    msg = "check_layers: %d files, %d includes" % (n_files, n_edges)
    if build:
        oerr, n_objs = check_objects(build)
        if n_objs == 0:
            oerr.append("no objects of tarmac_place, tarmac_traces or tarmac_sim under " + build)
        errors += oerr
        msg += ", %d objects" % n_objs
    for e in errors:
        print("check_layers: " + e)
    print(msg + (": %d breaches" % len(errors) if errors else ": one way, no cycle"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
