#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""report_check.py — `tarmac report`: the HTML page of a run and of a comparison.

For a run file and a compare file of a small scenario whose names hold HTML's
special characters, the page must be
  - self-contained: no http(s): anywhere, no src= or <link>, no <script>, no
    url() but to an id of the page, no @import;
  - well-formed enough: every tag closed in order (html.parser, a stack);
    ids unique over the page although every gnuplot picture has the same
    ones, and every href="#id" and url(#id) finding its id; no attribute of the file's text turned into markup (no on*=);
  - true to the file: the numbers h5py reads, formatted as the page formats
    them (report_html_walk.c, sim__rpt_num), in its cells; the names, escaped,
    in its text; as many figures as `tarmac plot` draws;
  - drawn by headless Chromium without a console error (a broken page proves
    the check can fail), into a screenshot that is not blank. The screenshots
    stay in the build folder (tests/report/*.png). Without Chromium the check
    is skipped (77), unless CI=true.
Bad input: a missing file (66), a text file and an HDF5 file tarmac did not
write (65), an output folder that does not exist (73), SIGINT and SIGTERM
while gnuplot draws (130): no output, no temporary folder left. `-o -` writes
the page to stdout.
"""
import html.parser
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

import h5py

BIN = os.environ["TARMAC_BIN"]
SRC = os.environ["TARMAC_SRC"]
OUT = os.path.join(os.getcwd(), "report")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def tm(*args, code=0, stdout=None):
    p = subprocess.run([BIN, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=ENV, timeout=600)
    if p.returncode != code:
        fail("tarmac %s: exit %d, want %d; stderr: %s" % (" ".join(args), p.returncode, code,
                                                          p.stderr.decode(errors="replace")))
    return p


def num(v, integer=False):
    """The page's number format (sim__rpt_num)."""
    v = float(v)
    if math.isnan(v):
        return "n/a"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if integer or (1e5 <= abs(v) < 1e15):
        return "%.0f" % v
    return "%.6g" % v


VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "wbr"}


class Page(html.parser.HTMLParser):
    """Tag balance, ids, attributes, and the text of every element."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.ids, self.texts = [], [], {}, []
        self.tags, self.attrs = {}, []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self.attrs.extend(attrs)
        for k, v in attrs:
            if k == "id":
                self.ids[v] = self.ids.get(v, 0) + 1
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self.attrs.extend(attrs)
        for k, v in attrs:
            if k == "id":
                self.ids[v] = self.ids.get(v, 0) + 1

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append("</%s> at %s closes %s" % (tag, self.getpos(),
                                                          self.stack[-1] if self.stack else
                                                          "nothing"))
            return
        self.stack.pop()

    def handle_data(self, data):
        if data.strip():
            self.texts.append(data.strip())


def check_page(name, text):
    """Self-contained and well-formed; returns the parse."""
    for pat, what in [(r"(?i)https?:", "an http(s): address"), (r"(?i)\bsrc\s*=", "a src="),
                      (r"(?i)<link\b", "a <link>"), (r"(?i)<script\b", "a <script>"),
                      (r"(?i)@import", "an @import"), (r"(?i)url\(\s*(?!['\"]?#)", "a url() to "
                                                       "something outside the page"),
                      (r"(?i)<iframe|<object|<embed", "an embedded document"),
                      (r"(?i)href\s*=\s*(?!['\"]?#)", "a link out of the page")]:
        m = re.search(pat, text)
        if m:
            fail("%s: %s: ...%s..." % (name, what, text[max(0, m.start() - 60):m.end() + 60]))
    p = Page()
    p.feed(text)
    p.close()
    for e in p.errors[:5]:
        fail("%s: tags out of order: %s" % (name, e))
    if p.stack:
        fail("%s: unclosed at the end: %s" % (name, p.stack[-5:]))
    dup = [k for k, v in p.ids.items() if v > 1]
    if dup:
        fail("%s: ids used more than once: %s" % (name, dup[:8]))
    # every reference to an id (a marker's <use href="#...">, a url(#...))
    # finds it: a rewrite that renamed the ids but not the references, or the
    # other way round, draws pictures without their points
    refs = {v[1:] for k, v in p.attrs if k in ("href", "xlink:href") and v and v[0] == "#"}
    refs |= set(re.findall(r"url\(#([^)'\"]+)\)", text))
    dangling = sorted(refs - set(p.ids))
    if dangling:
        fail("%s: references to ids that are not on the page: %s" % (name, dangling[:8]))
    handlers = [k for k, v in p.attrs if k.lower().startswith("on")]
    if handlers:
        fail("%s: event-handler attributes: %s" % (name, handlers[:5]))
    if not text.startswith("<!DOCTYPE html>") or not text.rstrip().endswith("</html>"):
        fail("%s: not a whole page (doctype ... </html>)" % name)
    return p


def png_pixels(path):
    """(width, height, rows of bytes, bytes per pixel) of an 8-bit PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace:
                raise ValueError("PNG of depth %d, interlace %d" % (depth, interlace))
            bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, rows, bpp


def chromium():
    for exe in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(exe)
        if p:
            return p
    return None


def render(exe, html_path, png, size="1200,1800"):
    """Headless Chromium: the screenshot, and the console messages it logged."""
    prof = os.path.join(OUT, "chromium-profile")
    shutil.rmtree(prof, ignore_errors=True)
    if os.path.exists(png):
        os.remove(png)
    p = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--enable-logging=stderr", "--v=0", "--user-data-dir=" + prof,
                        "--window-size=" + size, "--screenshot=" + png,
                        "file://" + html_path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=180)
    shutil.rmtree(prof, ignore_errors=True)
    log = p.stderr.decode(errors="replace")
    console = [l for l in log.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    return p.returncode, console, log


def not_blank(png):
    """The screenshot has content: many distinct colours, some dark pixels."""
    w, h, rows, bpp = png_pixels(png)
    colours, dark = set(), 0
    for y in range(0, h, 4):
        r = rows[y]
        for x in range(0, w, 4):
            px = bytes(r[x * bpp:x * bpp + 3])
            colours.add(px)
            dark += sum(px) < 3 * 100
    return w, h, len(colours), dark


# ---------------------------------------------------------------------------
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
TMP = os.path.join(OUT, "tmp")  # TMPDIR of every tarmac: nothing may stay in it
os.makedirs(TMP)
ENV = dict(os.environ, TMPDIR=TMP)

# the scenario: tests/golden/small.json, shorter, with names that are markup
sc = json.load(open(os.path.join(SRC, "tests/golden/small.json")))
sc["name"] = "small <i onmouseover=\"x()\">report</i> & 'co'"
sc["horizon"] = "12h"
CLASS0 = "train<b>&\"x'"
CLASS1 = "eval<script>x()&amp;<td>"  # a name has no "/" (scenarios/SCHEMA.md)
sc["workload"]["classes"][0]["name"] = CLASS0
sc["workload"]["classes"][1]["name"] = CLASS1
scen = os.path.join(OUT, "scenario.json")
json.dump(sc, open(scen, "w"), indent=2)

run_h5, cmp_h5 = os.path.join(OUT, "run.h5"), os.path.join(OUT, "compare.h5")
tm("run", scen, "-q", "--seed", "7", "-o", run_h5)
tm("compare", scen, "--policies", "fifo-first-fit,fifo-best-fit", "--replications", "2",
   "--seed", "7", "-j", "2", "-q", "--per-class", "-o", cmp_h5)

pages = {}
for kind, h5 in (("run", run_h5), ("compare", cmp_h5)):
    out = os.path.join(OUT, kind + ".html")
    p = tm("report", h5, "-o", out)
    if not os.path.exists(out):
        fail("%s: no page written" % out)
        continue
    text = open(out, encoding="utf-8").read()
    parse = check_page(kind + ".html", text)
    pages[kind] = (out, text, parse)
    # as many figures as tarmac plot draws, each an <svg> with its own ids
    pdir = os.path.join(OUT, kind + "-plots")
    tm("plot", h5, "--format", "svg", "-o", pdir, "-q")
    n_plot = len([f for f in os.listdir(pdir) if f.endswith(".svg")]) if os.path.isdir(pdir) else 0
    n_svg = parse.tags.get("svg", 0)
    if n_svg != n_plot or n_plot == 0:
        fail("%s: %d inline SVG figures, tarmac plot draws %d" % (kind, n_svg, n_plot))
    if not any(i.startswith("f2-") for i in parse.ids) and n_plot > 1:
        fail("%s: the second figure's ids are not prefixed f2-" % kind)
    # the names, as text (escaped in the source, whole once parsed)
    for name in (CLASS0, CLASS1):
        if name not in parse.texts:
            fail("%s: the class name %r is not a text of the page" % (kind, name))
    if "x()" in [v for k, v in parse.attrs]:
        fail("%s: text of the file became an attribute" % kind)
    if not any(sc["name"] in t for t in parse.texts):
        fail("%s: the scenario name %r is not in the page's text" % (kind, sc["name"]))
    # the scenario as given, whole
    with h5py.File(h5) as f:
        given = f["provenance/scenario_given"][()].decode()
    if given.strip() not in "\n".join(parse.texts) and given.strip() not in \
            html.unescape(text):
        fail("%s: the scenario as given is not in the page" % kind)

# the numbers: h5py's, formatted as the page does
cells = set()
for kind in pages:
    cells |= {(kind, t) for t in pages[kind][2].texts}


def want(kind, value, integer, what):
    s = num(value, integer)
    if (kind, s) not in cells:
        fail("%s: %s = %s (h5py) is not a cell of the page" % (kind, what, s))


if "run" in pages:
    with h5py.File(run_h5) as f:
        s = f["summary"]
        for k in ("jobs_arrived", "jobs_completed", "events", "passes"):
            want("run", s[k][()], True, "/summary/" + k)
        for k in ("wait_mean_s", "wait_p95_s", "alloc_util", "gpu_hours_owned",
                  "gpu_hours_alloc", "slowdown_mean"):
            want("run", s[k][()], False, "/summary/" + k)
        for c in s["classes"]:
            for k in ("wait_mean_s", "gpu_hours_alloc"):
                want("run", s["classes"][c][k][()], False, "/summary/classes/%s/%s" % (c, k))
            want("run", s["classes"][c]["jobs_arrived"][()], True,
                 "/summary/classes/%s/jobs_arrived" % c)
        led = f["ledger/fleet"]
        for v in led["gpu_hours"][()]:
            want("run", v, False, "/ledger/fleet/gpu_hours")
        if "cost" in f:
            want("run", f["cost/total_usd"][()], False, "/cost/total_usd")
        for t in f["tenants"]["gpu_hours_alloc"][()]:
            want("run", t, False, "/tenants/gpu_hours_alloc")
if "compare" in pages:
    with h5py.File(cmp_h5) as f:
        for m in f["compare/metrics"]:
            g = f["compare/metrics"][m]
            for col in ("mean", "ci_low", "ci_high", "diff_mean"):
                for v in g[col][()]:
                    want("compare", v, False, "/compare/metrics/%s/%s" % (m, col))
        policies = f["compare"].attrs["policies"].split("\n")
        for pname in policies:
            if pname not in pages["compare"][2].texts:
                fail("compare: policy %r is not a text of the page" % pname)

# -o - writes the page to stdout
p = tm("report", run_h5, "-o", "-", "-q")
if not p.stdout.startswith(b"<!DOCTYPE html>") or "run" in pages and \
        p.stdout.decode() != pages["run"][1]:
    fail("-o -: stdout is not the page -o FILE writes")

# bad input: exit code, message, and nothing left behind
bad_txt = os.path.join(OUT, "not-hdf5.h5")
open(bad_txt, "w").write("hello\n")
other = os.path.join(OUT, "other.h5")
with h5py.File(other, "w") as f:
    f["x"] = 1
for args, code, msg in [((os.path.join(OUT, "missing.h5"),), 66, "missing.h5"),
                        ((bad_txt,), 65, "not an HDF5 file"),
                        ((other,), 65, "not one tarmac wrote"),
                        ((run_h5, "-o", os.path.join(OUT, "no-such-dir", "r.html")), 73,
                         "no-such-dir")]:
    out = os.path.join(OUT, "bad.html")
    a = list(args) + ([] if "-o" in args else ["-o", out])
    p = tm("report", *a, code=code)
    if msg not in p.stderr.decode(errors="replace"):
        fail("report %s: stderr %r lacks %r" % (" ".join(a), p.stderr.decode(), msg))
    if os.path.exists(out) or [f for f in os.listdir(OUT) if ".tmp." in f]:
        fail("report %s: output or temporary left" % " ".join(a))
# SIGINT and SIGTERM while gnuplot draws (a report takes about a second):
# exit 130, no page, no temporary, no figure folder
import signal
import time
for sig in (signal.SIGINT, signal.SIGTERM):
    out = os.path.join(OUT, "interrupted.html")
    proc = subprocess.Popen([BIN, "report", run_h5, "-o", out, "-q"], env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(0.3)
    proc.send_signal(sig)
    err = proc.communicate(timeout=60)[1].decode(errors="replace")
    if proc.returncode == 0:
        print("note: the report finished before signal %d; not checked" % sig)
    elif proc.returncode != 130 or "interrupted" not in err:
        fail("signal %d: exit %d, want 130; stderr %r" % (sig, proc.returncode, err))
    if os.path.exists(out) != (proc.returncode == 0) or \
            [f for f in os.listdir(OUT) if ".tmp." in f]:
        fail("signal %d: a page or temporary left" % sig)
    if os.path.exists(out):
        os.remove(out)
if os.listdir(TMP):
    fail("temporary folders left in TMPDIR: %s" % os.listdir(TMP))

# the browser
exe = chromium()
if not exe:
    if os.environ.get("CI") == "true":
        fail("chromium not found in PATH (CI=true: the rendering check must run)")
    else:
        print("SKIP (rendering): chromium not found in PATH")
        if failures:
            sys.exit(1)
        sys.exit(77)
else:
    # a broken page must be caught, or the check below proves nothing
    broken = os.path.join(OUT, "broken.html")
    open(broken, "w").write("<!DOCTYPE html><html><body><p>broken</p>"
                            "<script>undefinedFunction();</script></body></html>")
    rc, console, log = render(exe, broken, os.path.join(OUT, "broken.png"), "400,300")
    if not console:
        fail("chromium logged no console error for a page that throws: the check is blind; "
             "log: %s" % log[-800:])
    for kind in pages:
        png = os.path.join(OUT, kind + ".png")
        rc, console, log = render(exe, pages[kind][0], png)
        if rc != 0 or not os.path.exists(png):
            fail("%s: chromium exited %d, no screenshot; log: %s" % (kind, rc, log[-800:]))
            continue
        for l in console:
            fail("%s: console: %s" % (kind, l))
        w, h, colours, dark = not_blank(png)
        print("%s: screenshot %s, %dx%d, %d colours, %d dark samples" % (kind, png, w, h,
                                                                        colours, dark))
        if colours < 50 or dark < 500:
            fail("%s: the screenshot looks blank (%d colours, %d dark samples)" % (kind, colours,
                                                                                dark))
    blank = os.path.join(OUT, "blank.html")
    open(blank, "w").write("<!DOCTYPE html><html><body></body></html>")
    render(exe, blank, os.path.join(OUT, "blank.png"), "400,300")
    if os.path.exists(os.path.join(OUT, "blank.png")):
        w, h, colours, dark = not_blank(os.path.join(OUT, "blank.png"))
        if colours >= 50 and dark >= 500:
            fail("an empty page passes the blank-screenshot check")

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok: run and compare pages self-contained, well-formed, true to the file, rendered")
