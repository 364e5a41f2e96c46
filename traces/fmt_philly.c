/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fmt_philly.c — the Philly traces of Microsoft (Jeon et al., ATC'19),
 * cluster_job_log: one JSON array of jobs
 *     {"status": "Pass"|"Killed"|"Failed", "vc": ..., "jobid": ...,
 *      "attempts": [{"start_time": ..., "end_time": ...,
 *                    "detail": [{"ip": ..., "gpus": ["gpu0", ...]}]}],
 *      "submitted_time": "YYYY-MM-DD HH:MM:SS", "user": ...}
 * read one job at a time with the streaming tokenizer (the full log is
 * 117,325 jobs; a DOM parser would hold all of it).
 *
 * Mapping: submit = submitted_time - origin (trace_read_opts.origin_s, else
 * the first job's); duration = end of the last attempt - start of the first
 * (retries included, as the ATC'19 analysis counts it); gpus = GPUs of the
 * first attempt (summed over its machines), TRACE_JOB_CAN_SPAN when it used
 * several machines; tenant = hash of user; status Pass 1, Failed 0, Killed 5.
 * Dropped: jobs with no attempt or without start/end times (never ran).
 * Times may be null or "None" in the log.
 */
#include "trace_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct philly_rd {
    trace__rd rd;
    trace__json js;
    int started; /* the opening '[' was read */
    int done;
    uint64_t seq;
} philly_rd;

typedef struct job_acc {
    int64_t submit, first_start, last_end;
    int has_submit, has_start, has_end;
    uint32_t gpus, machines;
    int attempts;
    int status;
    uint32_t tenant;
} job_acc;

/* A time value: a string date, or null / "None" (absent). */
static int time_value(philly_rd *s, int tok, int64_t *t, int *has, tm_diag *diag)
{
    *has = 0;
    if (tok == TRACE__J_NULL)
        return TM_OK;
    if (tok != TRACE__J_STRING)
        return trace__json_error(&s->js, diag, "expected a time string or null");
    if (strcmp(s->js.str, "None") == 0 || s->js.str[0] == '\0')
        return TM_OK;
    if (trace_parse_datetime(s->js.str, t))
        return 1; /* a bad value: the caller reports the row */
    *has = 1;
    return TM_OK;
}

static int parse_detail(philly_rd *s, job_acc *a, int first, tm_diag *diag)
{
    trace__json *j = &s->js;
    int rc, tok;
    if ((rc = trace__json_next(j, &tok, diag)))
        return rc;
    if (tok == TRACE__J_NULL)
        return TM_OK;
    if (tok != TRACE__J_LBRACK)
        return trace__json_error(j, diag, "expected the detail array");
    for (;;) {
        if ((rc = trace__json_next(j, &tok, diag)))
            return rc;
        if (tok == TRACE__J_RBRACK)
            return TM_OK;
        if (tok == TRACE__J_COMMA)
            continue;
        if (tok != TRACE__J_LBRACE)
            return trace__json_error(j, diag, "expected a machine object in detail");
        if (first)
            a->machines++;
        for (;;) {
            if ((rc = trace__json_next(j, &tok, diag)))
                return rc;
            if (tok == TRACE__J_RBRACE)
                break;
            if (tok == TRACE__J_COMMA)
                continue;
            if (tok != TRACE__J_STRING)
                return trace__json_error(j, diag, "expected a key");
            int is_gpus = strcmp(j->str, "gpus") == 0;
            if ((rc = trace__json_expect(j, TRACE__J_COLON, "':'", diag)))
                return rc;
            if ((rc = trace__json_next(j, &tok, diag)))
                return rc;
            if (is_gpus && tok == TRACE__J_LBRACK) {
                for (;;) {
                    if ((rc = trace__json_next(j, &tok, diag)))
                        return rc;
                    if (tok == TRACE__J_RBRACK)
                        break;
                    if (tok == TRACE__J_COMMA)
                        continue;
                    if (first)
                        a->gpus++;
                    if ((rc = trace__json_skip(j, tok, diag)))
                        return rc;
                }
            } else if ((rc = trace__json_skip(j, tok, diag))) {
                return rc;
            }
        }
    }
}

static int parse_attempts(philly_rd *s, job_acc *a, int *bad_time, tm_diag *diag)
{
    trace__json *j = &s->js;
    int rc, tok;
    if ((rc = trace__json_next(j, &tok, diag)))
        return rc;
    if (tok == TRACE__J_NULL)
        return TM_OK;
    if (tok != TRACE__J_LBRACK)
        return trace__json_error(j, diag, "expected the attempts array");
    for (;;) {
        if ((rc = trace__json_next(j, &tok, diag)))
            return rc;
        if (tok == TRACE__J_RBRACK)
            return TM_OK;
        if (tok == TRACE__J_COMMA)
            continue;
        if (tok != TRACE__J_LBRACE)
            return trace__json_error(j, diag, "expected an attempt object");
        int first = a->attempts++ == 0;
        for (;;) {
            if ((rc = trace__json_next(j, &tok, diag)))
                return rc;
            if (tok == TRACE__J_RBRACE)
                break;
            if (tok == TRACE__J_COMMA)
                continue;
            if (tok != TRACE__J_STRING)
                return trace__json_error(j, diag, "expected a key");
            char key[16];
            trace__copy(key, sizeof key, j->str);
            if ((rc = trace__json_expect(j, TRACE__J_COLON, "':'", diag)))
                return rc;
            if (strcmp(key, "detail") == 0) {
                if ((rc = parse_detail(s, a, first, diag)))
                    return rc;
                continue;
            }
            if ((rc = trace__json_next(j, &tok, diag)))
                return rc;
            if (strcmp(key, "start_time") == 0 || strcmp(key, "end_time") == 0) {
                int64_t t;
                int has;
                rc = time_value(s, tok, &t, &has, diag);
                if (rc == 1) {
                    *bad_time = 1;
                    continue;
                }
                if (rc)
                    return rc;
                if (!has)
                    continue;
                if (key[0] == 's') {
                    if (first) {
                        a->first_start = t;
                        a->has_start = 1;
                    }
                } else {
                    a->last_end = t;
                    a->has_end = 1;
                }
            } else if ((rc = trace__json_skip(j, tok, diag))) {
                return rc;
            }
        }
    }
}

static int philly_next(void *ud, trace_job *job, tm_diag *diag)
{
    philly_rd *s = ud;
    trace__json *j = &s->js;
    trace__rd *r = &s->rd;
    int rc, tok;
    if (s->done)
        return TRACE_END;
    if (!s->started) {
        if ((rc = trace__json_expect(j, TRACE__J_LBRACK, "a JSON array of jobs", diag)))
            return rc;
        s->started = 1;
    }
    for (;;) {
        if ((rc = trace__json_next(j, &tok, diag)))
            return rc;
        if (tok == TRACE__J_COMMA)
            continue;
        if (tok == TRACE__J_RBRACK) {
            s->done = 1;
            return TRACE_END;
        }
        if (tok != TRACE__J_LBRACE)
            return trace__json_error(j, diag, "expected a job object or the end of the array");
        r->st->rows++;
        uint64_t first_line = trace_lines_number(r->tl); /* messages name the job's first line */
        job_acc a;
        memset(&a, 0, sizeof a);
        a.status = -1;
        int bad_time = 0;
        for (;;) {
            if ((rc = trace__json_next(j, &tok, diag)))
                return rc;
            if (tok == TRACE__J_RBRACE)
                break;
            if (tok == TRACE__J_COMMA)
                continue;
            if (tok != TRACE__J_STRING)
                return trace__json_error(j, diag, "expected a key in a job object");
            char key[32];
            trace__copy(key, sizeof key, j->str);
            if ((rc = trace__json_expect(j, TRACE__J_COLON, "':'", diag)))
                return rc;
            if (strcmp(key, "attempts") == 0) {
                if ((rc = parse_attempts(s, &a, &bad_time, diag)))
                    return rc;
                continue;
            }
            if ((rc = trace__json_next(j, &tok, diag)))
                return rc;
            if (strcmp(key, "submitted_time") == 0) {
                int has;
                rc = time_value(s, tok, &a.submit, &has, diag);
                if (rc == 1)
                    bad_time = 1;
                else if (rc)
                    return rc;
                a.has_submit = has;
            } else if (strcmp(key, "status") == 0 && tok == TRACE__J_STRING) {
                a.status = strcmp(j->str, "Pass") == 0     ? 1
                           : strcmp(j->str, "Killed") == 0 ? 5
                           : strcmp(j->str, "Failed") == 0 ? 0
                                                           : -1;
            } else if (strcmp(key, "user") == 0 && tok == TRACE__J_STRING) {
                a.tenant = trace__hash32(j->str);
            } else if ((rc = trace__json_skip(j, tok, diag))) {
                return rc;
            }
        }
        s->seq++;
        r->at_line = first_line;
        if (bad_time || !a.has_submit) {
            rc = trace__rd_bad(r, diag,
                               "expected times as \"YYYY-MM-DD HH:MM:SS\" (or null) and a "
                               "submitted_time in job %llu",
                               (unsigned long long)s->seq);
            r->at_line = 0;
            if (rc)
                return rc;
            continue;
        }
        if (!r->o.has_origin) {
            r->o.origin_s = a.submit;
            r->o.has_origin = 1;
        }
        int bad = 0;
        if (a.submit < r->o.origin_s)
            rc = trace__rd_bad(r, diag, "expected a submitted_time at or after the origin"),
            bad = 1;
        else
            rc = trace__rd_order(r, (a.submit - r->o.origin_s) * 1000000, &bad, diag);
        r->at_line = 0;
        if (rc)
            return rc;
        if (bad)
            continue;
        if (!a.attempts || !a.has_start || !a.has_end || a.last_end < a.first_start) {
            trace__rd_drop(r);
            continue;
        }
        trace_job_defaults(job);
        job->id = s->seq;
        job->submit_us = (a.submit - r->o.origin_s) * 1000000;
        job->duration_us = (a.last_end - a.first_start) * 1000000;
        job->gpus = a.gpus;
        job->flags = a.machines > 1 ? TRACE_JOB_CAN_SPAN : 0;
        job->status = a.status;
        job->tenant = a.tenant;
        job->cls = r->o.cls;
        r->st->records++;
        return TM_OK;
    }
}

static void philly_close(void *ud)
{
    philly_rd *s = ud;
    if (!s)
        return;
    trace__json_fini(&s->js);
    trace__rd_close(&s->rd);
    free(s);
}

int trace_philly_open(trace_source *src, const char *path, const trace_read_opts *o, tm_diag *diag)
{
    memset(src, 0, sizeof *src);
    int rc;
    philly_rd *s = trace__rd_new(sizeof *s, path, o, &rc, diag);
    if (rc != TM_OK) {
        philly_close(s);
        return rc;
    }
    trace__json_init(&s->js, &s->rd);
    src->next = philly_next;
    src->close = philly_close;
    src->ud = s;
    return TM_OK;
}
