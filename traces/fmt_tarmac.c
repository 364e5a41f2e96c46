/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fmt_tarmac.c — tarmac's own trace format: one CSV row per job, every field
 * of trace_job, times in integer microseconds (traces/FORMAT.md).
 *
 * Lossless by construction: integers are written in decimal and the one
 * floating-point field (value) with 17 significant digits, which reads back
 * to the same double. The reader finds columns by name once, from the header,
 * so columns may come in any order and optional ones may be left out; each
 * row then costs one in-place split and one parse per column.
 */
#include "trace_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum {
    C_ID,
    C_SUBMIT,
    C_DURATION,
    C_ESTIMATE,
    C_DEADLINE,
    C_GPUS,
    C_MILLI,
    C_GPU_MEM,
    C_FLAGS,
    C_CPU,
    C_HOST_MEM,
    C_MASK,
    C_CLS,
    C_TENANT,
    C_PRIORITY,
    C_STATUS,
    C_VALUE,
    C_N
};

static const char *const col_names[C_N] = {
    "id",        "submit_us",   "duration_us", "estimate_us", "deadline_us",  "gpus",
    "gpu_milli", "gpu_mem_mib", "flags",       "cpu_milli",   "host_mem_mib", "type_mask",
    "cls",       "tenant",      "priority",    "status",      "value"};

static const char header[] = "id,submit_us,duration_us,estimate_us,deadline_us,gpus,gpu_milli,"
                             "gpu_mem_mib,flags,cpu_milli,host_mem_mib,type_mask,cls,tenant,"
                             "priority,status,value";

const char *trace_tarmac_header(void)
{
    return header;
}

typedef struct tarmac_rd {
    trace__rd rd;
    int col[C_N]; /* field index of each column, -1 absent */
    size_t ncols;
    uint64_t seq;
} tarmac_rd;

static int parse_u64(const char *s, uint64_t *v)
{
    if (!*s || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE)
        return -1;
    *v = x;
    return 0;
}

static int parse_row(tarmac_rd *t, char **f, trace_job *j, int *bad, tm_diag *diag)
{
    trace__rd *r = &t->rd;
    trace_job_defaults(j);
    j->id = t->seq;
    j->cls = r->o.cls;
    *bad = 1;
    int64_t v[C_N];
    for (int c = 0; c < C_N; c++) {
        if (t->col[c] < 0 || c == C_VALUE)
            continue;
        const char *s = f[t->col[c]];
        if (c == C_MASK || c == C_ID) {
            uint64_t u;
            if (parse_u64(s, &u))
                return trace__rd_bad(r, diag,
                                     "expected a non-negative integer in column \"%s\", got "
                                     "\"%.60s\"",
                                     col_names[c], s);
            if (c == C_ID)
                j->id = u;
            else
                j->type_mask = u;
            continue;
        }
        if (trace__parse_i64(s, &v[c]))
            return trace__rd_bad(r, diag, "expected an integer in column \"%s\", got \"%.60s\"",
                                 col_names[c], s);
    }
#define GET_(c, field, lo, hi, type)                                                               \
    do {                                                                                           \
        if (t->col[c] >= 0) {                                                                      \
            if (v[c] < (lo) || v[c] > (hi))                                                        \
                return trace__rd_bad(r, diag, "expected column \"%s\" in [%lld, %lld], got %lld",  \
                                     col_names[c], (long long)(lo), (long long)(hi),               \
                                     (long long)v[c]);                                             \
            j->field = (type)v[c];                                                                 \
        }                                                                                          \
    } while (0)
    GET_(C_SUBMIT, submit_us, 0, INT64_MAX, int64_t);
    GET_(C_DURATION, duration_us, 0, INT64_MAX, int64_t);
    GET_(C_ESTIMATE, estimate_us, -1, INT64_MAX, int64_t);
    GET_(C_DEADLINE, deadline_us, -1, INT64_MAX, int64_t);
    GET_(C_GPUS, gpus, 0, UINT32_MAX, uint32_t);
    GET_(C_MILLI, gpu_milli, 1, PLACE_MILLI_WHOLE, uint32_t);
    GET_(C_GPU_MEM, gpu_mem_mib, 0, UINT32_MAX, uint32_t);
    GET_(C_FLAGS, flags, 0, UINT32_MAX, uint32_t);
    GET_(C_CPU, cpu_milli, 0, INT64_MAX, int64_t);
    GET_(C_HOST_MEM, host_mem_mib, 0, INT64_MAX, int64_t);
    GET_(C_CLS, cls, 0, UINT32_MAX, uint32_t);
    GET_(C_TENANT, tenant, 0, UINT32_MAX, uint32_t);
    GET_(C_PRIORITY, priority, INT32_MIN, INT32_MAX, int32_t);
    GET_(C_STATUS, status, INT32_MIN, INT32_MAX, int32_t);
#undef GET_
    if (t->col[C_VALUE] >= 0 && trace__parse_f64(f[t->col[C_VALUE]], &j->value))
        return trace__rd_bad(r, diag, "expected a finite number in column \"value\", got \"%.60s\"",
                             f[t->col[C_VALUE]]);
    if (j->gpu_milli < PLACE_MILLI_WHOLE && j->gpus != 1)
        return trace__rd_bad(r, diag,
                             "expected gpus = 1 for a share of %u milli-GPU, got gpus = %u",
                             j->gpu_milli, j->gpus);
    int rc = trace__rd_order(r, j->submit_us, bad, diag);
    if (rc != TM_OK || *bad)
        return rc;
    *bad = 0;
    return TM_OK;
}

