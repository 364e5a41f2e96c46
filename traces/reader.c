/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reader.c — what every trace reader shares: options, statistics, the
 * strict/lenient handling of malformed rows, the submit-order check, field
 * splitting and number parsing (in place, no allocation per row), and a
 * streaming JSON tokenizer for the formats that are JSON.
 *
 * Messages follow one shape: where = "path:line", msg = "expected ..., got
 * ...", so a user can open the file at the line and see what was wrong.
 */
#include "trace_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void trace_read_opts_init(trace_read_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mode = TRACE_STRICT;
}

static const char *const estimate_names[] = {
    [TRACE_EST_REQUESTED] = "requested",
    [TRACE_EST_RUNTIME] = "runtime",
    [TRACE_EST_REQUESTED_ELSE] = "requested-else-runtime",
};

const char *trace_estimate_source_name(int source)
{
    return source >= 0 && (size_t)source < sizeof estimate_names / sizeof estimate_names[0]
               ? estimate_names[source]
               : NULL;
}

int trace_estimate_source_find(const char *name)
{
    for (size_t i = 0; i < sizeof estimate_names / sizeof estimate_names[0]; i++)
        if (strcmp(name, estimate_names[i]) == 0)
            return (int)i;
    return -1;
}

int trace__same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

int trace_type_index(const trace_read_opts *o, const char *name)
{
    if (!o || !o->type_names || !name)
        return -1;
    for (size_t i = 0; i < o->n_types && i < 64; i++)
        if (o->type_names[i] && trace__same_name(o->type_names[i], name))
            return (int)i;
    return -1;
}

uint32_t trace__hash32(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h;
}

void trace__copy(char *dst, size_t n, const char *src)
{
    size_t l = strlen(src);
    if (l >= n)
        l = n - 1;
    memcpy(dst, src, l);
    dst[l] = '\0';
}

int trace__rd_open(trace__rd *r, const char *path, const trace_read_opts *o, tm_diag *diag)
{
    memset(r, 0, sizeof *r);
    if (o)
        r->o = *o;
    else
        trace_read_opts_init(&r->o);
    r->st = r->o.stats ? r->o.stats : &r->own;
    memset(r->st, 0, sizeof *r->st);
    snprintf(r->where, sizeof r->where, "%s", path);
    r->where_line = 0;
    return trace_lines_open(&r->tl, path, diag);
}

const char *trace__rd_where(trace__rd *r)
{
    uint64_t line = r->at_line ? r->at_line : r->tl ? trace_lines_number(r->tl) : 0;
    if (line != r->where_line && r->tl) {
        snprintf(r->where, sizeof r->where, "%s:%llu", trace_lines_path(r->tl),
                 (unsigned long long)line);
        r->where_line = line;
    }
    return r->where;
}

void trace__rd_close(trace__rd *r)
{
    trace_lines_close(r->tl);
    r->tl = NULL;
}

/* A read that failed because a signal interrupted it (EINTR) is the stop
 * the signal asked for when the stop flag is set: a signal usually lands in
 * read(), where a reader of a FIFO or of empty lines spends its time. zlib
 * cannot resume such a read (it may drop what it read before), so without
 * the flag it stays an I/O error. */
static int read_failed(trace__rd *r, int rc, tm_diag *diag)
{
    if (rc == TM_ERR_IO && r->o.stop_flag && *r->o.stop_flag)
        return tm_diag_set(diag, TM_ERR_INTERRUPTED, trace__rd_where(r),
                           "interrupted while reading");
    return rc;
}

int trace__rd_line(trace__rd *r, char **line, size_t *len, tm_diag *diag)
{
    int rc = trace_lines_next(r->tl, line, len, diag);
    if (rc != TM_OK)
        return rc == TRACE_END ? rc : read_failed(r, rc, diag);
    r->st->lines++;
    /* a long read (a huge file, a FIFO without end) stops when asked; one
     * look every 4096 lines costs nothing measurable */
    if ((r->st->lines & 4095) == 0 && r->o.stop_flag && *r->o.stop_flag)
        return tm_diag_set(diag, TM_ERR_INTERRUPTED, trace__rd_where(r),
                           "interrupted while reading");
    return TM_OK;
}

