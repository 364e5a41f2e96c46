#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""docs_check.py — the docs and the man pages against real files and --help.

    docs_check.py BUILT_MAN5     (the tarmac-output.5 the build generated)

- Every dataset, group and attribute name that docs/output.md gives (in
  `code`) exists in a real run, comparison or breakeven file, and every
  dataset, column and attribute of those files is named in docs/output.md.
- The generated tarmac-output(5) renders without groff warnings and names
  every dataset of those files.
- tarmac(1) renders without warnings and has every command of `tarmac
  --help` and every option of `tarmac help COMMAND`; docs/cli.md too.
- The Python snippets of docs/output.md run on the real files.
- The trace-format table (traces/formats.c, through `tarmac replay --help`)
  and the format table of docs/traces.md name the same formats.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import h5py

BIN = os.environ["TARMAC_BIN"]
SRC = os.environ["TARMAC_SRC"]
PY = os.environ.get("TARMAC_PY", sys.executable)
SCEN = os.path.join(SRC, "tests", "analysis_small.json")
MAN5 = sys.argv[1]
failures = []

# words in `code` in output.md that are not names in a file, and why
NOT_NAMES = {
    "s", "us", "h", "GPU", "1",  # units
    "tarmac", "run", "h5dump",  # commands and tools
    "stop", "horizon", "drain", "sample", "name",  # scenario keys and values
    "test_compare_coverage",  # a test
    "scenario", "pack",  # values of /sweep@sweep_kind
}


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


# the attributes of HDF5's dimension-scale library (H5DS), not tarmac's names
H5DS_ATTRS = {"CLASS", "NAME", "DIMENSION_LIST", "REFERENCE_LIST"}


def names_in(path):
    """Leaf names of datasets and groups, and attribute names, of a file."""
    found = set()

    def visit(name, obj):
        # class, pool, type and service names come from the scenario
        # packing policies and seeds are numbered groups (pNN, sKK)
        # sweep parameters are named by their JSON paths, links by point number
        if not re.fullmatch(r"(summary/(classes|pools|types|services)|timeseries_(pool|type|class|service))/[^/]+", name) \
                and not re.fullmatch(r"packing/policies/p\d+(/seeds/s\d+)?", name) \
                and not re.fullmatch(r"(sweep/(params|files)|sweep_point/params)/[^/]+", name):
            found.add(name.split("/")[-1])
        found.update(k for k in obj.attrs.keys() if k not in H5DS_ATTRS)

    with h5py.File(path, "r") as f:
        found.update(f.attrs.keys())
        f.visititems(visit)
    return found


def datasets_in(path):
    out = set()
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.add(n) if isinstance(o, h5py.Dataset) else None)
    return out


def render(page):
    """The page as text, through groff (groff-base, which man-db needs)."""
    g = subprocess.run(["groff", "-man", "-t", "-k", "-z", "-Tutf8", page], capture_output=True, text=True)
    check(g.returncode == 0 and g.stderr == "", f"{page}: groff warnings: {g.stderr}")
    p = subprocess.run(["groff", "-man", "-t", "-k", "-Tutf8", "-rLL=120n", "-P-c", page],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"groff {page}: exit {p.returncode}")
    return re.sub(r".\x08", "", p.stdout)  # no overstrike


