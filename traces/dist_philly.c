/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dist_philly.c — Philly-derived job data as empirical distributions for the
 * synthesizer: gavel/philly_job_distribution.csv, (duration_s, num_gpus)
 * pairs converted from Gavel's pickle of Philly jobs. The run times become an
 * empirical distribution and the GPU counts a discrete one with their
 * observed frequencies; the pairing is not kept (the synthesizer samples
 * sizes and durations independently). A one-column runtime file
 * (philly-derived/philly_runtime.csv) needs no helper: trace_csv_column and
 * trace_dist_init_empirical read it.
 */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int trace_philly_dists(const char *path, trace_dist *duration_s, trace_dist *gpus, tm_diag *diag)
{
    double *g = NULL;
    size_t ng = 0;
    int rc;
    if (duration_s) {
        double *d = NULL;
        size_t nd = 0;
        if ((rc = trace_csv_column(path, "duration_s", &d, &nd, diag)))
            return rc;
        if ((rc = trace_dist_init_empirical(duration_s, d, nd, diag)))
            return rc;
    }
    if (!gpus)
        return TM_OK;
    if ((rc = trace_csv_column(path, "num_gpus", &g, &ng, diag)))
        goto fail;
    if (ng == 0) {
        rc = tm_diag_set(diag, TM_ERR_TRACE, path, "expected at least one row");
        goto fail;
    }
    qsort(g, ng, sizeof *g, cmp_double);
    /* distinct values and their counts, in place: values in g[0..k), counts after */
    double *w = malloc(ng * sizeof *w);
    if (!w) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
        goto fail;
    }
    size_t k = 0;
    for (size_t i = 0; i < ng; i++) {
        if (k > 0 && g[i] == g[k - 1]) {
            w[k - 1] += 1;
        } else {
            g[k] = g[i];
            w[k++] = 1;
        }
    }
    rc = trace_dist_init_discrete(gpus, g, w, k, diag);
    free(w);
    free(g);
    if (rc != TM_OK && duration_s)
        trace_dist_fini(duration_s);
    return rc;
fail:
    free(g);
    if (duration_s)
        trace_dist_fini(duration_s);
    return rc;
}
