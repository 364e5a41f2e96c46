/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_tiresias_gittins_dist.c — the per-class GPU-service distributions
 * the engine gives Tiresias' gittins=class (sim/model/gittins_dist.c):
 * discrete and constant classes exactly, a uniform duration as its
 * mid-quantiles (checked against the formula), GPU rounding, work classes
 * over their scaling, shares, a heavy tail's clamp, the Gittins index of the
 * discretised uniform against its closed form, and a trace class refused.
 */
#include "check.h"
#include "model/gittins_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sim_class_cfg make_class(void)
{
    sim_class_cfg cc;
    memset(&cc, 0, sizeof cc);
    snprintf(cc.name, sizeof cc.name, "c");
    cc.scaling_per_doubling = 1.0;
    cc.mean_ref_gpu_s = 1.0; /* not NaN: a class with distributions */
    return cc;
}

static void fini_class(sim_class_cfg *cc)
{
    trace_dist_fini(&cc->gpus);
    trace_dist_fini(&cc->duration_s);
    trace_dist_fini(&cc->work_gpu_s);
    trace_dist_fini(&cc->share_milli);
}

/* G(a) over points (v, p) with quantum D, written out directly (no prefix
 * sums): P(a < S <= a + D) / E[min(S - a, D); S > a]. */
static double gittins_direct(const double *v, const double *p, uint32_t n, double a, double D)
{
    double done = 0, e = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (!(v[k] > a))
            continue;
        double r = v[k] - a;
        if (r <= D)
            done += p[k];
        e += p[k] * (r < D ? r : D);
    }
    return e > 0 ? done / e : 0;
}

/* 2 or 6 GPUs (0.25, 0.75) x {100 s: 0.5, 300 s: 0.5}: service {200, 600,
 * 600, 1800} with probabilities 0.125, 0.125 + 0.375, 0.375. */
static void test_discrete(void)
{
    tm_diag d;
    tm_diag_clear(&d);
    sim_class_cfg cc = make_class();
    double gv[2] = {2, 6}, gw[2] = {1, 3}, dv[2] = {100, 300}, dw[2] = {1, 1};
    CHECK_EQ_INT(trace_dist_init_discrete(&cc.gpus, gv, gw, 2, &d), TM_OK);
    CHECK_EQ_INT(trace_dist_init_discrete(&cc.duration_s, dv, dw, 2, &d), TM_OK);
    double *v, *p;
    uint32_t n;
    CHECK_EQ_INT(sim__gittins_class(&cc, &v, &p, &n, &d), TM_OK);
    CHECK_EQ_INT(n, 3);
    if (n == 3) {
        CHECK_NEAR(v[0], 200, 1e-9);
        CHECK_NEAR(v[1], 600, 1e-9);
        CHECK_NEAR(v[2], 1800, 1e-9);
        CHECK_NEAR(p[0], 0.125, 1e-12);
        CHECK_NEAR(p[1], 0.5, 1e-12);
        CHECK_NEAR(p[2], 0.375, 1e-12);
        /* D = 500: G(0) = P(S <= 500) / E[min(S, 500)] = 0.125 / (25 + 437.5) */
        CHECK_NEAR(gittins_direct(v, p, n, 0, 500), 0.125 / 462.5, 1e-12);
    }
    free(v);
    free(p);
    fini_class(&cc);
}

/* Uniform durations on [0, 100] s, 2 GPUs (1.6 rounds to 2): service uniform
 * on [0, 200], as 256 mid-quantiles 200 (k + 1/2) / 256. Its Gittins index at
 * a with D: for S uniform on [0, L], P(a < S <= a + D | S > a) = D / (L - a)
 * and E[min(S - a, D) | S > a] = D - D^2 / (2 (L - a)) when a + D <= L, so
 * G(a) = 1 / (L - a - D / 2); at a = 50, D = 25: 1 / 137.5. a and D are
 * multiples of the bin width 200 / 256, so the midpoints give it exactly
 * (32 of the 192 points above a lie in (a, a + D], and the midpoint rule is
 * exact for the linear part); at D = 20 they give it within 2 %. */
static void test_uniform(void)
{
    tm_diag d;
    tm_diag_clear(&d);
    sim_class_cfg cc = make_class();
    CHECK_EQ_INT(trace_dist_init(&cc.gpus, TRACE_DIST_CONSTANT, 1.6, 0, &d), TM_OK);
    CHECK_EQ_INT(trace_dist_init(&cc.duration_s, TRACE_DIST_UNIFORM, 0, 100, &d), TM_OK);
    double *v, *p;
    uint32_t n;
    CHECK_EQ_INT(sim__gittins_class(&cc, &v, &p, &n, &d), TM_OK);
    CHECK_EQ_INT(n, SIM_GITTINS_QUANTILES);
    double worst = 0, sum = 0;
    for (uint32_t k = 0; k < n; k++) {
        double want = 200.0 * ((double)k + 0.5) / SIM_GITTINS_QUANTILES;
        worst = fmax(worst, fabs(v[k] - want));
        sum += p[k];
    }
    CHECK(worst < 1e-6);
    CHECK_NEAR(sum, 1.0, 1e-12);
    CHECK_NEAR(gittins_direct(v, p, n, 50, 25), 1.0 / 137.5, 1e-12);
    CHECK_NEAR(gittins_direct(v, p, n, 50, 20), 1.0 / 140, 1.0 / 140 * 0.02);
    free(v);
    free(p);
    fini_class(&cc);
}

