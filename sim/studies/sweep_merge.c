/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep_merge.c — the merged file of a sweep (layout: docs/output.md,
 * "Sweep files"; API: sweep_int.h).
 *
 * Every point is classified first: ok (its file is valid: sim__sweep_point_valid),
 * failed (a .failed record and no valid file) or missing. The key results of
 * the ok points are read from their files with the HDF5 reader (nothing is
 * re-run), then written as tables: one row per point (/sweep/points), one
 * row per combination for the parameters (/sweep/params) and for the mean and
 * standard deviation over its ok replications (/sweep/mean, /sweep/sd). The
 * point files are reachable through external links (/sweep/files/pNNNNNN,
 * relative to the merged file's folder when the points folder is below or
 * beside it), and for a packing sweep every curve is copied in
 * (/sweep/curves, /sweep/curves_mean), so the merged file alone holds them.
 */
/* realpath is XSI: ask for it (700 is the XSI of POSIX 2008, what the build asks for) */
#define _XOPEN_SOURCE 700

#include "studies/sweep_int.h"

#include "output/h5io_int.h"
#include "output/provenance_int.h"
#include "version.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_SCHEMA 1

enum { AT_SCALAR = 0, AT_FIRST, AT_LAST };

typedef struct key_result {
    const char *name, *path, *units, *desc;
    int at;
} key_result;

/* The key results of a run point: the metrics of the run report's /summary
 * marked SIM_METRIC_KEY in the metric tables (model.h), the all-classes
 * figures first, then the fleet's; built once, on first use. */
#define RUN_KEYS_MAX (SIM_CLASS_METRIC_COUNT + SIM_RUN_METRIC_COUNT)
static key_result run_keys[RUN_KEYS_MAX];
static char run_key_paths[RUN_KEYS_MAX][96];
static size_t n_run_keys;

static void run_keys_add(const sim_metric_desc *d)
{
    key_result *k = &run_keys[n_run_keys];
    snprintf(run_key_paths[n_run_keys], sizeof run_key_paths[0], "/summary/%s", d->name);
    k->name = d->name;
    k->path = run_key_paths[n_run_keys];
    k->units = strcmp(d->units, "count") == 0 ? "1" : d->units; /* a float column */
    k->desc = d->desc;
    k->at = AT_SCALAR;
    n_run_keys++;
}

static void run_keys_build(void)
{
    if (n_run_keys)
        return;
    for (int m = 0; m < SIM_CLASS_METRIC_COUNT; m++)
        if (sim_class_metric_info[m].flags & SIM_METRIC_KEY)
            run_keys_add(&sim_class_metric_info[m]);
    for (int m = 0; m < SIM_RUN_METRIC_COUNT; m++)
        if (sim_run_metric_info[m].flags & SIM_METRIC_KEY)
            run_keys_add(&sim_run_metric_info[m]);
}

#define PACK_P "/packing/policies/p00"
/* The key results of a packing point: the curves' values at their end (the
 * target), the pods, the capacity. */
static const key_result pack_keys[] = {
    {"alloc_pct", PACK_P "/seeds/s00/alloc_pct", "percent",
     "GPU allocated / capacity at the end of the curve", AT_LAST},
    {"frag_pct", PACK_P "/seeds/s00/frag_pct", "percent",
     "fragmented GPU / idle GPU at the end of the curve", AT_LAST},
    {"frag_capacity_pct", PACK_P "/seeds/s00/frag_capacity_pct", "percent",
     "fragmented GPU / capacity at the end of the curve", AT_LAST},
    {"failed_pods", PACK_P "/seeds/s00/failed_pods", "1", "pods that fitted nowhere", AT_LAST},
    {"failed_gpu_pct", PACK_P "/seeds/s00/failed_gpu_pct", "percent",
     "GPU requested by failed pods / capacity", AT_LAST},
    {"pods", PACK_P "/pods", "1", "pods placed or failed (the list with its copies)", AT_FIRST},
    {"pods_failed", PACK_P "/pods_failed", "1", "pods that failed", AT_FIRST},
    {"capacity_gpus", "/packing/config/capacity_gpus", "GPU", "GPUs of the cluster", AT_SCALAR},
};

