# SPDX-License-Identifier: Apache-2.0
"""plan_common.py — what the checks of `tarmac plan` share
(tests/plan_check.py, tests/plan_screen_check.py; both take the binary and
check() from tests/checklib.py): the tiny case (tests/plan_tiny.json) with
the arguments every plan of it takes.
"""
import os

from checklib import SRC

TINY = os.path.join(SRC, "tests", "plan_tiny.json")
BASE = ["plan", TINY, "--target", "wait_p95<=30m", "--periods", "4", "--lead-time", "1",
        "--max-nodes", "4", "--replications", "3", "-j", "1"]
