/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gavel.c — Gavel's allocation (sim/model/gavel_alloc.c) and rounds
 * (policies/gavel_round.c).
 *
 *  - feasibility: every objective's X has rows <= 1, columns (x GPUs) <= the
 *    type's GPUs, x in [0, 1] and 0 where the job cannot run;
 *  - max-min fairness against a brute-force grid over X on tiny cases (2-3
 *    jobs, 2 types): max-min's single LP (Gavel's max_min_fairness_perf)
 *    reaches the grid's best smallest level and no grid point beats it;
 *    max-min-wf's water-filling reaches the same smallest level and no grid
 *    point raises a job's normalised throughput without lowering one that is
 *    no larger; makespan and ftf no worse than the grid's best;
 *  - ftf against a reference bisection (to 1e-9, through the max-min LP):
 *    random cases with and without ages, some spread so several jobs bind;
 *    the reported rho is X's, the certified bracket holds the optimum and
 *    is within the 1e-4 tolerance, from any starting rho; no GPU is left
 *    idle that a job with time to spare could use; one case by hand;
 *  - rounds: a small host runs the policy round after round on a fixed X and
 *    the time each job receives per type converges to X; a job whose X fits
 *    is never preempted (its lease is renewed).
 */
#include "check.h"
#include "model/gavel_int.h"
#include "place.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* the solve                                                                  */

