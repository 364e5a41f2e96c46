/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trace_int.h — what the readers of traces/ share and nobody else sees.
 *
 * A reader is a trace__rd (the line source, the options, the statistics and
 * the submit-order check) plus a per-format row parser. A malformed row goes
 * through trace__rd_bad: in strict mode it becomes the reader's error, in
 * lenient mode it is counted, reported through the callback and skipped.
 * Fields are split in place in the line buffer: no allocation per row.
 */
#ifndef TARMAC_TRACE_INT_H
#define TARMAC_TRACE_INT_H

#include "trace.h"

typedef struct trace__rd {
    trace_lines *tl;
    trace_read_opts o;
    trace_read_stats own; /* used when o.stats is NULL */
    trace_read_stats *st;
    int64_t last_submit_us;
    int have_last;
    /* the line messages name: 0 = the line last read; else this one (a
     * record that spans lines is reported at its first) */
    uint64_t at_line;
    /* "path:line", formatted only when a message needs it (formatting it
     * for every line cost more than reading the line): trace__rd_where */
    char where[sizeof(((tm_diag *)0)->where)];
    uint64_t where_line; /* the line `where` names; 0: the path alone */
} trace__rd;

/* Open path for reading with options o (NULL = defaults). */
int trace__rd_open(trace__rd *r, const char *path, const trace_read_opts *o, tm_diag *diag);
void trace__rd_close(trace__rd *r);
/* The next line (counted in stats.lines). */
int trace__rd_line(trace__rd *r, char **line, size_t *len, tm_diag *diag);
/* The next line that is not empty ("" or "\r"): runs of empty lines are
 * skipped in bulk (counted in stats.lines, never handed out). */
int trace__rd_line_data(trace__rd *r, char **line, size_t *len, tm_diag *diag);
/* "path:line" for messages: the line last read (or r->at_line when set);
 * the path alone before the first line. Valid until the next call. */
const char *trace__rd_where(trace__rd *r);
/* A malformed row at r->where: TM_ERR_TRACE in strict mode (diag filled),
 * TM_OK in lenient mode (counted and reported; the caller skips the row). */
