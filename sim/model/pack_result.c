/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pack_result.c — the curves of the packing experiment (sim_pack_result, in
 * model.h): the value of a metric at a grid point, its statistics over seeds,
 * and the metrics' names, units and descriptions that every writer of the
 * curves uses (output/pack_report.c).
 */
#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const sim_pack_metric_desc sim_pack_metric_info[SIM_PACK_METRICS] = {
    [SIM_PACK_ALLOC] = {"alloc_pct", "percent", "GPU allocated / GPU capacity"},
    [SIM_PACK_FRAG] = {"frag_pct", "percent",
                       "fragmented GPU / idle GPU (the FGD measure; the FGD simulator's "
                       "frag_gpu_milli ratio)"},
    [SIM_PACK_FRAG_CAP] = {"frag_capacity_pct", "percent", "fragmented GPU / GPU capacity"},
    [SIM_PACK_FAILED] = {"failed_pods", "1", "pods that fitted nowhere, cumulative"},
    [SIM_PACK_FAILED_GPU] = {"failed_gpu_pct", "percent",
                             "GPU requested by failed pods, cumulative / GPU capacity"},
};

double sim_pack_value(const sim_pack_result *r, size_t policy, size_t seed, int metric, size_t k)
{
    return r
        ->v[((policy * r->n_seeds + seed) * SIM_PACK_METRICS + (size_t)metric) * r->n_points + k];
}

void sim_pack_stats(const sim_pack_result *r, size_t policy, int metric, size_t k, double *mean,
                    double *sd, double *min, double *max)
{
    double s = 0, ss = 0, lo = INFINITY, hi = -INFINITY;
    size_t n = r->n_seeds;
    for (size_t i = 0; i < n; i++) {
        double x = sim_pack_value(r, policy, i, metric, k);
        s += x;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    double m = n ? s / (double)n : NAN;
    for (size_t i = 0; i < n; i++) {
        double d = sim_pack_value(r, policy, i, metric, k) - m;
        ss += d * d;
    }
    *mean = m;
    *sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    *min = lo;
    *max = hi;
}

void sim_pack_result_fini(sim_pack_result *r)
{
    if (!r)
        return;
    free(r->arrived_pct);
    free(r->v);
    free(r->pods);
    free(r->failed);
    memset(r, 0, sizeof *r);
}