/* The curves of a packing point, copied into /sweep/curves. */
static const struct {
    const char *name, *units, *desc;
} curves[] = {
    {"alloc_pct", "percent", "GPU allocated / GPU capacity"},
    {"frag_pct", "percent", "fragmented GPU / idle GPU (the FGD measure)"},
    {"frag_capacity_pct", "percent", "fragmented GPU / GPU capacity"},
    {"failed_pods", "1", "pods that fitted nowhere, cumulative"},
    {"failed_gpu_pct", "percent", "GPU requested by failed pods, cumulative / GPU capacity"},
};
#define N_CURVES (sizeof curves / sizeof curves[0])

enum { ST_OK = 0, ST_FAILED = 1, ST_MISSING = 2 };

typedef struct merge_state {
    const sim__sweep *sw;
    const key_result *keys;
    size_t n_keys;
    uint8_t *status;
    int64_t *seed;
    double *v;       /* [point][key] */
    size_t grid;     /* curve length (the longest) */
    double *cv;      /* [curve + 1][point][grid]: arrived_pct first, NaN padded */
    char **messages; /* failed points: their error */
    int32_t *codes;  /* failed points: exit code of their status */
} merge_state;

static void merge_free(merge_state *m, size_t n_points)
{
    free(m->status);
    free(m->seed);
    free(m->v);
    free(m->cv);
    if (m->messages)
        for (size_t i = 0; i < n_points; i++)
            free(m->messages[i]);
    free(m->messages);
    free(m->codes);
}

/* The error line and status of a .failed record. */
static void read_failed(const char *path, char **msg, int32_t *code)
{
    *msg = NULL;
    *code = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[1600];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "error ", 6) == 0) {
            free(*msg);
            size_t n = strlen(line + 6) + 1;
            if ((*msg = malloc(n)))
                memcpy(*msg, line + 6, n);
        } else if (strncmp(line, "status ", 7) == 0) {
            const char *sp = strrchr(line, ' ');
            *code = (int32_t)atoi(sp + 1);
        }
    }
    fclose(f);
    if (!*msg && (*msg = malloc(16)))
        snprintf(*msg, 16, "(no message)");
}

/* Point i's file exists and looked valid, but cannot be read (rc, d): one bad
 * file must not lose the whole merge, so the point becomes a failed one with
 * the reason as its message (status ST_FAILED, its key results NaN). The
 * error is also printed, once per point, since nothing failed when it ran. */
static int mark_unreadable(merge_state *m, size_t i, sim__sweep_merge_counts *mc, int rc,
                           const tm_diag *d)
{
    char msg[1200];
    snprintf(msg, sizeof msg, "its file cannot be read: %s%s%s", d->where, d->where[0] ? ": " : "",
             d->msg[0] ? d->msg : tm_strerror(rc));
    size_t n = strlen(msg) + 1;
    free(m->messages[i]);
    if (!(m->messages[i] = malloc(n)))
        return TM_ERR_NOMEM;
    memcpy(m->messages[i], msg, n);
    m->codes[i] = (int32_t)tm_status_exit_code(rc);
    m->status[i] = ST_FAILED;
    for (size_t k = 0; k < m->n_keys; k++)
        m->v[i * m->n_keys + k] = NAN;
    mc->ok--;
    mc->failed++;
    fprintf(stderr, "tarmac: sweep merge: point %zu: %s\n", i, msg);
    return TM_OK;
}

static int read_point(merge_state *m, size_t i, tm_diag *diag)
{
    const sim__sweep *sw = m->sw;
    char path[1100];
    sim__sweep_point_path(sw, i, path, sizeof path);
    sim__h5r *r;
    int rc = sim__h5r_open(&r, path, diag);
    if (rc)
        return rc;
    double *a = NULL;
    size_t n = 0;
    int64_t seed = 0;
    if ((rc = sim__h5r_scalar_i64(r, "/sweep_point/seed", &seed, diag)))
        goto out;
    m->seed[i] = seed;
    for (size_t k = 0; k < m->n_keys; k++) {
        const key_result *kr = &m->keys[k];
        if ((rc = sim__h5r_array_f64(r, kr->path, &a, &n, diag)))
            goto out;
        m->v[i * m->n_keys + k] = n == 0 ? NAN : kr->at == AT_LAST ? a[n - 1] : a[0];
        free(a);
        a = NULL;
    }
    if (m->cv) {
        for (size_t c = 0; c <= N_CURVES; c++) {
            char p[256];
            if (c == 0)
                snprintf(p, sizeof p, "/packing/arrived_pct");
            else
                snprintf(p, sizeof p, PACK_P "/seeds/s00/%s", curves[c - 1].name);
            if ((rc = sim__h5r_array_f64(r, p, &a, &n, diag)))
                goto out;
            double *row = m->cv + (c * sw->n_points + i) * m->grid;
            for (size_t k = 0; k < m->grid && k < n; k++)
                row[k] = a[k];
            free(a);
            a = NULL;
        }
    }
out:
    free(a);
    sim__h5r_close(r);
    return rc;
}