/* Work classes: service = work / e(g) with e(g) = 0.9 ^ log2(g); 4 GPUs,
 * work 1,000 GPU-s: 1000 / 0.81. Shares: a 1-GPU job at 250 milli-GPU for
 * 400 s is 100 GPU-s. */
static void test_work_and_share(void)
{
    tm_diag d;
    tm_diag_clear(&d);
    sim_class_cfg cc = make_class();
    cc.use_work = 1;
    cc.scaling_per_doubling = 0.9;
    CHECK_EQ_INT(trace_dist_init(&cc.gpus, TRACE_DIST_CONSTANT, 4, 0, &d), TM_OK);
    CHECK_EQ_INT(trace_dist_init(&cc.work_gpu_s, TRACE_DIST_CONSTANT, 1000, 0, &d), TM_OK);
    double *v, *p;
    uint32_t n;
    CHECK_EQ_INT(sim__gittins_class(&cc, &v, &p, &n, &d), TM_OK);
    CHECK_EQ_INT(n, 1);
    if (n == 1)
        CHECK_NEAR(v[0], 1000 / 0.81, 1e-9);
    free(v);
    free(p);
    fini_class(&cc);

    cc = make_class();
    cc.has_share = 1;
    CHECK_EQ_INT(trace_dist_init(&cc.gpus, TRACE_DIST_CONSTANT, 1, 0, &d), TM_OK);
    CHECK_EQ_INT(trace_dist_init(&cc.duration_s, TRACE_DIST_CONSTANT, 400, 0, &d), TM_OK);
    CHECK_EQ_INT(trace_dist_init(&cc.share_milli, TRACE_DIST_CONSTANT, 250, 0, &d), TM_OK);
    CHECK_EQ_INT(sim__gittins_class(&cc, &v, &p, &n, &d), TM_OK);
    CHECK_EQ_INT(n, 1);
    if (n == 1)
        CHECK_NEAR(v[0], 100, 1e-9);
    free(v);
    free(p);
    fini_class(&cc);
}

/* A Pareto tail (scale 60 s, alpha 0.6: no finite mean) clamped at 1 d, as
 * its samples are: the quantiles follow x_m (1 - q)^(-1/alpha) and stop at
 * the clamp (the top few merge there). */
static void test_heavy_tail(void)
{
    tm_diag d;
    tm_diag_clear(&d);
    sim_class_cfg cc = make_class();
    CHECK_EQ_INT(trace_dist_init(&cc.gpus, TRACE_DIST_CONSTANT, 1, 0, &d), TM_OK);
    CHECK_EQ_INT(trace_dist_init(&cc.duration_s, TRACE_DIST_PARETO, 60, 0.6, &d), TM_OK);
    CHECK_EQ_INT(trace_dist_set_clamp(&cc.duration_s, 0, 86400, &d), TM_OK);
    double *v, *p;
    uint32_t n;
    CHECK_EQ_INT(sim__gittins_class(&cc, &v, &p, &n, &d), TM_OK);
    CHECK(n > 100 && n < SIM_GITTINS_QUANTILES);
    if (n > 100) {
        double q0 = 0.5 / SIM_GITTINS_QUANTILES;
        CHECK_NEAR(v[0], 60 * pow(1 - q0, -1 / 0.6), 1e-6);
        CHECK_NEAR(v[n - 1], 86400, 1e-9);
        for (uint32_t k = 1; k < n; k++)
            CHECK(v[k] > v[k - 1]);
        /* decreasing hazard: the index falls as service is attained */
        CHECK(gittins_direct(v, p, n, 0, 600) > gittins_direct(v, p, n, 3600, 600));
    }
    free(v);
    free(p);
    fini_class(&cc);
}

/* A trace class (no distributions: mean_ref_gpu_s NaN) is refused with its
 * name; the policy spec is recognised only with gittins=class. */
static void test_refused(void)
{
    tm_diag d;
    tm_diag_clear(&d);
    sim_class_cfg cc = make_class();
    snprintf(cc.name, sizeof cc.name, "trace");
    cc.mean_ref_gpu_s = NAN;
    double *v, *p;
    uint32_t n;
    CHECK_EQ_INT(sim__gittins_class(&cc, &v, &p, &n, &d), TM_ERR_SCENARIO);
    CHECK(strstr(d.msg, "\"trace\"") != NULL && strstr(d.msg, "gittins=class") != NULL);
    CHECK(v == NULL && p == NULL && n == 0);
    CHECK_EQ_INT(sim__gittins_spec("tiresias-2dlas gittins=class"), 1);
    CHECK_EQ_INT(sim__gittins_spec("  tiresias-2dlas delta=10  gittins=class placement=relaxed"),
                 1);
    CHECK_EQ_INT(sim__gittins_spec("tiresias-2dlas gittins=learn"), 0);
    CHECK_EQ_INT(sim__gittins_spec("tiresias"), 0);
    CHECK_EQ_INT(sim__gittins_spec("tiresias-2dlasx gittins=class"), 0);
    CHECK_EQ_INT(sim__gittins_spec(NULL), 0);
}

int main(void)
{
    test_discrete();
    test_uniform();
    test_work_and_share();
    test_heavy_tail();
    test_refused();
    return check_finish("test_tiresias_gittins_dist");
}
