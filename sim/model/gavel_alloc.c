/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gavel_alloc.c — Gavel's allocation X by linear programming (GLPK), and the
 * engine's round bookkeeping around it. The only file that includes glpk.h.
 *
 * Every objective is solved through one LP shape, "max-min": variables
 * x[i][t] in [0, 1] (only where job i can run on type t) and z, maximise z
 * subject to
 *     sum_t a[i][t] x[i][t] - z >= 0   for each job i      (its level)
 *     sum_t x[i][t]             <= 1   for each job i      (time)
 *     sum_i gpus[i] x[i][t]     <= cap[t] for each type t  (capacity)
 * with a per-objective coefficient a:
 *   max-min          a = thr x gpus / (weight x proportional thr): Gavel's
 *                    normalised effective throughput (the proportional
 *                    throughput is what the job gets with every type split
 *                    evenly: sum_t thr[t] cap[t] / sum_t cap[t]). One LP,
 *                    as Gavel's max_min_fairness_perf: the smallest level is
 *                    as high as it can be, the other jobs anywhere feasible.
 *   max-min-wf       the same coefficients, water-filled (Gavel's
 *                    max_min_fairness_water_filling_perf): after each LP,
 *                    jobs whose level row has a non-zero dual cannot rise
 *                    without lowering the level (the LP value is concave in
 *                    the row's bound and the dual is a supergradient), so
 *                    they are fixed at it and the rest are raised in the
 *                    next LP (warm-started, dual simplex). The result is
 *                    max-min fair: no job's level can rise without lowering
 *                    one that is no larger. stats->single stops at one LP.
 *   max-min-agnostic max-min with thr = 1 on every type the job may use
 *                    (Gavel's max_min_fairness), one LP.
 *   makespan         a = thr / left: the largest z makes every job finish by
 *                    T = 1 / z (Gavel's min_total_duration bisects on T; one
 *                    LP gives the same T).
 *   ftf              rho_i = (age + left / thr_i(x)) / isolated_i, where
 *                    isolated_i = total / thr_iso (the job's time on an even
 *                    1/n share of the cluster): the largest rho is minimised
 *                    by a Dinkelbach-type iteration on rho (solve_ftf), each
 *                    step this LP with a = thr (rho isolated - age) / left,
 *                    feasible when z >= 1, in its Charnes-Cooper form (y =
 *                    x / z, w = 1 / z) so that a new rho moves only bounds.
 *   fifo             no LP: jobs in id order keep their previous type and
 *                    otherwise take the fastest type with GPUs left (x = 1).
 * Cost: the LP has groups x types + 1 columns and 2 groups + types rows,
 * a group being the jobs that are alike for the objective (solve_grouped,
 * solve_ftf); grouping is O(jobs) through a hash table.
 *
 * One piece of more than 1,000 lines: it is the only file that may include
 * glpk.h (the LP solver lives in one room, STYLE.md), and every objective
 * shares its LP helpers (lp_build, lp_solve, group_rows); ftf's iteration,
 * crash basis and fill are most of the length.
 */
#include "model/gavel_int.h"

#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------- */
/* the specification                                                          */

int sim__gavel_spec(const char *spec, int *objective, int64_t *round_us, tm_diag *diag)
{
    *objective = SIM_GAVEL_MAXMIN;
    *round_us = SIM_GAVEL_ROUND_US;
    if (!spec)
        return 0;
    while (*spec == ' ' || *spec == '\t')
        spec++;
    size_t len = strcspn(spec, " \t");
    if (len != 5 || strncmp(spec, "gavel", 5) != 0)
        return 0;
    char err[200];
    if (place_gavel_args(spec + len, objective, round_us, err, sizeof err) != PLACE_OK)
        return tm_diag_set(diag, TM_ERR_POLICY, "policy", "%s", err);
    return 1;
}

const char *sim__gavel_objective_name(int objective)
{
    return place_gavel_objective_name(objective);
}

/* ------------------------------------------------------------------------- */
/* the LP                                                                     */

typedef struct lp {
    glp_prob *P;
    uint32_t m, n;
    int *col; /* [i * n + t]: GLPK column of x[i][t], 0 when absent */
    int zcol;
    int *ind;
    double *val;
    uint32_t lps;
} lp;

static void lp_fini(lp *L)
{
    if (L->P)
        glp_delete_prob(L->P);
    free(L->col);
    free(L->ind);
    free(L->val);
    memset(L, 0, sizeof *L);
}

/* Rows 1..m: levels; m+1..2m: time; 2m+1..2m+n: capacity. */
static int lp_build(lp *L, uint32_t m, uint32_t n, const double *a, const double *gpus,
                    const double *mult, const double *cap)
{
    memset(L, 0, sizeof *L);
    L->m = m;
    L->n = n;
    L->col = calloc((size_t)m * n + 1, sizeof *L->col);
    L->ind = malloc(((size_t)m + n + 2) * sizeof *L->ind);
    L->val = malloc(((size_t)m + n + 2) * sizeof *L->val);
    if (!L->col || !L->ind || !L->val)
        return TM_ERR_NOMEM;
    L->P = glp_create_prob();
    glp_set_obj_dir(L->P, GLP_MAX);
    glp_add_rows(L->P, (int)(2 * m + n));
    int ncols = 0;
    for (size_t k = 0; k < (size_t)m * n; k++)
        if (a[k] > 0 && cap[k % n] > 0)
            L->col[k] = ++ncols;
    L->zcol = ncols + 1;
    glp_add_cols(L->P, ncols + 1);
    for (int c = 1; c <= ncols; c++)
        glp_set_col_bnds(L->P, c, GLP_DB, 0.0, 1.0);
    glp_set_col_bnds(L->P, L->zcol, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(L->P, L->zcol, 1.0);
    for (uint32_t i = 0; i < m; i++) {
        int k = 0;
        for (uint32_t t = 0; t < n; t++) {
            int c = L->col[(size_t)i * n + t];
            if (c) {
                L->ind[++k] = c;
                L->val[k] = a[(size_t)i * n + t];
            }
        }
        if (k == 0) { /* a job that can run nowhere has no level */
            glp_set_row_bnds(L->P, (int)(i + 1), GLP_FR, 0.0, 0.0);
            glp_set_row_bnds(L->P, (int)(m + i + 1), GLP_FR, 0.0, 0.0);
            continue;
        }
        L->ind[k + 1] = L->zcol;
        L->val[k + 1] = -1.0;
        glp_set_mat_row(L->P, (int)(i + 1), k + 1, L->ind, L->val);
        glp_set_row_bnds(L->P, (int)(i + 1), GLP_LO, 0.0, 0.0);
        for (int q = 1; q <= k; q++)
            L->val[q] = 1.0;
        glp_set_mat_row(L->P, (int)(m + i + 1), k, L->ind, L->val);
        glp_set_row_bnds(L->P, (int)(m + i + 1), GLP_UP, 0.0, 1.0);
    }
    for (uint32_t t = 0; t < n; t++) {
        int k = 0;
        for (uint32_t i = 0; i < m; i++) {
            int c = L->col[(size_t)i * n + t];
            if (c) {
                L->ind[++k] = c;
                L->val[k] = gpus[i] * mult[i];
            }
        }
        glp_set_row_bnds(L->P, (int)(2 * m + t + 1), GLP_UP, 0.0, cap[t]);
        if (k)
            glp_set_mat_row(L->P, (int)(2 * m + t + 1), k, L->ind, L->val);
    }
    return TM_OK;
}

/* Solve; dual simplex when warm (a bound moved), primal from the last basis
 * when LP_PRIMAL_WARM (coefficients moved), primal from an advanced basis
 * otherwise. 0 when optimal. */
enum { LP_COLD = 0, LP_DUAL_WARM = 1, LP_PRIMAL_WARM = 2 };
static int lp_solve(lp *L, int warm)
{
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.meth = warm == LP_DUAL_WARM ? GLP_DUALP : GLP_PRIMAL;
    if (warm == LP_COLD)
        glp_adv_basis(L->P, 0);
    L->lps++;
    int rc = glp_simplex(L->P, &parm);
    if (rc == GLP_EBADB || rc == GLP_ESING || rc == GLP_ECOND) {
        glp_adv_basis(L->P, 0);
        parm.meth = GLP_PRIMAL;
        L->lps++;
        rc = glp_simplex(L->P, &parm);
    }
    if (rc != 0 || glp_get_status(L->P) != GLP_OPT)
        return -1;
    return 0;
}

static void lp_read_x(const lp *L, double *x)
{
    for (size_t k = 0; k < (size_t)L->m * L->n; k++) {
        double v = L->col[k] ? glp_get_col_prim(L->P, L->col[k]) : 0.0;
        x[k] = v < 0 ? 0 : v > 1 ? 1 : v;
    }
}

/* Water-filling: raise the free jobs' common level, fix those that cannot
 * rise, repeat. */
static int lp_waterfill(lp *L, double *x, uint32_t *levels, double *zmin, int single)
{
    uint32_t m = L->m;
    uint8_t *fixed = calloc(m ? m : 1, 1);
    if (!fixed)
        return TM_ERR_NOMEM;
    uint32_t n_free = 0;
    for (uint32_t i = 0; i < m; i++) {
        if (glp_get_row_type(L->P, (int)(i + 1)) == GLP_FR)
            fixed[i] = 1;
        else
            n_free++;
    }
    int warm = 0, rc = TM_OK;
    *levels = 0;
    *zmin = 0;
    while (n_free > 0) {
        if (lp_solve(L, warm) != 0) {
            rc = TM_ERR_INTERNAL;
            break;
        }
        double z = glp_get_obj_val(L->P);
        if (*levels == 0)
            *zmin = z;
        (*levels)++;
        lp_read_x(L, x);
        if (single)
            break;
        uint32_t fixed_now = 0;
        double best = 0;
        uint32_t best_i = UINT32_MAX;
        for (uint32_t i = 0; i < m; i++) {
            if (fixed[i])
                continue;
            double d = fabs(glp_get_row_dual(L->P, (int)(i + 1)));
            if (d > best) {
                best = d;
                best_i = i;
            }
            if (d > 1e-9) {
                fixed[i] = 2; /* fixed in this level */
                fixed_now++;
            }
        }
        if (fixed_now == 0 && best_i != UINT32_MAX) {
            fixed[best_i] = 2; /* the duals sum to 1: one is the largest */
            fixed_now = 1;
        }
        if (fixed_now == 0)
            break;
        /* a fixed job keeps at least its level (a hair below, for rounding) */
        double lvl = z - 1e-9 * (fabs(z) + 1);
        for (uint32_t i = 0; i < m; i++) {
            if (fixed[i] != 2)
                continue;
            fixed[i] = 1;
            n_free--;
            int len = glp_get_mat_row(L->P, (int)(i + 1), L->ind, L->val);
            int k = 0;
            for (int q = 1; q <= len; q++)
                if (L->ind[q] != L->zcol) {
                    L->ind[++k] = L->ind[q];
                    L->val[k] = L->val[q];
                }
            glp_set_mat_row(L->P, (int)(i + 1), k, L->ind, L->val);
            glp_set_row_bnds(L->P, (int)(i + 1), GLP_LO, lvl > 0 ? lvl : 0, 0.0);
        }
        warm = 1;
    }
    free(fixed);
    return rc;
}

/* Jobs with the same GPUs and the same coefficients are interchangeable: an
 * optimum that treats them alike exists (average any optimum over their
 * permutations: the LP is convex and the levels stay feasible), and
 * water-filling gives them equal levels. So the LP has one row per group,
 * its capacity use counted once per member: Gavel's job types make a few
 * dozen groups of thousands of jobs. */
typedef struct grow_key {
    const double *row;
    double gpus;
    uint32_t n, idx;
} grow_key;

static int grow_cmp(const void *pa, const void *pb)
{
    const grow_key *x = pa, *y = pb;
    if (x->gpus != y->gpus)
        return x->gpus < y->gpus ? -1 : 1;
    for (uint32_t t = 0; t < x->n; t++)
        if (x->row[t] != y->row[t])
            return x->row[t] < y->row[t] ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static uint64_t grow_hash(const double *row, double gpus, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull, w;
    double g = gpus + 0.0; /* -0 and +0 are the same GPUs */
    memcpy(&w, &g, sizeof w);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    for (uint32_t t = 0; t < n; t++) {
        memcpy(&w, &row[t], sizeof w);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h ^ (h >> 29);
}

/* Group the m rows: grp[i] gets row i's group, groups numbered in grow_cmp's
 * order of their rows (what sorting all m rows and merging neighbours
 * gives); ga, ggpus and gm their coefficients, GPUs and sizes. Rows meet in
 * a hash table, so only the distinct rows are sorted. Returns the number of
 * groups, or 0 when out of memory (m > 0). */
static uint32_t group_rows(const sim__gavel_problem *p, const double *a, uint32_t n, uint32_t *grp,
                           double *ga, double *ggpus, double *gm)
{
    uint32_t m = p->n_jobs, G = 0, cap = 16;
    while (cap < 2 * m)
        cap *= 2;
    uint32_t *slot = malloc((size_t)cap * sizeof *slot); /* group + 1, 0 when empty */
    grow_key *k = malloc((size_t)m * sizeof *k);
    uint32_t *rank = malloc((size_t)m * sizeof *rank);
    if (!slot || !k || !rank) {
        free(slot);
        free(k);
        free(rank);
        return 0;
    }
    memset(slot, 0, (size_t)cap * sizeof *slot);
    for (uint32_t i = 0; i < m; i++) {
        const double *row = a + (size_t)i * n;
        uint32_t s = (uint32_t)grow_hash(row, p->gpus[i], n) & (cap - 1);
        for (;; s = (s + 1) & (cap - 1)) {
            if (slot[s] == 0) {
                k[G] = (grow_key){row, p->gpus[i], n, i};
                gm[G] = 0;
                slot[s] = ++G;
                break;
            }
            const grow_key *q = &k[slot[s] - 1];
            if (q->gpus == p->gpus[i] && memcmp(q->row, row, n * sizeof *row) == 0)
                break;
        }
        grp[i] = slot[s] - 1;
        gm[grp[i]] += 1;
    }
    /* number the groups in their rows' order */
    for (uint32_t g = 0; g < G; g++)
        k[g].idx = g; /* distinct rows: the index only names the group */
    qsort(k, G, sizeof *k, grow_cmp);
    double *cnt = (double *)slot; /* reuse: cap >= 2 m uint32s hold m doubles */
    for (uint32_t r = 0; r < G; r++) {
        rank[k[r].idx] = r;
        memcpy(ga + (size_t)r * n, k[r].row, n * sizeof *ga);
        ggpus[r] = k[r].gpus;
        cnt[r] = gm[k[r].idx];
    }
    memcpy(gm, cnt, G * sizeof *gm);
    for (uint32_t i = 0; i < m; i++)
        grp[i] = rank[grp[i]];
    free(slot);
    free(k);
    free(rank);
    return G;
}

/* Solve the max-min LP of coefficients a (m x n) by groups into x; single:
 * one LP. *z gets the first level (the smallest), *lps and *levels counts. */
static int solve_grouped(const sim__gavel_problem *p, const double *a, double *x, int single,
                         int grouped, double *z, uint32_t *lps, uint32_t *levels)
{
    uint32_t m = p->n_jobs, n = p->n_types, G = 0;
    uint32_t *grp = malloc((size_t)m * sizeof *grp);
    double *ggpus = malloc((size_t)m * sizeof *ggpus);
    double *ga = malloc((size_t)m * n * sizeof *ga), *gm = malloc((size_t)m * sizeof *gm);
    double *gx = calloc((size_t)m * n + 1, sizeof *gx);
    int rc = TM_OK;
    lp L = {0};
    if (!grp || !ggpus || !ga || !gm || !gx) {
        rc = TM_ERR_NOMEM;
        goto out;
    }
    if (grouped && m > 0) {
        if ((G = group_rows(p, a, n, grp, ga, ggpus, gm)) == 0) {
            rc = TM_ERR_NOMEM;
            goto out;
        }
    } else {
        for (uint32_t i = 0; i < m; i++) {
            memcpy(ga + (size_t)i * n, a + (size_t)i * n, n * sizeof *ga);
            ggpus[i] = p->gpus[i];
            gm[i] = 1;
            grp[i] = i;
        }
        G = m;
    }
    double capv[PLACE_MAX_TYPES];
    memcpy(capv, p->cap, n * sizeof *capv);
    if ((rc = lp_build(&L, G, n, ga, ggpus, gm, capv)) != TM_OK)
        goto out;
    rc = lp_waterfill(&L, gx, levels, z, single);
    *lps = L.lps;
    if (rc == TM_OK)
        for (uint32_t i = 0; i < m; i++)
            memcpy(x + (size_t)i * n, gx + (size_t)grp[i] * n, n * sizeof *x);
out:
    lp_fini(&L);
    free(grp);
    free(ggpus);
    free(ga);
    free(gm);
    free(gx);
    return rc;
}

/* The isolated throughput of job i: an even 1/m split of every type,
 * divided by its GPUs, scaled so the row fits in unit time (Gavel's
 * isolated policy). */
static double iso_thr(const sim__gavel_problem *p, uint32_t i)
{
    uint32_t n = p->n_types;
    double row = 0, thr = 0;
    for (uint32_t t = 0; t < n; t++) {
        double f = p->cap[t] / p->n_jobs / p->gpus[i];
        row += f;
        thr += f * p->thr[(size_t)i * n + t];
    }
    return row > 1 ? thr / row : thr;
}

static int solve_fifo(const sim__gavel_problem *p, double *x)
{
    uint32_t m = p->n_jobs, n = p->n_types;
    double left[PLACE_MAX_TYPES];
    memcpy(left, p->cap, n * sizeof *left);
    memset(x, 0, (size_t)m * n * sizeof *x);
    /* jobs that had a type keep it */
    if (p->prev_x)
        for (uint32_t i = 0; i < m; i++)
            for (uint32_t t = 0; t < n; t++)
                if (p->prev_x[(size_t)i * n + t] > 0.5 && left[t] >= p->gpus[i]) {
                    x[(size_t)i * n + t] = 1;
                    left[t] -= p->gpus[i];
                }
    for (uint32_t i = 0; i < m; i++) {
        int have = 0;
        for (uint32_t t = 0; t < n; t++)
            have |= x[(size_t)i * n + t] > 0;
        if (have)
            continue;
        uint32_t best = UINT32_MAX;
        for (uint32_t t = 0; t < n; t++) {
            double th = p->thr[(size_t)i * n + t];
            if (th > 0 && left[t] >= p->gpus[i] &&
                (best == UINT32_MAX || th > p->thr[(size_t)i * n + best]))
                best = t;
        }
        if (best != UINT32_MAX) {
            x[(size_t)i * n + best] = 1;
            left[best] -= p->gpus[i];
        }
    }
    return TM_OK;
}

/* Finish-time fairness: the smallest rho* = max_i rho_i(X) over allocations
 * X, rho_i(X) = (age_i + left_i / thr_i(X)) / iso_i (Themis' finish-time
 * fairness, a generalized linear-fractional program). For a trial rho the
 * level LP (lp_build's shape, z = lambda)
 *     lambda(rho) = max lambda  s.t.  thr_i(X) - lambda need_i(rho) >= 0,
 *     need_i(rho) = left_i / (rho iso_i - age_i)
 * has rho feasible when lambda(rho) >= 1; lambda grows with rho. A new rho
 * changes only z's column (-need_i in job i's level row): the LP is built
 * once and each step re-solves from the last basis (primal simplex).
 *
 * Each LP gives a bracket on rho* (Crouzeix, Ferland and Schaible's
 * Dinkelbach-type method for generalized fractional programs):
 *   upper  rho(X) = max_i rho_i(X) of the LP's X (any allocation is one);
 *   lower  min_i (age_i + (rho iso_i - age_i) / lambda) / iso_i, since
 *          lambda(rho') <= lambda(rho) max_i (rho' iso_i - age_i) /
 *          (rho iso_i - age_i) and lambda(rho*) >= 1; and rho itself when
 *          lambda < 1; and max_i age_i / iso_i.
 * The next rho is rho(X) (Dinkelbach's step: from above, exact in one step
 * when no job has an age), or the secant through the last two (rho, lambda)
 * when it falls inside the bracket (Dinkelbach's step alone converges only
 * linearly when many jobs bind at different age / iso). When a step leaves
 * the bracket wider than half of what it was, the next rho is the bracket's
 * midpoint (the bisection this replaced, kept as the fallback: the bracket
 * at least halves every other LP, so the iteration cannot stall). It stops
 * when hi - lo <= 1e-4 hi, the bisection's tolerance, and returns the X of
 * the smallest rho(X) (stats: objective = hi, bound = lo).
 *
 * The first rho is p->rho_hint when it lies inside (lo, the isolated
 * allocation's rho) (the engine passes the last solve's rho*: its job set
 * changes by a few jobs between solves), else the isolated allocation's
 * rho (an upper bound). The first LP starts from ftf_crash's basis, not
 * from x = 0: the primal simplex would need a pivot per job to reach any
 * vertex where every job runs (perf, 10,000 jobs: 6,842 pivots, 3 s).
 * A job with no work left needs nothing (its rho is age / iso whatever X);
 * a job with no isolated time (no type it can use) gets no time. Jobs with
 * the same GPUs, throughputs, isolated time, age and work left have the
 * same row at every rho: one row with a multiplicity (grouped). */
#define FTF_TOL 1e-4

/* A cold solve of at least FTF_SAMPLE_GROUPS groups starts from the rho*
 * of about FTF_SAMPLE_JOBS of its jobs (ftf_sample_rho). */
#define FTF_SAMPLE_GROUPS 4096
#define FTF_SAMPLE_JOBS   1000

/* A starting basis for the first ftf LP (the level rows' z coefficients set
 * for rho): every job with a need runs on one type, its level row tight (x
 * = z need / thr there), and z as large as that allows: the first capacity
 * or time row to fill is the tight one. The type of each group comes from
 * 32 rounds of prices per GPU type (raised where the load over the GPUs is
 * above the mean, by damped steps): a group takes the type of the smallest
 * price per unit of its throughput among those where it fits in its time,
 * else its fastest; the prices of the round with the largest z are used.
 * This is a feasible vertex with one x basic per job, where the all-slack
 * basis has none, and the primal simplex needs about one pivot per job to
 * get there; from here it needs the pivots of the jobs on another type than
 * the optimum's, or split over two (bench_gavel's problem: 0 or 1 pivots;
 * its ages spread, 1,000 jobs: about 500, against 1,030 with 8 undamped
 * rounds). Cost O(rounds x groups x types). need[g] is 0 for a group
 * without a level. */
static void ftf_crash(lp *L, const double *gk, uint32_t w, const double *ggpus, const double *gm,
                      const double *cap, const double *need, uint32_t *type)
{
    uint32_t G = L->m, n = L->n;
    double price[PLACE_MAX_TYPES], load[PLACE_MAX_TYPES], best_price[PLACE_MAX_TYPES];
    for (uint32_t t = 0; t < n; t++)
        price[t] = best_price[t] = 1.0;
    double zest = 0, best_z = -1, best_zest = 0;
    const int rounds = 32;
    for (int round = 0; round <= rounds; round++) {
        if (round == rounds) { /* the last pass: the best prices seen */
            memcpy(price, best_price, n * sizeof *price);
            zest = best_zest;
        }
        for (uint32_t t = 0; t < n; t++)
            load[t] = 0;
        double zt = INFINITY; /* z as the jobs' time allows */
        for (uint32_t g = 0; g < G; g++) {
            type[g] = UINT32_MAX;
            if (!(need[g] > 0))
                continue;
            /* the cheapest type where the job fits in its time at zest,
             * else its fastest */
            double bestc = INFINITY, fast = 0;
            uint32_t tf = UINT32_MAX;
            for (uint32_t t = 0; t < n; t++) {
                double th = gk[(size_t)g * w + t];
                if (!L->col[(size_t)g * n + t])
                    continue;
                if (th > fast) {
                    fast = th;
                    tf = t;
                }
                if (th >= need[g] * zest && price[t] / th < bestc) {
                    bestc = price[t] / th;
                    type[g] = t;
                }
            }
            if (type[g] == UINT32_MAX)
                type[g] = tf;
            uint32_t t = type[g];
            load[t] += ggpus[g] * gm[g] * need[g] / gk[(size_t)g * w + t];
            if (gk[(size_t)g * w + t] / need[g] < zt)
                zt = gk[(size_t)g * w + t] / need[g];
        }
        if (round == rounds)
            break;
        double mean = 0, k = 0, zc = INFINITY;
        for (uint32_t t = 0; t < n; t++)
            if (cap[t] > 0) {
                mean += load[t] / cap[t];
                k++;
                if (load[t] > 0 && cap[t] / load[t] < zc)
                    zc = cap[t] / load[t];
            }
        mean = k > 0 ? mean / k : 0;
        if (!(mean > 0))
            break;
        double z = zc < zt ? zc : zt;
        if (z > best_z) {
            best_z = z;
            best_zest = zest;
            memcpy(best_price, price, n * sizeof *price);
        }
        zest = zc;
        double step = 0.5 / sqrt(1.0 + round); /* damped: the loads oscillate */
        for (uint32_t t = 0; t < n; t++)
            if (cap[t] > 0)
                price[t] *= pow((load[t] / cap[t] + 0.01 * mean) / mean, step);
    }
    /* z: the first capacity or time row to fill */
    double z = INFINITY;
    uint32_t tight_t = UINT32_MAX, tight_g = UINT32_MAX;
    for (uint32_t t = 0; t < n; t++)
        if (load[t] > 0 && cap[t] / load[t] < z) {
            z = cap[t] / load[t];
            tight_t = t;
        }
    for (uint32_t g = 0; g < G; g++)
        if (type[g] != UINT32_MAX && gk[(size_t)g * w + type[g]] / need[g] < z) {
            z = gk[(size_t)g * w + type[g]] / need[g];
            tight_g = g;
            tight_t = UINT32_MAX;
        }
    for (uint32_t g = 0; g < G; g++) {
        for (uint32_t t = 0; t < n; t++)
            if (L->col[(size_t)g * n + t])
                glp_set_col_stat(L->P, L->col[(size_t)g * n + t], t == type[g] ? GLP_BS : GLP_NL);
        int lvl = type[g] != UINT32_MAX;
        glp_set_row_stat(L->P, (int)(g + 1), lvl ? GLP_NL : GLP_BS);
        glp_set_row_stat(L->P, (int)(G + g + 1), g == tight_g ? GLP_NU : GLP_BS);
    }
    for (uint32_t t = 0; t < n; t++)
        glp_set_row_stat(L->P, (int)(2 * G + t + 1), t == tight_t ? GLP_NU : GLP_BS);
    glp_set_col_stat(L->P, L->zcol, GLP_BS);
}

/* The capacity X leaves idle, given to the jobs of the largest rho_i(X)
 * first, each on its fastest types: a job's rho only falls when it gets
 * more time, so X stays optimal. The LP's optimum is a face (only the jobs
 * at rho* are pinned); the simplex ends at a vertex where the others have
 * just what rho* needs, which the rounds would realise as a fleet mostly
 * idle. gx gets each group's rho (scratch); order is a permutation
 * buffer. Cost O(G log G + G n^2). */
typedef struct fill_key {
    double rho;
    uint32_t g;
} fill_key;

static int fill_cmp(const void *pa, const void *pb)
{
    const fill_key *a = pa, *b = pb;
    if (a->rho != b->rho)
        return a->rho > b->rho ? -1 : 1;
    return a->g < b->g ? -1 : a->g > b->g;
}

static void ftf_fill(const lp *L, const double *gk, uint32_t w, const double *ggpus,
                     const double *gm, const double *cap, double *best, fill_key *order)
{
    uint32_t G = L->m, n = L->n;
    double left[PLACE_MAX_TYPES];
    memcpy(left, cap, n * sizeof *left);
    for (uint32_t g = 0; g < G; g++) {
        const double *k = gk + (size_t)g * w;
        double th = 0;
        for (uint32_t t = 0; t < n; t++) {
            left[t] -= ggpus[g] * gm[g] * best[(size_t)g * n + t];
            th += k[t] * best[(size_t)g * n + t];
        }
        order[g].g = g;
        order[g].rho = !(k[n] > 0)     ? -INFINITY
                       : k[n + 2] <= 0 ? k[n + 1] / k[n]
                       : th > 0        ? (k[n + 1] + k[n + 2] / th) / k[n]
                                       : INFINITY;
    }
    qsort(order, G, sizeof *order, fill_cmp);
    for (uint32_t r = 0; r < G; r++) {
        uint32_t g = order[r].g;
        double *xg = best + (size_t)g * n, row = 0, use = ggpus[g] * gm[g];
        uint8_t done[PLACE_MAX_TYPES] = {0};
        for (uint32_t t = 0; t < n; t++)
            row += xg[t];
        for (uint32_t q = 0; q < n && row < 1 && use > 0; q++) {
            uint32_t f = UINT32_MAX; /* the fastest type not tried yet */
            for (uint32_t t = 0; t < n; t++)
                if (!done[t] && L->col[(size_t)g * n + t] &&
                    (f == UINT32_MAX || gk[(size_t)g * w + t] > gk[(size_t)g * w + f]))
                    f = t;
            if (f == UINT32_MAX)
                break;
            done[f] = 1;
            double add = left[f] > 0 ? left[f] / use : 0;
            add = add < 1 - row ? add : 1 - row;
            if (add > 0) {
                xg[f] += add;
                row += add;
                left[f] -= add * use;
            }
        }
    }
}

static int solve_ftf(const sim__gavel_problem *p, double *x, int grouped, sim__gavel_stats *stats);

/* rho* of every k-th job of p (about FTF_SAMPLE_JOBS of them) with each
 * type's GPUs scaled by their share of the jobs; 0 when it fails. */
static double ftf_sample_rho(const sim__gavel_problem *p, uint32_t *lps)
{
    uint32_t m = p->n_jobs, n = p->n_types, k = (m + FTF_SAMPLE_JOBS - 1) / FTF_SAMPLE_JOBS;
    uint32_t ms = (m + k - 1) / k;
    double *thr = malloc((size_t)ms * n * sizeof *thr), *buf = malloc((size_t)ms * 4 * sizeof *buf);
    double *xs = malloc((size_t)ms * n * sizeof *xs), cap[PLACE_MAX_TYPES];
    double r = 0;
    if (thr && buf && xs) {
        double *gpus = buf, *left = buf + ms, *total = buf + 2 * ms, *age = buf + 3 * ms;
        for (uint32_t s = 0; s < ms; s++) {
            uint32_t i = s * k;
            memcpy(thr + (size_t)s * n, p->thr + (size_t)i * n, n * sizeof *thr);
            gpus[s] = p->gpus[i];
            left[s] = p->left_s[i];
            total[s] = p->total_s[i];
            age[s] = p->age_s[i];
        }
        for (uint32_t t = 0; t < n; t++)
            cap[t] = p->cap[t] * ms / m;
        sim__gavel_problem q = {.n_jobs = ms,
                                .n_types = n,
                                .thr = thr,
                                .gpus = gpus,
                                .cap = cap,
                                .left_s = left,
                                .total_s = total,
                                .age_s = age};
        sim__gavel_stats st = {0};
        if (solve_ftf(&q, xs, 1, &st) == TM_OK)
            r = st.objective;
        *lps += st.lps;
    }
    free(thr);
    free(buf);
    free(xs);
    return r;
}

static int solve_ftf(const sim__gavel_problem *p, double *x, int grouped, sim__gavel_stats *stats)
{
    uint32_t m = p->n_jobs, n = p->n_types, w = n + 3, G = 0;
    double *key = malloc((size_t)m * w * sizeof *key), *gk = malloc((size_t)m * w * sizeof *gk);
    double *ggpus = calloc(m, sizeof *ggpus), *gm = calloc(m, sizeof *gm);
    double *gx = calloc((size_t)m * n + 1, sizeof *gx),
           *best = calloc((size_t)m * n + 1, sizeof *best);
    double *ga = calloc((size_t)m * n + 1, sizeof *ga);
    uint32_t *grp = malloc((size_t)m * sizeof *grp), *gtype = malloc((size_t)m * sizeof *gtype);
    int *zind = malloc(((size_t)m + 1) * sizeof *zind), mode = LP_COLD;
    double *zval = malloc(((size_t)m + 1) * sizeof *zval);
    int rc = TM_OK, have = 0;
    uint32_t sample_lps = 0; /* ftf_sample_rho's LPs */
    lp L = {0};
    if (!key || !gk || !ggpus || !gm || !gx || !best || !ga || !grp || !gtype || !zind || !zval) {
        rc = TM_ERR_NOMEM;
        goto out;
    }
    double lo = 0, hi = INFINITY, rho_iso = 0;
    for (uint32_t i = 0; i < m; i++) {
        double it = iso_thr(p, i), *k = key + (size_t)i * w;
        memcpy(k, p->thr + (size_t)i * n, n * sizeof *k);
        k[n] = it > 0 ? p->total_s[i] / it : 0; /* isolated finish time */
        k[n + 1] = p->age_s[i];
        k[n + 2] = p->left_s[i];
        if (k[n] > 0) {
            double r = (k[n + 1] + (k[n + 2] > 0 ? k[n + 2] / it : 0)) / k[n];
            lo = k[n + 1] / k[n] > lo ? k[n + 1] / k[n] : lo;
            rho_iso = r > rho_iso ? r : rho_iso;
        }
    }
    if (grouped) {
        if ((G = group_rows(p, key, w, grp, gk, ggpus, gm)) == 0) {
            rc = TM_ERR_NOMEM;
            goto out;
        }
    } else {
        memcpy(gk, key, (size_t)m * w * sizeof *gk);
        for (uint32_t i = 0; i < m; i++) {
            ggpus[i] = p->gpus[i];
            gm[i] = 1;
            grp[i] = i;
        }
        G = m;
    }
    /* the columns: a group's types with a throughput, when it has an isolated time */
    for (uint32_t g = 0; g < G; g++)
        for (uint32_t t = 0; t < n; t++)
            ga[(size_t)g * n + t] = gk[(size_t)g * w + n] > 0 ? gk[(size_t)g * w + t] : 0;
    if ((rc = lp_build(&L, G, n, ga, ggpus, gm, p->cap)) != TM_OK)
        goto out;
    uint32_t n_need = 0;
    for (uint32_t g = 0; g < G; g++)
        n_need += gk[(size_t)g * w + n] > 0 && gk[(size_t)g * w + n + 2] > 0;
    if (n_need == 0) { /* nobody needs anything: X = 0 meets every rho */
        hi = lo;
        have = 1;
        goto done;
    }
    double rho = p->rho_hint > lo && p->rho_hint < rho_iso ? p->rho_hint : rho_iso;
    if (!(p->rho_hint > lo && p->rho_hint < rho_iso) && G >= FTF_SAMPLE_GROUPS) {
        /* no hint and a large problem: start from rho* of every k-th job on
         * a fleet scaled to them (the first LP's pivots, not the number of
         * LPs, are the cost, and they fall when rho starts near rho*); only
         * where to start: the bracket is still the full problem's */
        double r = ftf_sample_rho(p, &sample_lps);
        if (r > lo && r < rho_iso)
            rho = r;
    }
    double rho_prev = 0, lam_prev = 0, gap_prev = INFINITY;
    for (int step = 0; step < 80; step++) {
        int len = 0; /* z's column: -need in each level row with a need */
        for (uint32_t g = 0; g < G; g++) {
            const double *k = gk + (size_t)g * w;
            if (k[n] > 0 && k[n + 2] > 0 && glp_get_row_type(L.P, (int)(g + 1)) != GLP_FR) {
                zind[++len] = (int)(g + 1); /* rho > lo >= age / iso: the slack is positive */
                zval[len] = -k[n + 2] / (rho * k[n] - k[n + 1]);
            }
        }
        glp_set_mat_col(L.P, L.zcol, len, zind, zval);
        if (mode == LP_COLD) {
            for (uint32_t g = 0; g < G; g++)
                gx[g] = 0;
            for (int q = 1; q <= len; q++)
                gx[zind[q] - 1] = -zval[q];
            ftf_crash(&L, gk, w, ggpus, gm, p->cap, gx, gtype);
            mode = LP_PRIMAL_WARM;
        }
        if (lp_solve(&L, mode) != 0) {
            rc = TM_ERR_INTERNAL;
            goto out;
        }
        mode = LP_PRIMAL_WARM;
        double lam = glp_get_obj_val(L.P);
        if (!(lam > 0)) {
            /* In exact arithmetic every need can have some time (lambda > 0
             * above lo), but a step just above a binding job's age / iso
             * makes its need huge and the LP may round lambda to 0: that rho
             * is infeasible, as the bisection treated it, so bisect above it. */
            if (rho > lo)
                lo = rho;
            rho = 0.5 * (lo + (hi < INFINITY ? hi : rho_iso));
            stats->bisect_steps++;
            continue;
        }
        double rx = 0, lb = INFINITY;
        for (uint32_t g = 0; g < G; g++) {
            const double *k = gk + (size_t)g * w;
            double th = 0;
            for (uint32_t t = 0; t < n; t++) {
                int c = L.col[(size_t)g * n + t];
                double v = c ? glp_get_col_prim(L.P, c) : 0.0;
                v = v < 0 ? 0 : v > 1 ? 1 : v;
                gx[(size_t)g * n + t] = v;
                th += k[t] * v;
            }
            if (!(k[n] > 0))
                continue;
            double r = k[n + 2] <= 0 ? k[n + 1] / k[n]
                       : th > 0      ? (k[n + 1] + k[n + 2] / th) / k[n]
                                     : INFINITY;
            rx = r > rx ? r : rx;
            if (k[n + 2] > 0) {
                double l = (k[n + 1] + (rho * k[n] - k[n + 1]) / lam) / k[n];
                lb = l < lb ? l : lb;
            }
        }
        if (lam < 1 && rho > lo)
            lo = rho; /* infeasible: rho* is above */
        if (lb > lo && lb < INFINITY)
            lo = lb;
        if (rx < hi) {
            hi = rx;
            memcpy(best, gx, (size_t)G * n * sizeof *best);
            have = 1;
        }
        if (lo > hi)
            lo = hi; /* rounding: the bracket closed */
        double gap = hi - lo;
        if (have && gap <= FTF_TOL * hi)
            break;
        double next = hi; /* Dinkelbach's step */
        if (step > 0 && lam != lam_prev) {
            double rs = rho - (lam - 1) * (rho - rho_prev) / (lam - lam_prev);
            if (rs > lo && rs < hi)
                next = rs;
        }
        if (!(next < INFINITY) || gap > 0.5 * gap_prev || next == rho) {
            next = 0.5 * (lo + (hi < INFINITY ? hi : rho_iso)); /* stalled: bisect */
            stats->bisect_steps++;
        }
        rho_prev = rho;
        lam_prev = lam;
        gap_prev = gap;
        rho = next;
    }
    if (!have)
        rc = TM_ERR_INTERNAL;
done:
    stats->bound = lo;
    stats->objective = hi;
    if (have) {
        ftf_fill(&L, gk, w, ggpus, gm, p->cap, best, (fill_key *)key);
        double rx = 0; /* X's rho, no larger than hi */
        for (uint32_t g = 0; g < G; g++) {
            const double *k = gk + (size_t)g * w;
            double th = 0;
            for (uint32_t t = 0; t < n; t++)
                th += k[t] * best[(size_t)g * n + t];
            if (k[n] > 0) {
                double r = k[n + 2] <= 0 ? k[n + 1] / k[n] : (k[n + 1] + k[n + 2] / th) / k[n];
                rx = r > rx ? r : rx;
            }
        }
        stats->objective = rx;
        if (rx < lo)
            stats->bound = rx; /* rounding: rho* <= rho(X) */
    }
    if (have)
        for (uint32_t i = 0; i < m; i++)
            memcpy(x + (size_t)i * n, best + (size_t)grp[i] * n, n * sizeof *x);
out:
    stats->lps = L.lps + sample_lps;
    lp_fini(&L);
    free(key);
    free(gk);
    free(ggpus);
    free(gm);
    free(gx);
    free(best);
    free(ga);
    free(grp);
    free(gtype);
    free(zind);
    free(zval);
    return rc;
}

int sim__gavel_solve(int objective, const sim__gavel_problem *p, double *x, sim__gavel_stats *stats,
                     tm_diag *diag)
{
    uint32_t m = p->n_jobs, n = p->n_types;
    sim__gavel_stats local = {0};
    if (!stats)
        stats = &local;
    int single = stats->single, ungrouped = stats->ungrouped;
    memset(stats, 0, sizeof *stats);
    stats->single = single;
    stats->ungrouped = ungrouped;
    if (m == 0)
        return TM_OK;
    memset(x, 0, (size_t)m * n * sizeof *x);
    if (objective == SIM_GAVEL_FIFO)
        return solve_fifo(p, x);
    double *a = malloc((size_t)m * n * sizeof *a);
    if (!a)
        return tm_diag_set(diag, TM_ERR_NOMEM, "gavel", "out of memory");
    double capsum = 0;
    for (uint32_t t = 0; t < n; t++)
        capsum += p->cap[t];
    int rc = TM_OK;
    glp_term_out(GLP_OFF);
    if (objective == SIM_GAVEL_MAXMIN || objective == SIM_GAVEL_MAXMIN_AGNOSTIC ||
        objective == SIM_GAVEL_MAXMIN_WF || objective == SIM_GAVEL_MAKESPAN) {
        for (uint32_t i = 0; i < m; i++) {
            double prop = 0;
            for (uint32_t t = 0; t < n; t++) {
                double th = p->thr[(size_t)i * n + t];
                if (objective == SIM_GAVEL_MAXMIN_AGNOSTIC && th > 0)
                    th = 1;
                prop += capsum > 0 ? th * p->cap[t] / capsum : 0;
            }
            double w = p->weight ? p->weight[i] : 1.0;
            for (uint32_t t = 0; t < n; t++) {
                double th = p->thr[(size_t)i * n + t];
                if (objective == SIM_GAVEL_MAXMIN_AGNOSTIC && th > 0)
                    th = 1;
                double c;
                if (objective == SIM_GAVEL_MAKESPAN)
                    c = p->left_s[i] > 0 ? th / p->left_s[i] : 0;
                else
                    c = prop > 0 && w > 0 ? th * p->gpus[i] / (w * prop) : 0;
                a[(size_t)i * n + t] = c;
            }
        }
        rc = solve_grouped(p, a, x, single || objective != SIM_GAVEL_MAXMIN_WF, !stats->ungrouped,
                           &stats->objective, &stats->lps, &stats->levels);
        if (rc == TM_OK && objective == SIM_GAVEL_MAKESPAN)
            stats->objective = stats->objective > 0 ? 1.0 / stats->objective : INFINITY;
    } else { /* ftf: a Dinkelbach-type iteration on rho */
        rc = solve_ftf(p, x, !stats->ungrouped, stats);
    }
    free(a);
    if (rc == TM_ERR_NOMEM)
        return tm_diag_set(diag, rc, "gavel", "out of memory");
    if (rc != TM_OK)
        return tm_diag_set(diag, TM_ERR_INTERNAL, "gavel",
                           "the allocation LP (%s, %u jobs) was not solved",
                           sim__gavel_objective_name(objective), (unsigned)m);
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* the engine's rows                                                          */

void sim__gavel_init(sim__gavel *g, int objective, int64_t round_us, uint32_t n_types)
{
    memset(g, 0, sizeof *g);
    g->objective = objective;
    g->round_us = round_us;
    g->n_types = n_types;
    g->ts.round_us = round_us;
    g->ts.n_types = n_types;
}

void sim__gavel_fini(sim__gavel *g)
{
    if (!g)
        return;
    free(g->id);
    free(g->x);
    free(g->recv_s);
    free(g->active_s);
    free(g->n_id);
    free(g->n_x);
    free(g->n_recv);
    free(g->n_active);
    free(g->thr);
    free(g->cap);
    free(g->left);
    free(g->total);
    free(g->age);
    free(g->prevx);
    free(g->gpus);
    free(g->rhash);
    memset(g, 0, sizeof *g);
}

/* The current rows by job id (g->rhash, rebuilt when the rows change), so
 * that the per-boundary count finds a running job's row in O(1). */
static uint32_t id_slot(uint64_t id, uint32_t mask)
{
    return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

static uint32_t row_find(const sim__gavel *g, uint64_t key)
{
    if (!g->n_rhash)
        return UINT32_MAX;
    uint32_t mask = g->n_rhash - 1;
    for (uint32_t s = id_slot(key, mask);; s = (s + 1) & mask) {
        uint32_t r = g->rhash[s];
        if (r == 0)
            return UINT32_MAX;
        if (g->id[r - 1] == key)
            return r - 1;
    }
}

static int rows_index(sim__gavel *g)
{
    uint32_t slots = 16;
    while (slots < 2 * g->n_rows)
        slots *= 2;
    if (slots > g->n_rhash) {
        uint32_t *h = realloc(g->rhash, (size_t)slots * sizeof *h);
        if (!h)
            return TM_ERR_NOMEM;
        g->rhash = h;
    }
    g->n_rhash = slots;
    memset(g->rhash, 0, (size_t)slots * sizeof *g->rhash);
    for (uint32_t r = 0; r < g->n_rows; r++) {
        uint32_t s = id_slot(g->id[r], slots - 1);
        while (g->rhash[s])
            s = (s + 1) & (slots - 1);
        g->rhash[s] = r + 1;
    }
    return TM_OK;
}

void sim__gavel_account(sim__gavel *g, int64_t now_us, const uint64_t *ids, const uint32_t *types,
                        const int64_t *start_us, uint32_t n)
{
    if (now_us <= g->t_acct_us) {
        g->t_acct_us = now_us > g->t_acct_us ? now_us : g->t_acct_us;
        return;
    }
    double dt = (double)(now_us - g->t_acct_us) / 1e6;
    for (uint32_t r = 0; r < g->n_rows; r++)
        g->active_s[r] += dt;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t r = row_find(g, ids[k]);
        if (r == UINT32_MAX || types[k] >= g->n_types)
            continue;
        int64_t from = start_us[k] > g->t_acct_us ? start_us[k] : g->t_acct_us;
        if (now_us > from)
            g->recv_s[(size_t)r * g->n_types + types[k]] += (double)(now_us - from) / 1e6;
    }
    g->t_acct_us = now_us;
}

#define GROW_(p, n)                                                                                \
    do {                                                                                           \
        void *q_ = realloc((p), (size_t)(n) * sizeof *(p));                                        \
        if (!q_)                                                                                   \
            return TM_ERR_NOMEM;                                                                   \
        (p) = q_;                                                                                  \
    } while (0)

int sim__gavel_reserve(sim__gavel *g, uint32_t n)
{
    if (n <= g->n_cap && g->cap)
        return TM_OK;
    uint32_t c = g->n_cap ? g->n_cap : 64;
    while (c < n)
        c *= 2;
    size_t nt = g->n_types ? g->n_types : 1;
    GROW_(g->n_id, c);
    GROW_(g->n_x, c * nt);
    GROW_(g->n_recv, c * nt);
    GROW_(g->n_active, c);
    GROW_(g->thr, c * nt);
    GROW_(g->left, c);
    GROW_(g->total, c);
    GROW_(g->age, c);
    GROW_(g->prevx, c * nt);
    GROW_(g->gpus, c);
    if (!g->cap) {
        g->cap = calloc(nt, sizeof *g->cap);
        if (!g->cap)
            return TM_ERR_NOMEM;
    }
    g->n_cap = c;
    return TM_OK;
}

int sim__gavel_resolve(sim__gavel *g, const sim__gavel_jobs *jobs, tm_diag *diag)
{
    uint32_t n = jobs->n, nt = g->n_types;
    if (sim__gavel_reserve(g, n) != TM_OK)
        return tm_diag_set(diag, TM_ERR_NOMEM, "gavel", "out of memory");
    /* carry the received time (and, for fifo, the type) of known jobs */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = row_find(g, jobs->id[i]);
        for (uint32_t t = 0; t < nt; t++) {
            g->n_recv[(size_t)i * nt + t] = r == UINT32_MAX ? 0 : g->recv_s[(size_t)r * nt + t];
            g->prevx[(size_t)i * nt + t] = r == UINT32_MAX ? 0 : g->x[(size_t)r * nt + t];
        }
        g->n_active[i] = r == UINT32_MAX ? 0 : g->active_s[r];
    }
    sim__gavel_problem p = {
        .n_jobs = n,
        .n_types = nt,
        .thr = jobs->thr,
        .gpus = jobs->gpus,
        .cap = jobs->cap,
        .weight = jobs->weight,
        .left_s = jobs->left_s,
        .total_s = jobs->total_s,
        .age_s = jobs->age_s,
        .prev_x = g->prevx,
        .rho_hint = g->ftf_rho,
    };
    sim__gavel_stats st = {0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = sim__gavel_solve(g->objective, &p, g->n_x, &st, diag);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    g->solve_s += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    g->solves++;
    if (rc != TM_OK)
        return rc;
    if (g->objective == SIM_GAVEL_FTF)
        g->ftf_rho = st.objective;
    /* the new rows become the current ones (swap the buffers) */
    if (g->cap_rows < n || !g->id) {
        GROW_(g->id, g->n_cap);
        GROW_(g->x, (size_t)g->n_cap * (nt ? nt : 1));
        GROW_(g->recv_s, (size_t)g->n_cap * (nt ? nt : 1));
        GROW_(g->active_s, g->n_cap);
        g->cap_rows = g->n_cap;
    }
    memcpy(g->id, jobs->id, n * sizeof *g->id);
    memcpy(g->x, g->n_x, (size_t)n * nt * sizeof *g->x);
    memcpy(g->recv_s, g->n_recv, (size_t)n * nt * sizeof *g->recv_s);
    memcpy(g->active_s, g->n_active, n * sizeof *g->active_s);
    g->n_rows = n;
    if (rows_index(g) != TM_OK)
        return tm_diag_set(diag, TM_ERR_NOMEM, "gavel", "out of memory");
    g->solved = 1;
    g->ts.n_rows = n;
    g->ts.job_id = g->id;
    g->ts.x = g->x;
    g->ts.recv_s = g->recv_s;
    g->ts.active_s = g->active_s;
    return TM_OK;
}
