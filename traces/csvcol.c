/* SPDX-License-Identifier: Apache-2.0 */
/*
 * csvcol.c — one numeric column of a CSV file, for empirical distributions.
 *
 * The file (plain or gzip) is read one line at a time with trace_lines, so
 * memory is the longest line (at most TRACE_MAX_LINE) plus the growing
 * output array (doubling; amortised O(1) per value).
 * A line is split in place: fields are separated by commas, a field may be
 * double-quoted (a quote inside is written ""), and quotes do not span lines
 * (numeric traces never need that; an unterminated quote is an error). The
 * header gives the column index once; each later row only walks to that
 * field. Blank lines are tolerated at the end of the file only: a blank line
 * followed by data is a missing row, reported at the blank line.
 *
 * A scenario may name any file here, so the reader is careful with what it
 * is given: only a regular file of at most TRACE_CSV_MAX_BYTES is read (a
 * FIFO, a device or a folder is refused before a byte is read, and opening
 * does not wait for a FIFO's writer), and no message repeats what the file
 * holds (a header or a field): a message names FILE:LINE, the column the
 * caller asked for and what was expected, so that a file the user cannot read
 * (/etc/shadow, when tarmac runs with more rights) never shows in an error.
 */
#include "trace_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Trim blanks at both ends, in place; returns the new start. */
static char *trim(char *s)
{
    while (is_blank(*s))
        s++;
    size_t len = strlen(s);
    while (len > 0 && is_blank(s[len - 1]))
        s[--len] = '\0';
    return s;
}

/* Cut the next field off *cursor (NULL once the line is used up), unquote it
 * in place and trim it. Returns the field, or NULL for an unterminated quote
 * (then *cursor is unchanged). An empty line has one empty field. */
static char *next_field(char **cursor)
{
    char *s = *cursor;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '"') {
        char *out = s, *in = s + 1;
        for (;;) {
            if (*in == '\0')
                return NULL;
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
        /* After the closing quote only blanks may come before the comma;
         * anything else is kept (lenient) and makes a number invalid. */
        char *rest = in;
        while (*rest && *rest != ',')
            *out++ = *rest++;
        *out = '\0';
        *cursor = *rest == ',' ? rest + 1 : NULL;
        return trim(s);
    }
    char *comma = strchr(s, ',');
    if (comma) {
        *comma = '\0';
        *cursor = comma + 1;
    } else {
        *cursor = NULL;
    }
    return trim(s);
}

static int line_is_blank(const char *s)
{
    while (is_blank(*s))
        s++;
    return *s == '\0';
}

/* Open path for reading when it is a regular file of at most
 * TRACE_CSV_MAX_BYTES: O_NONBLOCK so that a FIFO does not block the open,
 * then the file's type and size from the descriptor itself (no race with a
 * rename), then blocking reads again. */
static int open_regular(const char *path, int *out, tm_diag *diag)
{
    *out = -1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return tm_diag_set(diag, e == ENOENT ? TM_ERR_NOTFOUND : TM_ERR_IO, path, "cannot open: %s",
                           strerror(e));
    }
    struct stat st;
    int rc = TM_OK;
    if (fstat(fd, &st) != 0)
        rc = tm_diag_set(diag, TM_ERR_IO, path, "cannot stat: %s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = tm_diag_set(diag, TM_ERR_TRACE, path, "expected a regular file (a CSV file), got a %s",
                         S_ISDIR(st.st_mode)                          ? "folder"
                         : S_ISFIFO(st.st_mode)                       ? "FIFO"
                         : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "device"
                         : S_ISSOCK(st.st_mode)                       ? "socket"
                                                                      : "special file");
    else if ((uintmax_t)st.st_size > TRACE_CSV_MAX_BYTES)
        rc = tm_diag_set(diag, TM_ERR_LIMIT, path, "larger than %u MiB (%jd bytes)",
                         TRACE_CSV_MAX_BYTES >> 20, (intmax_t)st.st_size);
    else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
        rc = tm_diag_set(diag, TM_ERR_IO, path, "cannot open: %s", strerror(errno));
    if (rc != TM_OK)
        close(fd);
    else
        *out = fd;
    return rc;
}

/* "path:line", formatted only for a message (not for every row). */
static const char *line_where(char *where, size_t size, const char *path, uint64_t line)
{
    snprintf(where, size, "%s:%llu", path, (unsigned long long)line);
    return where;
}

