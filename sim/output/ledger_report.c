/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ledger_report.c — the GPU-hour ledger of a run as the /ledger group of its
 * file and as lines of `tarmac run`'s summary (layout: docs/output.md
 * "/ledger"; the buckets: model.h SIM_LEDGER_BUCKETS).
 *
 * The engine integrates every owned GPU-microsecond into exactly one bucket
 * (in exact integers, and checks that they add up); this file only converts
 * them to GPU-hours and lays them out: /ledger/fleet one row per bucket,
 * /ledger/pools and /ledger/consumers one row per pool or consumer with a
 * column per bucket.
 */
#include "output/report_int.h"

#include "model/service_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double gpu_h(sim_gpu_area a)
{
    return (double)a / SIM_AREA_PER_GPU_HOUR;
}

/* A list of labels: `labels` and `<obj>_name` (sim__h5w_labels). */
static int attr_labels(sim__h5w *w, const char *obj, const char *const *labels, size_t n,
                       tm_diag *diag)
{
    return sim__h5w_labels(w, obj, labels, n, diag);
}

/* The columns of a table with one row per pool or consumer: `lead` leading
 * columns, then one per bucket (names and descriptions kept in `names`). */
typedef struct bucket_cols {
    sim__h5_col cols[4 + SIM_LEDGER_COUNT];
    char names[SIM_LEDGER_COUNT][64];
} bucket_cols;

static size_t bucket_cols_fill(bucket_cols *bc, const sim__h5_col *lead, size_t n_lead)
{
    memcpy(bc->cols, lead, n_lead * sizeof *lead);
    for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
        snprintf(bc->names[b], sizeof bc->names[b], "%s_gpu_hours", sim_ledger_key(b));
        bc->cols[n_lead + (size_t)b] =
            (sim__h5_col){bc->names[b], SIM__H5_F64, "GPU h", sim_ledger_desc(b)};
    }
    return n_lead + SIM_LEDGER_COUNT;
}

/* /ledger/fleet: one row per bucket, over the whole fleet. */
static int write_fleet(sim__h5w *w, const sim_result *r, tm_diag *diag)
{
    int32_t bucket[SIM_LEDGER_COUNT], group[SIM_LEDGER_COUNT];
    double h[SIM_LEDGER_COUNT], share[SIM_LEDGER_COUNT];
    const char *keys[SIM_LEDGER_COUNT], *gkeys[SIM_LEDGER_GROUP_COUNT];
    double owned = gpu_h(r->owned_area);
    for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
        bucket[b] = b;
        group[b] = sim_ledger_group_of(b);
        h[b] = gpu_h(r->ledger.a[b]);
        share[b] = owned > 0 ? h[b] / owned : 0.0;
        keys[b] = sim_ledger_key(b);
    }
    for (int g = 0; g < SIM_LEDGER_GROUP_COUNT; g++)
        gkeys[g] = sim_ledger_group_key(g);
    static const sim__h5_col cols[4] = {
        {"bucket", SIM__H5_I32, "1", "the bucket (attribute 'labels': their keys)"},
        {"group", SIM__H5_I32, "1",
         "its group: down, idle, idle while work waits, allocated but not working, working but "
         "lost, useful (attribute 'labels')"},
        {"gpu_hours", SIM__H5_F64, "GPU h", "GPU-hours of the fleet in the bucket"},
        {"share", SIM__H5_F64, "1", "gpu_hours / GPU-hours owned"},
    };
    const void *cv[4] = {bucket, group, h, share};
    sim__h5t *t = NULL;
    int rc;
    if ((rc = sim__h5t_create(&t, w, "/ledger/fleet",
                              "where every owned GPU-hour of the fleet went, one row per bucket",
                              cols, 4, diag)) ||
        (rc = sim__h5t_dim(t, "bucket_name", NULL, "the buckets, one per row", diag)) ||
        (rc = sim__h5t_append(t, cv, SIM_LEDGER_COUNT, diag)) || (rc = sim__h5t_close(t, diag)) ||
        (rc = attr_labels(w, "/ledger/fleet/bucket", keys, SIM_LEDGER_COUNT, diag)))
        return rc;
    return attr_labels(w, "/ledger/fleet/group", gkeys, SIM_LEDGER_GROUP_COUNT, diag);
}

/* A table of n rows (pools or consumers): the leading columns lead (their
 * data lead_v, n_lead of them), then the buckets of ledgers[0..n). */
