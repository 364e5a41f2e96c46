/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gavel_bench.c — how long Gavel's allocation LP takes (model/gavel_alloc.c).
 *
 * Usage: bench_gavel [JOBS...] [--objective NAME] [--single] [--ungrouped] [--reps R]
 * Builds a problem like the paper's simulations: JOBS active jobs on a
 * v100:p100:k80 cluster with as many GPUs as jobs / 1.5 (split evenly), each
 * job one of Gavel's job types at scale 1 (70%), 2, 4 or 8 GPUs, its
 * throughputs the isolated k80/p100/v100 figures of six of Gavel's job types
 * (SOURCE.md of ../shared/data/gavel), seeded, so runs are comparable. Prints
 * the median wall time of R solves, LPs solved, water-filling levels, the
 * objective's value (sim__gavel_stats.objective: ftf's rho, makespan's T,
 * max-min's smallest level) and the GPUs X keeps busy.
 * --single stops max-min-wf at its first LP (what max-min solves).
 */
#include "model/gavel_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* isolated throughput, steps/s, k80 / p100 / v100 (SOURCE.md) */
static const double THR[6][3] = {
    {0.619, 2.619, 4.395},    /* ResNet-50 bs 64 */
    {1.752, 5.092, 8.618},    /* Transformer bs 64 */
    {17.142, 58.173, 64.742}, /* LM bs 20 */
    {3.439, 5.681, 7.176},    /* A3C */
    {0.505, 2.403, 4.426},    /* CycleGAN */
    {10.441, 16.597, 7.470},  /* Recommendation bs 2048 */
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    uint32_t sizes[16], n_sizes = 0;
    int objective = SIM_GAVEL_MAXMIN, single = 0, ungrouped = 0, reps = 3;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--single") == 0)
            single = 1;
        else if (strcmp(argv[i], "--ungrouped") == 0)
            ungrouped = 1;
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--objective") == 0 && i + 1 < argc) {
            const char *o = argv[++i];
            int64_t round_us;
            char spec[80];
            tm_diag d = {0};
            snprintf(spec, sizeof spec, "gavel %s", o);
            if (strchr(o, '@') || sim__gavel_spec(spec, &objective, &round_us, &d) != 1) {
                fprintf(stderr, "bench_gavel: unknown objective '%s'\n", o);
                return 64;
            }
        } else if (n_sizes < 16 && atoi(argv[i]) > 0)
            sizes[n_sizes++] = (uint32_t)atoi(argv[i]);
        else {
            fprintf(stderr, "usage: bench_gavel [JOBS...] [--objective NAME] [--single] "
                            "[--ungrouped] [--reps R]\n");
            return 64;
        }
    }
    if (n_sizes == 0) {
        sizes[0] = 1000;
        sizes[1] = 10000;
        n_sizes = 2;
    }
    if (reps < 1 || reps > 99)
        reps = 3;
    printf("objective,jobs,gpus,median_ms,min_ms,lps,levels,value,gpus_used\n");
    for (uint32_t s = 0; s < n_sizes; s++) {
        uint32_t m = sizes[s], n = 3;
        double *thr = malloc((size_t)m * n * sizeof *thr), *x = malloc((size_t)m * n * sizeof *x);
        double *left = malloc(m * sizeof *left), *total = malloc(m * sizeof *total);
        double *age = malloc(m * sizeof *age);
        double *gpus = malloc(m * sizeof *gpus);
        if (!thr || !x || !left || !total || !age || !gpus)
            return 71;
        uint64_t r = 12345;
        for (uint32_t i = 0; i < m; i++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t k = (uint32_t)(r >> 33) % 6, u = (uint32_t)(r >> 20) % 100;
            gpus[i] = u < 70 ? 1 : u < 80 ? 2 : u < 90 ? 4 : 8;
            for (uint32_t t = 0; t < n; t++)
                thr[(size_t)i * n + t] = THR[k][2 - t]; /* types v100, p100, k80 */
            left[i] = 3600.0 * (double)(1 + (r >> 40) % 100);
            total[i] = left[i] * 1.5;
            age[i] = 600.0 * (double)((r >> 50) % 10);
        }
        double g = (double)m / 1.5;
        double cap[3] = {g / 3, g / 3, g / 3};
        sim__gavel_problem p = {m, n, thr, gpus, cap, NULL, left, total, age, NULL, 0};
        double t[99];
        sim__gavel_stats st = {0};
        for (int k = 0; k < reps; k++) {
            tm_diag d = {0};
            st.single = single;
            st.ungrouped = ungrouped;
            double t0 = now_s();
            int rc = sim__gavel_solve(objective, &p, x, &st, &d);
            t[k] = now_s() - t0;
            if (rc != TM_OK) {
                fprintf(stderr, "bench_gavel: %s\n", d.msg);
                return 70;
            }
        }
        qsort(t, (size_t)reps, sizeof *t, cmp_d);
        double used = 0; /* the GPUs X keeps busy */
        for (uint32_t i = 0; i < m; i++)
            for (uint32_t k = 0; k < n; k++)
                used += gpus[i] * x[(size_t)i * n + k];
        printf("%s%s%s,%u,%.0f,%.1f,%.1f,%u,%u,%.9g,%.1f\n", sim__gavel_objective_name(objective),
               single ? "-single" : "", ungrouped ? "-ungrouped" : "", m, g, 1e3 * t[reps / 2],
               1e3 * t[0], st.lps, st.levels, st.objective, used);
        free(thr);
        free(x);
        free(left);
        free(total);
        free(age);
        free(gpus);
    }
    return 0;
}
