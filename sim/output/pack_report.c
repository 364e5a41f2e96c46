/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pack_report.c — the curves of the packing experiment as an HDF5 file
 * (layout: docs/output.md, "Packing experiment"), through the h5io writer
 * like every tarmac file (with the versions in /provenance), and as a
 * whitespace table for gnuplot; both are written under a temporary name and
 * renamed when whole.
 */
#include "output/output.h"

#include "base/afile_int.h"
#include "output/h5io_int.h"
#include "output/provenance_int.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The grid every per-point array of a policy is attached to (a copy). */
#define GRID_DESC "GPU requested by the pods so far / GPU capacity (as /packing/arrived_pct)"

#define SIM_PACK_SCHEMA 1

int sim_pack_write_h5(const sim_pack_result *r, const sim_pack_cfg *cfg, const char *pods_path,
                      const char *path, tm_diag *diag)
{
    sim__h5w *w = NULL;
    double *buf = malloc((r->n_points ? r->n_points : 1) * 4 * sizeof *buf);
    int64_t *ibuf = malloc((r->n_seeds ? r->n_seeds : 1) * sizeof *ibuf);
    int rc;
    char p[256];
    if (!buf || !ibuf) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
        goto out;
    }
    if ((rc = sim__h5w_open(&w, path, diag)))
        goto out;
    if ((rc = sim__h5w_attr_i64(w, "/", "schema_version", SIM_PACK_SCHEMA, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "created_by", "tarmac " TARMAC_VERSION, diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "layout", "docs/output.md#packing-experiment", diag)) ||
        (rc = sim__h5w_attr_str(w, "/", "kind", "openb-packing", diag)) ||
        (rc = sim__h5w_array_f64(w, "/packing/arrived_pct", r->arrived_pct, r->n_points, "percent",
                                 "GPU requested by the pods so far / GPU capacity", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/packing/config/target_pct", cfg->target_pct, "percent",
                                  "copies are appended until the requested GPU would exceed "
                                  "this share of the capacity",
                                  diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/packing/config/grid_step_pct", cfg->grid_step_pct, "percent",
                                  "spacing of the arrived_pct grid", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/packing/config/seed", (int64_t)cfg->seed, "1",
                                  "base seed; seed k of a policy is replication k (docs/rng.md)",
                                  diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/packing/config/n_seeds", (int64_t)r->n_seeds, "1",
                                  "seeds per policy", diag)) ||
        (rc = sim__h5w_scalar_f64(w, "/packing/config/capacity_gpus", r->capacity_gpus, "GPU",
                                  "GPUs of the cluster", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/packing/config/workload_shapes", (int64_t)r->n_classes, "1",
                                  "pod shapes of the target workload of the fragmentation "
                                  "measure",
                                  diag)) ||
        (rc = sim__h5w_scalar_str(w, "/packing/config/pods_file", pods_path ? pods_path : "",
                                  "the pod list", diag)))
        goto fail;
    for (size_t pol = 0; pol < r->n_policies; pol++) {
        char g[64];
        snprintf(g, sizeof g, "/packing/policies/p%02zu", pol);
        if ((rc = sim__h5w_group(w, g, diag)) ||
            (rc = sim__h5w_attr_str(w, g, "spec", cfg->policies[pol], diag)))
            goto fail;
        for (int m = 0; m < SIM_PACK_METRICS; m++) {
            static const char *const stat[4] = {"mean", "sd", "min", "max"};
            static const char *const stat_desc[4] = {"mean over seeds",
                                                     "standard deviation over seeds (n - 1)",
                                                     "minimum over seeds", "maximum over seeds"};
            for (size_t k = 0; k < r->n_points; k++)
                sim_pack_stats(r, pol, m, k, &buf[k], &buf[r->n_points + k],
                               &buf[2 * r->n_points + k], &buf[3 * r->n_points + k]);
            for (int s = 0; s < 4; s++) {
                char desc[256];
                snprintf(p, sizeof p, "%s/%s_%s", g, sim_pack_metric_info[m].name, stat[s]);
                snprintf(desc, sizeof desc, "%s, %s", sim_pack_metric_info[m].desc, stat_desc[s]);
                if ((rc = sim__h5w_array_f64(w, p, buf + (size_t)s * r->n_points, r->n_points,
                                             sim_pack_metric_info[m].units, desc, diag)))
                    goto fail;
            }
            for (size_t s = 0; s < r->n_seeds; s++) {
                for (size_t k = 0; k < r->n_points; k++)
                    buf[k] = sim_pack_value(r, pol, s, m, k);
                snprintf(p, sizeof p, "%s/seeds/s%02zu/%s", g, s, sim_pack_metric_info[m].name);
                if ((rc = sim__h5w_array_f64(w, p, buf, r->n_points, sim_pack_metric_info[m].units,
                                             sim_pack_metric_info[m].desc, diag)))
                    goto fail;
            }
        }
        for (size_t s = 0; s < r->n_seeds; s++)
            ibuf[s] = (int64_t)r->pods[pol * r->n_seeds + s];
        snprintf(p, sizeof p, "%s/pods", g);
        if ((rc = sim__h5w_array_i64(w, p, ibuf, r->n_seeds, "1",
                                     "pods placed or failed, per seed (the list with its copies)",
                                     diag)))
            goto fail;
        for (size_t s = 0; s < r->n_seeds; s++)
            ibuf[s] = (int64_t)r->failed[pol * r->n_seeds + s];
        snprintf(p, sizeof p, "%s/pods_failed", g);
        if ((rc = sim__h5w_array_i64(w, p, ibuf, r->n_seeds, "1", "pods that failed, per seed",
                                     diag)))
            goto fail;
        /* netCDF dimensions: seed for the per-seed counts, the grid for the rest */
        static const char *const per_seed[] = {"pods", "pods_failed", NULL};
        if ((rc = sim__h5w_dim(w, g, "seed", r->n_seeds, NULL, per_seed,
                               "the seeds, one per value (no values)", diag)) ||
            (rc = sim__h5w_dim(w, g, "arrived_pct", r->n_points, "/packing/arrived_pct", NULL,
                               GRID_DESC, diag)))
            goto fail;
        for (size_t s = 0; s < r->n_seeds; s++) {
            snprintf(p, sizeof p, "%s/seeds/s%02zu", g, s);
            if ((rc = sim__h5w_dim(w, p, "arrived_pct", r->n_points, "/packing/arrived_pct", NULL,
                                   GRID_DESC, diag)))
                goto fail;
        }
    }
    if ((rc = sim__h5w_dim(w, "/packing", "point", r->n_points, NULL, NULL,
                           "the points of the arrived_pct grid (no values)", diag)))
        goto fail;
    if ((rc = sim__provenance_write(w, NULL, NULL, diag)))
        goto fail;
    rc = sim__h5w_commit(w, diag);
    goto out;