static int write_wide(sim__h5w *w, const char *path, const char *desc, const char *dim,
                      const sim__h5_col *lead, const void *const *lead_v, size_t n_lead,
                      const sim_ledger *ledgers, size_t n, tm_diag *diag)
{
    size_t rows = n ? n : 1;
    bucket_cols *bc = malloc(sizeof *bc);
    double *v = malloc(rows * SIM_LEDGER_COUNT * sizeof *v);
    int rc = TM_OK;
    if (!bc || !v) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "ledger", "out of memory");
        goto out;
    }
    size_t nc = bucket_cols_fill(bc, lead, n_lead);
    const void *cv[4 + SIM_LEDGER_COUNT];
    for (size_t k = 0; k < n_lead; k++)
        cv[k] = lead_v[k];
    for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
        double *col = v + (size_t)b * rows;
        for (size_t i = 0; i < n; i++)
            col[i] = gpu_h(ledgers[i].a[b]);
        cv[n_lead + (size_t)b] = col;
    }
    sim__h5t *t = NULL;
    if ((rc = sim__h5t_create(&t, w, path, desc, bc->cols, nc, diag)) == TM_OK &&
        (rc = sim__h5t_dim(t, dim, NULL, "the table's rows, one name each", diag)) == TM_OK &&
        (rc = sim__h5t_append(t, cv, n, diag)) == TM_OK)
        rc = sim__h5t_close(t, diag);
out:
    free(bc);
    free(v);
    return rc;
}

int sim__ledger_write_h5(sim__h5w *w, const sim_scenario *sc, const sim_result *r, tm_diag *diag)
{
    int rc = write_fleet(w, r, diag);
    if (rc != TM_OK)
        return rc;
    size_t np = sc->n_pools, nk = sc->n_classes + sc->n_services + 1;
    size_t nmax = (np > nk ? np : nk) + 1;
    int32_t *idx = malloc(nmax * sizeof *idx), *kind = malloc(nmax * sizeof *kind);
    double *owned = malloc(nmax * sizeof *owned);
    const char **names = malloc(nmax * sizeof *names);
    if (!idx || !kind || !owned || !names) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "ledger", "out of memory");
        goto out;
    }
    double span_h = (double)r->t_end_us / SIM_US_PER_S / 3600;
    for (size_t p = 0; p < np; p++) {
        idx[p] = (int32_t)p;
        owned[p] = (double)sc->pools[p].nodes * sc->pools[p].gpus_per_node * span_h;
        names[p] = sc->pools[p].name;
    }
    static const sim__h5_col pool_lead[2] = {
        {"pool", SIM__H5_I32, "1", "pool index (attribute 'labels': the pool names)"},
        {"gpu_hours_owned", SIM__H5_F64, "GPU h", "the pool's GPUs x the run's length"},
    };
    const void *pool_v[2] = {idx, owned};
    if ((rc = write_wide(w, "/ledger/pools",
                         "where every owned GPU-hour went, one row per pool, one column per bucket",
                         "pool_name", pool_lead, pool_v, 2, r->ledger_pools, np, diag)) ||
        (rc = attr_labels(w, "/ledger/pools/pool", names, np, diag)))
        goto out;
    for (size_t k = 0; k < nk; k++) {
        idx[k] = (int32_t)k;
        kind[k] = k < sc->n_classes ? 0 : k + 1 < nk ? 1 : 2;
        names[k] = k < sc->n_classes ? sc->classes[k].name
                   : k + 1 < nk      ? sc->services[k - sc->n_classes].cfg.name
                                     : "(none)";
    }
    static const sim__h5_col cons_lead[2] = {
        {"consumer", SIM__H5_I32, "1",
         "row index (attribute 'labels': the classes, the services, then (none))"},
        {"kind", SIM__H5_I32, "1",
         "0 a workload class, 1 a service, 2 none: down GPUs and idle ones with nothing waiting "
         "(attribute 'labels')"},
    };
    const void *cons_v[2] = {idx, kind};
    static const char *const kinds[3] = {"class", "service", "none"};
    if ((rc = write_wide(w, "/ledger/consumers",
                         "where every owned GPU-hour went, one row per consumer (class, service, "
                         "none), one column per bucket",
                         "consumer_name", cons_lead, cons_v, 2, r->ledger_consumers, nk, diag)) ||
        (rc = attr_labels(w, "/ledger/consumers/consumer", names, nk, diag)))
        goto out;
    rc = attr_labels(w, "/ledger/consumers/kind", kinds, 3, diag);
out:
    free(idx);
    free(kind);
    free(owned);
    free(names);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* the summary                                                                */