int trace__rd_line_data(trace__rd *r, char **line, size_t *len, tm_diag *diag)
{
    for (;;) {
        uint64_t skipped;
        int rc = trace__lines_skip_empty(r->tl, &skipped, r->o.stop_flag, diag);
        r->st->lines += skipped;
        if (rc != TM_OK)
            return read_failed(r, rc, diag);
        if ((rc = trace__rd_line(r, line, len, diag)) != TM_OK)
            return rc;
        if (*len > 0)
            return TM_OK;
        /* an empty line the bulk skip left (a "\r\n" across two buffers) */
    }
}

int trace__rd_bad(trace__rd *r, tm_diag *diag, const char *fmt, ...)
{
    tm_diag d;
    snprintf(d.where, sizeof d.where, "%s", trace__rd_where(r));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d.msg, sizeof d.msg, fmt, ap);
    va_end(ap);
    trace__msg_scrub(d.msg); /* it may quote the row */
    if (r->o.mode == TRACE_STRICT) {
        if (diag)
            *diag = d;
        return TM_ERR_TRACE;
    }
    if (r->st->bad == 0)
        r->st->first_bad = d;
    r->st->bad++;
    if (r->o.on_bad)
        r->o.on_bad(r->o.on_bad_ud, &d);
    return TM_OK;
}

void *trace__rd_new(size_t size, const char *path, const trace_read_opts *o, int *rc, tm_diag *diag)
{
    trace__rd *r = calloc(1, size);
    if (!r) {
        *rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
        return NULL;
    }
    *rc = trace__rd_open(r, path, o, diag);
    return r;
}

void trace__rd_free(void *state)
{
    if (!state)
        return;
    trace__rd_close(state);
    free(state);
}

int trace__rd_header(trace__rd *r, const char *const *names, int n, int n_required,
                     const char *what, int *col, size_t *ncols, tm_diag *diag)
{
    char *line, *f[TRACE__MAX_COLS + 1];
    size_t len;
    int rc = trace__rd_line(r, &line, &len, diag);
    if (rc == TRACE_END)
        return tm_diag_set(diag, TM_ERR_TRACE, trace__rd_where(r), "expected %s, got an empty file",
                           what);
    if (rc != TM_OK)
        return rc;
    if ((unsigned char)line[0] == 0xEF && (unsigned char)line[1] == 0xBB &&
        (unsigned char)line[2] == 0xBF)
        line += 3; /* a UTF-8 byte order mark */
    size_t nf = trace__split_csv(line, f, TRACE__MAX_COLS);
    if (nf == (size_t)-1 || nf > TRACE__MAX_COLS)
        return tm_diag_set(diag, TM_ERR_TRACE, trace__rd_where(r),
                           "expected %s of at most %d column names", what, TRACE__MAX_COLS);
    *ncols = nf;
    for (int c = 0; c < n; c++) {
        col[c] = -1;
        for (size_t i = 0; i < nf; i++)
            if (strcmp(f[i], names[c]) == 0)
                col[c] = (int)i;
        if (c < n_required && col[c] < 0)
            return tm_diag_set(diag, TM_ERR_TRACE, trace__rd_where(r),
                               "expected %s with a column named \"%s\"", what, names[c]);
    }
    return TM_OK;
}

