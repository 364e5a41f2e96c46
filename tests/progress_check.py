#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""progress_check.py — the progress bar and --json of `tarmac run` and `compare`.

- stderr a terminal (a pseudo-terminal here): a bar with the simulated time,
  events/s and an ETA is drawn, and erased at the end ("\\r\\033[K");
- stderr a pipe, or --quiet: not one byte on stderr;
- --json: one JSON object on stdout whose figures equal the HDF5 file's.
"""
import json
import os
import pty
import re
import subprocess
import sys
import tempfile

import h5py

from checklib import BIN, SRC, check, failures

SCEN = os.path.join(SRC, "tests", "analysis_small.json")


def on_terminal(args):
    """Run with stderr on a pseudo-terminal; return (exit code, what it drew)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([BIN, *args], stdout=subprocess.DEVNULL, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO once the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(), out.decode(errors="replace")


with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "out.h5")
    # a long enough run for the bar to be drawn (first draw after 4096 events)
    code, drawn = on_terminal(["run", SCEN, "-o", out, "-q"])
    check(code == 0 and drawn == "", f"--quiet on a terminal drew {drawn!r}")
    code, drawn = on_terminal(["run", SCEN, "-o", out])
    check(code == 0, f"run on a terminal: exit {code}")
    check("events/s" in drawn and "ETA" in drawn and "[" in drawn and " / 3.0 d" in drawn,
          f"no progress bar: {drawn[:300]!r}")
    check(drawn.endswith("\r\033[K"), f"the bar is not erased at the end: {drawn[-40:]!r}")
    code, drawn = on_terminal(["compare", SCEN, "--policies", "fifo-first-fit,fifo-best-fit",
                               "--replications", "2", "-o", os.path.join(d, "c.h5")])
    check(code == 0 and re.search(r"fifo-(first|best)-fit, rep [01] ", drawn) and "ETA" in drawn,
          f"compare bar: {drawn[-300:]!r}")

    p = subprocess.run([BIN, "run", SCEN, "-o", out], capture_output=True, text=True)
    check(p.returncode == 0 and p.stderr == "", f"stderr not a terminal: {p.stderr!r}")
    check("utilization: allocated" in p.stdout, "the table")

    p = subprocess.run([BIN, "run", SCEN, "-o", out, "--json"], capture_output=True, text=True)
    check(p.returncode == 0 and p.stderr == "", f"--json: {p.returncode} {p.stderr!r}")
    js = json.loads(p.stdout)
    with h5py.File(out, "r") as f:
        s = f["summary"]
        check(js["command"] == "run" and js["scenario"] == "small mixed fleet" and js["output"] == out, "JSON header")
        check(js["events"] == s["events"][()], "JSON events")
        for k in ("alloc_util", "queue_len_mean", "t_end_s"):
            check(js[k] == s[k][()], f"JSON {k} {js[k]} vs {s[k][()]}")
        classes = {c["name"]: c for c in js["classes"]}
        check(set(classes) == {"training", "evaluation", "all"}, f"JSON classes {set(classes)}")
        for name in ("training", "evaluation"):
            g = s["classes"][name]
            for k in ("jobs_arrived", "jobs_completed", "wait_mean_s", "wait_p95_s", "slowdown_mean"):
                check(classes[name][k] == g[k][()], f"JSON {name} {k}: {classes[name][k]} vs {g[k][()]}")
        check(classes["all"]["jobs_arrived"] == s["jobs_arrived"][()], "JSON all")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("progress and --json: all checks passed")
