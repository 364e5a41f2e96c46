#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""md2man.py — a Markdown page of the docs as a man page (roff + tbl).

    md2man.py IN.md OUT.N NAME SECTION VERSION "one-line description"

docs/output.md is the source of truth for the file layout; the build turns
it into tarmac-output(5) with this script, so the two cannot drift apart.
It knows the Markdown the docs use and nothing more: '#' headings (the first
is the title), paragraphs, '-' lists, '|' tables (as tbl tables whose cells
wrap), fenced code blocks, `code`, **bold**, *italic* and [links](target).
Anything else is copied as text. Output is ASCII-safe roff: a few typographic
characters are mapped to roff escapes, the rest is left to preconv (man-db
runs it).
"""
import re
import sys

CHARS = {"\u2212": "\\-", "\u2014": "\\(em", "\u2013": "\\(en", "\u2026": "...", "\u00b5": "\\(mc",
         "\u2192": "\\(->", "\u2190": "\\(<-", "\u00d7": "\\(mu", "\u2265": "\\(>=", "\u2264": "\\(<="}


def esc(text):
    """Roff-escape plain text (no markup)."""
    text = text.replace("\\", "\\e")
    for k, v in CHARS.items():
        text = text.replace(k, v)
    return text


def inline(text):
    """Markdown inline markup to roff fonts."""
    out, i = [], 0
    for m in re.finditer(r"`([^`]*)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)]+)\)|(?<![\w*])\*([^*\s][^*]*)\*(?!\w)", text):
        out.append(esc(text[i:m.start()]))
        if m.group(1) is not None:
            out.append("\\fB" + esc(m.group(1)).replace("-", "\\-") + "\\fR")
        elif m.group(2) is not None:
            out.append("\\fB" + inline(m.group(2)) + "\\fR")
        elif m.group(3) is not None:
            target = m.group(4)
            out.append(inline(m.group(3)))
            if not target.endswith(".md") and "://" in target:
                out.append(" <" + esc(target) + ">")
        else:
            out.append("\\fI" + inline(m.group(5)) + "\\fR")
        i = m.end()
    out.append(esc(text[i:]))
    return "".join(out)


def line_safe(s):
    """A roff text line must not start with '.' or "'"."""
    return "\\&" + s if s[:1] in (".", "'") else s


def split_row(line):
    """Cells of a '|' table row; '|' inside `code` does not split."""
    cells, cur, code = [], "", False
    for ch in line.strip().strip("|"):
        if ch == "`":
            code = not code
        if ch == "|" and not code:
            cells.append(cur.strip())
            cur = ""
        else:
            cur += ch
    cells.append(cur.strip())
    return cells


def table(rows):
    head, body = rows[0], [r for r in rows[2:]]
    n = len(head)
    out = [".TS", "allbox tab(@);", " ".join(["l"] * (n - 1) + ["lx"]) + ".",
           "@".join("\\fB" + inline(c) + "\\fR" for c in head)]
    for r in body:
        r = (r + [""] * n)[:n]
        # a text block wraps; short cells outside the last column size their
        # column instead (a text block there gets a narrow default width)
        out.append("@".join("T{\n" + line_safe(inline(c)) + "\nT}" if k == n - 1 or len(c) > 40
                            else inline(c) for k, c in enumerate(r)))
    out += [".TE", ".sp"]
    return out


def convert(md, name, section, version, description):
    lines = md.splitlines()
    out = ["'\\\" t", f".\\\" {name}({section}): generated from docs/output.md by scripts/md2man.py.",
           ".\\\" Edit the Markdown, not this file.",
           f'.TH {name.upper()} {section} 2025 "tarmac {version}" "File Formats"',
           ".ad l", ".nh", ".SH NAME",
           f"{name} \\- {esc(description)}"]
    i, para = 0, []

    def flush():
        if para:
            out.append(".PP")
            out.extend(line_safe(inline(p)) for p in para)
            para.clear()

    first_heading = True
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            flush()
            out += [".PP", ".RS 4", ".nf"]
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                out.append(line_safe(esc(lines[i])))
                i += 1
            out += [".fi", ".RE"]
        elif line.startswith("#"):
            flush()
            level = len(line) - len(line.lstrip("#"))
            text = line.lstrip("#").strip()
            if first_heading:
                out += [".SH DESCRIPTION", ".PP", line_safe(inline(text)) + "."]
                first_heading = False
            elif level == 2:
                out.append(".SH " + inline(text))
            else:
                out.append(".SS " + inline(text))
        elif line.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(split_row(lines[i]))
                i += 1
            out += table(rows)
            continue
        elif re.match(r"^- ", line):
            flush()
            item = [line[2:].strip()]
            i += 1
            while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                item.append(lines[i].strip())
                i += 1
            out.append(".IP \\(bu 2")
            out.extend(line_safe(inline(t)) for t in item)
            continue
        elif not line.strip():
            flush()
        else:
            para.append(line.strip())
        i += 1
    flush()
    out += [".SH SEE ALSO", ".BR tarmac (1),", ".BR h5dump (1)"]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    src, dst, name, section, version, description = sys.argv[1:]
    with open(src, encoding="utf-8") as f:
        text = convert(f.read(), name, section, version, description)
    with open(dst + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    import os
    os.replace(dst + ".tmp", dst)


if __name__ == "__main__":
    main()
