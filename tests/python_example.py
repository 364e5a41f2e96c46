#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""python_example.py — docs/examples/read_results.py runs on a fresh result.

The example loads the jobs table and the time series with h5py and pandas and
asserts that they agree with the file's totals; here it must exit 0 and print
its tables for every class of the scenario.
"""
import os
import subprocess
import sys
import tempfile

BIN = os.environ["TARMAC_BIN"]
SRC = os.environ["TARMAC_SRC"]
PY = os.environ.get("TARMAC_PY", sys.executable)

with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "out.h5")
    subprocess.run([BIN, "run", os.path.join(SRC, "tests", "analysis_small.json"), "-o", out, "-q"], check=True)
    p = subprocess.run([PY, os.path.join(SRC, "docs", "examples", "read_results.py"), out],
                       capture_output=True, text=True)
    print(p.stdout)
    ok = (p.returncode == 0 and "training" in p.stdout and "evaluation" in p.stdout
          and "per simulated day" in p.stdout and "checks:" in p.stdout)
    if not ok:
        print(f"FAIL: exit {p.returncode}: {p.stderr}")
        sys.exit(1)
print("the Python example ran")