int trace__rd_csv_row(trace__rd *r, char **f, size_t ncols, tm_diag *diag)
{
    char *line;
    size_t len;
    for (;;) {
        int rc = trace__rd_line_data(r, &line, &len, diag); /* blank lines carry nothing */
        if (rc != TM_OK)
            return rc;
        r->st->rows++;
        size_t n = trace__split_csv(line, f, TRACE__MAX_COLS);
        if (n == ncols)
            return TM_OK;
        if (n == (size_t)-1)
            rc = trace__rd_bad(r, diag, "expected a closing quote, got the end of the line");
        else if (n > TRACE__MAX_COLS)
            rc = trace__rd_bad(r, diag, "expected %zu fields as in the header, got more than %d",
                               ncols, TRACE__MAX_COLS);
        else
            rc = trace__rd_bad(r, diag, "expected %zu fields as in the header, got %zu", ncols, n);
        return rc != TM_OK ? rc : TRACE__SKIP;
    }
}

void trace__rd_drop(trace__rd *r)
{
    r->st->dropped++;
}

int trace__rd_order(trace__rd *r, int64_t submit_us, int *bad, tm_diag *diag)
{
    *bad = 0;
    if (r->o.any_order)
        return TM_OK;
    if (r->have_last && submit_us < r->last_submit_us) {
        *bad = 1;
        return trace__rd_bad(r, diag,
                             "expected rows in non-decreasing submit order, got %.6f s after "
                             "%.6f s (sort the file by submit time first)",
                             (double)submit_us / 1e6, (double)r->last_submit_us / 1e6);
    }
    r->have_last = 1;
    r->last_submit_us = submit_us;
    return TM_OK;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

size_t trace__split_csv(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *s = line;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        char *start = s, *out = s;
        if (*s == '"') {
            char *in = s + 1;
            for (;;) {
                if (*in == '\0')
                    return (size_t)-1;
                if (*in == '"') {
                    if (in[1] == '"') {
                        *out++ = '"';
                        in += 2;
                        continue;
                    }
                    in++;
                    break;
                }
                *out++ = *in++;
            }
            while (*in && *in != ',')
                *out++ = *in++;
            s = in;
        } else {
            while (*s && *s != ',')
                s++;
            out = s;
        }
        int more = *s == ',';
        *out = '\0';
        if (n == max)
            return max + 1;
        fields[n++] = trim(start);
        if (!more)
            return n;
        s++;
    }
}

size_t trace__split_ws(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *s = line;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r')
            s++;
        if (*s == '\0')
            return n;
        if (n == max)
            return max + 1;
        fields[n++] = s;
        while (*s && *s != ' ' && *s != '\t' && *s != '\r')
            s++;
        if (*s)
            *s++ = '\0';
    }
}

size_t trace__split_char(char *line, char sep, char **fields, size_t max)
{
    size_t n = 0;
    char *s = line;
    for (;;) {
        if (n == max)
            return max + 1;
        fields[n++] = s;
        char *e = strchr(s, sep);
        if (!e)
            return n;
        *e = '\0';
        s = e + 1;
    }
}

int trace__parse_f64(const char *s, double *v)
{
    if (!s || !*s)
        return -1;
    /* An integer of at most 15 digits (most fields of SWF and CSV traces) is
     * exact in a double: the value strtod gives, without its general path. */
    const char *q = s + (*s == '-');
    uint64_t u = 0;
    int nd = 0;
    while (nd < 16 && q[nd] >= '0' && q[nd] <= '9') {
        u = u * 10 + (uint64_t)(q[nd] - '0');
        nd++;
    }
    if (nd > 0 && nd <= 15 && q[nd] == '\0') {
        *v = *s == '-' ? -(double)u : (double)u;
        return 0;
    }
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}

int trace__parse_i64(const char *s, int64_t *v)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || errno == ERANGE)
        return -1;
    if (*end == '.') {
        /* "489.00": integral only */
        const char *p = end + 1;
        while (*p == '0')
            p++;
        if (*p != '\0')
            return -1;
        end = (char *)p;
    }
    if (*end != '\0')
        return -1;
    *v = (int64_t)x;
    return 0;
}

int64_t trace__s_to_us(double s)
{
    double us = s * 1e6;
    if (!(us < 9.2e18))
        return INT64_MAX;
    if (!(us > -9.2e18))
        return INT64_MIN;
    return (int64_t)llround(us);
}

