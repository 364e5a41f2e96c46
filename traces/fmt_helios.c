/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fmt_helios.c — the Helios traces of SenseTime (Hu et al., SC'21),
 * cluster_log.csv: one Slurm job per row, with a header
 *     job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,
 *     end_time,duration,queue
 * (schema: the HeliosData README). Columns are found by name; job_id,
 * gpu_num, submit_time and duration are required.
 *
 * Mapping: submit = submit_time (calendar time, "YYYY-MM-DD HH:MM:SS") minus
 * the origin (trace_read_opts.origin_s, else the first row's submit time);
 * duration = duration (s); gpus = gpu_num (0 = a CPU job); cpu_milli =
 * cpu_num * 1000; node_num > 1 sets TRACE_JOB_CAN_SPAN; tenant = FNV-1a hash
 * of user; status: COMPLETED 1, CANCELLED 5, FAILED / TIMEOUT / NODE_FAIL 0.
 * A cancelled job with duration 0 never ran and is dropped.
 */
#include "trace_int.h"

#include <string.h>

/* the required columns first */
enum { H_ID, H_GPU, H_SUBMIT, H_DURATION, H_USER, H_CPU, H_NODE, H_STATE, H_N };
static const char *const cols[H_N] = {"job_id", "gpu_num", "submit_time", "duration",
                                      "user",   "cpu_num", "node_num",    "state"};

typedef struct helios_rd {
    trace__rd rd;
    int col[H_N];
    size_t ncols;
} helios_rd;

static int helios_next(void *ud, trace_job *j, tm_diag *diag)
{
    helios_rd *s = ud;
    trace__rd *r = &s->rd;
    char *f[TRACE__MAX_COLS + 1];
    for (;;) {
        int rc = trace__rd_csv_row(r, f, s->ncols, diag);
        if (rc == TRACE__SKIP)
            continue;
        if (rc != TM_OK)
            return rc;
        int64_t id, gpus, cpus = 0, nodes = 1, t;
        double dur;
        if (trace__parse_i64(f[s->col[H_ID]], &id) || trace__parse_i64(f[s->col[H_GPU]], &gpus) ||
            (s->col[H_CPU] >= 0 && trace__parse_i64(f[s->col[H_CPU]], &cpus)) ||
            (s->col[H_NODE] >= 0 && trace__parse_i64(f[s->col[H_NODE]], &nodes)) ||
            trace__parse_f64(f[s->col[H_DURATION]], &dur)) {
            if ((rc = trace__rd_bad(r, diag,
                                    "expected numbers in job_id, gpu_num, cpu_num, node_num and "
                                    "duration")))
                return rc;
            continue;
        }
        if (gpus < 0 || gpus > 1000000 || cpus < 0 || cpus > 1000000000 || nodes < 0 ||
            nodes > 1000000 || dur < 0 || id < 0) {
            if ((rc = trace__rd_bad(r, diag,
                                    "expected 0 <= gpu_num <= 10^6, 0 <= cpu_num <= 10^9, 0 <= "
                                    "node_num <= 10^6 and duration >= 0, got %lld, %lld, %lld, %g",
                                    (long long)gpus, (long long)cpus, (long long)nodes, dur)))
                return rc;
            continue;
        }
        if (trace_parse_datetime(f[s->col[H_SUBMIT]], &t)) {
            if ((rc = trace__rd_bad(r, diag,
                                    "expected submit_time as YYYY-MM-DD HH:MM:SS, got \"%.40s\"",
                                    f[s->col[H_SUBMIT]])))
                return rc;
            continue;
        }
        if (!r->o.has_origin) {
            r->o.origin_s = t;
            r->o.has_origin = 1;
        }
        if (t < r->o.origin_s) {
            if ((rc = trace__rd_bad(r, diag, "expected a submit time at or after the origin")))
                return rc;
            continue;
        }
        int bad;
        int64_t submit_us = (t - r->o.origin_s) * 1000000;
        if ((rc = trace__rd_order(r, submit_us, &bad, diag)))
            return rc;
        if (bad)
            continue;
        const char *state = s->col[H_STATE] >= 0 ? f[s->col[H_STATE]] : "COMPLETED";
        int status = strcmp(state, "COMPLETED") == 0 ? 1 : strcmp(state, "CANCELLED") == 0 ? 5 : 0;
        if (status == 5 && dur <= 0) {
            trace__rd_drop(r);
            continue;
        }
        trace_job_defaults(j);
        j->id = (uint64_t)id;
        j->submit_us = submit_us;
        j->duration_us = trace__s_to_us(dur);
        j->gpus = (uint32_t)gpus;
        j->cpu_milli = cpus * 1000;
        j->flags = nodes > 1 ? TRACE_JOB_CAN_SPAN : 0;
        j->tenant = s->col[H_USER] >= 0 ? trace__hash32(f[s->col[H_USER]]) : 0;
        j->status = status;
        j->cls = r->o.cls;
        r->st->records++;
        return TM_OK;
    }
}

int trace_helios_open(trace_source *src, const char *path, const trace_read_opts *o, tm_diag *diag)
{
    memset(src, 0, sizeof *src);
    int rc;
    helios_rd *s = trace__rd_new(sizeof *s, path, o, &rc, diag);
    if (rc == TM_OK)
        rc = trace__rd_header(&s->rd, cols, H_N, 4, "a Helios cluster_log.csv header", s->col,
                              &s->ncols, diag);
    if (rc != TM_OK) {
        trace__rd_free(s);
        return rc;
    }
    src->next = helios_next;
    src->close = trace__rd_free;
    src->ud = s;
    return TM_OK;
}
