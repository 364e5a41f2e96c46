/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fmt_pai.c — the Alibaba PAI GPU cluster trace v2020 (NSDI'22, "MLaaS in
 * the Wild"): the machine table (a fleet) and the task table (jobs).
 *
 * Both are CSV files without a header (the column names ship separately as
 * *.header files); a first line equal to the documented header is accepted
 * and skipped. Machine types map onto catalog types through gpu_map; MISC is
 * the trace's bucket for the older K40m/K80/M60 machines and maps to K80 (the
 * most common of the three in PAI's 2020 fleet is not documented; K80 is the
 * documented stand-in, see docs/traces.md).
 *
 * Task table: one row per task, inst_num instances each; the reader hands out
 * one job per instance (PAI schedules instances as separate containers).
 * plan_cpu and plan_gpu are in percent of a core / a GPU (600 = 6 cores, 50 =
 * half a GPU), plan_mem in GB, times in seconds.
 */
#include "trace_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *pai, *type;
} gpu_map[] = {
    {"MISC", "K80"}, {"P100", "P100"}, {"T4", "T4"}, {"V100", "V100"}, {"V100M32", "V100-32GB"},
};

const char *trace_pai_gpu_type(const char *gpu_type)
{
    for (size_t i = 0; i < sizeof gpu_map / sizeof gpu_map[0]; i++)
        if (trace__same_name(gpu_map[i].pai, gpu_type))
            return gpu_map[i].type;
    return NULL;
}

/* ------------------------------------------------------------------------- */
/* machine table                                                              */

#define MACHINE_FIELDS 5

typedef struct machines_rd {
    trace__rd rd;
} machines_rd;

static int machines_next(void *ud, trace_node *node, tm_diag *diag)
{
    machines_rd *s = ud;
    trace__rd *r = &s->rd;
    char *line, *f[MACHINE_FIELDS + 1];
    size_t len;
    for (;;) {
        int rc = trace__rd_line_data(r, &line, &len, diag);
        if (rc != TM_OK)
            return rc;
        if (r->st->lines == 1 && strcmp(line, "machine,gpu_type,cap_cpu,cap_mem,cap_gpu") == 0)
            continue;
        r->st->rows++;
        size_t n = trace__split_csv(line, f, MACHINE_FIELDS);
        if (n != MACHINE_FIELDS) {
            if ((rc = trace__rd_bad(r, diag,
                                    "expected %d fields (machine,gpu_type,cap_cpu,cap_mem,"
                                    "cap_gpu), got %zu",
                                    MACHINE_FIELDS, n == (size_t)-1 ? 0 : n)))
                return rc;
            continue;
        }
        double cpu, mem, gpus;
        if (trace__parse_f64(f[2], &cpu) || trace__parse_f64(f[3], &mem) ||
            trace__parse_f64(f[4], &gpus) || gpus != floor(gpus)) {
            if ((rc = trace__rd_bad(r, diag,
                                    "expected numbers in cap_cpu, cap_mem and an integer in "
                                    "cap_gpu, got \"%.30s\", \"%.30s\", \"%.30s\"",
                                    f[2], f[3], f[4])))
                return rc;
            continue;
        }
        int cpu_only = trace__same_name(f[1], "CPU");
        const char *type = cpu_only ? "" : trace_pai_gpu_type(f[1]);
        /* (cores and GiB; at most 10^12 each, so that milli-cores and MiB
         * stay far inside int64) */
        if (!(cpu >= 0 && cpu <= 1e12) || !(mem >= 0 && mem <= 1e12) || gpus < 0 ||
            gpus > PLACE_MAX_GPUS_PER_NODE || !type || (cpu_only && gpus > 0)) {
            if ((rc = trace__rd_bad(r, diag,
                                    "expected 0 <= cap_cpu <= 1e12, 0 <= cap_mem <= 1e12, 0 <= "
                                    "cap_gpu <= %u and gpu_type one of CPU, MISC, P100, T4, V100, "
                                    "V100M32, got %g, %g, %g, \"%.30s\"",
                                    PLACE_MAX_GPUS_PER_NODE, cpu, mem, gpus, f[1])))
                return rc;
            continue;
        }
        memset(node, 0, sizeof *node);
        /* a name from the file: made safe (label.c), as every trace label */
        trace_label_safe(node->name, f[0], strlen(f[0]));
        trace__copy(node->model, sizeof node->model, cpu_only ? "" : f[1]);
        trace__copy(node->type_name, sizeof node->type_name, gpus > 0 ? type : "");
        node->gpus = (uint32_t)gpus;
        node->cpu_milli = (int64_t)llround(cpu * 1000);
        node->mem_mib = (int64_t)llround(mem * 1024);
        r->st->records++;
        return TM_OK;
    }
}