int trace__rd_bad(trace__rd *r, tm_diag *diag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A reader's state: a struct whose first member is its trace__rd. new
 * allocates `size` bytes (zeroed) and opens the trace__rd on path; *rc gets
 * TM_OK or the error (the state, when not NULL, must still be freed). free
 * closes and frees a state with nothing else to release (NULL-safe; usable
 * as a source's close). */
void *trace__rd_new(size_t size, const char *path, const trace_read_opts *o, int *rc,
                    tm_diag *diag);
void trace__rd_free(void *state);

/* trace_lines_open on an open descriptor (taken over: closed by
 * trace_lines_close, or here when the open fails); `path` names it in
 * messages. */
int trace__lines_open_fd(trace_lines **tl, int fd, const char *path, tm_diag *diag);

/* Skip the empty lines ("" or "\r") from the current position in bulk,
 * counting them into *skipped (they count as lines read: the next line's
 * number is after them), up to the first line with content or the end of
 * the file. Looks at *stop (may be NULL) once per read buffer: set, the skip
 * fails with TM_ERR_INTERRUPTED. TM_ERR_IO / TM_ERR_TRACE for a read error. */
int trace__lines_skip_empty(trace_lines *tl, uint64_t *skipped, volatile int *stop, tm_diag *diag);

/* CSV with a header: column names of at most TRACE__MAX_COLS columns. */
#define TRACE__MAX_COLS 32
/* trace__rd_csv_row: a malformed row was counted and skipped (lenient mode). */
#define TRACE__SKIP 2
/* Read the header row (a UTF-8 byte order mark is skipped) and find the
 * columns names[0..n): col[c] is the position of names[c], -1 when absent;
 * the first n_required must be present, else TM_ERR_TRACE "expected <what>
 * with a column named ...". *ncols gets the header's number of columns. */
int trace__rd_header(trace__rd *r, const char *const *names, int n, int n_required,
                     const char *what, int *col, size_t *ncols, tm_diag *diag);
/* The next data row, split into f (TRACE__MAX_COLS + 1 entries), blank lines
 * skipped, counted in stats.rows. TM_OK when it has exactly ncols fields;
 * otherwise it is malformed (trace__rd_bad: TM_ERR_TRACE in strict mode,
 * TRACE__SKIP in lenient mode); TRACE_END at the end, or a read error. */
int trace__rd_csv_row(trace__rd *r, char **f, size_t ncols, tm_diag *diag);

/* A well-formed row the format's rules do not replay. */
void trace__rd_drop(trace__rd *r);
/* Submit order: a row before the previous one is malformed (returns as
 * trace__rd_bad; *bad set to 1 when the row must be skipped). */
int trace__rd_order(trace__rd *r, int64_t submit_us, int *bad, tm_diag *diag);

/* Split a CSV line in place into at most max fields (quotes as RFC 4180
 * within one line; fields trimmed of blanks). Returns the number of fields,
 * or (size_t)-1 for an unterminated quote. A line with more than max fields
 * returns max + 1 (the caller reports a wrong column count). */
size_t trace__split_csv(char *line, char **fields, size_t max);
/* Split on runs of blanks (SWF) or on one separator character (tab). */
size_t trace__split_ws(char *line, char **fields, size_t max);
size_t trace__split_char(char *line, char sep, char **fields, size_t max);

/* Parse a whole field: 0 on success, -1 if empty, not a number, trailing
 * junk, or out of range. i64 accepts an integral decimal written "12" or
 * "12.0" (SWF writes "489.00" in integer fields). */
int trace__parse_i64(const char *s, int64_t *v);
int trace__parse_f64(const char *s, double *v);
/* Seconds (a finite double, >= 0 unless allow_neg) to microseconds, rounded. */
int64_t trace__s_to_us(double s);

/* Make a message fit to print: every control character (C0, DEL, C1) and
 * every byte that is not valid UTF-8 becomes '?', in place (a field quoted
 * from a hostile trace must not drive the terminal). */
void trace__msg_scrub(char *msg);

/* Case-insensitive equality. */
int trace__same_name(const char *a, const char *b);
/* 32-bit FNV-1a of a string (tenant ids from user names). */
uint32_t trace__hash32(const char *s);
/* Copy into a fixed buffer, truncating. */
void trace__copy(char *dst, size_t n, const char *src);

/* ---- a streaming JSON tokenizer over trace_lines ---- */

/* JSON strings and numbers never contain a raw newline, so tokens are taken
 * from one line at a time; errors name path:line. Strings are unescaped into
 * a buffer that grows to the longest string seen. */
enum trace__json_tok {
    TRACE__J_EOF = 0,
    TRACE__J_LBRACE,
    TRACE__J_RBRACE,
    TRACE__J_LBRACK,
    TRACE__J_RBRACK,
    TRACE__J_COLON,
    TRACE__J_COMMA,
    TRACE__J_STRING,
    TRACE__J_NUMBER,
    TRACE__J_TRUE,
    TRACE__J_FALSE,
    TRACE__J_NULL,
};

typedef struct trace__json {
    trace__rd *rd;
    char *line;
    size_t len, pos;
    int eof;
    char *str; /* the last string token (NUL-terminated) */
    size_t str_len, str_cap;
    double num; /* the last number token */
    int peeked, peek_tok;
} trace__json;

void trace__json_init(trace__json *j, trace__rd *rd);
void trace__json_fini(trace__json *j);
/* The next token in *tok; TM_OK or TM_ERR_TRACE / TM_ERR_IO / TM_ERR_NOMEM. */
int trace__json_next(trace__json *j, int *tok, tm_diag *diag);
/* Skip the rest of a value whose first token is `tok` (objects and arrays
 * nested to any depth). */
int trace__json_skip(trace__json *j, int tok, tm_diag *diag);
/* Expect a given token. */
int trace__json_expect(trace__json *j, int want, const char *what, tm_diag *diag);
/* A JSON syntax error at the current line (always fatal: the structure is lost). */
int trace__json_error(trace__json *j, tm_diag *diag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
