/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fmt_gavel.c — Gavel (Narayanan et al., OSDI'20): its throughput matrix and
 * its job traces.
 *
 * The matrix is JSON: {worker: {"('Job type', scale)": {"null": tput,
 * "('Other', s)": [a, b], ...}}}. Only the isolated throughputs ("null") are
 * kept (0 too: "cannot run there"): a table of (job type, worker, scale,
 * steps/s) sorted once loaded, so a throughput is a binary search. The file
 * is read with the streaming tokenizer of reader.c (cJSON stays the scenario
 * loader's). What a matrix may declare is bounded (TRACE_GAVEL_MAX_*: Gavel's
 * own has 6 workers, 26 job types and 492 entries), because every job type
 * becomes a class of the replay, and a class costs the model far more than
 * its line costs the file: a 30,000-type matrix of 1 MB made a replay take 5
 * GB. Past a bound the load stops at the line that passes it. Job types and
 * workers are held under their names in the file (the trace refers to them
 * so) and under their safe names (label.c), which the lists hand out: two
 * job types with one safe name are refused.
 *
 * Traces are tab-separated, one job per line:
 *   msr (7 fields):       job_type, command, num_steps_arg, needs_data_dir,
 *                         total_steps, arrival_time_s, scale_factor
 *   physical (10 fields): job_type, command, working_directory,
 *                         num_steps_arg, needs_data_dir, total_steps,
 *                         scale_factor, priority_weight, SLO, arrival_time
 * duration = total_steps / throughput(ref worker, job type, scale); the job's
 * class is its job type's index in the matrix, so that results come per
 * model.
 *
 * Per-type speeds: when the caller names its GPU types
 * (trace_read_opts.type_names) and some of them are worker types of the
 * matrix (case-insensitive: "V100" is "v100"), each job carries its row of
 * the matrix as speeds relative to the reference worker, speed[t] =
 * tput(worker of t) / tput(ref), so it runs total_steps / tput(worker) on
 * type t, and may run only on those types (type_mask): a type the matrix does
 * not measure for the job (no entry, or 0: "cannot run there"), or does not
 * name at all, is not allowed. One vector per (job type, scale), built when
 * first seen and kept until close. Without such names the jobs carry no
 * speeds and no mask (as before: every type at the class's speeds).
 */
#include "trace_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    uint32_t job_type, worker, scale;
    uint64_t line; /* where the file gives it, for messages */
    double tput;
} entry;

struct trace_gavel_matrix {
    char *path;
    char **workers, **worker_names; /* as in the file; safe (label.c) */
    size_t n_workers;
    char **job_types, **job_type_names;
    size_t n_job_types;
    entry *e; /* sorted by (job type, worker, scale) once loaded */
    size_t n, cap;
    /* per job type, the scales any worker has (ascending, distinct):
     * scales[scale_at[jt] .. scale_at[jt + 1]) */
    uint32_t *scales;
    size_t *scale_at, n_scales;
};

/* The index of s in list[0..n), or -1. Linear: n is bounded (TRACE_GAVEL_MAX_*). */
static int find_name(char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], s) == 0)
            return (int)i;
    return -1;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Append s (and its safe name) to the lists; -1 when out of memory. The
 * lists have room: they are allocated at their bound. */
static int add_name(char **raw, char **safe, size_t *n, const char *s)
{
    char label[TRACE_LABEL_MAX + 1];
    trace_label_safe(label, s, strlen(s));
    raw[*n] = dup_str(s);
    safe[*n] = dup_str(label);
    if (!raw[*n] || !safe[*n])
        return -1;
    return (int)(*n)++;
}

void trace_gavel_matrix_free(trace_gavel_matrix *m)
{
    if (!m)
        return;
    /* the lists are allocated at their bound, zeroed: free every slot */
    for (size_t i = 0; i < TRACE_GAVEL_MAX_WORKERS; i++) {
        free(m->workers ? m->workers[i] : NULL);
        free(m->worker_names ? m->worker_names[i] : NULL);
    }
    for (size_t i = 0; i < TRACE_GAVEL_MAX_JOB_TYPES; i++) {
        free(m->job_types ? m->job_types[i] : NULL);
        free(m->job_type_names ? m->job_type_names[i] : NULL);
    }
    free(m->workers);
    free(m->worker_names);
    free(m->job_types);
    free(m->job_type_names);
    free(m->e);
    free(m->scales);
    free(m->scale_at);
    free(m->path);
    free(m);
}

