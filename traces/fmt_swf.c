/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fmt_swf.c — the Standard Workload Format of the Parallel Workloads Archive.
 *
 * One job per line, 18 whitespace-separated numeric fields; lines starting
 * with ';' are header comments ("; MaxNodes: 1024"). open() reads the header
 * up to the first data line (kept in a buffer for the first next()), so the
 * machine is known before the first job. Plain and gzip files alike, through
 * trace_lines.
 *
 * Mapping onto the job record (docs/traces.md has the rationale):
 *   id field 1, submit field 2, duration field 4, status field 11,
 *   tenant field 12, estimate field 9 (<= 0 or -1: unknown, -1);
 *   size = field 5 (allocated processors), or field 8 (requested) when 5 is
 *   -1; a processor is a "GPU" and the job takes whole nodes: GPUs =
 *   ceil(size / procs_per_node) * procs_per_node, flag TRACE_JOB_CAN_SPAN.
 * Dropped (counted, not errors): run time -1 (unknown), size unknown (both
 * -1), cancelled jobs (status 5) that never ran (run time 0) — or every
 * cancelled job with swf_drop_cancelled. Malformed: a field count other than
 * 18, a non-numeric field, a negative submit time, a negative size or run
 * time other than -1, a row out of submit order.
 */
#include "trace_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SWF_FIELDS 18

typedef struct swf_rd {
    trace__rd rd;
    trace_swf_info info;
    char *pending; /* the first data line, read by open() */
    size_t pending_len;
    int has_pending;
} swf_rd;

/* The largest machine a header may describe: MaxNodes, or MaxProcs where it
 * becomes one-processor nodes (docs/traces.md). The largest machines of the
 * Parallel Workloads Archive have under a million processors; a header past
 * this is a typo or hostile, and would ask for gigabytes of nodes. */
#define SWF_MAX_HEADER_NODES (1u << 21)

/* "; Key: value" with any blanks: 1 and *v when line gives key, 0 when it
 * is another line, -1 when it gives key with a value that is not a whole
 * number in [0, 2^53] (such as "1e30", "12.5", "-3" or "many"). */
static int header_value(const char *line, const char *key, int64_t *v)
{
    const char *p = line + 1;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t k = strlen(key);
    if (strncmp(p, key, k) != 0)
        return 0;
    p += k;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != ':')
        return 0;
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    char *end;
    errno = 0;
    long long x = strtoll(p, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    if (errno || *end || x > (1ll << 53))
        return -1;
    *v = x;
    return 1;
}

static int header_line(swf_rd *s, const char *line, tm_diag *diag)
{
    struct {
        const char *key;
        int64_t *dst;
    } keys[] = {
        {"MaxNodes", &s->info.max_nodes},
        {"MaxProcs", &s->info.max_procs},
        {"MaxJobs", &s->info.max_jobs},
        {"UnixStartTime", &s->info.unix_start_s},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        int64_t v;
        int got = header_value(line, keys[i].key, &v);
        if (got < 0)
            return tm_diag_set(diag, TM_ERR_TRACE, trace__rd_where(&s->rd),
                               "expected a whole number after \"%s:\", got \"%.60s\"", keys[i].key,
                               strchr(line, ':') + 1);
        if (got > 0)
            *keys[i].dst = v;
    }
    return TM_OK;
}