int trace_csv_column(const char *path, const char *column, double **values, size_t *n,
                     tm_diag *diag)
{
    int rc = TM_OK;
    trace_lines *tl = NULL;
    char *line = NULL;
    size_t len;
    double *out = NULL;
    size_t count = 0, cap = 0;
    char where[sizeof diag->where];
    uint64_t blank_at = 0;
    size_t col = 0, nfields = 0;

    *values = NULL;
    *n = 0;
    int fd;
    if ((rc = open_regular(path, &fd, diag)) != TM_OK ||
        (rc = trace__lines_open_fd(&tl, fd, path, diag)) != TM_OK)
        goto out;

    /* The header. */
    rc = trace_lines_next(tl, &line, &len, diag);
    if (rc == TRACE_END) {
        rc = tm_diag_set(diag, TM_ERR_TRACE, line_where(where, sizeof where, path, 1),
                         "expected a header row naming the columns, got an empty file");
        goto out;
    }
    if (rc != TM_OK)
        goto out;
    snprintf(where, sizeof where, "%s:1", path);
    char *cursor = line;
    if ((unsigned char)cursor[0] == 0xEF && (unsigned char)cursor[1] == 0xBB &&
        (unsigned char)cursor[2] == 0xBF)
        cursor += 3; /* UTF-8 byte-order mark */
    int found = 0;
    while (cursor) {
        char *name = next_field(&cursor);
        if (!name) {
            rc = tm_diag_set(diag, TM_ERR_TRACE, where,
                             "expected a closing quote in the header, got end of line");
            goto out;
        }
        if (strcmp(name, column) == 0) {
            if (found) {
                rc = tm_diag_set(diag, TM_ERR_TRACE, where,
                                 "expected one column named \"%s\", got fields %zu and %zu", column,
                                 col + 1, nfields + 1);
                goto out;
            }
            found = 1;
            col = nfields;
        }
        nfields++;
    }
    if (!found) {
        rc = tm_diag_set(diag, TM_ERR_TRACE, where,
                         "expected a header row with a column named \"%s\", got %zu column%s "
                         "without it",
                         column, nfields, nfields == 1 ? "" : "s");
        goto out;
    }

    /* The rows: O(col) per row to reach the field. Runs of empty lines are
     * skipped in bulk (trace__lines_skip_empty); they may only end the file. */
    for (;;) {
        uint64_t skipped;
        if ((rc = trace__lines_skip_empty(tl, &skipped, NULL, diag)) != TM_OK)
            goto out;
        if (skipped && !blank_at)
            blank_at = trace_lines_number(tl) - skipped + 1;
        rc = trace_lines_next(tl, &line, &len, diag);
        if (rc == TRACE_END) {
            rc = TM_OK;
            break;
        }
        if (rc != TM_OK)
            goto out;
        uint64_t lineno = trace_lines_number(tl);
        if (line_is_blank(line)) {
            if (!blank_at)
                blank_at = lineno;
            continue;
        }
        if (blank_at) {
            rc = tm_diag_set(diag, TM_ERR_TRACE, line_where(where, sizeof where, path, blank_at),
                             "expected a row, got a blank line (data follows at line %llu)",
                             (unsigned long long)lineno);
            goto out;
        }
        cursor = line;
        char *field = NULL;
        size_t i = 0;
        for (; cursor && i <= col; i++) {
            field = next_field(&cursor);
            if (!field) {
                rc = tm_diag_set(diag, TM_ERR_TRACE, line_where(where, sizeof where, path, lineno),
                                 "expected a closing quote in field %zu, got end of line", i + 1);
                goto out;
            }
        }
        if (i <= col) {
            rc = tm_diag_set(diag, TM_ERR_TRACE, line_where(where, sizeof where, path, lineno),
                             "expected at least %zu fields (column \"%s\" is field %zu), got %zu",
                             col + 1, column, col + 1, i);
            goto out;
        }
        if (*field == '\0') {
            rc = tm_diag_set(diag, TM_ERR_TRACE, line_where(where, sizeof where, path, lineno),
                             "expected a number in column \"%s\", got an empty field", column);
            goto out;
        }
        char *end = NULL;
        errno = 0;
        double v = strtod(field, &end);
        if (end == field || *end != '\0' || !isfinite(v)) {
            /* the field itself is not shown: the file may be one the user
             * cannot read (see the top of this file) */
            rc = tm_diag_set(diag, TM_ERR_TRACE, line_where(where, sizeof where, path, lineno),
                             end == field || *end != '\0'
                                 ? "expected a number in column \"%s\" (field %zu), got text "
                                   "that is not one"
                                 : "expected a finite number in column \"%s\" (field %zu), got "
                                   "an infinity or NaN",
                             column, col + 1);
            goto out;
        }
        if (count == cap) {
            size_t ncap = cap ? 2 * cap : 1024;
            double *grown = realloc(out, ncap * sizeof *out);
            if (!grown) {
                rc = tm_diag_set(diag, TM_ERR_NOMEM, line_where(where, sizeof where, path, lineno),
                                 "cannot grow to %zu values", ncap);
                goto out;
            }
            out = grown;
            cap = ncap;
        }
        out[count++] = v;
    }
    if (count == 0) {
        free(out);
        out = NULL;
    }
    *values = out;
    *n = count;
    out = NULL;
out:
    free(out);
    trace_lines_close(tl);
    return rc;
}