static int tarmac_next(void *ud, trace_job *job, tm_diag *diag)
{
    tarmac_rd *t = ud;
    trace__rd *r = &t->rd;
    char *f[TRACE__MAX_COLS + 1];
    for (;;) {
        int rc = trace__rd_csv_row(r, f, t->ncols, diag);
        if (rc == TRACE__SKIP)
            continue;
        if (rc != TM_OK)
            return rc;
        t->seq++;
        int bad;
        rc = parse_row(t, f, job, &bad, diag);
        if (rc != TM_OK)
            return rc;
        if (bad)
            continue;
        r->st->records++;
        return TM_OK;
    }
}

int trace_tarmac_open(trace_source *src, const char *path, const trace_read_opts *o, tm_diag *diag)
{
    memset(src, 0, sizeof *src);
    int rc;
    tarmac_rd *t = trace__rd_new(sizeof *t, path, o, &rc, diag);
    if (rc != TM_OK)
        goto fail;
    char *line, *f[TRACE__MAX_COLS + 1];
    size_t len;
    rc = trace__rd_line(&t->rd, &line, &len, diag);
    if (rc == TRACE_END) {
        rc = tm_diag_set(diag, TM_ERR_TRACE, trace__rd_where(&t->rd),
                         "expected the header \"%s\", got an empty file", header);
        goto fail;
    }
    if (rc != TM_OK)
        goto fail;
    if ((unsigned char)line[0] == 0xEF && (unsigned char)line[1] == 0xBB &&
        (unsigned char)line[2] == 0xBF)
        line += 3;
    size_t n = trace__split_csv(line, f, TRACE__MAX_COLS);
    if (n == (size_t)-1 || n > TRACE__MAX_COLS) {
        rc = tm_diag_set(diag, TM_ERR_TRACE, trace__rd_where(&t->rd),
                         "expected a header of at most %d column names", TRACE__MAX_COLS);
        goto fail;
    }
    t->ncols = n;
    for (int c = 0; c < C_N; c++)
        t->col[c] = -1;
    for (size_t i = 0; i < n; i++) {
        int c;
        for (c = 0; c < C_N; c++)
            if (strcmp(f[i], col_names[c]) == 0)
                break;
        if (c == C_N) {
            rc = tm_diag_set(diag, TM_ERR_TRACE, trace__rd_where(&t->rd),
                             "expected tarmac trace columns (%s), got unknown column \"%.60s\"",
                             header, f[i]);
            goto fail;
        }
        if (t->col[c] >= 0) {
            rc = tm_diag_set(diag, TM_ERR_TRACE, trace__rd_where(&t->rd),
                             "expected each column once, got \"%s\" twice", col_names[c]);
            goto fail;
        }
        t->col[c] = (int)i;
    }
    if (t->col[C_SUBMIT] < 0 || t->col[C_DURATION] < 0) {
        rc = tm_diag_set(diag, TM_ERR_TRACE, trace__rd_where(&t->rd),
                         "expected columns \"submit_us\" and \"duration_us\" in the header");
        goto fail;
    }
    src->next = tarmac_next;
    src->close = trace__rd_free;
    src->ud = t;
    return TM_OK;
fail:
    trace__rd_free(t);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* writer                                                                     */

/*
 * The writer, like every tarmac output, writes "<path>.tmp.<pid>.<n>" (made
 * with O_EXCL, so never someone else's file) and renames it over the final
 * name only when it is complete and synced: the final name never holds a
 * partial trace, whatever stops the writer (a full disk, a signal, kill -9).
 * A path that already exists and is not a regular file (/dev/stdout, a
 * FIFO) is written directly.
 */
struct trace_tarmac_writer {
    gzFile gz;
    char *path;
    char *tmp; /* NULL when writing the path directly */
    int failed;
    int err; /* errno of the first failed write, 0 if unknown */
};

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void writer_free(trace_tarmac_writer *w)
{
    free(w->tmp);
    free(w->path);
    free(w);
}

/* Remember why a write failed: zlib reports a system error as Z_ERRNO. */
static void writer_failed(trace_tarmac_writer *w, int saved_errno)
{
    int zerr = 0;
    if (!w->failed) {
        gzerror(w->gz, &zerr);
        w->err = zerr == Z_ERRNO || zerr == 0 ? saved_errno : 0;
    }
    w->failed = 1;
}

static int writer_diag(trace_tarmac_writer *w, tm_diag *diag)
{
    return tm_diag_set(diag, TM_ERR_IO, w->path, "cannot write: %s",
                       w->err ? strerror(w->err) : "write error (disk full?)");
}

int trace_tarmac_writer_open(trace_tarmac_writer **out, const char *path, tm_diag *diag)
{
    *out = NULL;
    trace_tarmac_writer *w = calloc(1, sizeof *w);
    size_t cap = strlen(path) + 48;
    if (!w || !(w->path = malloc(strlen(path) + 1)) || !(w->tmp = malloc(cap))) {
        if (w)
            writer_free(w);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    strcpy(w->path, path);
    struct stat st;
    int fd = -1;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        free(w->tmp);
        w->tmp = NULL;
        fd = open(path, O_WRONLY | O_TRUNC);
        if (fd < 0) {
            int e = errno;
            writer_free(w);
            return tm_diag_set(diag, TM_ERR_CANTCREAT, path, "cannot open: %s", strerror(e));
        }
    } else {
        for (unsigned n = 0;; n++) {
            snprintf(w->tmp, cap, "%s.tmp.%ld.%u", path, (long)getpid(), n);
            fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
            if (fd >= 0)
                break;
            if (errno != EEXIST || n == 1000) {
                int e = errno;
                int rc =
                    tm_diag_set(diag, TM_ERR_CANTCREAT, path,
                                "cannot create the temporary file %s: %s", w->tmp, strerror(e));
                writer_free(w);
                return rc;
            }
        }
    }
    w->gz = gzdopen(fd, ends_with(path, ".gz") ? "wb6" : "wbT");
    if (!w->gz) {
        close(fd);
        if (w->tmp)
            unlink(w->tmp);
        writer_free(w);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    *out = w;
    if (gzprintf(w->gz, "%s\n", header) <= 0) {
        writer_failed(w, errno);
        return writer_diag(w, diag);
    }
    return TM_OK;
}

int trace_tarmac_write(trace_tarmac_writer *w, const trace_job *j, tm_diag *diag)
{
    if (w->failed)
        return writer_diag(w, diag);
    char buf[512];
    int n = snprintf(buf, sizeof buf,
                     "%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%u,%u,%u,%u,"
                     "%" PRId64 ",%" PRId64 ",%" PRIu64 ",%u,%u,%d,%d,%.17g\n",
                     j->id, j->submit_us, j->duration_us, j->estimate_us, j->deadline_us, j->gpus,
                     j->gpu_milli, j->gpu_mem_mib, j->flags, j->cpu_milli, j->host_mem_mib,
                     j->type_mask, j->cls, j->tenant, j->priority, j->status, j->value);
    if (n <= 0 || (size_t)n >= sizeof buf || gzwrite(w->gz, buf, (unsigned)n) != n) {
        writer_failed(w, errno);
        return writer_diag(w, diag);
    }
    return TM_OK;
}

/* Make the temporary file's data durable before the rename publishes it. */
static int sync_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

int trace_tarmac_writer_close(trace_tarmac_writer *w, tm_diag *diag)
{
    if (!w)
        return TM_OK;
    int rc = TM_OK;
    errno = 0;
    int zrc = gzclose(w->gz);
    if (!w->failed && zrc != Z_OK) {
        w->failed = 1;
        w->err = zrc == Z_ERRNO ? errno : 0;
    }
    if (!w->failed && w->tmp && sync_file(w->tmp) != 0) {
        w->failed = 1;
        w->err = errno;
    }
    if (w->failed) {
        rc = writer_diag(w, diag);
    } else if (w->tmp && rename(w->tmp, w->path) != 0) {
        rc = tm_diag_set(diag, TM_ERR_CANTCREAT, w->path, "cannot rename %s to the final name: %s",
                         w->tmp, strerror(errno));
    } else if (w->tmp) {
        free(w->tmp); /* renamed: nothing to remove */
        w->tmp = NULL;
    }
    if (w->tmp)
        unlink(w->tmp);
    writer_free(w);
    return rc;
}

void trace_tarmac_writer_abort(trace_tarmac_writer *w)
{
    if (!w)
        return;
    gzclose(w->gz);
    if (w->tmp)
        unlink(w->tmp);
    writer_free(w);
}