/* "('ResNet-50 (batch size 64)', 1)" -> name, scale (in place); -1 if not of
 * that form. */
static int parse_key(char *key, char **name, uint32_t *scale)
{
    size_t n = strlen(key);
    if (n < 7 || strncmp(key, "('", 2) != 0 || key[n - 1] != ')')
        return -1;
    char *q = strrchr(key, '\'');
    if (!q || q <= key + 2 || strncmp(q, "', ", 3) != 0)
        return -1;
    *q = '\0';
    *name = key + 2;
    char *end;
    unsigned long s = strtoul(q + 3, &end, 10);
    if (end == q + 3 || *end != ')' || s == 0 || s > 4096)
        return -1;
    *scale = (uint32_t)s;
    return 0;
}

static int entry_cmp(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (a->job_type != b->job_type)
        return a->job_type < b->job_type ? -1 : 1;
    if (a->worker != b->worker)
        return a->worker < b->worker ? -1 : 1;
    if (a->scale != b->scale)
        return a->scale < b->scale ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

static int u32_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

/* Sort the entries, refuse a (job type, worker, scale) given twice, and
 * list each job type's scales. */
static int matrix_index(trace_gavel_matrix *m, tm_diag *diag)
{
    qsort(m->e, m->n, sizeof *m->e, entry_cmp);
    for (size_t i = 1; i < m->n; i++) {
        const entry *a = &m->e[i - 1], *b = &m->e[i];
        if (a->job_type == b->job_type && a->worker == b->worker && a->scale == b->scale) {
            char where[600];
            snprintf(where, sizeof where, "%s:%llu", m->path, (unsigned long long)b->line);
            return tm_diag_set(diag, TM_ERR_TRACE, where,
                               "expected each (worker, job type, scale) once, got \"%s\", "
                               "\"%s\", %u again (first at line %llu)",
                               m->worker_names[b->worker], m->job_type_names[b->job_type], b->scale,
                               (unsigned long long)a->line);
        }
    }
    m->scales = malloc((m->n ? m->n : 1) * sizeof *m->scales);
    m->scale_at = calloc(m->n_job_types + 1, sizeof *m->scale_at);
    if (!m->scales || !m->scale_at)
        return tm_diag_set(diag, TM_ERR_NOMEM, m->path, "out of memory");
    size_t i = 0, k = 0;
    for (size_t jt = 0; jt < m->n_job_types; jt++) {
        m->scale_at[jt] = k;
        size_t first = k;
        for (; i < m->n && m->e[i].job_type == jt; i++)
            m->scales[k++] = m->e[i].scale;
        qsort(m->scales + first, k - first, sizeof *m->scales, u32_cmp);
        size_t u = first;
        for (size_t j = first; j < k; j++)
            if (j == first || m->scales[j] != m->scales[u - 1])
                m->scales[u++] = m->scales[j];
        k = u;
    }
    m->scale_at[m->n_job_types] = k;
    m->n_scales = k;
    return TM_OK;
}

int trace_gavel_matrix_load(trace_gavel_matrix **out, const char *path, tm_diag *diag)
{
    *out = NULL;
    trace_gavel_matrix *m = calloc(1, sizeof *m);
    trace__rd rd;
    trace__json js;
    int rc, tok;
    if (!m)
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    m->path = dup_str(path);
    m->workers = calloc(TRACE_GAVEL_MAX_WORKERS, sizeof *m->workers);
    m->worker_names = calloc(TRACE_GAVEL_MAX_WORKERS, sizeof *m->worker_names);
    m->job_types = calloc(TRACE_GAVEL_MAX_JOB_TYPES, sizeof *m->job_types);
    m->job_type_names = calloc(TRACE_GAVEL_MAX_JOB_TYPES, sizeof *m->job_type_names);
    if (!m->path || !m->workers || !m->worker_names || !m->job_types || !m->job_type_names) {
        trace_gavel_matrix_free(m);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    if ((rc = trace__rd_open(&rd, path, NULL, diag))) {
        trace_gavel_matrix_free(m);
        return rc;
    }
    trace__json_init(&js, &rd);
    if ((rc = trace__json_expect(&js, TRACE__J_LBRACE, "a JSON object of worker types", diag)))
        goto out;
    for (;;) {
        if ((rc = trace__json_next(&js, &tok, diag)))
            goto out;
        if (tok == TRACE__J_RBRACE)
            break;
        if (tok == TRACE__J_COMMA)
            continue;
        if (tok != TRACE__J_STRING) {
            rc = trace__json_error(&js, diag, "expected a worker type name");
            goto out;
        }
        int w = find_name(m->workers, m->n_workers, js.str);
        if (w < 0 && m->n_workers == TRACE_GAVEL_MAX_WORKERS) {
            rc = trace__json_error(&js, diag,
                                   "expected at most %u worker types in a throughput matrix, "
                                   "got another (\"%.60s\")",
                                   TRACE_GAVEL_MAX_WORKERS, js.str);
            goto out;
        }
        if (w < 0) {
            char label[TRACE_LABEL_MAX + 1];
            trace_label_safe(label, js.str, strlen(js.str));
            int same = find_name(m->worker_names, m->n_workers, label);
            if (same >= 0) {
                rc = trace__json_error(&js, diag,
                                       "expected worker types with distinct names, got \"%.60s\" "
                                       "and \"%.60s\", which are both named \"%s\" once made safe "
                                       "(docs/traces.md, \"Labels\")",
                                       m->workers[same], js.str, label);
                goto out;
            }
            if ((w = add_name(m->workers, m->worker_names, &m->n_workers, js.str)) < 0) {
                rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
                goto out;
            }
        }
        if ((rc = trace__json_expect(&js, TRACE__J_COLON, "':'", diag)) ||
            (rc = trace__json_expect(&js, TRACE__J_LBRACE, "an object of job keys", diag)))
            goto out;
        for (;;) {
            if ((rc = trace__json_next(&js, &tok, diag)))
                goto out;
            if (tok == TRACE__J_RBRACE)
                break;
            if (tok == TRACE__J_COMMA)
                continue;
            if (tok != TRACE__J_STRING) {
                rc = trace__json_error(&js, diag, "expected a job key \"('type', scale)\"");
                goto out;
            }
            char *name;
            uint32_t scale;
            if (parse_key(js.str, &name, &scale)) {
                rc = trace__json_error(&js, diag,
                                       "expected a job key of the form \"('type', scale)\" with "
                                       "1 <= scale <= 4096, got \"%.80s\"",
                                       js.str);
                goto out;
            }
            int jt = find_name(m->job_types, m->n_job_types, name);
            if (jt < 0) {
                if (m->n_job_types == TRACE_GAVEL_MAX_JOB_TYPES) {
                    rc = trace__json_error(&js, diag,
                                           "expected at most %u job types in a throughput "
                                           "matrix, got another (\"%.60s\")",
                                           TRACE_GAVEL_MAX_JOB_TYPES, name);
                    goto out;
                }
                char label[TRACE_LABEL_MAX + 1];
                trace_label_safe(label, name, strlen(name));
                int same = find_name(m->job_type_names, m->n_job_types, label);
                if (same >= 0) {
                    rc = trace__json_error(&js, diag,
                                           "expected job types with distinct names, got "
                                           "\"%.60s\" and \"%.60s\", which are both named "
                                           "\"%s\" once made safe (docs/traces.md, \"Labels\")",
                                           m->job_types[same], name, label);
                    goto out;
                }
                if ((jt = add_name(m->job_types, m->job_type_names, &m->n_job_types, name)) < 0) {
                    rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
                    goto out;
                }
            }
            if ((rc = trace__json_expect(&js, TRACE__J_COLON, "':'", diag)) ||
                (rc = trace__json_expect(&js, TRACE__J_LBRACE, "an object of throughputs", diag)))
                goto out;
            for (;;) {
                if ((rc = trace__json_next(&js, &tok, diag)))
                    goto out;
                if (tok == TRACE__J_RBRACE)
                    break;
                if (tok == TRACE__J_COMMA)
                    continue;
                if (tok != TRACE__J_STRING) {
                    rc = trace__json_error(&js, diag, "expected a key");
                    goto out;
                }
                int isolated = strcmp(js.str, "null") == 0;
                if ((rc = trace__json_expect(&js, TRACE__J_COLON, "':'", diag)) ||
                    (rc = trace__json_next(&js, &tok, diag)))
                    goto out;
                if (!isolated) {
                    if ((rc = trace__json_skip(&js, tok, diag)))
                        goto out;
                    continue;
                }
                if (tok != TRACE__J_NUMBER || !(js.num >= 0) || !isfinite(js.num)) {
                    rc = trace__json_error(&js, diag,
                                           "expected a finite throughput >= 0 for \"null\"");
                    goto out;
                }
                if (m->n == TRACE_GAVEL_MAX_ENTRIES) {
                    rc = trace__json_error(&js, diag,
                                           "expected at most %u throughputs in a matrix, got "
                                           "another",
                                           TRACE_GAVEL_MAX_ENTRIES);
                    goto out;
                }
                if (m->n == m->cap) {
                    size_t cap = m->cap ? 2 * m->cap : 256;
                    entry *e = realloc(m->e, cap * sizeof *e);
                    if (!e) {
                        rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
                        goto out;
                    }
                    m->e = e;
                    m->cap = cap;
                }
                m->e[m->n++] =
                    (entry){(uint32_t)jt, (uint32_t)w, scale, trace_lines_number(rd.tl), js.num};
            }
        }
    }
    if (m->n == 0)
        rc = tm_diag_set(diag, TM_ERR_TRACE, path, "expected throughputs, got none");
    else
        rc = matrix_index(m, diag);
out:
    trace__json_fini(&js);
    trace__rd_close(&rd);
    if (rc != TM_OK) {
        trace_gavel_matrix_free(m);
        return rc;
    }
    *out = m;
    return TM_OK;
}

size_t trace_gavel_matrix_workers(const trace_gavel_matrix *m, const char *const **names)
{
    *names = (const char *const *)m->worker_names;
    return m->n_workers;
}

size_t trace_gavel_matrix_job_types(const trace_gavel_matrix *m, const char *const **names)
{
    *names = (const char *const *)m->job_type_names;
    return m->n_job_types;
}

/* A name as the file has it, else its safe form (at most one list entry
 * matches either way: two job types with one safe name are refused). */
static int find_either(char *const *raw, char *const *safe, size_t n, const char *s)
{
    int i = find_name(raw, n, s);
    return i >= 0 ? i : find_name(safe, n, s);
}

int trace_gavel_matrix_job_type(const trace_gavel_matrix *m, const char *job_type)
{
    return find_either(m->job_types, m->job_type_names, m->n_job_types, job_type);
}

/* The first entry at or after (jt, w, scale) in the sorted table. */
static size_t lower_bound(const trace_gavel_matrix *m, int w, int jt, uint32_t scale)
{
    entry key = {(uint32_t)jt, (uint32_t)w, scale, 0, 0};
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (entry_cmp(&m->e[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static double lookup(const trace_gavel_matrix *m, int w, int jt, uint32_t scale)
{
    size_t i = lower_bound(m, w, jt, scale);
    if (i < m->n && (int)m->e[i].worker == w && (int)m->e[i].job_type == jt &&
        m->e[i].scale == scale)
        return m->e[i].tput;
    return NAN;
}

static int worker_index(const trace_gavel_matrix *m, const char *worker)
{
    return find_either(m->workers, m->worker_names, m->n_workers, worker);
}

double trace_gavel_matrix_tput(const trace_gavel_matrix *m, const char *worker,
                               const char *job_type, uint32_t scale)
{
    int w = worker_index(m, worker), jt = trace_gavel_matrix_job_type(m, job_type);
    if (w < 0 || jt < 0)
        return NAN;
    return lookup(m, w, jt, scale);
}

/* ------------------------------------------------------------------------- */
/* traces                                                                     */

/* A job type's speeds per caller type, and the types it may run on, for one
 * class of scales. A trace's scale s of job type jt falls in one of two
 * classes per scale a of the matrix for jt (on any worker): s == a, or s
 * strictly between a and the next such scale (or above the largest). In the
 * second class every worker's throughput is its entry at the largest scale
 * below s, scaled by s over that scale, and s cancels out of the ratio to
 * the reference: the speeds depend on the class only. So the rows a trace
 * can make are bounded by the matrix (2 per scale), whatever the trace. */
typedef struct speed_row {
    uint64_t mask;
    double speed[]; /* n_types entries */
} speed_row;

typedef struct gavel_rd {
    trace__rd rd;
    const trace_gavel_matrix *m;
    int ref;
    uint64_t seq;
    uint64_t *approx;
    int worker_of[64]; /* per caller type: its worker index, or -1 */
    size_t n_types;    /* caller types with an entry in worker_of; 0: no speeds */
    speed_row **rows;  /* 2 m->n_scales slots: [2k] between, [2k + 1] at scale k */
} gavel_rd;

/* Throughput of (jt, scale) on worker w: the entry (0 when it cannot run
 * there), else the entry at the largest scale below, scaled linearly
 * (*approx set); NAN when neither exists. O(log entries). */
static double tput_at(const trace_gavel_matrix *m, int w, int jt, uint32_t scale, int *approx)
{
    size_t i = lower_bound(m, w, jt, scale);
    *approx = 0;
    if (i < m->n && (int)m->e[i].worker == w && (int)m->e[i].job_type == jt &&
        m->e[i].scale == scale)
        return m->e[i].tput;
    if (i == 0 || (int)m->e[i - 1].worker != w || (int)m->e[i - 1].job_type != jt)
        return NAN;
    const entry *e = &m->e[i - 1]; /* the largest scale below */
    *approx = 1;
    return e->tput * (double)scale / e->scale;
}

/* The throughput per GPU of (jt, scale) on worker w from the largest scale
 * below `scale` (the "between" class); NAN when there is none. */
static double tput_per_gpu_below(const trace_gavel_matrix *m, int w, int jt, uint32_t scale)
{
    size_t i = lower_bound(m, w, jt, scale);
    if (i == 0 || (int)m->e[i - 1].worker != w || (int)m->e[i - 1].job_type != jt)
        return NAN;
    return m->e[i - 1].tput / m->e[i - 1].scale;
}

/* The speed row of (jt, scale); *oom set (and NULL returned) when out of
 * memory. NULL without *oom when jt has no scale at or below `scale` (the
 * reference cannot run it: the caller has refused the row already). */
static const speed_row *row_of(gavel_rd *s, int jt, uint32_t scale, int *oom)
{
    const trace_gavel_matrix *m = s->m;
    *oom = 0;
    /* the class: the largest scale of jt at or below `scale` */
    size_t lo = m->scale_at[jt], hi = m->scale_at[jt + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->scales[mid] <= scale)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == m->scale_at[jt])
        return NULL;
    size_t k = lo - 1;
    int at = m->scales[k] == scale;
    speed_row **slot = &s->rows[2 * k + (size_t)at];
    if (*slot)
        return *slot;
    speed_row *row = calloc(1, sizeof *row + s->n_types * sizeof row->speed[0]);
    if (!row) {
        *oom = 1;
        return NULL;
    }
    int approx;
    /* at a scale of the matrix: the throughputs there (or below, scaled);
     * between scales: per GPU from the scale below, where s cancels */
    double ref =
        at ? tput_at(m, s->ref, jt, scale, &approx) : tput_per_gpu_below(m, s->ref, jt, scale);
    for (size_t t = 0; t < s->n_types; t++) {
        if (s->worker_of[t] < 0)
            continue;
        double tp = at ? tput_at(m, s->worker_of[t], jt, scale, &approx)
                       : tput_per_gpu_below(m, s->worker_of[t], jt, scale);
        if (isnan(tp) || !(tp > 0) || !(ref > 0))
            continue; /* not measured there: not allowed */
        row->speed[t] = tp / ref;
        row->mask |= 1ull << t;
    }
    *slot = row;
    return row;
}

static int gavel_next(void *ud, trace_job *j, tm_diag *diag)
{
    gavel_rd *s = ud;
    trace__rd *r = &s->rd;
    char *line, *f[11];
    size_t len;
    for (;;) {
        int rc = trace__rd_line_data(r, &line, &len, diag);
        if (rc != TM_OK)
            return rc;
        r->st->rows++;
        s->seq++;
        size_t n = trace__split_char(line, '\t', f, 10);
        if (n != 7 && n != 10) {
            if ((rc = trace__rd_bad(r, diag,
                                    "expected 7 (msr) or 10 (physical) tab-separated fields, got "
                                    "%zu",
                                    n > 10 ? (size_t)11 : n)))
                return rc;
            continue;
        }
        const char *steps_s = n == 7 ? f[4] : f[5], *arr_s = n == 7 ? f[5] : f[9],
                   *scale_s = n == 7 ? f[6] : f[6];
        double steps, arrival, prio = 1;
        int64_t scale;
        if (trace__parse_f64(steps_s, &steps) || trace__parse_f64(arr_s, &arrival) ||
            trace__parse_i64(scale_s, &scale) || (n == 10 && trace__parse_f64(f[7], &prio))) {
            if ((rc = trace__rd_bad(r, diag,
                                    "expected numbers in total_steps, arrival_time and "
                                    "scale_factor, got \"%.30s\", \"%.30s\", \"%.30s\"",
                                    steps_s, arr_s, scale_s)))
                return rc;
            continue;
        }
        if (steps < 0 || arrival < 0 || scale < 1 || scale > 4096) {
            if ((rc = trace__rd_bad(r, diag,
                                    "expected total_steps >= 0, arrival_time >= 0 and 1 <= "
                                    "scale_factor <= 4096, got %g, %g, %lld",
                                    steps, arrival, (long long)scale)))
                return rc;
            continue;
        }
        int jt = trace_gavel_matrix_job_type(s->m, f[0]);
        if (jt < 0) {
            if ((rc = trace__rd_bad(r, diag,
                                    "expected a job type of the throughput matrix, got "
                                    "\"%.60s\"",
                                    f[0])))
                return rc;
            continue;
        }
        int approx;
        double tput = tput_at(s->m, s->ref, jt, (uint32_t)scale, &approx);
        if (!(tput > 0)) { /* none, or 0: it cannot run on the reference worker */
            if ((rc = trace__rd_bad(r, diag,
                                    "expected a throughput above 0 for \"%.60s\" at scale %lld "
                                    "or below on the reference worker, got %s",
                                    f[0], (long long)scale, isnan(tput) ? "none" : "0")))
                return rc;
            continue;
        }
        const speed_row *row = NULL;
        if (s->n_types) {
            int oom;
            row = row_of(s, jt, (uint32_t)scale, &oom);
            if (oom)
                return tm_diag_set(diag, TM_ERR_NOMEM, trace__rd_where(r), "out of memory");
            if (!row || row->mask == 0) {
                if ((rc = trace__rd_bad(r, diag,
                                        "expected a throughput for \"%.60s\" at scale %lld on "
                                        "one of the fleet's GPU types, got none",
                                        f[0], (long long)scale)))
                    return rc;
                continue;
            }
        }
        if (approx && s->approx)
            (*s->approx)++;
        int bad;
        if ((rc = trace__rd_order(r, trace__s_to_us(arrival), &bad, diag)))
            return rc;
        if (bad)
            continue;
        trace_job_defaults(j);
        j->id = s->seq;
        j->submit_us = trace__s_to_us(arrival);
        j->duration_us = trace__s_to_us(steps / tput);
        j->gpus = (uint32_t)scale;
        j->cls = r->o.cls + (uint32_t)jt;
        j->value = prio;
        j->flags = TRACE_JOB_CAN_SPAN; /* Gavel places GPUs, not nodes: gangs may span */
        if (row) {
            j->speed = row->speed;
            j->type_mask = row->mask;
        }
        r->st->records++;
        return TM_OK;
    }
}

static void gavel_close(void *ud)
{
    gavel_rd *s = ud;
    if (!s)
        return;
    trace__rd_close(&s->rd);
    for (size_t i = 0; s->rows && i < 2 * s->m->n_scales; i++)
        free(s->rows[i]);
    free(s->rows);
    free(s);
}

int trace_gavel_open(trace_source *src, const char *path, const trace_gavel_matrix *m,
                     const char *ref_worker, const trace_read_opts *o, uint64_t *approximated,
                     tm_diag *diag)
{
    memset(src, 0, sizeof *src);
    int ref = m ? worker_index(m, ref_worker ? ref_worker : "v100") : -1;
    if (ref < 0)
        return tm_diag_set(diag, TM_ERR_TRACE, path,
                           "expected a throughput matrix with worker type \"%s\"",
                           ref_worker ? ref_worker : "v100");
    if (approximated)
        *approximated = 0;
    int rc;
    gavel_rd *s = trace__rd_new(sizeof *s, path, o, &rc, diag);
    if (rc != TM_OK) {
        gavel_close(s);
        return rc;
    }
    s->m = m;
    s->ref = ref;
    s->approx = approximated;
    size_t nt = o && o->type_names ? (o->n_types < 64 ? o->n_types : 64) : 0;
    for (size_t t = 0; t < 64; t++)
        s->worker_of[t] = -1;
    for (size_t w = 0; w < m->n_workers; w++) {
        int t = trace_type_index(o, m->workers[w]);
        if (t >= 0 && (size_t)t < nt) {
            s->worker_of[t] = (int)w;
            s->n_types = nt;
        }
    }
    if (s->n_types && !(s->rows = calloc(2 * m->n_scales, sizeof *s->rows))) {
        gavel_close(s);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    src->next = gavel_next;
    src->close = gavel_close;
    src->ud = s;
    return TM_OK;
}