/* The longest curve of the ok points (a packing sweep may vary the target
 * or the step). */
static int curve_length(merge_state *m, sim__sweep_merge_counts *mc, size_t *g)
{
    *g = 0;
    for (size_t i = 0; i < m->sw->n_points; i++) {
        if (m->status[i] != ST_OK)
            continue;
        char path[1100];
        sim__sweep_point_path(m->sw, i, path, sizeof path);
        sim__h5r *r;
        tm_diag d;
        tm_diag_clear(&d);
        int rc = sim__h5r_open(&r, path, &d);
        sim__h5_info info;
        if (rc == TM_OK) {
            rc = sim__h5r_info(r, "/packing/arrived_pct", &info, &d);
            sim__h5r_close(r);
        }
        if (rc == TM_ERR_NOMEM)
            return rc;
        if (rc) {
            if ((rc = mark_unreadable(m, i, mc, rc, &d)))
                return rc;
            continue;
        }
        if (info.len > *g)
            *g = (size_t)info.len;
    }
    return TM_OK;
}

/* `to` relative to the folder `from` when both resolve (realpath), else `to`
 * as it is. */
static void rel_path(const char *from_dir, const char *to_dir, const char *leaf, char *out,
                     size_t n)
{
    char *a = realpath(from_dir, NULL), *b = realpath(to_dir, NULL);
    if (!a || !b) {
        snprintf(out, n, "%s/%s", to_dir, leaf);
        free(a);
        free(b);
        return;
    }
    /* the common prefix, component by component */
    size_t i = 0, last = 0;
    while (a[i] && a[i] == b[i]) {
        if (a[i] == '/')
            last = i;
        i++;
    }
    if ((a[i] == '\0' && (b[i] == '/' || b[i] == '\0')) || (b[i] == '\0' && a[i] == '/'))
        last = i;
    size_t o = 0;
    out[0] = '\0';
    for (const char *p = a + last; *p; p++)
        if (*p == '/' && o + 4 < n)
            o += (size_t)snprintf(out + o, n - o, "../");
    const char *rest = b + last;
    while (*rest == '/')
        rest++;
    if (*rest)
        snprintf(out + o, n - o, "%s/%s", rest, leaf);
    else
        snprintf(out + o, n - o, "%s", leaf);
    free(a);
    free(b);
}

static int attr_lines(sim__h5w *w, const char *obj, const char *name, char *const *lines, size_t n,
                      tm_diag *diag)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(lines[i] ? lines[i] : "") + 1;
    char *buf = malloc(len);
    if (!buf)
        return tm_diag_set(diag, TM_ERR_NOMEM, obj, "out of memory");
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "\n" : "", lines[i] ? lines[i] : "");
    int rc = sim__h5w_attr_str(w, obj, name, buf, diag);
    free(buf);
    return rc;
}

/* The distinct values of parameter p, in order of first appearance, and each
 * combination's index among them (-1 where it keeps the base's value). */
static size_t distinct_values(const sim_sweep_spec *s, size_t p, const char **texts, int32_t *codes)
{
    size_t nd = 0, np = s->n_params;
    const char **json = texts + s->n_combos; /* second half of the caller's buffer */
    for (size_t c = 0; c < s->n_combos; c++) {
        const sim_sweep_value *v = &s->values[c * np + p];
        codes[c] = -1;
        if (!v->json)
            continue;
        size_t k = 0;
        while (k < nd && strcmp(json[k], v->json) != 0)
            k++;
        if (k == nd) {
            json[nd] = v->json;
            texts[nd++] = v->text;
        }
        codes[c] = (int32_t)k;
    }
    return nd;
}

