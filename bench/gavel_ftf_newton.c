/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gavel_ftf_newton.c — how many LPs finish-time fairness needs: a bisection
 * on rho (what sim/model/gavel_alloc.c's solve_ftf did until the iteration
 * replaced it), a Dinkelbach-type iteration, and the solver itself
 * (solve_ftf: that iteration with the secant, warm LPs and a crash basis),
 * on bench_gavel's problem. A measurement for bench/README.md ("Finish-time
 * fairness in fewer LPs" and "ftf by the iteration").
 *
 * ftf minimises max_i rho_i(x), rho_i(x) = (age_i + left_i / thr_i(x)) / iso_i,
 * a ratio of two affine functions of x. The bisection asks at each rho
 * whether the level LP max lambda s.t. thr_i(x) >= lambda need_i(rho),
 * need_i(rho) = left_i / (rho iso_i - age_i), reaches lambda >= 1. The
 * iteration solves the same LP once per step and uses its X:
 *   upper bound  rho(X) = max_i rho_i(X)     (X is an allocation)
 *   lower bound  min_i (age_i + (rho iso_i - age_i) / lambda) / iso_i
 *                (lambda(rho') <= lambda(rho) max_i (rho' iso_i - age_i) /
 *                (rho iso_i - age_i) for every rho', and lambda(rho*) = 1)
 *   next rho     rho(X)                      (Dinkelbach's step)
 * until the bounds are within the bisection's tolerance (1e-4 relative).
 * Without ages the first step is exact (lambda is linear in rho). The
 * bisection and the iteration here reach the level LP through the public
 * solver: max-min with one LP and weights w_i = gpus_i left_i / (prop_i
 * (rho iso_i - age_i)) has the ftf LP's coefficients thr_it (rho iso_i -
 * age_i) / left_i. Each of their LPs starts cold (the public call keeps no
 * basis), so their times are wall times of unlike LPs; the solver's line
 * is the real cost.
 *
 * Usage: bench_gavel_ftf_newton [JOBS] [--ages bench|spread] [--scale S] [--secant]
 *                              [--solver-only]
 *   bench   bench_gavel's ages (600 s x 0..9) times S
 *   spread  age_i = S x iso_i x u_i, u_i uniform in [0, 1): jobs far apart
 *           in age / isolated time, so no single job bounds rho
 *   --secant  after the first step, the secant through the last two (rho,
 *           lambda) when it falls inside the bounds (Dinkelbach's step
 *           converges only linearly when many jobs bind at different
 *           age / isolated time)
 */
#define _POSIX_C_SOURCE 200809L
#include "model/gavel_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* bench_gavel's throughputs: steps/s, k80 / p100 / v100 */
static const double THR[6][3] = {
    {0.619, 2.619, 4.395}, {1.752, 5.092, 8.618}, {17.142, 58.173, 64.742},
    {3.439, 5.681, 7.176}, {0.505, 2.403, 4.426}, {10.441, 16.597, 7.470},
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t lcg(uint64_t *r)
{
    *r = *r * 6364136223846793005ull + 1442695040888963407ull;
    return *r;
}

int main(int argc, char **argv)
{
    uint32_t m = 1000, n = 3;
    int spread = 0, secant = 0, solver_only = 0;
    double scale = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ages") == 0 && i + 1 < argc)
            spread = strcmp(argv[++i], "spread") == 0;
        else if (strcmp(argv[i], "--secant") == 0)
            secant = 1;
        else if (strcmp(argv[i], "--solver-only") == 0)
            solver_only = 1;
        else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc)
            scale = atof(argv[++i]);
        else if (atoi(argv[i]) > 0)
            m = (uint32_t)atoi(argv[i]);
        else {
            fprintf(stderr, "usage: bench_gavel_ftf_newton [JOBS] [--ages bench|spread] "
                            "[--scale S] [--secant] [--solver-only]\n");
            return 64;
        }
    }
    double *thr = malloc((size_t)m * n * sizeof *thr), *x = malloc((size_t)m * n * sizeof *x);
    double *left = malloc(m * sizeof *left), *total = malloc(m * sizeof *total);
    double *age = malloc(m * sizeof *age), *gpus = malloc(m * sizeof *gpus);
    double *w = malloc(m * sizeof *w), *iso = malloc(m * sizeof *iso);
    double *prop = malloc(m * sizeof *prop);
    if (!thr || !x || !left || !total || !age || !gpus || !w || !iso || !prop)
        return 71;
    double g = (double)m / 1.5, cap[3] = {g / 3, g / 3, g / 3};
    uint64_t r = 12345, q = 777;
    for (uint32_t i = 0; i < m; i++) { /* bench_gavel's jobs */
        lcg(&r);
        uint32_t k = (uint32_t)(r >> 33) % 6, u = (uint32_t)(r >> 20) % 100;
        gpus[i] = u < 70 ? 1 : u < 80 ? 2 : u < 90 ? 4 : 8;
        for (uint32_t t = 0; t < n; t++)
            thr[(size_t)i * n + t] = THR[k][2 - t];
        left[i] = 3600.0 * (double)(1 + (r >> 40) % 100);
        total[i] = left[i] * 1.5;
        /* the isolated time, as gavel_alloc.c's iso_thr: an even 1/m share of
         * every type, the row scaled into unit time */
        double row = 0, th = 0;
        for (uint32_t t = 0; t < n; t++) {
            double f = cap[t] / m / gpus[i];
            row += f;
            th += f * thr[(size_t)i * n + t];
        }
        iso[i] = total[i] / (row > 1 ? th / row : th);
        age[i] = spread ? scale * iso[i] * (double)((lcg(&q) >> 40) % 1000) / 1000.0
                        : scale * 600.0 * (double)((r >> 50) % 10);
        prop[i] = 0;
        for (uint32_t t = 0; t < n; t++)
            prop[i] += thr[(size_t)i * n + t] * cap[t] / g;
    }
    sim__gavel_problem p = {m, n, thr, gpus, cap, NULL, left, total, age, NULL, 0};
    sim__gavel_stats st = {0};
    tm_diag d = {0};
    /* the solver */
    double t0 = now_s();
    if (sim__gavel_solve(SIM_GAVEL_FTF, &p, x, &st, &d) != TM_OK) {
        fprintf(stderr, "bench_gavel_ftf_newton: %s\n", d.msg);
        return 70;
    }
    double t_solver = now_s() - t0;
    if (solver_only) { /* the cold LPs of the others take minutes at 10,000 jobs */
        printf("jobs %u, ages %s x %g: solver rho %.9g (bound %.9g) in %u LPs, %u bisection "
               "steps (%.1f ms)\n",
               m, spread ? "spread" : "bench", scale, st.objective, st.bound, st.lps,
               st.bisect_steps, t_solver * 1e3);
        return 0;
    }
    /* start: the isolated allocation's rho (no LP) */
    double hi = 0, lo = 0;
    for (uint32_t i = 0; i < m; i++) {
        double rho_i = (age[i] + left[i] * iso[i] / total[i]) / iso[i];
        hi = rho_i > hi ? rho_i : hi;
        lo = age[i] / iso[i] > lo ? age[i] / iso[i] : lo;
    }
    /* the bisection, from [max age / iso, the isolated allocation's rho] */
    double blo = lo, bhi = hi;
    uint32_t blps = 0;
    t0 = now_s();
    while (bhi - blo > 1e-4 * bhi) {
        double mid = 0.5 * (blo + bhi);
        for (uint32_t i = 0; i < m; i++)
            w[i] = gpus[i] * left[i] / (prop[i] * (mid * iso[i] - age[i]));
        p.weight = w;
        sim__gavel_stats s1 = {0};
        s1.single = 1;
        if (sim__gavel_solve(SIM_GAVEL_MAXMIN, &p, x, &s1, &d) != TM_OK) {
            fprintf(stderr, "bench_gavel_ftf_newton: %s\n", d.msg);
            return 70;
        }
        blps += s1.lps;
        if (s1.objective >= 1)
            bhi = mid;
        else
            blo = mid;
    }
    double t_bis = now_s() - t0;
    double rho = hi;
    uint32_t lps = 0, steps = 0;
    double rho_prev = 0, lam_prev = 0;
    t0 = now_s();
    while (steps < 50) {
        steps++;
        for (uint32_t i = 0; i < m; i++)
            w[i] = gpus[i] * left[i] / (prop[i] * (rho * iso[i] - age[i]));
        p.weight = w;
        sim__gavel_stats s1 = {0};
        s1.single = 1;
        if (sim__gavel_solve(SIM_GAVEL_MAXMIN, &p, x, &s1, &d) != TM_OK) {
            fprintf(stderr, "bench_gavel_ftf_newton: %s\n", d.msg);
            return 70;
        }
        lps += s1.lps;
        double lam = s1.objective, rx = 0, lb = INFINITY;
        for (uint32_t i = 0; i < m; i++) {
            double th = 0;
            for (uint32_t t = 0; t < n; t++)
                th += thr[(size_t)i * n + t] * x[(size_t)i * n + t];
            double rho_i = th > 0 ? (age[i] + left[i] / th) / iso[i] : INFINITY;
            rx = rho_i > rx ? rho_i : rx;
            double l_i = (age[i] + (rho * iso[i] - age[i]) / lam) / iso[i];
            lb = l_i < lb ? l_i : lb;
        }
        hi = rx < hi ? rx : hi;
        lo = lb > lo ? lb : lo;
        printf("  step %u: rho %.9g lambda %.9g: rho(X) %.9g, rho* in [%.9g, %.9g], gap %.1e\n",
               steps, rho, lam, rx, lo, hi, (hi - lo) / hi);
        if (hi - lo <= 1e-4 * hi)
            break;
        /* Dinkelbach's step, or with --secant the secant through the last two
         * (rho, lambda) when it falls inside the bounds (lambda does not
         * decrease with rho: a step that lands below rho* has lambda < 1 and
         * raises the lower bound) */
        double next = hi;
        if (secant && steps > 1 && lam != lam_prev) {
            double rs = rho - (lam - 1) * (rho - rho_prev) / (lam - lam_prev);
            if (rs > lo && rs < hi)
                next = rs;
        }
        if (lam < 1 && rho > lo)
            lo = rho;
        rho_prev = rho;
        lam_prev = lam;
        rho = next;
    }
    printf("jobs %u, ages %s x %g: bisection rho %.9g in %u LPs (%.0f ms, cold LPs); %s rho "
           "%.9g in %u LPs (%.0f ms, cold LPs); solver rho %.9g (bound %.9g) in %u LPs, %u "
           "bisection steps (%.1f ms)\n",
           m, spread ? "spread" : "bench", scale, bhi, blps, t_bis * 1e3,
           secant ? "Dinkelbach + secant" : "Dinkelbach", hi, lps, (now_s() - t0) * 1e3,
           st.objective, st.bound, st.lps, st.bisect_steps, t_solver * 1e3);
    free(thr);
    free(x);
    free(left);
    free(total);
    free(age);
    free(gpus);
    free(w);
    free(iso);
    free(prop);
    return 0;
}