/* GPU-hours for people: "12,345". */
static void fmt_hours(char *out, size_t cap, double h)
{
    char raw[48];
    snprintf(raw, sizeof raw, "%.0f", fabs(h));
    size_t n = strlen(raw), o = 0;
    if (h <= -0.5 && o < cap - 1)
        out[o++] = '-';
    for (size_t i = 0; i < n && o < cap - 2; i++) {
        if (i && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = raw[i];
    }
    out[o] = '\0';
}

/* Short labels of the buckets for the summary, by bucket. */
static const char *bucket_label(int b)
{
    static const char *const label[SIM_LEDGER_COUNT] = {
        [SIM_LEDGER_DOWN_FAILED] = "failed",
        [SIM_LEDGER_DOWN_UNDELIVERED] = "not delivered",
        [SIM_LEDGER_DOWN_RETIRED] = "retired",
        [SIM_LEDGER_IDLE] = "nothing waiting",
        [SIM_LEDGER_WAIT_TYPE] = "type",
        [SIM_LEDGER_WAIT_MEMORY] = "memory",
        [SIM_LEDGER_WAIT_FRAGMENTATION] = "fragmentation",
        [SIM_LEDGER_WAIT_GANG] = "gang",
        [SIM_LEDGER_WAIT_HOST] = "host",
        [SIM_LEDGER_WAIT_BEHIND] = "behind a blocked job",
        [SIM_LEDGER_WAIT_HELD] = "held by the policy",
        [SIM_LEDGER_WAIT_SHARE] = "shared GPUs",
        [SIM_LEDGER_RESTART] = "restart",
        [SIM_LEDGER_LOADING] = "model load",
        [SIM_LEDGER_HEADROOM] = "replica headroom",
        [SIM_LEDGER_LOST] = "preempted or failed",
        [SIM_LEDGER_USEFUL_NO_VALUE] = "value 0",
        [SIM_LEDGER_USEFUL_VALUED] = "valued",
    };
    return b >= 0 && b < SIM_LEDGER_COUNT ? label[b] : "?";
}

void sim__ledger_print_summary(FILE *f, const sim_scenario *sc, const sim_result *r)
{
    static const char *const group_label[SIM_LEDGER_GROUP_COUNT] = {
        "down", "idle", "idle, work waiting", "allocated, not working", "working, lost", "useful",
    };
    double owned = gpu_h(r->owned_area);
    char buf[64];
    fmt_hours(buf, sizeof buf, owned);
    fprintf(f, "ledger: where the %s GPU-hours owned went\n", buf);
    for (int g = 0; g < SIM_LEDGER_GROUP_COUNT; g++) {
        double gh = 0;
        int parts = 0;
        for (int b = 0; b < SIM_LEDGER_COUNT; b++)
            if (sim_ledger_group_of(b) == g) {
                gh += gpu_h(r->ledger.a[b]);
                parts++;
            }
        fmt_hours(buf, sizeof buf, gh);
        int col = fprintf(f, "  %-24s %12s %5.1f %%", group_label[g], buf,
                          owned > 0 ? 100 * gh / owned : 0.0);
        const int indent = col + 3; /* the details wrap at 100 columns, under the first */
        const char *sep = "  (";
        for (int b = 0; parts > 1 && b < SIM_LEDGER_COUNT; b++) {
            double h = gpu_h(r->ledger.a[b]);
            if (sim_ledger_group_of(b) != g || h < 0.5)
                continue;
            fmt_hours(buf, sizeof buf, h);
            int len = (int)(strlen(sep) + strlen(bucket_label(b)) + 1 + strlen(buf));
            if (sep[0] == ',' && col + len + 1 > 100) {
                fprintf(f, ",\n%*s", indent, "");
                col = indent;
                sep = "";
            }
            col += fprintf(f, "%s%s %s", sep, bucket_label(b), buf);
            sep = ", ";
        }
        if (sep[0] == ',')
            fputc(')', f);
        fputc('\n', f);
    }
    fmt_hours(buf, sizeof buf, r->work_ref_gpu_s / 3600);
    fprintf(f,
            "useful work: %s %s GPU-hours; per GPU-hour owned %.3f (value-weighted %.3f; busy "
            "%.3f)\n",
            buf,
            sc->reference_type < sc->n_types ? sc->types[sc->reference_type].name : "reference",
            r->work_util, r->value_util, r->gpu_s_owned > 0 ? r->gpu_s_busy / r->gpu_s_owned : 0.0);
}
