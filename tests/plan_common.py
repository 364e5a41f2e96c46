# SPDX-License-Identifier: Apache-2.0
"""plan_common.py — what the checks of `tarmac plan` share
(tests/plan_check.py, tests/plan_screen_check.py): the binary and source
tree from ctest's environment, the tiny case (tests/plan_tiny.json) with
the arguments every plan of it takes, and check(), which prints a failure
and keeps it in `failures` (the caller exits 1 when that is not empty).
"""
import os

BIN = os.environ["TARMAC_BIN"]
SRC = os.environ["TARMAC_SRC"]
TINY = os.path.join(SRC, "tests", "plan_tiny.json")
BASE = ["plan", TINY, "--target", "wait_p95<=30m", "--periods", "4", "--lead-time", "1",
        "--max-nodes", "4", "--replications", "3", "-j", "1"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
