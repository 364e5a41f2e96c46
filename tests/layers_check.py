# SPDX-License-Identifier: Apache-2.0
"""The one-way dependencies of sim/ (docs/architecture.md), checked by
scripts/check_layers.py on the real tree and its built objects; and the
checker itself, on small trees that break each rule, so that it can fail."""
import os
import subprocess
import sys
import tempfile

src = os.environ.get("TARMAC_SRC") or os.path.join(os.path.dirname(__file__), "..")
build = sys.argv[1] if len(sys.argv) > 1 else None
check = [sys.executable, os.path.join(src, "scripts", "check_layers.py")]
failed = 0


def run(args):
    p = subprocess.run(check + args, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


# the real tree (and its objects, when the build folder is given)
rc, out = run((["--objects", build] if build else []) + [src])
print(out, end="")
if rc != 0:
    print("FAIL: the tree breaks its layering (above)")
    failed += 1


def tree(files):
    d = tempfile.mkdtemp(prefix="layers.")
    for path, text in files.items():
        full = os.path.join(d, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    return d


base = {
    "policies/place.h": "#include <stdint.h>\n",
    "traces/trace.h": '#include "place.h"\n',
    "sim/model/model.h": '#include "trace.h"\n',
    "sim/cli/cli.h": '#include "model/model.h"\n',
    "sim/config/config.h": '#include "model/model.h"\n',
}
cases = [
    ("a clean tree passes", {}, 0, "one way"),
    ("model including cli fails", {"sim/model/engine.c": '#include "cli/cli.h"\n'}, 1,
     "above its own sim/model/"),
    ("a cycle fails", {"sim/model/a.h": '#include "model/b.h"\n',
                       "sim/model/b.h": '#include "model/a.h"\n'}, 1, "include cycle"),
    ("policies including traces fails", {"policies/x.c": '#include "trace.h"\n'}, 1,
     "above its own policies/"),
    ("HDF5 outside output/ fails", {"sim/model/x.c": "#include <hdf5.h>\n"}, 1,
     "belongs to sim/output/"),
    ("cJSON outside config/ fails", {"sim/output/x.c": "#include <cjson/cJSON.h>\n"}, 1,
     "belongs to sim/config/"),
    ("an unknown project header fails", {"sim/model/x.c": '#include "nowhere_int.h"\n'}, 1,
     "names no file"),
]
for name, extra, want, needle in cases:
    files = dict(base)
    files.update(extra)
    rc, out = run([tree(files)])
    if rc != want or needle not in out:
        print("FAIL: %s: exit %d (want %d), output:\n%s" % (name, rc, want, out))
        failed += 1
    else:
        print("ok: %s" % name)

print("%d passed, %d failed" % (len(cases) + 1 - failed, failed))
sys.exit(1 if failed else 0)
