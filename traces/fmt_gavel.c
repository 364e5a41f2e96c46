/*
 * fmt_gavel.c — Gavel (Narayanan et al., OSDI'20): its throughput matrix and
 * its job traces.
 *
 * The matrix is JSON: {worker: {"('Job type', scale)": {"null": tput,
 * "('Other', s)": [a, b], ...}}}. Only the isolated throughputs ("null") are
 * kept (0 too: "cannot run there"): a flat table of (worker, job type, scale,
 * steps/s), small (hundreds of entries) and searched linearly once per job. The file is read with
 * the streaming tokenizer of reader.c (cJSON stays the scenario loader's).
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
    uint32_t worker, job_type, scale;
    double tput;
} entry;

struct trace_gavel_matrix {
    char **workers;
    size_t n_workers;
    char **job_types;
    size_t n_job_types;
    entry *e;
    size_t n, cap;
};

static int intern(char ***list, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*list)[i], s) == 0)
            return (int)i;
    char **l = realloc(*list, (*n + 1) * sizeof *l);
    if (!l)
        return -1;
    *list = l;
    l[*n] = malloc(strlen(s) + 1);
    if (!l[*n])
        return -1;
    strcpy(l[*n], s);
    return (int)(*n)++;
}

void trace_gavel_matrix_free(trace_gavel_matrix *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_workers; i++)
        free(m->workers[i]);
    for (size_t i = 0; i < m->n_job_types; i++)
        free(m->job_types[i]);
    free(m->workers);
    free(m->job_types);
    free(m->e);
    free(m);
}

/* "('ResNet-50 (batch size 64)', 1)" -> name, scale; -1 if not of that form. */
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

int trace_gavel_matrix_load(trace_gavel_matrix **out, const char *path, tm_diag *diag)
{
    *out = NULL;
    trace_gavel_matrix *m = calloc(1, sizeof *m);
    trace__rd rd;
    trace__json js;
    int rc, tok;
    if (!m)
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    if ((rc = trace__rd_open(&rd, path, NULL, diag))) {
        free(m);
        return rc;
    }
    trace__json_init(&js, &rd);
    char worker[128], key[512];
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
        trace__copy(worker, sizeof worker, js.str);
        int w = intern(&m->workers, &m->n_workers, worker);
        if (w < 0) {
            rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
            goto out;
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
            trace__copy(key, sizeof key, js.str);
            char *name;
            uint32_t scale;
            if (parse_key(key, &name, &scale)) {
                rc = trace__json_error(&js, diag,
                                       "expected a job key of the form \"('type', scale)\", got "
                                       "\"%.80s\"",
                                       js.str);
                goto out;
            }
            int jt = intern(&m->job_types, &m->n_job_types, name);
            if (jt < 0) {
                rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
                goto out;
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
                if (tok != TRACE__J_NUMBER || !(js.num >= 0)) {
                    rc = trace__json_error(&js, diag, "expected a throughput >= 0 for \"null\"");
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
                m->e[m->n++] = (entry){(uint32_t)w, (uint32_t)jt, scale, js.num};
            }
        }
    }
    if (m->n == 0)
        rc = tm_diag_set(diag, TM_ERR_TRACE, path, "expected throughputs, got none");
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
    *names = (const char *const *)m->workers;
    return m->n_workers;
}

size_t trace_gavel_matrix_job_types(const trace_gavel_matrix *m, const char *const **names)
{
    *names = (const char *const *)m->job_types;
    return m->n_job_types;
}

int trace_gavel_matrix_job_type(const trace_gavel_matrix *m, const char *job_type)
{
    for (size_t i = 0; i < m->n_job_types; i++)
        if (strcmp(m->job_types[i], job_type) == 0)
            return (int)i;
    return -1;
}

static double lookup(const trace_gavel_matrix *m, int w, int jt, uint32_t scale)
{
    for (size_t i = 0; i < m->n; i++)
        if ((int)m->e[i].worker == w && (int)m->e[i].job_type == jt && m->e[i].scale == scale)
            return m->e[i].tput;
    return NAN;
}

