# SPDX-License-Identifier: Apache-2.0
"""checklib.py — what the Python checks of the commands share: the binary
and source tree from ctest's environment (TARMAC_BIN, TARMAC_SRC),
check(), which prints a failure and keeps it in `failures` (the caller
exits 1 when that is not empty), and tarmac(), which runs the binary and
checks its exit status. Imported by tests/compare_check.py, cost_check.py,
export_check.py, progress_check.py, plot_check.py, plot_units.py,
sweep_check.py, jobsopt_check.py, run_h5_check.py, plan_check.py,
plan_screen_check.py and plan_common.py.
"""
import os
import subprocess

BIN = os.environ["TARMAC_BIN"]
SRC = os.environ["TARMAC_SRC"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def tarmac(*args, code=0):
    """Run tarmac with args (text output captured); a failure unless it exits code."""
    p = subprocess.run([BIN, *args], capture_output=True, text=True)
    check(p.returncode == code, f"tarmac {' '.join(args)}: exit {p.returncode}, want {code}: {p.stderr}")
    return p