int trace_pai_machines_open(trace_node_source *src, const char *path, const trace_read_opts *o,
                            tm_diag *diag)
{
    memset(src, 0, sizeof *src);
    int rc;
    machines_rd *s = trace__rd_new(sizeof *s, path, o, &rc, diag);
    if (rc != TM_OK) {
        trace__rd_free(s);
        return rc;
    }
    src->next = machines_next;
    src->close = trace__rd_free;
    src->ud = s;
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* task table                                                                 */

#define TASK_FIELDS 10

typedef struct tasks_rd {
    trace__rd rd;
    trace_job tmpl; /* the current row's instance */
    uint64_t left;  /* instances of it still to hand out */
    uint64_t seq;   /* jobs handed out */
} tasks_rd;

static int tasks_row(tasks_rd *s, char *line, int *skip, tm_diag *diag)
{
    trace__rd *r = &s->rd;
    char *f[TASK_FIELDS + 1];
    *skip = 1;
    r->st->rows++;
    size_t n = trace__split_csv(line, f, TASK_FIELDS);
    if (n != TASK_FIELDS)
        return trace__rd_bad(r, diag,
                             "expected %d fields (job_name,task_name,inst_num,status,start_time,"
                             "end_time,plan_cpu,plan_mem,plan_gpu,gpu_type), got %zu",
                             TASK_FIELDS, n == (size_t)-1 ? 0 : n);
    double inst, t0 = 0, t1 = 0, cpu = 0, mem = 0, gpu = 0;
    if (trace__parse_f64(f[2], &inst) || inst != floor(inst) || inst < 1 || inst > 1e7)
        return trace__rd_bad(r, diag, "expected an integer >= 1 in inst_num, got \"%.30s\"", f[2]);
    const char *num[5] = {f[4], f[5], f[6], f[7], f[8]};
    double *dst[5] = {&t0, &t1, &cpu, &mem, &gpu};
    static const char *const names[5] = {"start_time", "end_time", "plan_cpu", "plan_mem",
                                         "plan_gpu"};
    /* sizes bounded so that milli-cores, MiB and the GPU count stay far
     * inside their integers: plan_cpu and plan_mem at most 10^12, plan_gpu
     * (percent of a GPU) at most 10^8 */
    static const double most[5] = {INFINITY, INFINITY, 1e12, 1e12, 1e8};
    for (int k = 0; k < 5; k++)
        if (num[k][0] && (trace__parse_f64(num[k], dst[k]) || *dst[k] < 0 || *dst[k] > most[k]))
            return trace__rd_bad(r, diag,
                                 "expected a number >= 0%s (or empty) in %s, got \"%.30s\"",
                                 k == 4   ? " and <= 1e8"
                                 : k >= 2 ? " and <= 1e12"
                                          : "",
                                 names[k], num[k]);
    uint64_t mask = 0;
    if (f[9][0] && r->o.type_names) {
        const char *type = trace_pai_gpu_type(f[9]);
        int t = type ? trace_type_index(&r->o, type) : -1;
        if (t < 0)
            return trace__rd_bad(r, diag,
                                 "expected gpu_type one of MISC, P100, T4, V100, V100M32 (in the "
                                 "fleet's type table), got \"%.30s\"",
                                 f[9]);
        mask = 1ull << t;
    }
    if (!f[4][0] || !f[5][0] || t1 < t0) {
        if (f[4][0] && f[5][0])
            return trace__rd_bad(r, diag, "expected end_time >= start_time, got %.0f < %.0f", t1,
                                 t0);
        trace__rd_drop(r); /* never started, or still running at the end: no run time */
        return TM_OK;
    }
    int bad;
    int rc = trace__rd_order(r, trace__s_to_us(t0), &bad, diag);
    if (rc != TM_OK || bad)
        return rc;
    trace_job *j = &s->tmpl;
    trace_job_defaults(j);
    j->submit_us = trace__s_to_us(t0);
    j->duration_us = trace__s_to_us(t1 - t0);
    j->cpu_milli = (int64_t)llround(cpu * 10);
    j->host_mem_mib = (int64_t)llround(mem * 1024);
    if (gpu <= 0) {
        j->gpus = 0;
    } else if (gpu <= 100) {
        j->gpus = 1;
        long m = lround(gpu * 10);
        j->gpu_milli = (uint32_t)(m < 1 ? 1 : m);
    } else {
        j->gpus = (uint32_t)ceil(gpu / 100);
    }
    j->type_mask = mask;
    j->cls = r->o.cls;
    j->status = strcmp(f[3], "Terminated") == 0 ? 1 : strcmp(f[3], "Failed") == 0 ? 0 : -1;
    s->left = (uint64_t)inst;
    *skip = 0;
    return TM_OK;
}

static int tasks_next(void *ud, trace_job *job, tm_diag *diag)
{
    tasks_rd *s = ud;
    while (s->left == 0) {
        char *line;
        size_t len;
        int rc = trace__rd_line_data(&s->rd, &line, &len, diag);
        if (rc != TM_OK)
            return rc;
        if (s->rd.st->lines == 1 && strncmp(line, "job_name,task_name,inst_num",
                                            strlen("job_name,task_name,inst_num")) == 0)
            continue;
        int skip;
        rc = tasks_row(s, line, &skip, diag);
        if (rc != TM_OK)
            return rc;
    }
    s->left--;
    *job = s->tmpl;
    job->id = ++s->seq;
    s->rd.st->records++;
    return TM_OK;
}

int trace_pai_tasks_open(trace_source *src, const char *path, const trace_read_opts *o,
                         tm_diag *diag)
{
    memset(src, 0, sizeof *src);
    int rc;
    tasks_rd *s = trace__rd_new(sizeof *s, path, o, &rc, diag);
    if (rc != TM_OK) {
        trace__rd_free(s);
        return rc;
    }
    src->next = tasks_next;
    src->close = trace__rd_free;
    src->ud = s;
    return TM_OK;
}