static int is_blank_line(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

/* Parse one data line into job; *bad = 1 when the row is skipped. */
static int parse_row(swf_rd *s, char *line, trace_job *j, int *skip, tm_diag *diag)
{
    trace__rd *r = &s->rd;
    char *f[SWF_FIELDS + 1];
    *skip = 1;
    r->st->rows++;
    size_t n = trace__split_ws(line, f, SWF_FIELDS);
    if (n != SWF_FIELDS)
        return trace__rd_bad(r, diag, "expected %d fields, got %s%zu", SWF_FIELDS,
                             n > SWF_FIELDS ? "more than " : "", n > SWF_FIELDS ? n - 1 : n);
    double v[SWF_FIELDS];
    for (int i = 0; i < SWF_FIELDS; i++)
        if (trace__parse_f64(f[i], &v[i]))
            return trace__rd_bad(r, diag, "expected a number in field %d, got \"%.60s\"", i + 1,
                                 f[i]);
    static const int need_int[] = {0, 1, 3, 4, 7, 8, 10, 11};
    for (size_t k = 0; k < sizeof need_int / sizeof need_int[0]; k++) {
        int i = need_int[k];
        if (v[i] != floor(v[i]) || fabs(v[i]) > 9e15)
            return trace__rd_bad(r, diag, "expected an integer in field %d, got \"%.60s\"", i + 1,
                                 f[i]);
    }
    double submit = v[1], run = v[3], alloc = v[4], req = v[7], est = v[8];
    if (submit < 0)
        return trace__rd_bad(r, diag, "expected a submit time >= 0 in field 2, got %.0f", submit);
    if (run < -1)
        return trace__rd_bad(r, diag, "expected a run time >= 0 (or -1) in field 4, got %.0f", run);
    if (alloc < -1 || alloc == 0 || req < -1)
        return trace__rd_bad(r, diag,
                             "expected a processor count >= 1 (or -1) in fields 5 and 8, got %.0f "
                             "and %.0f",
                             alloc, req);
    int bad_order;
    int rc = trace__rd_order(r, trace__s_to_us(submit), &bad_order, diag);
    if (rc != TM_OK || bad_order)
        return rc;
    double size = alloc > 0 ? alloc : req;
    if (v[10] < INT32_MIN || v[10] > INT32_MAX)
        return trace__rd_bad(r, diag, "expected a status code in field 11, got %.0f", v[10]);
    int status = (int)v[10];
    if (run < 0 || size <= 0 || (status == 5 && (s->rd.o.swf_drop_cancelled || run <= 0))) {
        trace__rd_drop(r);
        return TM_OK;
    }
    uint32_t ppn = s->info.procs_per_node ? s->info.procs_per_node : 1;
    double nodes = ceil(size / ppn);
    if (nodes * ppn > 4294967295.0)
        return trace__rd_bad(r, diag, "expected a processor count below 2^32, got %.0f", size);
    trace_job_defaults(j);
    j->id = (uint64_t)(v[0] < 0 ? 0 : v[0]);
    j->submit_us = trace__s_to_us(submit);
    j->duration_us = trace__s_to_us(run);
    /* the estimate backfilling and SJF see: the requested time as the log
     * has it (default), the actual run time (perfect estimates, as
     * RLScheduler and many backfilling studies use), or the requested time
     * where there is one and the run time elsewhere */
    switch (r->o.swf_estimates) {
    case TRACE_EST_RUNTIME:
        j->estimate_us = j->duration_us;
        break;
    case TRACE_EST_REQUESTED_ELSE:
        j->estimate_us = est > 0 ? trace__s_to_us(est) : j->duration_us;
        break;
    default:
        j->estimate_us = est > 0 ? trace__s_to_us(est) : -1;
        break;
    }
    if (j->estimate_us < 0)
        r->st->no_estimate++;
    j->gpus = (uint32_t)(nodes * ppn);
    j->flags = TRACE_JOB_CAN_SPAN;
    j->status = status;
    /* a user id past 2^32 (the field allows up to 9e15) folds into 32 bits */
    j->tenant = v[11] > 0 ? (uint32_t)fmod(v[11], 4294967296.0) : 0;
    j->cls = r->o.cls;
    *skip = 0;
    return TM_OK;
}

static int swf_next(void *ud, trace_job *job, tm_diag *diag)
{
    swf_rd *s = ud;
    for (;;) {
        char *line;
        size_t len;
        if (s->has_pending) {
            s->has_pending = 0;
            line = s->pending;
            /* where still names the pending line: open() stopped there */
        } else {
            int rc = trace__rd_line_data(&s->rd, &line, &len, diag);
            if (rc != TM_OK)
                return rc;
            if (line[0] == ';' || is_blank_line(line))
                continue;
        }
        int skip;
        int rc = parse_row(s, line, job, &skip, diag);
        if (rc != TM_OK)
            return rc;
        if (!skip) {
            s->rd.st->records++;
            return TM_OK;
        }
    }
}

static void swf_close(void *ud)
{
    swf_rd *s = ud;
    if (!s)
        return;
    trace__rd_close(&s->rd);
    free(s->pending);
    free(s);
}

int trace_swf_open(trace_source *src, const char *path, const trace_read_opts *o,
                   trace_swf_info *info, tm_diag *diag)
{
    memset(src, 0, sizeof *src);
    int rc;
    swf_rd *s = trace__rd_new(sizeof *s, path, o, &rc, diag);
    if (rc != TM_OK)
        goto fail;
    s->info.max_nodes = s->info.max_procs = s->info.max_jobs = s->info.unix_start_s = -1;
    for (;;) {
        char *line;
        size_t len;
        rc = trace__rd_line_data(&s->rd, &line, &len, diag);
        if (rc == TRACE_END) {
            rc = TM_OK;
            break;
        }
        if (rc != TM_OK)
            goto fail;
        if (line[0] == ';') {
            if ((rc = header_line(s, line, diag)) != TM_OK)
                goto fail;
            continue;
        }
        if (is_blank_line(line))
            continue;
        s->pending = malloc(len + 1);
        if (!s->pending) {
            rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
            goto fail;
        }
        memcpy(s->pending, line, len + 1);
        s->pending_len = len;
        s->has_pending = 1;
        break;
    }
    trace_swf_info *in = &s->info;
    if (in->max_nodes > (int64_t)SWF_MAX_HEADER_NODES ||
        (in->max_procs > (int64_t)SWF_MAX_HEADER_NODES &&
         !(in->max_nodes > 0 && in->max_procs % in->max_nodes == 0 &&
           in->max_procs / in->max_nodes <= PLACE_MAX_GPUS_PER_NODE))) {
        rc = tm_diag_set(diag, TM_ERR_LIMIT, path,
                         "the header describes a machine of %lld nodes and %lld processors; at "
                         "most %u nodes are built from a header (give the fleet with --fleet)",
                         (long long)in->max_nodes, (long long)in->max_procs, SWF_MAX_HEADER_NODES);
        goto fail;
    }
    in->procs_per_node = 1;
    if (in->max_nodes > 0 && in->max_procs > 0 && in->max_procs % in->max_nodes == 0 &&
        in->max_procs / in->max_nodes <= PLACE_MAX_GPUS_PER_NODE) {
        in->nodes = (uint32_t)in->max_nodes;
        in->procs_per_node = (uint32_t)(in->max_procs / in->max_nodes);
    } else if (in->max_procs > 0 && in->max_procs < (int64_t)UINT32_MAX) {
        in->nodes = (uint32_t)in->max_procs;
    } else if (in->max_nodes > 0 && in->max_nodes < (int64_t)UINT32_MAX) {
        in->nodes = (uint32_t)in->max_nodes;
    }
    if (info)
        *info = s->info;
    src->next = swf_next;
    src->close = swf_close;
    src->ud = s;
    return TM_OK;
fail:
    swf_close(s);
    return rc;
}