static int worker_index(const trace_gavel_matrix *m, const char *worker)
{
    for (size_t i = 0; i < m->n_workers; i++)
        if (strcmp(m->workers[i], worker) == 0)
            return (int)i;
    return -1;
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

/* A job type's row at one scale: its speeds per caller type. */
typedef struct speed_row {
    uint32_t job_type, scale;
    uint64_t mask;
    double *speed; /* n_types entries */
} speed_row;

typedef struct gavel_rd {
    trace__rd rd;
    const trace_gavel_matrix *m;
    int ref;
    uint64_t seq;
    uint64_t *approx;
    int worker_of[64]; /* per caller type: its worker index, or -1 */
    size_t n_types;    /* caller types with an entry in worker_of; 0: no speeds */
    speed_row *rows;
    size_t n_rows, cap_rows;
} gavel_rd;

/* Throughput of (jt, scale) on worker w: the entry (0 when it cannot run
 * there), else the largest scale below scaled linearly (*approx set); NAN
 * when neither exists. */
static double tput_at(const trace_gavel_matrix *m, int w, int jt, uint32_t scale, int *approx)
{
    double tput = lookup(m, w, jt, scale);
    *approx = 0;
    if (!isnan(tput))
        return tput;
    uint32_t best = 0;
    for (size_t i = 0; i < m->n; i++) {
        const entry *e = &m->e[i];
        if ((int)e->worker == w && (int)e->job_type == jt && e->scale < scale && e->scale > best) {
            best = e->scale;
            tput = e->tput * (double)scale / e->scale;
        }
    }
    *approx = best != 0;
    return best ? tput : NAN;
}

/* The speed row of (jt, scale) against the reference throughput ref_tput;
 * NULL when out of memory. */
static const speed_row *row_of(gavel_rd *s, int jt, uint32_t scale, double ref_tput)
{
    for (size_t i = 0; i < s->n_rows; i++)
        if ((int)s->rows[i].job_type == jt && s->rows[i].scale == scale)
            return &s->rows[i];
    if (s->n_rows == s->cap_rows) {
        size_t cap = s->cap_rows ? 2 * s->cap_rows : 16;
        speed_row *r = realloc(s->rows, cap * sizeof *r);
        if (!r)
            return NULL;
        s->rows = r;
        s->cap_rows = cap;
    }
    double *v = calloc(s->n_types, sizeof *v);
    if (!v)
        return NULL;
    speed_row *row = &s->rows[s->n_rows++];
    *row = (speed_row){(uint32_t)jt, scale, 0, v};
    for (size_t t = 0; t < s->n_types; t++) {
        if (s->worker_of[t] < 0)
            continue;
        int approx;
        double tp = tput_at(s->m, s->worker_of[t], jt, scale, &approx);
        if (isnan(tp) || !(tp > 0))
            continue; /* not measured there: not allowed */
        v[t] = tp / ref_tput;
        row->mask |= 1ull << t;
    }
    return row;
}

static int gavel_next(void *ud, trace_job *j, tm_diag *diag)
{
    gavel_rd *s = ud;
    trace__rd *r = &s->rd;
    char *line, *f[11];
    size_t len;
    for (;;) {
        int rc = trace__rd_line(r, &line, &len, diag);
        if (rc != TM_OK)
            return rc;
        if (len == 0)
            continue;
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
            row = row_of(s, jt, (uint32_t)scale, tput);
            if (!row)
                return tm_diag_set(diag, TM_ERR_NOMEM, r->where, "out of memory");
            if (row->mask == 0) {
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
    for (size_t i = 0; i < s->n_rows; i++)
        free(s->rows[i].speed);
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
    src->next = gavel_next;
    src->close = gavel_close;
    src->ud = s;
    return TM_OK;
}