with tempfile.TemporaryDirectory() as d:
    run, cmp = os.path.join(d, "tarmac-out.h5"), os.path.join(d, "tarmac-compare.h5")
    subprocess.run([BIN, "run", SCEN, "-o", run, "-q"], check=True)
    subprocess.run([BIN, "compare", SCEN, "--policies", "fifo-first-fit,fifo-best-fit",
                    "--replications", "2", "-o", cmp, "-q"], check=True)
    be = os.path.join(d, "tarmac-breakeven.h5")
    subprocess.run([BIN, "breakeven", os.path.join(SRC, "scenarios", "chat-breakeven.json"), "--volumes",
                    "10B:1T:3", "--refine", "2", "--replications", "1", "-o", be, "-q"], check=True)
    # a class's specialization report: the same scenario with its first
    # class specialized half-way
    with open(SCEN) as f:
        spec_sc = json.load(f)
    spec_sc["workload"]["classes"][0]["specialize"] = {"at": "1d", "gpus": 1}
    # and a service's: its model replaced by a larger one on the same day
    spec_sc["workload"]["services"][0]["specialize"] = {"at": "1d",
                                                        "preset": "llama-3.1-70b-fp8-tp2"}
    spec_path, spec_run = os.path.join(d, "special.json"), os.path.join(d, "special.h5")
    with open(spec_path, "w") as f:
        json.dump(spec_sc, f)
    subprocess.run([BIN, "run", spec_path, "-o", spec_run, "-q"], check=True)
    # a sizing's file (tarmac size -o)
    sz = os.path.join(d, "tarmac-size.h5")
    subprocess.run([BIN, "size", SCEN, "--target", "wait_p95<=30m", "--replications", "1",
                    "--growth", "0.1", "--growth-months", "3", "-o", sz, "-q"], check=True)
    # a whole-fleet breakeven file (tarmac breakeven --fleet)
    fbe = os.path.join(d, "tarmac-fleet-breakeven.h5")
    subprocess.run([BIN, "breakeven", "--fleet", os.path.join(SRC, "tests", "fleetcost_small.json"),
                    "--target", "wait_p95<=30m", "--scale", "0.5:2:2", "--replications", "1",
                    "-o", fbe, "-q"], check=True)
    # a plan's file (tarmac plan -o), with --exact for the greedy's columns
    pl = os.path.join(d, "tarmac-plan.h5")
    subprocess.run([BIN, "plan", os.path.join(SRC, "tests", "plan_tiny.json"), "--target",
                    "wait_p95<=30m", "--periods", "3", "--growth", "30%", "--lead-time", "1",
                    "--max-nodes", "4", "--replications", "3", "--exact", "-o", pl, "-q"], check=True)
    in_files = names_in(run) | names_in(cmp) | names_in(be) | names_in(spec_run) | names_in(sz) \
        | names_in(pl)
    in_files |= names_in(fbe)
    # a sensitivity file (tarmac sensitivity)
    sens = os.path.join(d, "tarmac-sensitivity.h5")
    subprocess.run([BIN, "sensitivity", os.path.join(SRC, "tests", "sensitivity_small.json"),
                    "--replications", "2", "--breakeven", "--size-target", "wait_p95<=10m",
                    "--search-replications", "2", "-j", "1", "-o", sens, "-q"], check=True)
    in_files |= names_in(sens)
    # a run that keeps only the job shapes (run --jobs summary: /jobs_summary)
    jsum = os.path.join(d, "jobs-summary.h5")
    subprocess.run([BIN, "run", SCEN, "--jobs", "summary", "-o", jsum, "-q"], check=True)
    in_files |= names_in(jsum)
    # the packing file needs the openb trace; without it its section is left out
    data = os.environ.get("TARMAC_DATA_DIR", "")
    openb = os.path.join(data, "alibaba-gpu-v2023-openb")
    have_pack = os.path.isdir(openb)
    if have_pack:
        pack = os.path.join(d, "tarmac-pack.h5")
        subprocess.run([BIN, "replay", os.path.join(openb, "openb_pod_list_default.csv"), "--format", "openb",
                        "--protocol", "pack", "--nodes", os.path.join(openb, "openb_node_list_gpu_node.csv"),
                        "--seeds", "1", "-o", pack, "-q"], check=True)
        in_files |= names_in(pack)
    elif os.environ.get("CI") == "true":
        check(False, f"CI=true and the openb trace is missing ({openb})")
    # sweep files: a point file and the merged file (study.points/merged.h5,
    # which output.md's snippet reads), and their packing versions
    with open(os.path.join(d, "study.json"), "w") as f:
        f.write('{"scenario": "%s", "replications": 2, "grid": {"policy": ["fifo-first-fit", "fifo-best-fit"]}}' % SCEN)
    subprocess.run([BIN, "sweep", "study.json", "-q"], check=True, cwd=d)
    merged = os.path.join(d, "study.points", "merged.h5")
    in_files |= names_in(merged) | names_in(os.path.join(d, "study.points", "p000000.h5"))
    sweep_datasets = {n for n in datasets_in(merged) if not n.startswith("sweep/params/")}
    if have_pack:
        with open(os.path.join(d, "fgd.json"), "w") as f:
            f.write('{"kind": "pack", "pack": {"pods": "%s", "nodes": "%s", "target_pct": 60}}'
                    % (os.path.join(openb, "openb_pod_list_default.csv"),
                       os.path.join(openb, "openb_node_list_gpu_node.csv")))
        subprocess.run([BIN, "sweep", "fgd.json", "-q"], check=True, cwd=d)
        pm = os.path.join(d, "fgd.points", "merged.h5")
        in_files |= names_in(pm) | names_in(os.path.join(d, "fgd.points", "p000000.h5"))
        sweep_datasets |= datasets_in(pm)
    with open(os.path.join(SRC, "docs", "output.md"), encoding="utf-8") as f:
        md = f.read()
    prose = re.sub(r"```.*?```", "", md, flags=re.S)  # code blocks are examples, not names
    if not have_pack:
        prose = re.sub(r"## Packing experiment.*?(?=\n## )", "", prose, flags=re.S)
        prose = re.sub(r"### Packing sweeps.*?(?=\n## |\n### |\Z)", "", prose, flags=re.S)
    documented = set()
    for tok in re.findall(r"`([^`]+)`", prose):
        if tok.startswith(("tarmac ", "FILE", "<")) or re.search(r"[=:.]", tok):
            continue  # command lines, placeholders, scenario snippets, file names
        for part in re.split(r"[/,{}\s]+", tok):
            if re.fullmatch(r"[a-z][a-z0-9_]*", part) and part not in NOT_NAMES:
                documented.add(part)
                check(part in in_files, f"docs/output.md names `{part}` (in `{tok}`), which no real file has")
    # (a name that is also a command, `run`, is documented all the same)
    missing = sorted(n for n in in_files if n not in documented and n not in NOT_NAMES)
    check(not missing, f"in the files but not in docs/output.md: {missing}")

    # the generated man page
    text = render(MAN5)
    for ds in sorted(datasets_in(run) | datasets_in(cmp) | sweep_datasets | datasets_in(be)
                     | datasets_in(sz)):
        leaf = ds.split("/")[-1]
        check(leaf in text, f"tarmac-output(5) lacks {leaf} (/{ds})")
    check("Comparison files" in text and "gsl_cdf_tdist_Pinv" in text, "tarmac-output(5): compare section")

    # tarmac(1) and docs/cli.md against --help
    man1 = render(os.path.join(SRC, "docs", "man", "tarmac.1"))
    with open(os.path.join(SRC, "docs", "cli.md"), encoding="utf-8") as f:
        cli_md = f.read()
    top = subprocess.run([BIN, "--help"], capture_output=True, text=True).stdout
    commands = re.findall(r"^  (\w+)\s{2,}", top.split("Commands:")[1], re.M)
    commands = [c for c in commands if c != "help"]
    check({"run", "validate", "compare", "plot", "export", "size", "breakeven"} <= set(commands),
          f"commands {commands}")
    for c in commands:
        check(re.search(rf"^\s+{c}\b", man1, re.M), f"tarmac(1) lacks the command {c}")
        check(f"tarmac {c}" in cli_md, f"docs/cli.md lacks `tarmac {c}`")
        h = subprocess.run([BIN, "help", c], capture_output=True, text=True).stdout
        opts = re.findall(r"^  (?:(-\w), )?(--[a-z][a-z-]*)", h, re.M)
        for opt in sorted({o for pair in opts for o in pair if o}):
            check(opt in man1, f"tarmac(1) lacks {c} {opt}")
            check(opt in cli_md, f"docs/cli.md lacks {c} {opt}")
    for code in ("64", "65", "66", "69", "70", "71", "73", "74", "130"):
        check(re.search(rf"^\s+{code}\b", man1, re.M), f"tarmac(1) lacks exit status {code}")

    # the trace formats: the table of traces/formats.c, as `tarmac replay
    # --help` prints it, against the format table of docs/traces.md
    with open(os.path.join(SRC, "docs", "traces.md")) as f:
        traces_md = f.read()
    rh = subprocess.run([BIN, "replay", "--help"], capture_output=True, text=True).stdout
    block = rh.split("Formats (docs/traces.md):", 1)[1].split("\n\n", 1)[0]
    formats = re.findall(r"^  ([a-z][a-z0-9-]*)\s", block, re.M)
    check(len(formats) >= 8, f"tarmac replay --help lists {len(formats)} formats")
    documented = set(re.findall(r"^\| `([a-z][a-z0-9-]*)` \|", traces_md, re.M))
    for fmt in formats:
        check(fmt in documented, f"docs/traces.md's format table lacks {fmt}")
    for fmt in documented - set(formats):
        check(False, f"docs/traces.md documents a format {fmt} that the format table lacks")

    # the snippets of docs/output.md run on the files
    for i, block in enumerate(re.findall(r"```python\n(.*?)```", md, re.S)):
        p = subprocess.run([PY, "-c", block], cwd=d, capture_output=True, text=True)
        check(p.returncode == 0, f"docs/output.md snippet {i + 1} failed: {p.stderr[-600:]}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("docs and man pages agree with the files and --help")
