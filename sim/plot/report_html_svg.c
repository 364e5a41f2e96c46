/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_html_svg.c — text and pictures for the HTML report: HTML escapes,
 * and gnuplot's SVG made an element of the page (report_html_int.h).
 *
 * The SVG is rewritten in one pass that knows tags, quoted attribute values,
 * comments and CDATA and nothing more, which is all gnuplot's svg terminal
 * writes: an id="x" becomes id="PREFIXx", and so do the references to it
 * (href="#x", xlink:href="#x", url(#x) in an attribute or a <style>), so the
 * ids of several pictures (each has gnuplot_canvas, gpPt0, ...) stay apart.
 * Text between tags is copied as it is: gnuplot has escaped it.
 */
#include "plot/report_html_int.h"

#include <stdlib.h>
#include <string.h>

/* The ids of one picture so far: gnuplot repeats some in a multiplot
 * (gnuplot_plot_1a in every panel), which HTML does not allow; a repeat gets
 * "-N" appended. References keep pointing at the first, as they did. */
typedef struct id_set {
    const char **v; /* pointers into the picture */
    size_t *len, n, cap;
} id_set;

/* How many times id (len bytes) was seen before; -1 when out of memory. */
static long id_seen(id_set *ids, const char *id, size_t len)
{
    long seen = 0;
    for (size_t i = 0; i < ids->n; i++) /* a few hundred ids: a scan */
        seen += ids->len[i] == len && memcmp(ids->v[i], id, len) == 0;
    if (ids->n == ids->cap) {
        size_t cap = ids->cap ? ids->cap * 2 : 256;
        const char **v = realloc(ids->v, cap * sizeof *v);
        if (!v)
            return -1;
        ids->v = v;
        size_t *l = realloc(ids->len, cap * sizeof *l);
        if (!l)
            return -1;
        ids->len = l;
        ids->cap = cap;
    }
    ids->v[ids->n] = id;
    ids->len[ids->n++] = len;
    return seen;
}

void sim__report_html_esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
                fputs("\xef\xbf\xbd", f); /* U+FFFD: not allowed in HTML text */
            else
                fputc(ch, f);
        }
    }
}

static int starts(const char *s, const char *end, const char *lit)
{
    size_t l = strlen(lit);
    return (size_t)(end - s) >= l && memcmp(s, lit, l) == 0;
}

/* Copy from s up to and including the first `lit` (or to end). */
static const char *copy_through(FILE *f, const char *s, const char *end, const char *lit)
{
    size_t l = strlen(lit);
    const char *q = s;
    while (q < end && !starts(q, end, lit))
        q++;
    q = q < end ? q + l : end;
    fwrite(s, 1, (size_t)(q - s), f);
    return q;
}

/* Copy s..end, with "url(#" followed by the prefix. */
static void copy_urls(FILE *f, const char *s, const char *end, const char *prefix)
{
    while (s < end) {
        if (starts(s, end, "url(#")) {
            fputs("url(#", f);
            fputs(prefix, f);
            s += 5;
        } else {
            fputc(*s++, f);
        }
    }
}

int sim__report_html_svg(FILE *f, const char *svg, size_t len, const char *prefix)
{
    const char *s = svg, *end = svg + len;
    /* the <svg> element: what comes before it (prologue, doctype, comments)
     * has no place inside HTML */
    while (s < end && !(starts(s, end, "<svg") && s + 4 < end &&
                        (s[4] == ' ' || s[4] == '>' || s[4] == '\n' || s[4] == '\t')))
        s++;
    if (s >= end)
        return -1;
    id_set ids = {NULL, NULL, 0, 0};
    int rc = 0;
    int in_style = 0; /* text of a <style> element: CSS, whose url(#id) are rewritten */
    while (s < end) {
        if (*s != '<') {
            const char *t = s;
            while (t < end && *t != '<')
                t++;
            if (in_style)
                copy_urls(f, s, t, prefix);
            else
                fwrite(s, 1, (size_t)(t - s), f);
            s = t;
            continue;
        }
        if (starts(s, end, "<!--")) {
            s = copy_through(f, s, end, "-->");
            continue;
        }
        if (starts(s, end, "<![CDATA[")) {
            const char *t = s + 9;
            while (t < end && !starts(t, end, "]]>"))
                t++;
            fputs("<![CDATA[", f);
            copy_urls(f, s + 9, t, prefix);
            s = t < end ? t + 3 : end;
            if (t < end)
                fputs("]]>", f);
            continue;
        }
        /* a tag: its name, then attributes name=value, quoted */
        fputc(*s++, f);
        const char *name = s;
        while (s < end && *s != ' ' && *s != '>' && *s != '/' && *s != '\n' && *s != '\t')
            s++;
        fwrite(name, 1, (size_t)(s - name), f);
        size_t nl = (size_t)(s - name);
        if (nl == 5 && memcmp(name, "style", 5) == 0)
            in_style = 1;
        else if (nl == 6 && memcmp(name, "/style", 6) == 0)
            in_style = 0;
        while (s < end && *s != '>') {
            if (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r' || *s == '/') {
                fputc(*s++, f);
                continue;
            }
            const char *an = s;
            while (s < end && *s != '=' && *s != ' ' && *s != '>' && *s != '/' && *s != '\n')
                s++;
            size_t al = (size_t)(s - an);
            /* xmlns and xmlns:xlink: HTML's parser puts inline SVG in its
             * namespace without them, and a page without "http:" anywhere
             * is plainly one that loads nothing */
            if ((al == 5 && memcmp(an, "xmlns", 5) == 0) ||
                (al > 6 && memcmp(an, "xmlns:", 6) == 0)) {
                if (s < end && *s == '=' && s + 1 < end && (s[1] == '"' || s[1] == '\'')) {
                    char q = s[1];
                    s += 2;
                    while (s < end && *s != q)
                        s++;
                    if (s < end)
                        s++;
                }
                continue;
            }
            fwrite(an, 1, al, f);
            if (s >= end || *s != '=')
                continue;
            fputc(*s++, f);
            if (s >= end || (*s != '"' && *s != '\''))
                continue; /* unquoted: copied as it comes */
            char q = *s;
            fputc(*s++, f);
            const char *v = s;
            while (s < end && *s != q)
                s++;
            int is_id = al == 2 && memcmp(an, "id", 2) == 0;
            int is_href = (al == 4 && memcmp(an, "href", 4) == 0) ||
                          (al == 10 && memcmp(an, "xlink:href", 10) == 0);
            if (is_id) {
                long seen = id_seen(&ids, v, (size_t)(s - v));
                if (seen < 0) {
                    rc = -2;
                    break;
                }
                fputs(prefix, f);
                fwrite(v, 1, (size_t)(s - v), f);
                if (seen > 0)
                    fprintf(f, "-%ld", seen + 1);
            } else if (is_href && v < s && *v == '#') {
                fputc('#', f);
                fputs(prefix, f);
                fwrite(v + 1, 1, (size_t)(s - v - 1), f);
            } else {
                copy_urls(f, v, s, prefix);
            }
            if (s < end)
                fputc(*s++, f);
        }
        if (rc != 0)
            break;
        if (s < end)
            fputc(*s++, f);
    }
    free(ids.v);
    free(ids.len);
    return rc;
}