/* /sweep/params: one row per combination, one column per parameter. */
static int write_params(sim__h5w *w, const sim_sweep_spec *s, tm_diag *diag)
{
    size_t np = s->n_params, nc = s->n_combos ? s->n_combos : 1;
    int rc0 = sim__h5w_names(w, "/sweep/param_name", (const char *const *)s->params, np,
                             "the varied parameters' JSON paths, the columns of /sweep/params "
                             "(its attribute 'paths')",
                             diag);
    if (rc0)
        return rc0;
    if (np == 0) { /* one combination, nothing varied: a group without columns */
        int rc;
        if ((rc = sim__h5w_group(w, "/sweep/params", diag)) ||
            (rc = sim__h5w_attr_str(w, "/sweep/params", "description",
                                    "the sweep varies no parameter: no columns", diag)))
            return rc;
        return sim__h5w_attr_str(w, "/sweep/params", "paths", "", diag);
    }
    sim__h5_col *cols = calloc(np ? np : 1, sizeof *cols);
    int *numeric = calloc(np ? np : 1, sizeof *numeric);
    char **desc = calloc(np ? np : 1, sizeof *desc);
    int32_t *codes = malloc(nc * (np ? np : 1) * sizeof *codes);
    const char **texts = malloc(2 * nc * sizeof *texts);
    sim__h5t *t = NULL;
    int rc = TM_OK;
    if (!cols || !numeric || !desc || !codes || !texts) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "merge", "out of memory");
        goto out;
    }
    for (size_t p = 0; p < np; p++) {
        numeric[p] = 1;
        for (size_t c = 0; c < s->n_combos; c++) {
            const sim_sweep_value *v = &s->values[c * np + p];
            if (v->json && !v->is_number)
                numeric[p] = 0;
        }
        size_t dn = strlen(s->params[p]) + 200;
        if (!(desc[p] = malloc(dn))) {
            rc = tm_diag_set(diag, TM_ERR_NOMEM, "merge", "out of memory");
            goto out;
        }
        if (numeric[p])
            snprintf(desc[p], dn, "value at %s (NaN: the base's own value; in the field's units)",
                     s->params[p]);
        else
            snprintf(desc[p], dn,
                     "value at %s: index into the attribute 'values' (-1: the base's own value)",
                     s->params[p]);
        cols[p] = (sim__h5_col){s->params[p], numeric[p] ? SIM__H5_F64 : SIM__H5_I32, "1", desc[p]};
    }
    if ((rc = sim__h5t_create(&t, w, "/sweep/params",
                              "one row per combination: its parameter values (columns named by "
                              "their JSON paths; the group's attribute 'paths' lists them)",
                              cols, np, diag)) ||
        (rc = sim__h5t_dim(t, "combination", NULL, "the combinations, one per row (no values)",
                           diag)))
        goto out;
    for (size_t p = 0; p < np; p++)
        if (!numeric[p])
            distinct_values(s, p, texts, codes + p * nc);
    for (size_t c = 0; c < s->n_combos; c++) {
        for (size_t p = 0; p < np; p++) {
            const sim_sweep_value *v = &s->values[c * np + p];
            if (numeric[p])
                sim__h5t_put_f64(t, p, v->json ? v->number : NAN);
            else
                sim__h5t_put_i32(t, p, codes[p * nc + c]);
        }
        if ((rc = sim__h5t_row_end(t, diag)))
            goto out;
    }
    rc = sim__h5t_close(t, diag);
    t = NULL;
    if (rc || (rc = attr_lines(w, "/sweep/params", "paths", s->params, np, diag)))
        goto out;
    for (size_t p = 0; p < np; p++) {
        if (numeric[p])
            continue;
        size_t nd = distinct_values(s, p, texts, codes + p * nc);
        char obj[400], desc_v[600];
        snprintf(obj, sizeof obj, "/sweep/params/%s", s->params[p]);
        if ((rc = attr_lines(w, obj, "values", (char *const *)texts, nd, diag)))
            goto out;
        snprintf(obj, sizeof obj, "/sweep/params/%s_name", s->params[p]);
        snprintf(desc_v, sizeof desc_v,
                 "the values of %s (its attribute 'values'): value i is what code i means",
                 s->params[p]);
        if ((rc = sim__h5w_names(w, obj, texts, nd, desc_v, diag)))
            goto out;
    }
out:
    if (t)
        sim__h5t_close(t, NULL);
    for (size_t p = 0; desc && p < np; p++)
        free(desc[p]);
    free(desc);
    free(cols);
    free(numeric);
    free(codes);
    free(texts);
    return rc;
}