/* Days from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int trace_parse_datetime(const char *s, int64_t *out_s)
{
    int v[6] = {0};
    const int widths[6] = {4, 2, 2, 2, 2, 2};
    const char seps[6] = {'-', '-', ' ', ':', ':', '\0'};
    const char *p = s;
    for (int k = 0; k < 6; k++) {
        for (int i = 0; i < widths[k]; i++, p++) {
            if (*p < '0' || *p > '9')
                return -1;
            v[k] = v[k] * 10 + (*p - '0');
        }
        if (k < 5) {
            if (*p != seps[k] && !(k == 2 && *p == 'T'))
                return -1;
            p++;
        }
    }
    if (*p == '.') /* fractional seconds are cut */
        while (*++p >= '0' && *p <= '9')
            ;
    if (*p != '\0')
        return -1;
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > mdays[v[1] - 1] || v[3] > 23 || v[4] > 59 ||
        v[5] > 60)
        return -1;
    *out_s = days_from_civil(v[0], v[1], v[2]) * 86400 + v[3] * 3600 + v[4] * 60 + v[5];
    return 0;
}

/* ------------------------------------------------------------------------- */
/* JSON tokenizer                                                             */

void trace__json_init(trace__json *j, trace__rd *rd)
{
    memset(j, 0, sizeof *j);
    j->rd = rd;
}

void trace__json_fini(trace__json *j)
{
    free(j->str);
    j->str = NULL;
}

int trace__json_error(trace__json *j, tm_diag *diag, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    trace__msg_scrub(msg);
    return tm_diag_set(diag, TM_ERR_TRACE, trace__rd_where(j->rd), "%s", msg);
}

static int str_push(trace__json *j, char c)
{
    if (j->str_len + 2 > j->str_cap) {
        size_t cap = j->str_cap ? 2 * j->str_cap : 256;
        char *p = realloc(j->str, cap);
        if (!p)
            return -1;
        j->str = p;
        j->str_cap = cap;
    }
    j->str[j->str_len++] = c;
    j->str[j->str_len] = '\0';
    return 0;
}

static int utf8_push(trace__json *j, unsigned cp)
{
    if (cp < 0x80)
        return str_push(j, (char)cp);
    if (cp < 0x800)
        return str_push(j, (char)(0xC0 | (cp >> 6))) || str_push(j, (char)(0x80 | (cp & 0x3F)));
    return str_push(j, (char)(0xE0 | (cp >> 12))) ||
           str_push(j, (char)(0x80 | ((cp >> 6) & 0x3F))) ||
           str_push(j, (char)(0x80 | (cp & 0x3F)));
}

static int lex_string(trace__json *j, tm_diag *diag)
{
    j->str_len = 0;
    if (str_push(j, 'x'))
        return tm_diag_set(diag, TM_ERR_NOMEM, trace__rd_where(j->rd), "out of memory");
    j->str_len = 0;
    j->str[0] = '\0';
    for (;;) {
        if (j->pos >= j->len)
            return trace__json_error(j, diag, "expected a closing quote, got the end of the line");
        char c = j->line[j->pos++];
        if (c == '"')
            return TM_OK;
        if (c == '\\') {
            if (j->pos >= j->len)
                return trace__json_error(j, diag, "expected an escape, got the end of the line");
            char e = j->line[j->pos++];
            const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
            const char *k = strchr(from, e);
            if (e && k) {
                c = to[k - from];
            } else if (e == 'u') {
                unsigned cp = 0;
                for (int i = 0; i < 4; i++) {
                    char h = j->pos < j->len ? j->line[j->pos++] : '\0';
                    int d = isxdigit((unsigned char)h)
                                ? (isdigit((unsigned char)h) ? h - '0' : (tolower(h) - 'a' + 10))
                                : -1;
                    if (d < 0)
                        return trace__json_error(j, diag, "expected 4 hex digits after \\u");
                    cp = cp * 16 + (unsigned)d;
                }
                if (utf8_push(j, cp))
                    return tm_diag_set(diag, TM_ERR_NOMEM, trace__rd_where(j->rd), "out of memory");
                continue;
            } else {
                return trace__json_error(j, diag, "expected a JSON escape, got '\\%c'", e);
            }
        }
        if (str_push(j, c))
            return tm_diag_set(diag, TM_ERR_NOMEM, trace__rd_where(j->rd), "out of memory");
    }
}