static uint64_t rng = 88172645463325252ull;
static double unif(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void check_feasible(const sim__gavel_problem *p, const double *x, const char *what)
{
    uint32_t m = p->n_jobs, n = p->n_types;
    for (uint32_t i = 0; i < m; i++) {
        double row = 0;
        for (uint32_t t = 0; t < n; t++) {
            double v = x[i * n + t];
            if (!(v >= -1e-9 && v <= 1 + 1e-9))
                check_fail(__FILE__, __LINE__, "%s: x[%u][%u] = %g", what, i, t, v);
            if (p->thr[i * n + t] <= 0 && v > 1e-9)
                check_fail(__FILE__, __LINE__, "%s: job %u on a type it cannot use", what, i);
            row += v;
        }
        if (row > 1 + 1e-6)
            check_fail(__FILE__, __LINE__, "%s: job %u has %g of the time", what, i, row);
    }
    for (uint32_t t = 0; t < n; t++) {
        double col = 0;
        for (uint32_t i = 0; i < m; i++)
            col += x[i * n + t] * p->gpus[i];
        if (col > p->cap[t] + 1e-6)
            check_fail(__FILE__, __LINE__, "%s: type %u holds %g of %g GPUs", what, t, col,
                       p->cap[t]);
    }
}

static void test_feasible(void)
{
    for (int rep = 0; rep < 200; rep++) {
        uint32_t m = 1 + (uint32_t)(unif() * 12), n = 1 + (uint32_t)(unif() * 4);
        double thr[12 * 4], x[12 * 4], cap[4], gpus[12], left[12], total[12], age[12];
        for (uint32_t i = 0; i < m; i++) {
            gpus[i] = unif() < 0.7 ? 1 : unif() < 0.5 ? 2 : 4;
            left[i] = 100 + 1000 * unif();
            total[i] = left[i] * (1 + unif());
            age[i] = 500 * unif();
            for (uint32_t t = 0; t < n; t++)
                thr[i * n + t] = unif() < 0.2 ? 0 : 0.2 + 3 * unif();
        }
        for (uint32_t t = 0; t < n; t++)
            cap[t] = (double)(uint32_t)(unif() * 6);
        sim__gavel_problem p = {m, n, thr, gpus, cap, NULL, left, total, age, NULL, 0};
        for (int obj = 0; obj < SIM_GAVEL_N_OBJECTIVES; obj++) {
            tm_diag d = {0};
            sim__gavel_stats st = {0};
            for (size_t k = 0; k < (size_t)m * n; k++)
                x[k] = -1;
            CHECK_EQ_INT(sim__gavel_solve(obj, &p, x, &st, &d), TM_OK);
            char what[64];
            snprintf(what, sizeof what, "case %d objective %d", rep, obj);
            check_feasible(&p, x, what);
        }
    }
}

/* The normalised effective throughput of job i under x (Gavel's max-min). */
static double level(const sim__gavel_problem *p, const double *x, uint32_t i)
{
    uint32_t n = p->n_types;
    double capsum = 0, prop = 0, got = 0;
    for (uint32_t t = 0; t < n; t++)
        capsum += p->cap[t];
    for (uint32_t t = 0; t < n; t++) {
        prop += p->thr[i * n + t] * p->cap[t] / capsum;
        got += p->thr[i * n + t] * x[i * n + t];
    }
    return got * p->gpus[i] / prop;
}

static int grid_feasible(const sim__gavel_problem *p, const double *x)
{
    uint32_t m = p->n_jobs, n = p->n_types;
    for (uint32_t i = 0; i < m; i++) {
        double r = 0;
        for (uint32_t t = 0; t < n; t++) {
            if (p->thr[i * n + t] <= 0 && x[i * n + t] > 0)
                return 0;
            r += x[i * n + t];
        }
        if (r > 1 + 1e-12)
            return 0;
    }
    for (uint32_t t = 0; t < n; t++) {
        double c = 0;
        for (uint32_t i = 0; i < m; i++)
            c += x[i * n + t] * p->gpus[i];
        if (c > p->cap[t] + 1e-12)
            return 0;
    }
    return 1;
}

/* Visit every point of a grid of step 1/steps over the m x 2 variables. */
typedef void (*grid_fn)(const sim__gavel_problem *p, const double *x, void *ud);
static void grid_walk(const sim__gavel_problem *p, uint32_t steps, grid_fn fn, void *ud)
{
    uint32_t v = p->n_jobs * p->n_types, idx[6] = {0};
    double x[6];
    for (;;) {
        for (uint32_t k = 0; k < v; k++)
            x[k] = (double)idx[k] / steps;
        if (grid_feasible(p, x))
            fn(p, x, ud);
        uint32_t k = 0;
        while (k < v && ++idx[k] > steps)
            idx[k++] = 0;
        if (k == v)
            return;
    }
}

typedef struct mm_ctx {
    const double *ours; /* levels of the solver's X */
    double best_min;
    uint32_t violations;
} mm_ctx;

static void mm_visit(const sim__gavel_problem *p, const double *x, void *ud)
{
    mm_ctx *c = ud;
    double mn = INFINITY;
    for (uint32_t i = 0; i < p->n_jobs; i++) {
        double l = level(p, x, i);
        mn = l < mn ? l : mn;
    }
    c->best_min = mn > c->best_min ? mn : c->best_min;
    /* raising job i must lower some job whose level is no larger than i's */
    for (uint32_t i = 0; i < p->n_jobs; i++) {
        if (!(level(p, x, i) > c->ours[i] + 1e-6))
            continue;
        int lowered = 0;
        for (uint32_t j = 0; j < p->n_jobs; j++)
            if (j != i && c->ours[j] <= c->ours[i] + 1e-6 && level(p, x, j) < c->ours[j] - 1e-6)
                lowered = 1;
        if (!lowered)
            c->violations++;
    }
}

typedef struct span_ctx {
    double best; /* makespan: the smallest largest time; ftf: the smallest largest rho */
    int ftf;
    const double *iso;
} span_ctx;

static void span_visit(const sim__gavel_problem *p, const double *x, void *ud)
{
    span_ctx *c = ud;
    double worst = 0;
    for (uint32_t i = 0; i < p->n_jobs; i++) {
        double thr = 0;
        for (uint32_t t = 0; t < p->n_types; t++)
            thr += p->thr[i * p->n_types + t] * x[i * p->n_types + t];
        double v = thr > 0 ? p->left_s[i] / thr : INFINITY;
        if (c->ftf)
            v = (p->age_s[i] + v) / c->iso[i];
        worst = v > worst ? v : worst;
    }
    c->best = worst < c->best ? worst : c->best;
}

static void test_bruteforce(void)
{
    for (int rep = 0; rep < 60; rep++) {
        uint32_t m = rep % 2 ? 3 : 2, n = 2, steps = m == 2 ? 20 : 10;
        double thr[6], x[6], cap[2], gpus[3], left[3], total[3], age[3], lv[3];
        for (uint32_t i = 0; i < m; i++) {
            gpus[i] = unif() < 0.7 ? 1 : 2;
            left[i] = 100 + 1000 * unif();
            total[i] = left[i] * (1 + unif());
            age[i] = 300 * unif();
            for (uint32_t t = 0; t < n; t++)
                thr[i * n + t] = unif() < 0.15 ? 0 : 0.2 + 3 * unif();
            if (thr[i * n] == 0 && thr[i * n + 1] == 0)
                thr[i * n] = 1;
        }
        cap[0] = 1 + (double)(uint32_t)(unif() * 2);
        cap[1] = 1 + (double)(uint32_t)(unif() * 2);
        sim__gavel_problem p = {m, n, thr, gpus, cap, NULL, left, total, age, NULL, 0};
        tm_diag d = {0};
        sim__gavel_stats st = {0};
        CHECK_EQ_INT(sim__gavel_solve(SIM_GAVEL_MAXMIN_WF, &p, x, &st, &d), TM_OK);
        double ours_min = INFINITY;
        for (uint32_t i = 0; i < m; i++) {
            lv[i] = level(&p, x, i);
            ours_min = lv[i] < ours_min ? lv[i] : ours_min;
        }
        mm_ctx c = {lv, 0, 0};
        grid_walk(&p, steps, mm_visit, &c);
        if (ours_min < c.best_min - 1e-6)
            check_fail(__FILE__, __LINE__, "case %d: smallest level %g < the grid's %g", rep,
                       ours_min, c.best_min);
        if (c.violations)
            check_fail(__FILE__, __LINE__,
                       "case %d: %u grid points raise a job without lowering a smaller one", rep,
                       c.violations);
        /* max-min (Gavel's single LP): a feasible X whose smallest level is
         * the brute force's best (the grid holds the optimum to within its
         * step: checked from both sides), equal to water-filling's, and the
         * value the solve reports */
        double xs[6];
        CHECK_EQ_INT(sim__gavel_solve(SIM_GAVEL_MAXMIN, &p, xs, &st, &d), TM_OK);
        check_feasible(&p, xs, "max-min single LP");
        CHECK_EQ_INT(st.lps >= 1, 1);
        CHECK_EQ_INT(st.levels, 1);
        double smin = INFINITY;
        for (uint32_t i = 0; i < m; i++)
            smin = level(&p, xs, i) < smin ? level(&p, xs, i) : smin;
        CHECK_NEAR(smin, st.objective, 1e-6 * (1 + smin));
        CHECK_NEAR(smin, ours_min, 1e-6 * (1 + ours_min));
        mm_ctx cs = {lv, 0, 0};
        grid_walk(&p, steps, mm_visit, &cs);
        if (smin < cs.best_min - 1e-6)
            check_fail(__FILE__, __LINE__, "case %d: single LP's smallest level %g < the grid's %g",
                       rep, smin, cs.best_min);
        /* the grid's best is within a step of the optimum: a fine grid
         * (m = 2) comes within a few per cent of the LP */
        if (m == 2 && cs.best_min < smin * 0.85)
            check_fail(__FILE__, __LINE__, "case %d: grid's best %g far below the LP's %g", rep,
                       cs.best_min, smin);
        /* the same LP asked of max-min-wf by stats->single */
        st.single = 1;
        double xw[6];
        CHECK_EQ_INT(sim__gavel_solve(SIM_GAVEL_MAXMIN_WF, &p, xw, &st, &d), TM_OK);
        CHECK_EQ_INT(st.levels, 1);
        CHECK_NEAR(st.objective, smin, 1e-6 * (1 + smin));
        /* makespan: T is what X achieves and no grid point does better */
        st.single = 0;
        CHECK_EQ_INT(sim__gavel_solve(SIM_GAVEL_MAKESPAN, &p, x, &st, &d), TM_OK);
        span_ctx sc = {INFINITY, 0, NULL};
        span_visit(&p, x, &sc);
        CHECK_NEAR(sc.best, st.objective, 1e-6 * st.objective);
        double mine = sc.best;
        sc.best = INFINITY;
        grid_walk(&p, steps, span_visit, &sc);
        if (mine > sc.best * (1 + 1e-6))
            check_fail(__FILE__, __LINE__, "case %d: makespan %g > the grid's %g", rep, mine,
                       sc.best);
        /* ftf: the largest rho no worse than the grid's best */
        double iso[3];
        for (uint32_t i = 0; i < m; i++) {
            double row = 0, it = 0;
            for (uint32_t t = 0; t < n; t++) {
                double f = cap[t] / m / gpus[i];
                row += f;
                it += f * thr[i * n + t];
            }
            iso[i] = total[i] / (row > 1 ? it / row : it);
        }
        CHECK_EQ_INT(sim__gavel_solve(SIM_GAVEL_FTF, &p, x, &st, &d), TM_OK);
        span_ctx fc = {INFINITY, 1, iso};
        span_visit(&p, x, &fc);
        mine = fc.best;
        fc.best = INFINITY;
        grid_walk(&p, steps, span_visit, &fc);
        if (mine > fc.best * (1 + 1e-3))
            check_fail(__FILE__, __LINE__, "case %d: largest rho %g > the grid's %g", rep, mine,
                       fc.best);
    }
}

/* ------------------------------------------------------------------------- */
/* ftf: the iteration against a reference bisection                          */

/* Job i's isolated time (gavel_alloc.c's iso_thr: an even 1/m share of every
 * type, the row scaled into unit time). */
static double ftf_iso(const sim__gavel_problem *p, uint32_t i)
{
    uint32_t n = p->n_types;
    double row = 0, it = 0;
    for (uint32_t t = 0; t < n; t++) {
        double f = p->cap[t] / p->n_jobs / p->gpus[i];
        row += f;
        it += f * p->thr[i * n + t];
    }
    it = row > 1 ? it / row : it;
    return it > 0 ? p->total_s[i] / it : 0;
}

/* rho of X: the largest (age + left / thr(X)) / iso; *binding counts the
 * jobs within rel of it */
static double ftf_rho(const sim__gavel_problem *p, const double *x, double rel, uint32_t *binding)
{
    uint32_t m = p->n_jobs, n = p->n_types;
    double worst = 0, r[64];
    for (uint32_t i = 0; i < m; i++) {
        double th = 0;
        for (uint32_t t = 0; t < n; t++)
            th += p->thr[i * n + t] * x[i * n + t];
        r[i] = th > 0 ? (p->age_s[i] + p->left_s[i] / th) / ftf_iso(p, i) : INFINITY;
        worst = r[i] > worst ? r[i] : worst;
    }
    *binding = 0;
    for (uint32_t i = 0; i < m; i++)
        *binding += r[i] >= worst * (1 - rel);
    return worst;
}

/* Is rho feasible? The max-min LP (one LP, an independent path through the
 * solver) with weights gpus left / (prop (rho iso - age)) has ftf's level
 * coefficients thr (rho iso - age) / left: rho is feasible when its
 * smallest level reaches 1. */
static int ftf_feasible(const sim__gavel_problem *p, double rho)
{
    uint32_t m = p->n_jobs, n = p->n_types;
    double w[64], x[64 * 4], capsum = 0;
    for (uint32_t t = 0; t < n; t++)
        capsum += p->cap[t];
    for (uint32_t i = 0; i < m; i++) {
        double prop = 0;
        for (uint32_t t = 0; t < n; t++)
            prop += p->thr[i * n + t] * p->cap[t] / capsum;
        w[i] = p->gpus[i] * p->left_s[i] / (prop * (rho * ftf_iso(p, i) - p->age_s[i]));
    }
    sim__gavel_problem q = *p;
    q.weight = w;
    sim__gavel_stats st = {0};
    tm_diag d = {0};
    CHECK_EQ_INT(sim__gavel_solve(SIM_GAVEL_MAXMIN, &q, x, &st, &d), TM_OK);
    return st.objective >= 1;
}

static void check_ftf(const sim__gavel_problem *p, double rlo, double rhi, double hint,
                      const char *what, uint32_t *binding)
{
    double x[64 * 4];
    sim__gavel_problem q = *p;
    q.rho_hint = hint;
    sim__gavel_stats st = {0};
    tm_diag d = {0};
    CHECK_EQ_INT(sim__gavel_solve(SIM_GAVEL_FTF, &q, x, &st, &d), TM_OK);
    check_feasible(p, x, what);
    /* the bracket: certified, and as tight as the bisection's tolerance */
    double rx = ftf_rho(p, x, 1e-6, binding);
    if (!(st.bound <= st.objective && st.objective - st.bound <= 1e-4 * st.objective * (1 + 1e-9)))
        check_fail(__FILE__, __LINE__, "%s: bracket [%.9g, %.9g] wider than 1e-4", what, st.bound,
                   st.objective);
    if (fabs(rx - st.objective) > 1e-7 * rx)
        check_fail(__FILE__, __LINE__, "%s: rho of X %.9g, reported %.9g", what, rx, st.objective);
    /* against the reference: the optimum is in [rlo, rhi], so the lower
     * bound must not pass rhi and no X can be below rlo */
    if (st.bound > rhi * (1 + 1e-7))
        check_fail(__FILE__, __LINE__, "%s: lower bound %.9g above the optimum (<= %.9g)", what,
                   st.bound, rhi);
    if (rx < rlo * (1 - 1e-7))
        check_fail(__FILE__, __LINE__, "%s: rho %.9g below the optimum (>= %.9g)", what, rx, rlo);
    if (rx > rhi * (1 + 1e-4))
        check_fail(__FILE__, __LINE__, "%s: rho %.9g, the optimum %.9g", what, rx, rhi);
    /* no GPU left idle that a job with time to spare could use */
    uint32_t m = p->n_jobs, n = p->n_types;
    for (uint32_t t = 0; t < n; t++) {
        double used = 0;
        for (uint32_t i = 0; i < m; i++)
            used += p->gpus[i] * x[i * n + t];
        if (used >= p->cap[t] - 1e-6)
            continue;
        for (uint32_t i = 0; i < m; i++) {
            double row = 0;
            for (uint32_t k = 0; k < n; k++)
                row += x[i * n + k];
            if (p->thr[i * n + t] > 0 && row < 1 - 1e-6)
                check_fail(__FILE__, __LINE__,
                           "%s: type %u has %.3g of %.3g GPUs idle, job %u %.3g of its time", what,
                           t, p->cap[t] - used, p->cap[t], i, row);
        }
    }
}

static void test_ftf_reference(void)
{
    /* by hand: one GPU, two one-GPU jobs of 10 s of work at speed 1 (both
     * isolated times 20 s), job 0 aged 10 s: rho_0 = (10 + 10 / x0) / 20,
     * rho_1 = (10 / x1) / 20; equal at x0 = (sqrt 5 - 1) / 2, rho* =
     * (3 + sqrt 5) / 4 */
    {
        double thr[2] = {1, 1}, gpus[2] = {1, 1}, cap[1] = {1}, left[2] = {10, 10};
        double age[2] = {10, 0}, x[2];
        sim__gavel_problem p = {2, 1, thr, gpus, cap, NULL, left, left, age, NULL, 0};
        sim__gavel_stats st = {0};
        tm_diag d = {0};
        CHECK_EQ_INT(sim__gavel_solve(SIM_GAVEL_FTF, &p, x, &st, &d), TM_OK);
        double want = (3 + sqrt(5)) / 4;
        CHECK_NEAR(st.objective, want, 1e-4 * want);
        CHECK_NEAR(x[0], (sqrt(5) - 1) / 2, 1e-3);
        CHECK_EQ_INT(st.bound <= want * (1 + 1e-9), 1);
        /* without ages Dinkelbach's first step is exact: x = 1/2, rho = 1 */
        age[0] = 0;
        CHECK_EQ_INT(sim__gavel_solve(SIM_GAVEL_FTF, &p, x, &st, &d), TM_OK);
        CHECK_NEAR(st.objective, 1.0, 1e-9);
        CHECK_NEAR(x[0], 0.5, 1e-9);
        CHECK_EQ_INT(st.lps <= 2, 1);
    }
    uint32_t most_binding = 0, fallbacks = 0;
    for (int rep = 0; rep < 120; rep++) {
        int ages = rep % 3; /* none, up to 2000 s, spread: S x iso x u */
        uint32_t m = rep < 60 ? 2 + (uint32_t)(unif() * 6) : 10 + (uint32_t)(unif() * 50);
        uint32_t n = 1 + (uint32_t)(unif() * 3);
        double thr[64 * 4], cap[4], gpus[64], left[64], total[64], age[64];
        for (uint32_t t = 0; t < n; t++)
            cap[t] = 1 + (double)(uint32_t)(unif() * (double)m);
        for (uint32_t i = 0; i < m; i++) {
            gpus[i] = unif() < 0.7 ? 1 : 2;
            left[i] = 100 + 5000 * unif();
            total[i] = left[i] * (1 + 2 * unif());
            for (uint32_t t = 0; t < n; t++)
                thr[i * n + t] = unif() < 0.2 ? 0 : 0.2 + 3 * unif();
            thr[i * n + (uint32_t)(unif() * n)] = 0.5 + unif(); /* somewhere to run */
            age[i] = 0;
        }
        sim__gavel_problem p = {m, n, thr, gpus, cap, NULL, left, total, age, NULL, 0};
        double scale = 0.2 + 3 * unif();
        for (uint32_t i = 0; i < m; i++)
            age[i] = ages == 0 ? 0 : ages == 1 ? 2000 * unif() : scale * ftf_iso(&p, i) * unif();
        /* the reference: bisection on feasibility from [max age / iso, the
         * isolated allocation's rho], to 1e-9 */
        double rlo = 0, rhi = 0;
        for (uint32_t i = 0; i < m; i++) {
            double iso = ftf_iso(&p, i), it = total[i] / iso;
            rlo = age[i] / iso > rlo ? age[i] / iso : rlo;
            rhi = (age[i] + left[i] / it) / iso > rhi ? (age[i] + left[i] / it) / iso : rhi;
        }
        if (!ftf_feasible(&p, rhi * (1 + 1e-9)))
            check_fail(__FILE__, __LINE__, "case %d: the isolated allocation's rho %.9g infeasible",
                       rep, rhi);
        while (rhi - rlo > 1e-9 * rhi) {
            double mid = 0.5 * (rlo + rhi);
            if (ftf_feasible(&p, mid))
                rhi = mid;
            else
                rlo = mid;
        }
        char what[96];
        uint32_t binding;
        snprintf(what, sizeof what, "ftf case %d (%u jobs, %u types, ages %d)", rep, m, n, ages);
        check_ftf(&p, rlo, rhi, 0, what, &binding);
        if (ages == 2)
            most_binding = binding > most_binding ? binding : most_binding;
        /* started elsewhere (the engine's last rho): below, above, useless */
        const double hints[3] = {0.7 * rhi, 1.3 * rhi, 0.5 * rlo};
        for (int h = 0; h < 3; h++) {
            snprintf(what, sizeof what, "ftf case %d, hint %.3g", rep, hints[h]);
            check_ftf(&p, rlo, rhi, hints[h], what, &binding);
        }
        sim__gavel_stats st = {0};
        tm_diag d = {0};
        double x[64 * 4];
        CHECK_EQ_INT(sim__gavel_solve(SIM_GAVEL_FTF, &p, x, &st, &d), TM_OK);
        fallbacks += st.bisect_steps;
    }
    /* the spread ages must reach the hard regime: several jobs at rho* */
    if (most_binding < 3)
        check_fail(__FILE__, __LINE__, "at most %u jobs bind at rho*: the cases are too easy",
                   most_binding);
    printf("test_ftf_reference: up to %u jobs at rho* (spread ages), %u bisection steps\n",
           most_binding, fallbacks);
}

/* interchangeable jobs solved as groups match the solve with a row each */
/* A cold solve of 4,096 groups or more starts from the rho* of a sample of
 * its jobs (gavel_alloc.c, ftf_sample_rho); started from a hint instead
 * (the engine's path), the same problem must give the same certified
 * bracket, so the two brackets overlap and each is within 1e-4. */
static void test_ftf_large_start(void)
{
    enum { M = 5000, N = 3 };
    static double thr[M * N], gpus[M], left[M], total[M], age[M], xa[M * N], xb[M * N];
    double cap[N];
    for (uint32_t t = 0; t < N; t++)
        cap[t] = M / 3.0 / 1.5;
    for (uint32_t i = 0; i < M; i++) {
        gpus[i] = unif() < 0.7 ? 1 : 2;
        left[i] = 100 + 5000 * unif();
        total[i] = left[i] * (1 + 2 * unif());
        for (uint32_t t = 0; t < N; t++)
            thr[i * N + t] = 0.2 + 3 * unif();
    }
    sim__gavel_problem p = {M, N, thr, gpus, cap, NULL, left, total, age, NULL, 0};
    for (uint32_t i = 0; i < M; i++)
        age[i] = 0;
    for (uint32_t i = 0; i < M; i++)
        age[i] = 0.5 * ftf_iso(&p, i) * unif(); /* spread: many jobs bind */
    double rho_iso = 0;
    for (uint32_t i = 0; i < M; i++) {
        double iso = ftf_iso(&p, i);
        double r = (age[i] + left[i] / (total[i] / iso)) / iso;
        rho_iso = r > rho_iso ? r : rho_iso;
    }
    sim__gavel_stats sa = {0}, sb = {0};
    tm_diag d = {0};
    CHECK_EQ_INT(sim__gavel_solve(SIM_GAVEL_FTF, &p, xa, &sa, &d), TM_OK);
    sim__gavel_problem q = p;
    q.rho_hint = rho_iso * (1 - 1e-6); /* a valid hint: the former start */
    CHECK_EQ_INT(sim__gavel_solve(SIM_GAVEL_FTF, &q, xb, &sb, &d), TM_OK);
    check_feasible(&p, xa, "ftf, 5,000 jobs, sampled start");
    check_feasible(&p, xb, "ftf, 5,000 jobs, hinted start");
    const sim__gavel_stats *s2[2] = {&sa, &sb};
    for (int k = 0; k < 2; k++)
        if (!(s2[k]->bound <= s2[k]->objective &&
              s2[k]->objective - s2[k]->bound <= 1e-4 * s2[k]->objective * (1 + 1e-9)))
            check_fail(__FILE__, __LINE__, "ftf, 5,000 jobs, start %d: bracket [%.9g, %.9g]", k,
                       s2[k]->bound, s2[k]->objective);
    if (sa.bound > sb.objective * (1 + 1e-9) || sb.bound > sa.objective * (1 + 1e-9))
        check_fail(__FILE__, __LINE__,
                   "ftf, 5,000 jobs: brackets [%.9g, %.9g] and [%.9g, %.9g] "
                   "do not overlap",
                   sa.bound, sa.objective, sb.bound, sb.objective);
    printf("test_ftf_large_start: rho %.9g (sampled start, %u LPs) and %.9g (hinted, %u LPs)\n",
           sa.objective, sa.lps, sb.objective, sb.lps);
}

static void test_groups(void)
{
    enum { M = 40, N = 3 };
    double thr[M * N], x[M * N], y[M * N], gpus[M], cap[N] = {6, 10, 4};
    static const double K[4][N] = {{4, 2, 1}, {8, 5, 1.7}, {7, 5.7, 3.4}, {7.5, 16.6, 10.4}};
    for (uint32_t i = 0; i < M; i++) {
        gpus[i] = i % 5 == 0 ? 2 : 1;
        memcpy(thr + i * N, K[i % 4], sizeof K[0]);
    }
    sim__gavel_problem p = {M, N, thr, gpus, cap, NULL, NULL, NULL, NULL, NULL, 0};
    tm_diag d = {0};
    sim__gavel_stats a = {0}, b = {0};
    b.ungrouped = 1;
    CHECK_EQ_INT(sim__gavel_solve(SIM_GAVEL_MAXMIN_WF, &p, x, &a, &d), TM_OK);
    CHECK_EQ_INT(sim__gavel_solve(SIM_GAVEL_MAXMIN_WF, &p, y, &b, &d), TM_OK);
    check_feasible(&p, x, "grouped");
    CHECK_NEAR(a.objective, b.objective, 1e-6 * (1 + b.objective));
    double sa = 0, sb = 0;
    for (uint32_t i = 0; i < M; i++) {
        sa += level(&p, x, i);
        sb += level(&p, y, i);
    }
    CHECK_NEAR(sa, sb, 1e-5 * (1 + sb));
}

/* Grouped against ungrouped on small random problems whose jobs repeat
 * (drawn from a few kinds, so groups form): every objective reaches the same
 * value both ways, and the grouped X is feasible and achieves it. */
static void test_groups_random(void)
{
    enum { MM = 14, NN = 4 };
    static const int objs[] = {SIM_GAVEL_MAXMIN, SIM_GAVEL_MAXMIN_WF, SIM_GAVEL_MAXMIN_AGNOSTIC,
                               SIM_GAVEL_MAKESPAN, SIM_GAVEL_FTF};
    uint32_t merged = 0;
    for (int rep = 0; rep < 120; rep++) {
        uint32_t m = 2 + (uint32_t)(unif() * (MM - 1)), n = 1 + (uint32_t)(unif() * NN);
        uint32_t kinds = 1 + (uint32_t)(unif() * 4);
        double thr[MM * NN], x[MM * NN], y[MM * NN], cap[NN], gpus[MM], left[MM], total[MM],
            age[MM];
        double kt[4][NN], kg[4], kl[4][2], ka[4][2];
        for (uint32_t k = 0; k < kinds; k++) {
            kg[k] = unif() < 0.6 ? 1 : unif() < 0.5 ? 2 : 4;
            for (uint32_t t = 0; t < n; t++)
                kt[k][t] = unif() < 0.2 ? 0 : 0.2 + 3 * unif();
            for (int v = 0; v < 2; v++) {
                kl[k][v] = 100 + 1000 * unif();
                ka[k][v] = 500 * unif();
            }
        }
        for (uint32_t i = 0; i < m; i++) {
            uint32_t k = (uint32_t)(unif() * kinds);
            int v = unif() < 0.5, u = unif() < 0.5;
            gpus[i] = kg[k];
            memcpy(thr + i * n, kt[k], n * sizeof *thr);
            left[i] = kl[k][v];
            total[i] = 1.5 * kl[k][v];
            age[i] = ka[k][u];
        }
        for (uint32_t t = 0; t < n; t++)
            cap[t] = 1 + (double)(uint32_t)(unif() * 8);
        sim__gavel_problem p = {m, n, thr, gpus, cap, NULL, left, total, age, NULL, 0};
        for (size_t o = 0; o < sizeof objs / sizeof *objs; o++) {
            tm_diag d = {0};
            sim__gavel_stats a = {0}, b = {0};
            b.ungrouped = 1;
            CHECK_EQ_INT(sim__gavel_solve(objs[o], &p, x, &a, &d), TM_OK);
            CHECK_EQ_INT(sim__gavel_solve(objs[o], &p, y, &b, &d), TM_OK);
            check_feasible(&p, x, "grouped");
            check_feasible(&p, y, "ungrouped");
            double tol = objs[o] == SIM_GAVEL_FTF ? 3e-4 : 1e-6;
            if (a.objective != b.objective &&
                !(fabs(a.objective - b.objective) <= tol * (1 + fabs(b.objective))))
                check_fail(__FILE__, __LINE__, "rep %d objective %d: grouped %.9g, ungrouped %.9g",
                           rep, objs[o], a.objective, b.objective);
            if (a.lps > 0 && a.lps != b.lps)
                merged++;
            /* the grouped X achieves its value */
            for (uint32_t i = 0;
                 i < m && objs[o] != SIM_GAVEL_MAXMIN && objs[o] != SIM_GAVEL_MAXMIN_WF &&
                 objs[o] != SIM_GAVEL_MAXMIN_AGNOSTIC && a.objective > 0;
                 i++) {
                double th = 0, any = 0;
                for (uint32_t t = 0; t < n; t++) {
                    th += thr[i * n + t] * x[i * n + t];
                    any += thr[i * n + t] * cap[t];
                }
                if (any <= 0)
                    continue;
                if (objs[o] == SIM_GAVEL_MAKESPAN && isfinite(a.objective) &&
                    !(left[i] <= a.objective * th * (1 + 1e-6) + 1e-9))
                    check_fail(__FILE__, __LINE__, "rep %d: job %u done after T = %g", rep, i,
                               a.objective);
            }
        }
    }
    (void)merged;
}

/* ------------------------------------------------------------------------- */
/* the rounds                                                                 */

#define RJ 4
typedef struct host {
    place_cluster c;
    place_job jobs[RJ];
    place_job queue[RJ];
    uint8_t qstate[RJ];
    uint32_t n_queue;
    place_running run[RJ];
    place_part run_parts[RJ][8];
    uint32_t n_run;
    uint64_t preempted;
} host;

static int host_apply(void *ud, place_view *v, place_decision *d)
{
    host *h = ud;
    if (d->kind == PLACE_START) {
        place_job j = h->queue[d->index];
        CHECK_EQ_INT(place_cluster_take(&h->c, &j, d->parts, d->n_parts), PLACE_OK);
        h->qstate[d->index] = PLACE_Q_STARTED;
        place_running *r = &h->run[h->n_run];
        memset(r, 0, sizeof *r);
        r->job = j;
        r->start_us = v->now_us;
        r->end_estimate_us = -1;
        r->lost_gpu_s = 0;
        memcpy(h->run_parts[h->n_run], d->parts, d->n_parts * sizeof *d->parts);
        r->parts = h->run_parts[h->n_run];
        r->n_parts = d->n_parts;
        h->n_run++;
    } else if (d->kind == PLACE_PREEMPT) {
        place_running *r = &h->run[d->index];
        place_cluster_give(&h->c, &r->job, r->parts, r->n_parts);
        h->preempted++;
        uint32_t last = --h->n_run;
        if (d->index != last) {
            h->run[d->index] = h->run[last];
            memcpy(h->run_parts[d->index], h->run_parts[last], sizeof h->run_parts[0]);
            h->run[d->index].parts = h->run_parts[d->index];
        }
    }
    v->running = h->run;
    v->n_running = h->n_run;
    return PLACE_OK;
}

/* Run `rounds` rounds of the policy on a fixed X for RJ one-GPU jobs that
 * never end; recv gets the rounds each job ran per type. */
static void run_rounds(const double *x, const uint32_t *nodes_per_type, uint32_t rounds,
                       double *recv, uint64_t *preempted)
{
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    host h;
    memset(&h, 0, sizeof h);
    uint32_t mem[2] = {80000, 80000};
    CHECK_EQ_INT(place_cluster_init(&h.c, &env, 2, mem), PLACE_OK);
    for (uint32_t t = 0; t < 2; t++)
        for (uint32_t k = 0; k < nodes_per_type[t]; k++) {
            uint32_t node;
            CHECK_EQ_INT(place_cluster_add_node(&h.c, t, 1, 0, 0, &node), PLACE_OK);
            CHECK_EQ_INT(place_cluster_set_node_up(&h.c, node, 1), PLACE_OK);
        }
    static const double speed[2] = {2.0, 1.0};
    for (uint32_t i = 0; i < RJ; i++) {
        place_job *j = &h.jobs[i];
        memset(j, 0, sizeof *j);
        j->id = i + 1;
        j->estimate_us = -1;
        j->deadline_us = -1;
        j->speed = speed;
        j->gpus = 1;
        j->gpu_milli = PLACE_MILLI_WHOLE;
        j->flags = PLACE_JOB_PREEMPTIBLE;
    }
    place_instance pi;
    char err[200];
    CHECK_EQ_INT(place_instance_init(&pi, &env, "gavel max-min@60", err, sizeof err), PLACE_OK);
    uint64_t ids[RJ];
    double xr[RJ * 2], recv_s[RJ * 2] = {0}, active_s[RJ] = {0};
    for (uint32_t i = 0; i < RJ; i++)
        ids[i] = i + 1;
    memcpy(xr, x, sizeof xr);
    place_timeshare ts = {60 * 1000000ll, RJ, 2, ids, xr, recv_s, active_s};
    place_part scratch[8];
    for (uint32_t r = 0; r < rounds; r++) {
        int64_t now = (int64_t)r * 60 * 1000000ll;
        /* the queue: every job not running, in id order */
        h.n_queue = 0;
        for (uint32_t i = 0; i < RJ; i++) {
            int running = 0;
            for (uint32_t k = 0; k < h.n_run; k++)
                running |= h.run[k].job.id == h.jobs[i].id;
            if (!running) {
                h.queue[h.n_queue] = h.jobs[i];
                h.qstate[h.n_queue++] = PLACE_Q_WAITING;
            }
        }
        place_view v = {now, &h.c, h.queue, h.qstate, h.n_queue, h.run, h.n_run, &ts, NULL, 0};
        place_pass_stats st;
        CHECK_EQ_INT(place_pass_run(&pi, &v, h.qstate, scratch, 8, host_apply, &h, &st), PLACE_OK);
        CHECK_EQ_INT((int)st.invalid, 0);
        CHECK(st.wake_us == now + 60 * 1000000ll);
        if (st.preempted) {
            /* as the engine does: the preempted jobs wait in the queue again
             * and a second pass of the same instant starts those that move */
            h.n_queue = 0;
            for (uint32_t i = 0; i < RJ; i++) {
                int running = 0;
                for (uint32_t k = 0; k < h.n_run; k++)
                    running |= h.run[k].job.id == h.jobs[i].id;
                if (!running) {
                    h.queue[h.n_queue] = h.jobs[i];
                    h.qstate[h.n_queue++] = PLACE_Q_WAITING;
                }
            }
            v = (place_view){now, &h.c, h.queue, h.qstate, h.n_queue, h.run, h.n_run, &ts, NULL, 0};
            CHECK_EQ_INT(place_pass_run(&pi, &v, h.qstate, scratch, 8, host_apply, &h, &st),
                         PLACE_OK);
            CHECK_EQ_INT((int)st.preempted, 0);
        }
        /* the round runs: count it */
        for (uint32_t k = 0; k < h.n_run; k++) {
            uint32_t i = (uint32_t)h.run[k].job.id - 1, t = h.c.node_type[h.run[k].parts[0].node];
            recv_s[i * 2 + t] += 60;
            recv[i * 2 + t] += 1;
        }
        for (uint32_t i = 0; i < RJ; i++)
            active_s[i] += 60;
    }
    *preempted = h.preempted;
    place_instance_fini(&pi);
    place_cluster_fini(&h.c);
}

static void test_rounds_converge(void)
{
    /* 4 jobs on 2 + 1 GPUs: each job half its time on type 0, a quarter on type 1 */
    static const double x[RJ * 2] = {0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25};
    uint32_t nodes[2] = {2, 1};
    double recv[RJ * 2] = {0};
    uint64_t pre = 0;
    uint32_t rounds = 400;
    run_rounds(x, nodes, rounds, recv, &pre);
    for (uint32_t k = 0; k < RJ * 2; k++) {
        double got = recv[k] / rounds;
        if (fabs(got - x[k]) > 0.02)
            check_fail(__FILE__, __LINE__, "job %u type %u: ran %.3f of the rounds, X says %.3f",
                       k / 2 + 1, k % 2, got, x[k]);
    }
    CHECK(pre > 0); /* time-slicing took GPUs back */

    /* an uneven X: job 1 all on type 0, the rest share */
    static const double y[RJ * 2] = {1.0, 0, 0.4, 0.2, 0.3, 0.4, 0.3, 0.4};
    memset(recv, 0, sizeof recv);
    run_rounds(y, nodes, rounds, recv, &pre);
    for (uint32_t k = 0; k < RJ * 2; k++) {
        double got = recv[k] / rounds;
        if (fabs(got - y[k]) > 0.03)
            check_fail(__FILE__, __LINE__, "job %u type %u: ran %.3f of the rounds, X says %.3f",
                       k / 2 + 1, k % 2, got, y[k]);
    }
}

static void test_lease_renewal(void)
{
    /* 4 jobs on 3 + 1 GPUs, each X = 1 on a type of its own: after the first
     * round nobody moves, so nothing is ever preempted */
    static const double x[RJ * 2] = {1, 0, 1, 0, 1, 0, 0, 1};
    uint32_t nodes[2] = {3, 1};
    double recv[RJ * 2] = {0};
    uint64_t pre = 7;
    run_rounds(x, nodes, 50, recv, &pre);
    CHECK_EQ_U64(pre, 0);
    for (uint32_t k = 0; k < RJ * 2; k++)
        CHECK_NEAR(recv[k], x[k] * 50, 1e-9);
}

static void test_spec(void)
{
    int obj;
    int64_t r;
    tm_diag d = {0};
    CHECK_EQ_INT(sim__gavel_spec("gavel", &obj, &r, &d), 1);
    CHECK_EQ_INT(obj, SIM_GAVEL_MAXMIN);
    CHECK(r == SIM_GAVEL_ROUND_US);
    CHECK_EQ_INT(sim__gavel_spec(" gavel ftf@600", &obj, &r, &d), 1);
    CHECK_EQ_INT(obj, SIM_GAVEL_FTF);
    CHECK(r == 600 * 1000000ll);
    CHECK_EQ_INT(sim__gavel_spec("gavel max-min-wf@60", &obj, &r, &d), 1);
    CHECK_EQ_INT(obj, SIM_GAVEL_MAXMIN_WF);
    CHECK(r == 60 * 1000000ll);
    CHECK_EQ_INT(sim__gavel_spec("gavel max-min", &obj, &r, &d), 1);
    CHECK_EQ_INT(obj, SIM_GAVEL_MAXMIN);
    CHECK(strcmp(sim__gavel_objective_name(SIM_GAVEL_MAXMIN_WF), "max-min-wf") == 0);
    CHECK(strcmp(sim__gavel_objective_name(SIM_GAVEL_MAXMIN), "max-min") == 0);
    CHECK_EQ_INT(sim__gavel_spec("gavel max-min-wfx", &obj, &r, &d), TM_ERR_POLICY);
    /* one objective for the policy and the host: the policy reads max-min-wf
     * as the value the host solves by levels */
    {
        int o = -1;
        int64_t ru = 0;
        char e2[200];
        CHECK_EQ_INT(place_gavel_args(" max-min-wf", &o, &ru, e2, sizeof e2), PLACE_OK);
        CHECK_EQ_INT(o, PLACE_GAVEL_MAXMIN_WF);
        CHECK_EQ_INT(o, SIM_GAVEL_MAXMIN_WF);
    }
    CHECK_EQ_INT(sim__gavel_spec("order=fifo", &obj, &r, &d), 0);
    CHECK_EQ_INT(sim__gavel_spec("gavelx", &obj, &r, &d), 0);
    CHECK_EQ_INT(sim__gavel_spec("gavel las", &obj, &r, &d), TM_ERR_POLICY);
    CHECK_EQ_INT(sim__gavel_spec("gavel max-min@0", &obj, &r, &d), TM_ERR_POLICY);
    /* the policy accepts and refuses the same */
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    place_instance pi;
    char err[200];
    CHECK_EQ_INT(place_instance_init(&pi, &env, "gavel makespan@30", err, sizeof err), PLACE_OK);
    place_instance_fini(&pi);
    CHECK_EQ_INT(place_instance_init(&pi, &env, "gavel las", err, sizeof err), PLACE_ERR_SPEC);
    CHECK_EQ_INT(place_instance_init(&pi, &env, "gavel max-min@0", err, sizeof err),
                 PLACE_ERR_SPEC);
    /* one parser (place_gavel_args): every name reads back as its objective,
     * and the host and the policy agree on a table of specifications */
    for (int k = 0; k < PLACE_GAVEL_N_OBJECTIVES; k++) {
        int o = -1;
        int64_t ru = 0;
        char buf[64];
        snprintf(buf, sizeof buf, "%s@7.5", place_gavel_objective_name(k));
        CHECK_EQ_INT(place_gavel_args(buf, &o, &ru, err, sizeof err), PLACE_OK);
        CHECK_EQ_INT(o, k);
        CHECK(ru == 7500000);
    }
    CHECK(place_gavel_objective_name(PLACE_GAVEL_N_OBJECTIVES) == NULL);
    static const char *const specs[] = {
        "gavel",
        "gavel  fifo",
        "gavel ftf@600",
        "gavel @60",
        "gavel max-min@",
        "gavel ftf@1e10",
        "gavel ftf x",
        "gavel FTF",
        "gavel ftf@6s",
        "gavel makespan@0.001",
        "gavel @0.0009",
        "gavel max-min-agnostic@1e9",
        "gavel max-min-wf",
        "gavel max-min-wf@",
        "gavel max-min-w",
    };
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
        int sim_ok = sim__gavel_spec(specs[s], &obj, &r, &d) == 1;
        int pol_ok = place_instance_init(&pi, &env, specs[s], err, sizeof err) == PLACE_OK;
        if (pol_ok)
            place_instance_fini(&pi);
        CHECK_EQ_INT(sim_ok, pol_ok);
    }
}

int main(void)
{
    test_spec();
    test_feasible();
    test_bruteforce();
    test_ftf_reference();
    test_ftf_large_start();
    test_groups();
    test_groups_random();
    test_rounds_converge();
    test_lease_renewal();
    return check_finish("test_gavel");
}