static int write_points(sim__h5w *w, const merge_state *m, tm_diag *diag)
{
    const sim__sweep *sw = m->sw;
    enum { P_POINT, P_COMBO, P_REP, P_SEED, P_STATUS, P_FIXED };
    size_t nc = P_FIXED + m->n_keys;
    sim__h5_col *cols = calloc(nc, sizeof *cols);
    if (!cols)
        return tm_diag_set(diag, TM_ERR_NOMEM, "merge", "out of memory");
    cols[P_POINT] = (sim__h5_col){"point", SIM__H5_I64, "1", "the point's index (file pNNNNNN.h5)"};
    cols[P_COMBO] = (sim__h5_col){"combo", SIM__H5_I64, "1",
                                  "its combination of parameter values (row of /sweep/params)"};
    cols[P_REP] = (sim__h5_col){"replication", SIM__H5_I64, "1",
                                "its replication (selects the random streams)"};
    cols[P_SEED] = (sim__h5_col){"seed", SIM__H5_I64, "1", "its seed"};
    cols[P_STATUS] =
        (sim__h5_col){"status", SIM__H5_U8, "1", "0 ok, 1 failed, 2 missing (attribute 'labels')"};
    for (size_t k = 0; k < m->n_keys; k++)
        cols[P_FIXED + k] =
            (sim__h5_col){m->keys[k].name, SIM__H5_F64, m->keys[k].units, m->keys[k].desc};
    sim__h5t *t;
    int rc = sim__h5t_create(&t, w, "/sweep/points",
                             "one row per point: its identity, status and key results (NaN "
                             "unless ok)",
                             cols, nc, diag);
    free(cols);
    if (rc || (rc = sim__h5t_dim(t, "sweep_point", NULL,
                                 "the points, one per row (the column point; no values)", diag)))
        return rc;
    for (size_t i = 0; i < sw->n_points; i++) {
        size_t combo;
        uint32_t rep;
        sim__sweep_point_of(sw, i, &combo, &rep);
        sim__h5t_put_i64(t, P_POINT, (int64_t)i);
        sim__h5t_put_i64(t, P_COMBO, (int64_t)combo);
        sim__h5t_put_i64(t, P_REP, rep);
        sim__h5t_put_i64(t, P_SEED, m->seed[i]);
        sim__h5t_put_u8(t, P_STATUS, m->status[i]);
        for (size_t k = 0; k < m->n_keys; k++)
            sim__h5t_put_f64(t, P_FIXED + k, m->v[i * m->n_keys + k]);
        if ((rc = sim__h5t_row_end(t, diag)))
            return rc;
    }
    if ((rc = sim__h5t_close(t, diag)))
        return rc;
    static const char *const status[] = {"ok", "failed", "missing"};
    return sim__h5w_labels(w, "/sweep/points/status", status, 3, diag);
}

/* /sweep/mean and /sweep/sd: over each combination's ok replications. */
static int write_stats(sim__h5w *w, const merge_state *m, int sd, tm_diag *diag)
{
    const sim__sweep *sw = m->sw;
    uint32_t R = sw->spec.replications;
    size_t nc = 2 + m->n_keys;
    sim__h5_col *cols = calloc(nc, sizeof *cols);
    if (!cols)
        return tm_diag_set(diag, TM_ERR_NOMEM, "merge", "out of memory");
    cols[0] = (sim__h5_col){"combo", SIM__H5_I64, "1", "the combination (row of /sweep/params)"};
    cols[1] = (sim__h5_col){"n", SIM__H5_I64, "1", "its replications that are ok"};
    for (size_t k = 0; k < m->n_keys; k++)
        cols[2 + k] = (sim__h5_col){m->keys[k].name, SIM__H5_F64, m->keys[k].units,
                                    sd ? "standard deviation over the ok replications (n - 1)"
                                       : "mean over the ok replications"};
    sim__h5t *t;
    int rc = sim__h5t_create(&t, w, sd ? "/sweep/sd" : "/sweep/mean",
                             sd ? "one row per combination: standard deviation of each key "
                                  "result over its ok replications (NaN when n < 2)"
                                : "one row per combination: mean of each key result over its ok "
                                  "replications (NaN when n = 0)",
                             cols, nc, diag);
    free(cols);
    if (rc || (rc = sim__h5t_dim(t, "combination", NULL,
                                 "the combinations, one per row (rows of /sweep/params; no values)",
                                 diag)))
        return rc;
    for (size_t c = 0; c < sw->spec.n_combos; c++) {
        size_t n = 0;
        for (uint32_t r = 0; r < R; r++)
            n += m->status[c * R + r] == ST_OK;
        sim__h5t_put_i64(t, 0, (int64_t)c);
        sim__h5t_put_i64(t, 1, (int64_t)n);
        for (size_t k = 0; k < m->n_keys; k++) {
            /* Welford, in replication order */
            double mean = 0, m2 = 0;
            size_t j = 0;
            for (uint32_t r = 0; r < R; r++) {
                size_t i = c * R + r;
                if (m->status[i] != ST_OK)
                    continue;
                double x = m->v[i * m->n_keys + k], d = x - mean;
                mean += d / (double)++j;
                m2 += d * (x - mean);
            }
            double v = sd ? (n >= 2 ? sqrt(m2 / (double)(n - 1)) : NAN) : (n ? mean : NAN);
            sim__h5t_put_f64(t, 2 + k, v);
        }
        if ((rc = sim__h5t_row_end(t, diag)))
            return rc;
    }
    return sim__h5t_close(t, diag);
}