int trace__json_next(trace__json *j, int *tok, tm_diag *diag)
{
    if (j->peeked) {
        j->peeked = 0;
        *tok = j->peek_tok;
        return TM_OK;
    }
    for (;;) {
        while (j->pos < j->len && isspace((unsigned char)j->line[j->pos]))
            j->pos++;
        if (j->pos < j->len)
            break;
        if (j->eof) {
            *tok = TRACE__J_EOF;
            return TM_OK;
        }
        size_t len;
        int rc = trace__rd_line_data(j->rd, &j->line, &len, diag);
        if (rc == TRACE_END) {
            j->eof = 1;
            j->line = NULL;
            j->len = j->pos = 0;
            continue;
        }
        if (rc != TM_OK)
            return rc;
        j->len = len;
        j->pos = 0;
    }
    char c = j->line[j->pos];
    switch (c) {
    case '{':
        j->pos++;
        *tok = TRACE__J_LBRACE;
        return TM_OK;
    case '}':
        j->pos++;
        *tok = TRACE__J_RBRACE;
        return TM_OK;
    case '[':
        j->pos++;
        *tok = TRACE__J_LBRACK;
        return TM_OK;
    case ']':
        j->pos++;
        *tok = TRACE__J_RBRACK;
        return TM_OK;
    case ':':
        j->pos++;
        *tok = TRACE__J_COLON;
        return TM_OK;
    case ',':
        j->pos++;
        *tok = TRACE__J_COMMA;
        return TM_OK;
    case '"':
        j->pos++;
        *tok = TRACE__J_STRING;
        return lex_string(j, diag);
    default:
        break;
    }
    static const struct {
        const char *word;
        int tok;
    } words[] = {{"true", TRACE__J_TRUE}, {"false", TRACE__J_FALSE}, {"null", TRACE__J_NULL}};
    for (size_t k = 0; k < 3; k++) {
        size_t l = strlen(words[k].word);
        if (j->len - j->pos >= l && memcmp(j->line + j->pos, words[k].word, l) == 0) {
            j->pos += l;
            *tok = words[k].tok;
            return TM_OK;
        }
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char *end;
        errno = 0;
        j->num = strtod(j->line + j->pos, &end);
        if (end == j->line + j->pos)
            return trace__json_error(j, diag, "expected a number");
        j->pos = (size_t)(end - j->line);
        *tok = TRACE__J_NUMBER;
        return TM_OK;
    }
    return trace__json_error(j, diag, "expected a JSON value, got '%c'", c);
}

int trace__json_expect(trace__json *j, int want, const char *what, tm_diag *diag)
{
    int tok;
    int rc = trace__json_next(j, &tok, diag);
    if (rc != TM_OK)
        return rc;
    if (tok != want)
        return trace__json_error(j, diag, "expected %s", what);
    return TM_OK;
}

int trace__json_skip(trace__json *j, int tok, tm_diag *diag)
{
    int64_t depth = 0; /* 64 bits: a few MB of gzip hold billions of brackets */
    for (;;) {
        if (tok == TRACE__J_LBRACE || tok == TRACE__J_LBRACK)
            depth++;
        else if (tok == TRACE__J_RBRACE || tok == TRACE__J_RBRACK)
            depth--;
        else if (tok == TRACE__J_EOF)
            return trace__json_error(j, diag, "expected the rest of a value, got end of file");
        if (depth <= 0)
            return TM_OK;
        int rc = trace__json_next(j, &tok, diag);
        if (rc != TM_OK)
            return rc;
    }
}