fail:
    sim__h5w_abort(w);
out:
    free(buf);
    free(ibuf);
    return rc;
}

int sim_pack_write_dat(const sim_pack_result *r, const sim_pack_cfg *cfg, const char *path,
                       tm_diag *diag)
{
    sim__afile af;
    int rc = sim__afile_open(&af, path, diag);
    if (rc != TM_OK)
        return rc;
    FILE *f = af.f;
    fprintf(f, "# tarmac openb packing experiment: %zu seeds, target %.1f %%\n", r->n_seeds,
            cfg->target_pct);
    fprintf(f, "# columns: arrived_pct");
    for (int m = 0; m < SIM_PACK_METRICS; m++)
        fprintf(f, " %s_mean %s_sd", sim_pack_metric_info[m].name, sim_pack_metric_info[m].name);
    fprintf(f, "\n# one block per policy, separated by two blank lines (gnuplot index)\n");
    for (size_t p = 0; p < r->n_policies; p++) {
        fprintf(f, "%s# policy %zu: %s\n", p ? "\n\n" : "", p, cfg->policies[p]);
        for (size_t k = 0; k < r->n_points; k++) {
            fprintf(f, "%.4f", r->arrived_pct[k]);
            for (int m = 0; m < SIM_PACK_METRICS; m++) {
                double mean, sd, lo, hi;
                sim_pack_stats(r, p, m, k, &mean, &sd, &lo, &hi);
                fprintf(f, " %.6f %.6f", mean, sd);
            }
            fputc('\n', f);
        }
    }
    return sim__afile_commit(&af, diag);
}