static int write_failed(sim__h5w *w, const merge_state *m, tm_diag *diag)
{
    const sim__sweep *sw = m->sw;
    static const sim__h5_col cols[2] = {
        {"point", SIM__H5_I64, "1", "the failed point"},
        {"exit_code", SIM__H5_I32, "1", "the exit code of its error (docs/cli.md)"},
    };
    sim__h5t *t;
    int rc = sim__h5t_create(&t, w, "/sweep/failed",
                             "one row per failed point; attribute 'messages': their errors, one "
                             "per line",
                             cols, 2, diag);
    if (rc || (rc = sim__h5t_dim(t, "failed_point", NULL,
                                 "the failed points, one per row (no values)", diag)))
        return rc;
    size_t nf = 0;
    for (size_t i = 0; i < sw->n_points; i++) {
        if (m->status[i] != ST_FAILED)
            continue;
        sim__h5t_put_i64(t, 0, (int64_t)i);
        sim__h5t_put_i32(t, 1, m->codes[i]);
        if ((rc = sim__h5t_row_end(t, diag)))
            return rc;
        nf++;
    }
    if ((rc = sim__h5t_close(t, diag)))
        return rc;
    char **lines = malloc((nf ? nf : 1) * sizeof *lines);
    if (!lines)
        return tm_diag_set(diag, TM_ERR_NOMEM, "merge", "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < sw->n_points; i++)
        if (m->status[i] == ST_FAILED)
            lines[k++] = m->messages[i];
    if ((rc = attr_lines(w, "/sweep/failed", "messages", lines, nf, diag)) == TM_OK)
        rc =
            sim__h5w_array_str(w, "/sweep/failed/message", (const char *const *)lines, nf,
                               "each failed point's error (the attribute 'messages', whole)", diag);
    free(lines);
    return rc;
}

static int write_curves(sim__h5w *w, const merge_state *m, tm_diag *diag)
{
    const sim__sweep *sw = m->sw;
    size_t P = sw->n_points, C = sw->spec.n_combos, G = m->grid;
    uint32_t R = sw->spec.replications;
    double *mean = malloc((C * G > 0 ? C * G : 1) * sizeof *mean);
    if (!mean)
        return tm_diag_set(diag, TM_ERR_NOMEM, "merge", "out of memory");
    /* the dimensions of the matrices, declared first so that they exist
     * when the matrices are attached at commit */
    static const char *const none[] = {NULL};
    int rc;
    if ((rc = sim__h5w_group(w, "/sweep/curves", diag)) ||
        (rc = sim__h5w_group(w, "/sweep/curves_mean", diag)) ||
        (rc = sim__h5w_dim(w, "/sweep/curves", "sweep_point", P, NULL, none,
                           "the points, one per row (rows of /sweep/points; no values)", diag)) ||
        (rc = sim__h5w_dim(w, "/sweep/curves", "step", G, NULL, none,
                           "the steps of arrived GPU, one per column (no values)", diag)) ||
        (rc = sim__h5w_dim(w, "/sweep/curves_mean", "combination", C, NULL, none,
                           "the combinations, one per row (rows of /sweep/params; no values)",
                           diag)) ||
        (rc = sim__h5w_dim(w, "/sweep/curves_mean", "step", G, NULL, none,
                           "the steps of arrived GPU, one per column (no values)", diag))) {
        free(mean);
        return rc;
    }
    for (size_t c = 0; c <= N_CURVES && rc == TM_OK; c++) {
        const char *name = c ? curves[c - 1].name : "arrived_pct";
        const char *units = c ? curves[c - 1].units : "percent";
        const char *desc = c ? curves[c - 1].desc : "GPU requested by the pods so far / capacity";
        const double *all = m->cv + c * P * G;
        char path[128], d[300];
        snprintf(path, sizeof path, "/sweep/curves/%s", name);
        snprintf(d, sizeof d,
                 "%s: one row per point, NaN-padded (rows of failed or missing points "
                 "are NaN)",
                 desc);
        if ((rc = sim__h5w_matrix_f64(w, path, all, P, G, units, d, diag)) ||
            (rc =
                 sim__h5w_dim_axes(w, path, (const char *const[]){"sweep_point", "step"}, 2, diag)))
            break;
        for (size_t q = 0; q < C; q++)
            for (size_t k = 0; k < G; k++) {
                double s = 0;
                size_t n = 0;
                for (uint32_t r = 0; r < R; r++) {
                    size_t i = q * R + r;
                    if (m->status[i] == ST_OK && !isnan(all[i * G + k])) {
                        s += all[i * G + k];
                        n++;
                    }
                }
                mean[q * G + k] = n ? s / (double)n : NAN;
            }
        snprintf(path, sizeof path, "/sweep/curves_mean/%s", name);
        snprintf(d, sizeof d, "%s: one row per combination, the mean over its ok replications",
                 desc);
        if ((rc = sim__h5w_matrix_f64(w, path, mean, C, G, units, d, diag)) == TM_OK)
            rc = sim__h5w_dim_axes(w, path, (const char *const[]){"combination", "step"}, 2, diag);
    }
    free(mean);
    return rc;
}

static int write_links(sim__h5w *w, const merge_state *m, const char *merged_path, tm_diag *diag)
{
    const sim__sweep *sw = m->sw;
    char from[1100];
    snprintf(from, sizeof from, "%s", merged_path);
    char *slash = strrchr(from, '/');
    if (!slash)
        snprintf(from, sizeof from, ".");
    else if (slash == from)
        from[1] = '\0';
    else
        *slash = '\0';
    int rc = sim__h5w_group(w, "/sweep/files", diag);
    for (size_t i = 0; rc == TM_OK && i < sw->n_points; i++) {
        if (m->status[i] != ST_OK)
            continue;
        char leaf[32], target[2400], link[64];
        snprintf(leaf, sizeof leaf, "p%06zu.h5", i);
        rel_path(from, sw->dir, leaf, target, sizeof target);
        snprintf(link, sizeof link, "/sweep/files/p%06zu", i);
        rc = sim__h5w_external_link(w, link, target, "/", diag);
    }
    return rc;
}

/* TM_ERR_INTERRUPTED once *stop is set, saying how far the merge came */
static int merge_stopped(volatile int *stop, const char *phase, size_t i, size_t n, tm_diag *diag)
{
    if (!stop || !*stop)
        return TM_OK;
    return tm_diag_set(diag, TM_ERR_INTERRUPTED, "merge",
                       "interrupted while %s (%zu of %zu points); nothing written", phase, i, n);
}

int sim__sweep_merge(const sim__sweep *sw, const char *path, sim__sweep_merge_counts *mc,
                     volatile int *stop, tm_diag *diag)
{
    memset(mc, 0, sizeof *mc);
    const sim_sweep_spec *s = &sw->spec;
    size_t P = sw->n_points;
    merge_state m;
    memset(&m, 0, sizeof m);
    m.sw = sw;
    int pack = s->kind == SIM_SWEEP_PACK;
    run_keys_build();
    m.keys = pack ? pack_keys : run_keys;
    m.n_keys = pack ? sizeof pack_keys / sizeof pack_keys[0] : n_run_keys;
    m.status = calloc(P ? P : 1, 1);
    m.seed = calloc(P ? P : 1, sizeof *m.seed);
    m.v = malloc((P ? P : 1) * m.n_keys * sizeof *m.v);
    m.messages = calloc(P ? P : 1, sizeof *m.messages);
    m.codes = calloc(P ? P : 1, sizeof *m.codes);
    sim__h5w *w = NULL;
    int rc = TM_OK;
    if (!m.status || !m.seed || !m.v || !m.messages || !m.codes) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "merge", "out of memory");
        goto out;
    }
    for (size_t i = 0; i < P * m.n_keys; i++)
        m.v[i] = NAN;
    for (size_t i = 0; i < P; i++) {
        sim__sweep_point_info pi;
        if ((rc = merge_stopped(stop, "checking the point files", i, P, diag)) ||
            (rc = sim__sweep_point_info_get(sw, i, &pi, diag)))
            goto out;
        m.seed[i] = (int64_t)pi.seed;
        if (sim__sweep_point_valid(sw, i)) {
            m.status[i] = ST_OK;
            mc->ok++;
            continue;
        }
        char fp[1100];
        sim__sweep_failed_path(sw, i, fp, sizeof fp);
        read_failed(fp, &m.messages[i], &m.codes[i]);
        if (m.messages[i]) {
            m.status[i] = ST_FAILED;
            mc->failed++;
        } else {
            m.status[i] = ST_MISSING;
            mc->missing++;
        }
    }
    if (pack) {
        if ((rc = curve_length(&m, mc, &m.grid))) {
            rc = tm_diag_set(diag, rc, "merge", "out of memory");
            goto out;
        }
        size_t n = (N_CURVES + 1) * P * (m.grid ? m.grid : 1);
        if (!(m.cv = malloc(n * sizeof *m.cv))) {
            rc = tm_diag_set(diag, TM_ERR_NOMEM, "merge", "out of memory");
            goto out;
        }
        for (size_t k = 0; k < n; k++)
            m.cv[k] = NAN;
    }
    for (size_t i = 0; i < P; i++) {
        if ((rc = merge_stopped(stop, "reading the points", i, P, diag)))
            goto out;
        if (m.status[i] != ST_OK)
            continue;
        tm_diag d;
        tm_diag_clear(&d);
        if ((rc = read_point(&m, i, &d)) == TM_OK)
            continue;
        if (rc == TM_ERR_NOMEM || (rc = mark_unreadable(&m, i, mc, rc, &d))) {
            rc = tm_diag_set(diag, TM_ERR_NOMEM, "merge", "out of memory");
            goto out;
        }
        if (m.cv) /* its curves as far as they were read: NaN, like a failed point's */
            for (size_t c = 0; c <= N_CURVES; c++)
                for (size_t k = 0; k < m.grid; k++)
                    m.cv[(c * P + i) * m.grid + k] = NAN;
    }

    if ((rc = sim__h5w_open(&w, path, diag)))
        goto out;
    sim__h5w_set_stop(w, stop);
    if ((rc = sim__h5w_attr_i64(w, "/", "schema_version", SWEEP_SCHEMA, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "created_by", "tarmac " TARMAC_VERSION, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "layout", "docs/output.md#sweep-files", diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "kind", "sweep", diag)) ||
        (rc = sim__h5w_group(w, "/sweep", diag)) ||
        (rc = sim__h5w_attr_str(w, "/sweep", "description",
                                "a parameter sweep: every point's parameters and key results, "
                                "links to the point files",
                                diag)) ||
        (rc = sim__h5w_attr_str(w, "/sweep", "sweep_kind", pack ? "pack" : "scenario", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/sweep/n_points", (int64_t)P, "1",
                                  "points: combinations x replications", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/sweep/n_combos", (int64_t)s->n_combos, "1",
                                  "combinations of parameter values", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/sweep/replications", s->replications, "1",
                                  "replications per combination", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/sweep/n_ok", (int64_t)mc->ok, "1",
                                  "points with a valid file", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/sweep/n_failed", (int64_t)mc->failed, "1",
                                  "points that failed (a .failed record)", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/sweep/n_missing", (int64_t)mc->missing, "1",
                                  "points not run yet", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/sweep/sweep_file", s->path, "the sweep file", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/sweep/sweep_given", s->text,
                                  "the sweep file's text as given", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/sweep/base", s->base,
                                  "the base (scenario or packing run) as JSON", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/sweep/base_source", s->base_name,
                                  "the base's file (the sweep file when embedded)", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/sweep/points_dir", sw->dir, "the points folder", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/sweep/tarmac_version", TARMAC_VERSION,
                                  "version of tarmac that merged the file", diag)) ||
        (rc = write_params(w, s, diag)) || (rc = write_points(w, &m, diag)) ||
        (rc = write_stats(w, &m, 0, diag)) || (rc = write_stats(w, &m, 1, diag)) ||
        (rc = write_failed(w, &m, diag)) || (pack && (rc = write_curves(w, &m, diag))) ||
        (rc = write_links(w, &m, path, diag)) ||
        (rc = sim__provenance_write(w, NULL, NULL, diag))) {
        sim__h5w_abort(w);
        goto out;
    }
    rc = sim__h5w_commit(w, diag);
out:
    merge_free(&m, P);
    return rc;
}
