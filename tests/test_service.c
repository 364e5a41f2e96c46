/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_service.c — the service model (sim/model/service*.c) against
 * hand-worked cases, queueing theory and its own request-level simulation.
 * (One executable per module, as every test here: the queueing model, the
 * autoscaler and the request-level simulation check one another.)
 *
 *  - Erlang B/C: hand values (B(1,a) = a/(1+a), C(2,1) = 1/3, M/M/10 at a = 8
 *    from the textbook sum in long double), the backward series against the
 *    forward recursion up to n = 10^5, underflow and edge cases.
 *  - Closed forms: M/M/1 response is Exp(mu - lambda), its wait an atom plus
 *    Exp; theta = mu by hand ((4/3) e^-1 at n = 2, lambda = mu = 1) and by
 *    continuity; the general case against the textbook formula; the mean from
 *    integrating the survival function (GSL qagiu) equals 1/mu + C/theta;
 *    quantiles invert the CDF (M/M/1 in closed form).
 *  - SLO capacity: M/M/1 in closed form (lambda_max = mu + ln(1 - q) / s),
 *    f(lambda_max) = target elsewhere (wait SLO, 10^5 servers, two GPU types),
 *    an infeasible SLO gives 0.
 *  - Overflow accounting: hand-computed M/M/1 case in both modes, and
 *    demanded = slo_ok + late + unserved + api (requests and tokens) at loads
 *    below and above both capacities, with utilisation by the rule.
 *  - Interval accounting with a daily profile and growth equals the sum of its
 *    hourly pieces, also with hours offset by 30 minutes; demand equals
 *    trace_arrival_expected.
 *  - Autoscaler: a step up in load is followed after the scale-up delay, a
 *    step down after the stabilization window, to the window's maximum, worked
 *    out by hand; loading replicas are released first; lost replicas are
 *    replaced; accounting across the step shows the delay (overflow to the API
 *    only while the new replicas load).
 *  - Request-level mode where the model's assumptions hold (Poisson,
 *    exponential): attainment, mean wait and response, p95 latency and busy
 *    fraction agree with the analytic model within 4.78 standard errors of 10
 *    independent replications (Student t, 9 d.o.f., two-sided 0.001), at
 *    (servers, rho) = (1, 0.5), (8, 0.8), (64, 0.9) and with two GPU types.
 *  - Where they do not hold, in a documented direction: deterministic service
 *    waits less (exactly half at n = 1, Pollaczek-Khinchine); the Azure 2023
 *    conversation trace (bursty, its own token counts) waits more and misses
 *    a TTFT SLO more often than M/M/n predicts at the same mean load (run as
 *    `test_service azure`, skipped without the data).
 *  - Presets, configuration checks, bad input to the request-level mode.
 */
#include "model/service_int.h"

#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>

#define T_999_9 4.781 /* Student t, 9 degrees of freedom, two-sided 0.001 */
#define REPS    10

static uint64_t base_seed;

#define CHECK_REL(got, want, rel)                                                                  \
    do {                                                                                           \
        double w__ = (double)(want);                                                               \
        CHECK_NEAR(got, w__, (rel)*fabs(w__));                                                     \
    } while (0)

/* ------------------------------------------------------------------------- */
/* helpers                                                                    */

/* A service with one usable type per entry of tps[] (concurrency conc[]),
 * requests of W = 100 output tokens and no prompt work. */
static void cfg_simple(sim__svc_cfg *c, size_t n_types, const double *tps, const uint32_t *conc)
{
    sim__svc_cfg_defaults(c);
    c->tokens_in_per_req = 0.0;
    c->tokens_out_per_req = 100.0;
    for (size_t t = 0; t < n_types; t++) {
        c->tokens_per_s[t] = tps[t];
        c->concurrency[t] = conc[t];
    }
}

static void pool_or_fail(sim__svc_pool *p, const sim__svc_cfg *c, const uint32_t *ready, size_t n)
{
    tm_diag d;
    int rc = sim__svc_pool_init(p, c, ready, n, &d);
    if (rc != TM_OK)
        check_fail(__FILE__, __LINE__, "pool_init: %s: %s", d.where, d.msg);
}

/* Erlang C by the forward Erlang B recursion (as in test_engine.c). */
static double erlang_c_forward(uint32_t n, double a)
{
    double b = 1.0;
    for (uint32_t k = 1; k <= n; k++)
        b = a * b / ((double)k + a * b);
    double rho = a / n;
    return b / (1.0 - rho * (1.0 - b));
}

/* ------------------------------------------------------------------------- */
/* Erlang B and C                                                             */

static void test_erlang(void)
{
    const double as[] = {0.5, 2.0, 10.0};
    for (size_t i = 0; i < 3; i++)
        CHECK_REL(sim__svc_erlang_b(1, as[i]), as[i] / (1.0 + as[i]), 1e-15);
    CHECK_REL(sim__svc_erlang_b(2, 1.0), 0.2, 1e-15);       /* (1/2) / (1 + 1 + 1/2) */
    CHECK_REL(sim__svc_erlang_c(2, 1.0), 1.0 / 3.0, 1e-15); /* (1/2)(2) / (1 + 1 + 1) */
    /* M/M/10 at a = 8 from the textbook sum, in long double */
    {
        long double a = 8.0L, term = 1.0L, sum = 0.0L;
        for (int k = 0; k < 10; k++) {
            sum += term;
            term *= a / (long double)(k + 1);
        }
        long double top = term / (1.0L - a / 10.0L); /* a^10/10! / (1 - rho) */
        double want = (double)(top / (sum + top));
        printf("C(10, 8) = %.12f\n", want);
        CHECK_REL(sim__svc_erlang_c(10, 8.0), want, 1e-14);
        CHECK_NEAR(want, 0.4092, 5e-5); /* the textbook table value */
    }
    /* the backward series against the forward recursion */
    const uint32_t ns[] = {1, 7, 64, 1000, 100000};
    const double rhos[] = {0.3, 0.9, 0.999};
    for (size_t i = 0; i < 5; i++)
        for (size_t j = 0; j < 3; j++) {
            double a = rhos[j] * ns[i];
            double want = erlang_c_forward(ns[i], a);
            double got = sim__svc_erlang_c(ns[i], a);
            if (want > 1e-250)
                CHECK_REL(got, want, 1e-10);
            else
                CHECK(got < 1e-240);
        }
    /* B above n (a > n is fine for Erlang B) */
    for (size_t i = 0; i < 5; i++) {
        double a = 1.5 * ns[i], b = 1.0;
        for (uint32_t k = 1; k <= ns[i]; k++)
            b = a * b / ((double)k + a * b);
        CHECK_REL(sim__svc_erlang_b(ns[i], a), b, 1e-10);
    }
    /* underflow: 10^5 servers at a = 10 block with probability ~ 0 */
    CHECK(sim__svc_erlang_b(100000, 10.0) < 1e-300);
    CHECK(sim__svc_erlang_c(100000, 10.0) < 1e-300);
    CHECK_EQ_INT(sim__svc_erlang_b(0, 3.0) == 1.0, 1);
    CHECK_EQ_INT(sim__svc_erlang_b(5, 0.0) == 0.0, 1);
    CHECK_EQ_INT(sim__svc_erlang_c(5, 5.0) == 1.0, 1);
    CHECK(isnan(sim__svc_erlang_b(5, -1.0)));
    CHECK(isnan(sim__svc_erlang_c(5, NAN)));
}

/* ------------------------------------------------------------------------- */
/* closed forms                                                               */

typedef struct sf_ctx {
    const sim__svc_mmn *q;
    sim__svc_slo_kind kind;
} sf_ctx;

static double sf_cb(double t, void *ud)
{
    const sf_ctx *c = ud;
    return sim__svc_mmn_sf(c->q, c->kind, t);
}

/* P(R > t) by the textbook formula (fine away from theta = mu). */
static double resp_sf_naive(const sim__svc_mmn *q, double t)
{
    double th = q->theta, mu = q->mu;
    return (1.0 - q->c) * exp(-mu * t) + q->c * (th * exp(-mu * t) - mu * exp(-th * t)) / (th - mu);
}

static void test_closed_form(void)
{
    sim__svc_mmn q;
    /* M/M/1, lambda 0.6, mu 1: R ~ Exp(0.4); W = 0 w.p. 0.4, else Exp(0.4) */
    CHECK_EQ_INT(sim__svc_mmn_init(&q, 1, 0.6, 1.0), TM_OK);
    CHECK_REL(q.c, 0.6, 1e-15);
    const double ts[] = {0.0, 0.5, 2.0, 10.0, 60.0};
    for (size_t i = 0; i < 5; i++) {
        CHECK_REL(sim__svc_mmn_sf(&q, SIM__SVC_SLO_RESPONSE, ts[i]), exp(-0.4 * ts[i]), 1e-13);
        CHECK_REL(sim__svc_mmn_sf(&q, SIM__SVC_SLO_WAIT, ts[i]), 0.6 * exp(-0.4 * ts[i]), 1e-13);
    }
    const double ps[] = {0.5, 0.95, 0.99, 0.999};
    for (size_t i = 0; i < 4; i++) {
        CHECK_REL(sim__svc_mmn_quantile(&q, SIM__SVC_SLO_RESPONSE, ps[i]), -log(1 - ps[i]) / 0.4,
                  1e-12);
        /* wait: 0 while the atom covers p (p <= 0.4), then ln(rho / (1 - p)) / 0.4 */
        double want = ps[i] <= 0.4 ? 0.0 : log(0.6 / (1 - ps[i])) / 0.4;
        CHECK_REL(sim__svc_mmn_quantile(&q, SIM__SVC_SLO_WAIT, ps[i]), want, 1e-12);
    }
    CHECK_NEAR(sim__svc_mmn_quantile(&q, SIM__SVC_SLO_WAIT, 0.3), 0.0, 0.0);
    CHECK_REL(sim__svc_mmn_mean(&q, SIM__SVC_SLO_RESPONSE), 1.0 / 0.4, 1e-15);
    CHECK_REL(sim__svc_mmn_mean(&q, SIM__SVC_SLO_WAIT), 0.6 / 0.4, 1e-15);

    /* theta = mu: n = 2, lambda = mu = 1, C = 1/3: P(R > 1) = (4/3) e^-1 by hand */
    CHECK_EQ_INT(sim__svc_mmn_init(&q, 2, 1.0, 1.0), TM_OK);
    CHECK_REL(q.theta, q.mu, 0.0);
    CHECK_REL(sim__svc_mmn_sf(&q, SIM__SVC_SLO_RESPONSE, 1.0), 4.0 / 3.0 * exp(-1.0), 1e-14);
    double at_eq = sim__svc_mmn_sf(&q, SIM__SVC_SLO_RESPONSE, 3.0); /* (1 + 3 C) e^-3 */
    CHECK_REL(at_eq, 2.0 * exp(-3.0), 1e-14);
    /* continuity across theta = mu (the slope in lambda is O(1), so 1e-7 moves
     * the value by ~1e-7), and the textbook formula away from it */
    for (int s = -1; s <= 1; s += 2) {
        sim__svc_mmn q2;
        CHECK_EQ_INT(sim__svc_mmn_init(&q2, 2, 1.0 + s * 1e-7, 1.0), TM_OK);
        CHECK_NEAR(sim__svc_mmn_sf(&q2, SIM__SVC_SLO_RESPONSE, 3.0), at_eq, 1e-6);
        CHECK_EQ_INT(sim__svc_mmn_init(&q2, 2, 1.0 + s * 0.1, 1.0), TM_OK);
        CHECK_REL(sim__svc_mmn_sf(&q2, SIM__SVC_SLO_RESPONSE, 3.0), resp_sf_naive(&q2, 3.0), 1e-13);
    }
    CHECK_EQ_INT(sim__svc_mmn_init(&q, 8, 6.0, 1.0), TM_OK);
    for (size_t i = 0; i < 5; i++)
        CHECK_NEAR(sim__svc_mmn_sf(&q, SIM__SVC_SLO_RESPONSE, ts[i]), resp_sf_naive(&q, ts[i]),
                   1e-14);

    /* the mean from the CDF: int_0^inf P(L > t) dt = E L */
    gsl_integration_workspace *ws = gsl_integration_workspace_alloc(1000);
    CHECK(ws != NULL);
    const uint32_t ns[] = {1, 8, 64, 2, 200};
    const double rhos[] = {0.5, 0.8, 0.95, 0.5, 0.99};
    for (size_t i = 0; ws && i < 5; i++) {
        CHECK_EQ_INT(sim__svc_mmn_init(&q, ns[i], rhos[i] * ns[i] * 0.5, 0.5), TM_OK);
        for (int k = 0; k < 2; k++) {
            sf_ctx c = {&q, k ? SIM__SVC_SLO_WAIT : SIM__SVC_SLO_RESPONSE};
            gsl_function f = {sf_cb, &c};
            double got = 0, err = 0;
            int rc = gsl_integration_qagiu(&f, 0.0, 0.0, 1e-11, 1000, ws, &got, &err);
            CHECK_EQ_INT(rc, GSL_SUCCESS);
            double want = (k ? 0.0 : 1.0 / q.mu) + q.c / q.theta;
            CHECK_REL(got, want, 1e-9);
            CHECK_REL(sim__svc_mmn_mean(&q, c.kind), want, 1e-15);
            /* quantiles invert the CDF */
            for (size_t j = 0; j < 4; j++) {
                double t = sim__svc_mmn_quantile(&q, c.kind, ps[j]);
                if (t > 0)
                    CHECK_NEAR(sim__svc_mmn_cdf(&q, c.kind, t), ps[j], 1e-11);
                else
                    CHECK(sim__svc_mmn_cdf(&q, c.kind, 0.0) >= ps[j]);
            }
        }
    }
    gsl_integration_workspace_free(ws);

    CHECK_EQ_INT(sim__svc_mmn_init(&q, 2, 2.0, 1.0), TM_ERR_INVAL); /* rho = 1 */
    CHECK_EQ_INT(sim__svc_mmn_init(&q, 0, 0.1, 1.0), TM_ERR_INVAL);
    CHECK_EQ_INT(sim__svc_mmn_init(&q, 2, -1.0, 1.0), TM_ERR_INVAL);
    CHECK_EQ_INT(sim__svc_mmn_init(&q, 2, 0.5, 0.0), TM_ERR_INVAL);
}

/* ------------------------------------------------------------------------- */
/* SLO capacity                                                               */

static void test_slo_capacity(void)
{
    sim__svc_cfg c;
    sim__svc_pool p;
    /* M/M/1, mu = 1 (100 tokens/s, one slot, 100 tokens): P(R <= s) = 1 - e^{-(1 - l) s} */
    double tps = 100.0;
    uint32_t one = 1, ready = 1;
    cfg_simple(&c, 1, &tps, &one);
    c.slo_kind = SIM__SVC_SLO_RESPONSE;
    c.slo_s = 10.0;
    c.slo_target = 0.9;
    pool_or_fail(&p, &c, &ready, 1);
    CHECK_REL(p.cap_req_per_s, 1.0, 1e-15);
    CHECK_REL(p.slo_cap_req_per_s, 1.0 + log(0.1) / 10.0, 1e-10); /* 0.769741 */
    CHECK_REL(p.attain_idle, 1.0 - exp(-10.0), 1e-15);

    /* wait SLO: f(lambda_max) = target, and just above it falls short */
    c.slo_kind = SIM__SVC_SLO_WAIT;
    c.slo_s = 2.0;
    c.slo_target = 0.99;
    pool_or_fail(&p, &c, &ready, 1);
    double lm = p.slo_cap_req_per_s;
    CHECK(lm > 0 && lm < 1);
    CHECK_NEAR(sim__svc_pool_attainment(&p, lm), 0.99, 1e-10);
    CHECK(sim__svc_pool_attainment(&p, lm * (1 + 1e-6)) < 0.99);
    /* by hand: 1 - l e^{-(1 - l) 2} = 0.99 */
    CHECK_NEAR(1.0 - lm * exp(-(1.0 - lm) * 2.0), 0.99, 1e-10);

    /* 10^5 servers: 1000 replicas x 100 slots; pooling puts lambda_max near cap */
    uint32_t conc = 100, big = 1000;
    double tps_big = 1000.0; /* mu = 1000 / (100 x 100) = 0.1 per slot, 100 req/s total */
    cfg_simple(&c, 1, &tps_big, &conc);
    pool_or_fail(&p, &c, &big, 1);
    CHECK_EQ_U64(p.sub[0].servers, 100000);
    CHECK_REL(p.cap_req_per_s, 10000.0, 1e-12);
    printf("10^5 servers, wait <= 2 s at 99 %%: lambda_max / cap = %.6f\n",
           p.slo_cap_req_per_s / p.cap_req_per_s);
    CHECK(p.slo_cap_req_per_s / p.cap_req_per_s > 0.99);
    CHECK_NEAR(sim__svc_pool_attainment(&p, p.slo_cap_req_per_s), 0.99, 1e-9);

    /* two GPU types: routing weights are capacity shares, f(lambda_max) = target */
    double tps2[2] = {800.0, 200.0};
    uint32_t conc2[2] = {8, 4}, ready2[2] = {2, 3};
    cfg_simple(&c, 2, tps2, conc2);
    c.slo_kind = SIM__SVC_SLO_RESPONSE;
    c.slo_s = 8.0;
    c.slo_target = 0.9;
    pool_or_fail(&p, &c, ready2, 2);
    CHECK_EQ_U64(p.n_sub, 2);
    CHECK_REL(p.cap_req_per_s, 22.0, 1e-14); /* 2 x 8 x 1 + 3 x 4 x 0.5 */
    CHECK_REL(p.sub[0].weight, 16.0 / 22.0, 1e-14);
    CHECK_NEAR(sim__svc_pool_attainment(&p, p.slo_cap_req_per_s), 0.9, 1e-10);

    /* an SLO no load meets: idle attainment 1 - e^{-mu s} below the target */
    c.slo_s = 1.0; /* slow type: 1 - e^{-0.5} = 0.39; fast: 0.63 */
    pool_or_fail(&p, &c, ready2, 2);
    CHECK_REL(p.attain_idle, 16.0 / 22.0 * (1 - exp(-1.0)) + 6.0 / 22.0 * (1 - exp(-0.5)), 1e-14);
    CHECK_EQ_INT(p.slo_cap_req_per_s == 0.0, 1);

    /* a replica on a type the service cannot use */
    uint32_t bad_ready[2] = {1, 1};
    c.tokens_per_s[1] = 0.0;
    tm_diag d;
    CHECK_EQ_INT(sim__svc_pool_init(&p, &c, bad_ready, 2, &d), TM_ERR_INVAL);
    CHECK_STR(d.where, "service.replicas[1]");
}

/* ------------------------------------------------------------------------- */
/* overflow                                                                   */

static void check_perf_conserves(const sim__svc_perf *pf)
{
    double sum = pf->slo_ok + pf->late + pf->unserved + pf->api;
    CHECK_NEAR(sum, pf->offered, 1e-12 * (1 + pf->offered));
    CHECK(pf->slo_ok >= 0 && pf->late >= 0 && pf->unserved >= 0 && pf->api >= 0);
}

static void test_overflow(void)
{
    sim__svc_cfg c;
    sim__svc_pool p;
    sim__svc_perf pf;
    tm_diag d;
    double tps = 100.0;
    uint32_t one = 1, ready = 1;
    cfg_simple(&c, 1, &tps, &one);
    c.slo_kind = SIM__SVC_SLO_RESPONSE;
    c.slo_s = 10.0;
    c.slo_target = 0.9;
    /* hand case: M/M/1 with lambda_max = 1 + ln(0.1)/10 = 0.769741, offered 2 */
    double lm = 1.0 + log(0.1) / 10.0;
    c.overflow = SIM__SVC_OVERFLOW_MISS;
    pool_or_fail(&p, &c, &ready, 1);
    CHECK_EQ_INT(sim__svc_perf_eval(&p, 2.0, &pf, &d), TM_OK);
    CHECK_REL(pf.admitted, lm, 1e-10);
    CHECK_REL(pf.slo_ok, 0.9 * lm, 1e-9);
    CHECK_REL(pf.late, 0.1 * lm + (1.0 - lm), 1e-9); /* admitted late + served at low priority */
    CHECK_REL(pf.unserved, 1.0, 1e-12);              /* beyond the saturation throughput */
    CHECK_NEAR(pf.api, 0.0, 0.0);
    CHECK_REL(pf.util, 1.0, 1e-15);
    CHECK_REL(pf.attainment, 0.9 * lm / 2.0, 1e-9);
    check_perf_conserves(&pf);
    /* admitted latency is the M/M/1 at lambda_max: R ~ Exp(1 - lm), p90 = 10 s exactly */
    CHECK_REL(pf.response_mean_s, 1.0 / (1.0 - lm), 1e-9);
    CHECK_REL(pf.lat_mean_s, pf.response_mean_s, 1e-15);
    CHECK_REL(pf.lat_p95_s, -log(0.05) / (1.0 - lm), 1e-9);

    c.overflow = SIM__SVC_OVERFLOW_API;
    pool_or_fail(&p, &c, &ready, 1);
    CHECK_EQ_INT(sim__svc_perf_eval(&p, 2.0, &pf, &d), TM_OK);
    CHECK_REL(pf.slo_ok, 0.9 * lm, 1e-9);
    CHECK_REL(pf.late, 0.1 * lm, 1e-9);
    CHECK_REL(pf.api, 2.0 - lm, 1e-10);
    CHECK_NEAR(pf.unserved, 0.0, 0.0);
    CHECK_REL(pf.util, lm, 1e-10);
    CHECK_REL(pf.attainment, 0.9, 1e-9); /* of the requests kept on the replicas */
    check_perf_conserves(&pf);

    /* conservation and the utilisation rule across loads, both modes, 3 replicas x 4 slots */
    uint32_t conc = 4, r3 = 3;
    cfg_simple(&c, 1, &tps, &conc);
    c.slo_kind = SIM__SVC_SLO_WAIT;
    c.slo_s = 0.5;
    c.slo_target = 0.95;
    for (int mode = 0; mode < 2; mode++) {
        c.overflow = mode ? SIM__SVC_OVERFLOW_API : SIM__SVC_OVERFLOW_MISS;
        pool_or_fail(&p, &c, &r3, 1);
        const double loads[] = {0.0, 0.3, 0.9, 1.0, 1.5, 3.0};
        for (size_t i = 0; i < 6; i++) {
            double l = loads[i] * p.slo_cap_req_per_s;
            if (loads[i] == 1.5)
                l = 0.5 * (p.slo_cap_req_per_s + p.cap_req_per_s); /* between the two */
            if (loads[i] == 3.0)
                l = 3.0 * p.cap_req_per_s;
            CHECK_EQ_INT(sim__svc_perf_eval(&p, l, &pf, &d), TM_OK);
            check_perf_conserves(&pf);
            if (l <= p.slo_cap_req_per_s) {
                CHECK_NEAR(pf.unserved + pf.api, 0.0, 0.0);
                CHECK(pf.attainment >= 0.95 || l == 0.0);
                CHECK_REL(pf.util, l / p.cap_req_per_s, 1e-14);
            } else if (mode) {
                CHECK_REL(pf.api, l - p.slo_cap_req_per_s, 1e-12);
                CHECK_REL(pf.util, p.slo_cap_req_per_s / p.cap_req_per_s, 1e-14);
                CHECK_NEAR(pf.attain_admitted, 0.95, 1e-9);
            } else {
                double served = l < p.cap_req_per_s ? l : p.cap_req_per_s;
                CHECK_REL(pf.util, served / p.cap_req_per_s, 1e-14);
                CHECK_NEAR(pf.unserved, l - served, 1e-12 * l);
                CHECK_NEAR(pf.attain_admitted, 0.95, 1e-9);
            }
        }
    }

    /* no replicas: capacity 0, all of it misses or goes to the API */
    uint32_t none = 0;
    c.overflow = SIM__SVC_OVERFLOW_MISS;
    pool_or_fail(&p, &c, &none, 1);
    CHECK_EQ_INT(sim__svc_perf_eval(&p, 4.0, &pf, &d), TM_OK);
    CHECK_REL(pf.unserved, 4.0, 0.0);
    CHECK(isnan(pf.lat_p99_s));
    CHECK_NEAR(pf.attainment, 0.0, 0.0);
    CHECK_EQ_INT(sim__svc_perf_eval(&p, -1.0, &pf, &d), TM_ERR_INVAL);
}

/* ------------------------------------------------------------------------- */
/* interval accounting                                                        */

static void acct_check_equal(const sim__svc_acct *a, const sim__svc_acct *b, double rel)
{
    const sim__svc_vol *va[] = {&a->demanded, &a->slo_ok, &a->late, &a->unserved, &a->api};
    const sim__svc_vol *vb[] = {&b->demanded, &b->slo_ok, &b->late, &b->unserved, &b->api};
    for (int i = 0; i < 5; i++) {
        CHECK_NEAR(va[i]->req, vb[i]->req, rel * (1 + vb[i]->req));
        CHECK_NEAR(va[i]->tok_in, vb[i]->tok_in, rel * (1 + vb[i]->tok_in));
        CHECK_NEAR(va[i]->tok_out, vb[i]->tok_out, rel * (1 + vb[i]->tok_out));
    }
    CHECK_NEAR(a->seconds, b->seconds, rel * b->seconds);
    CHECK_NEAR(a->replica_s, b->replica_s, rel * b->replica_s);
    CHECK_NEAR(a->busy_replica_s, b->busy_replica_s, rel * (1 + b->busy_replica_s));
}

static void acct_check_conserves(const sim__svc_acct *a)
{
    sim__svc_vol o = sim__svc_acct_owned(a);
    double r = o.req + a->unserved.req + a->api.req;
    double ti = o.tok_in + a->unserved.tok_in + a->api.tok_in;
    double to = o.tok_out + a->unserved.tok_out + a->api.tok_out;
    CHECK_NEAR(r, a->demanded.req, 1e-12 * a->demanded.req);
    CHECK_NEAR(ti, a->demanded.tok_in, 1e-12 * a->demanded.tok_in);
    CHECK_NEAR(to, a->demanded.tok_out, 1e-12 * a->demanded.tok_out);
    sim__svc_vol m = sim__svc_acct_missed(a);
    CHECK_NEAR(m.req, a->late.req + a->unserved.req, 0.0);
}

static void test_interval(void)
{
    sim__svc_cfg c;
    sim__svc_pool p;
    tm_diag d;
    double tps = 1000.0;
    uint32_t conc = 10, ready = 3; /* mu = 1 per slot, 30 req/s */
    cfg_simple(&c, 1, &tps, &conc);
    c.tokens_in_per_req = 1000.0;
    /* a daily shape from 0.3 to 1.45 of 25 req/s, growth 5 % a month, starting on day 40 */
    c.load.rate_per_s = 25.0;
    for (int h = 0; h < 24; h++)
        c.load.daily[h] = 0.3 + 0.05 * h;
    c.load.growth_per_month = 0.05;
    const int64_t H = 3600 * SIM_US_PER_S, t_day = 40 * 24 * H;
    for (int mode = 0; mode < 2; mode++)
        for (int shift = 0; shift < 2; shift++) {
            c.overflow = mode ? SIM__SVC_OVERFLOW_API : SIM__SVC_OVERFLOW_MISS;
            c.load.t0_offset_s = shift ? 1800.0 : 0.0;
            CHECK_EQ_INT(sim__svc_cfg_check(&c, 1, &d), TM_OK);
            pool_or_fail(&p, &c, &ready, 1);
            sim__svc_acct whole = {0}, parts = {0};
            CHECK_EQ_INT(sim__svc_interval(&p, t_day, t_day + 24 * H, &whole, &d), TM_OK);
            /* hour boundaries: t + offset a multiple of an hour */
            int64_t off = shift ? H / 2 : 0, a = t_day;
            for (int64_t b = t_day + H - off; a < t_day + 24 * H; b += H) {
                int64_t e = b < t_day + 24 * H ? b : t_day + 24 * H;
                if (e > a)
                    CHECK_EQ_INT(sim__svc_interval(&p, a, e, &parts, &d), TM_OK);
                a = e;
            }
            acct_check_equal(&whole, &parts, 1e-12);
            acct_check_conserves(&whole);
            double want = trace_arrival_expected(&c.load, 40 * 86400.0, 41 * 86400.0);
            CHECK_REL(whole.demanded.req, want, 1e-12);
            CHECK_REL(whole.demanded.tok_in, 1000.0 * want, 1e-12);
            CHECK_REL(whole.replica_s, 3.0 * 86400.0, 1e-15);
            /* the peak hours exceed the SLO capacity, the night ones do not */
            double over = mode ? whole.api.req : whole.late.req + whole.unserved.req;
            CHECK(over > 0.0);
            CHECK(whole.busy_replica_s > 0 && whole.busy_replica_s < whole.replica_s);
            double att = sim__svc_acct_attainment(&whole);
            CHECK(att > 0.0 && att <= 1.0);
            if (mode)
                CHECK(att >= c.slo_target - 1e-9); /* API mode protects the SLO */
        }
    /* cutting matters: evaluating the whole day at its mean rate differs */
    c.load.t0_offset_s = 0.0;
    c.overflow = SIM__SVC_OVERFLOW_API;
    pool_or_fail(&p, &c, &ready, 1);
    sim__svc_acct whole = {0};
    CHECK_EQ_INT(sim__svc_interval(&p, t_day, t_day + 24 * H, &whole, &d), TM_OK);
    sim__svc_perf pf;
    CHECK_EQ_INT(sim__svc_perf_eval(&p, whole.demanded.req / 86400.0, &pf, &d), TM_OK);
    printf("daily profile: API share %.4f hour by hour, %.4f at the day's mean rate\n",
           whole.api.req / whole.demanded.req, pf.api / pf.offered);
    CHECK(fabs(whole.api.req / whole.demanded.req - pf.api / pf.offered) > 0.01);
    /* load helpers */
    CHECK_REL(sim__svc_load_mean(&c, t_day, t_day + 24 * H), whole.demanded.req / 86400.0, 1e-12);
    CHECK_EQ_INT(sim__svc_next_change_us(&c, t_day) == t_day + H, 1);
    CHECK_EQ_INT(sim__svc_next_change_us(&c, t_day + 1) == t_day + H, 1);
    c.load.t0_offset_s = 1800.0;
    CHECK_EQ_INT(sim__svc_next_change_us(&c, t_day) == t_day + H / 2, 1);
    sim__svc_cfg flat;
    cfg_simple(&flat, 1, &tps, &conc);
    CHECK_EQ_INT(sim__svc_next_change_us(&flat, 0) == INT64_MAX, 1);
    sim__svc_acct a0 = {0};
    CHECK_EQ_INT(sim__svc_interval(&p, 10, 5, &a0, &d), TM_ERR_INVAL);
}

/* ------------------------------------------------------------------------- */
/* autoscaler                                                                 */

static void test_autoscaler(void)
{
    sim__svc_cfg c;
    sim__svc_scaler s;
    sim__svc_action a;
    tm_diag d;
    /* a replica: 10 slots x mu 1 = 10 req/s; target 0.5 -> desired = ceil(load / 5) */
    double tps = 1000.0;
    uint32_t conc = 10;
    cfg_simple(&c, 1, &tps, &conc);
    c.target_util = 0.5;
    c.min_replicas = 1;
    c.max_replicas = 20;
    c.scale_up_delay_s = 300.0;
    c.scale_down_window_s = 600.0;
    c.overflow = SIM__SVC_OVERFLOW_API;
    const int64_t S = SIM_US_PER_S;
    sim__svc_scaler_init(&s, 2);
    CHECK_EQ_INT(sim__svc_scaler_step(&s, &c, 0, 10.0, tps, &a, &d), TM_OK);
    CHECK_EQ_INT(a.desired, 2);
    CHECK_EQ_INT(a.request + a.release_ready + a.release_loading, 0);
    CHECK_EQ_INT(a.next_eval_us == INT64_MAX, 1);
    /* step up at 1 h: 40 req/s -> 8 replicas, 6 new ones ready at 1 h + 300 s */
    CHECK_EQ_INT(sim__svc_scaler_step(&s, &c, 3600 * S, 40.0, tps, &a, &d), TM_OK);
    CHECK_EQ_INT(a.desired, 8);
    CHECK_EQ_INT(a.request, 6);
    CHECK_EQ_INT(a.ready_at_us == 3900 * S, 1);
    CHECK_EQ_INT(s.loading, 6);
    /* accounting across the step: 2 replicas until 3900 s, then 8 */
    sim__svc_pool p2, p8;
    uint32_t two = 2, eight = 8;
    c.load.rate_per_s = 40.0;
    pool_or_fail(&p2, &c, &two, 1);
    pool_or_fail(&p8, &c, &eight, 1);
    sim__svc_acct loading = {0}, after = {0};
    CHECK_EQ_INT(sim__svc_interval(&p2, 3600 * S, 3900 * S, &loading, &d), TM_OK);
    CHECK_EQ_INT(sim__svc_interval(&p8, 3900 * S, 7200 * S, &after, &d), TM_OK);
    CHECK_REL(loading.api.req, 300.0 * (40.0 - p2.slo_cap_req_per_s), 1e-12);
    CHECK(loading.api.req > 300.0 * 20.0); /* more than the load above 2 x 10 req/s */
    CHECK_NEAR(after.api.req, 0.0, 0.0);
    CHECK_REL(after.demanded.req, 40.0 * 3300.0, 1e-12);
    CHECK_REL(after.busy_replica_s, 0.5 * 8 * 3300.0, 1e-12); /* 40 of 80 req/s */
    CHECK_EQ_INT(sim__svc_scaler_ready(&s, 6, &d), TM_OK);
    CHECK_EQ_INT(s.ready, 8);
    /* step down at 2 h to 10 req/s (desired 2), a blip to 20 (4) at 7500 s: the
     * window holds 8 until 7200 + 600, then the largest since, 4 */
    CHECK_EQ_INT(sim__svc_scaler_step(&s, &c, 7200 * S, 10.0, tps, &a, &d), TM_OK);
    CHECK_EQ_INT(a.desired, 2);
    CHECK_EQ_INT(a.release_ready + a.release_loading, 0);
    CHECK_EQ_INT(a.next_eval_us == 7800 * S, 1);
    CHECK_EQ_INT(sim__svc_scaler_step(&s, &c, 7500 * S, 20.0, tps, &a, &d), TM_OK);
    CHECK_EQ_INT(a.desired, 4);
    CHECK_EQ_INT(a.release_ready, 0);
    CHECK_EQ_INT(a.next_eval_us == 7800 * S, 1);
    CHECK_EQ_INT(sim__svc_scaler_step(&s, &c, 7800 * S, 20.0, tps, &a, &d), TM_OK);
    CHECK_EQ_INT(a.release_ready, 4);
    CHECK_EQ_INT(s.ready, 4);
    CHECK_EQ_INT(a.next_eval_us == INT64_MAX, 1);
    /* to zero load: min 1, after the window */
    CHECK_EQ_INT(sim__svc_scaler_step(&s, &c, 8000 * S, 0.0, tps, &a, &d), TM_OK);
    CHECK_EQ_INT(a.desired, 1);
    CHECK_EQ_INT(a.release_ready, 0);
    CHECK_EQ_INT(a.next_eval_us == 8600 * S, 1);
    CHECK_EQ_INT(sim__svc_scaler_step(&s, &c, 8600 * S, 0.0, tps, &a, &d), TM_OK);
    CHECK_EQ_INT(a.release_ready, 3);
    CHECK_EQ_INT(s.ready, 1);
    /* exactly k replicas' worth does not round up; max clamps */
    CHECK_EQ_INT(sim__svc_scaler_step(&s, &c, 9000 * S, 15.0, tps, &a, &d), TM_OK);
    CHECK_EQ_INT(a.desired, 3);
    CHECK_EQ_INT(sim__svc_scaler_step(&s, &c, 9000 * S, 1e9, tps, &a, &d), TM_OK);
    CHECK_EQ_INT(a.desired, 20);
    CHECK_EQ_INT(s.ready + s.loading, 20);
    /* time going back is refused */
    CHECK_EQ_INT(sim__svc_scaler_step(&s, &c, 8999 * S, 1.0, tps, &a, &d), TM_ERR_INVAL);

    /* no window: release at once, loading replicas first */
    c.scale_down_window_s = 0.0;
    sim__svc_scaler_init(&s, 1);
    CHECK_EQ_INT(sim__svc_scaler_step(&s, &c, 0, 40.0, tps, &a, &d), TM_OK);
    CHECK_EQ_INT(a.request, 7);
    CHECK_EQ_INT(sim__svc_scaler_ready(&s, 2, &d), TM_OK);
    CHECK_EQ_INT(sim__svc_scaler_step(&s, &c, 10 * S, 5.0, tps, &a, &d), TM_OK);
    CHECK_EQ_INT(a.release_loading, 5);
    CHECK_EQ_INT(a.release_ready, 2);
    CHECK_EQ_INT(s.ready, 1);
    CHECK_EQ_INT(s.loading, 0);
    /* a lost replica is replaced at the next step */
    CHECK_EQ_INT(sim__svc_scaler_lost(&s, 1, 0, &d), TM_OK);
    CHECK_EQ_INT(sim__svc_scaler_step(&s, &c, 20 * S, 5.0, tps, &a, &d), TM_OK);
    CHECK_EQ_INT(a.request, 1);
    CHECK_EQ_INT(sim__svc_scaler_lost(&s, 1, 0, &d), TM_ERR_INVAL);
    CHECK_EQ_INT(sim__svc_scaler_ready(&s, 2, &d), TM_ERR_INVAL);

    /* the window overflowing: a long staircase down keeps the scale-down late, never early */
    c.scale_down_window_s = 1e6;
    c.max_replicas = 100;
    sim__svc_scaler_init(&s, 0);
    for (int k = 0; k < 40; k++)
        CHECK_EQ_INT(sim__svc_scaler_step(&s, &c, k * S, 5.0 * (40 - k), tps, &a, &d), TM_OK);
    CHECK_EQ_INT(s.ready + s.loading, 40);
    CHECK(s.n_win <= SIM__SVC_SCALER_WINDOW);
}

/* ------------------------------------------------------------------------- */
/* request-level mode against the analytic model                              */

typedef struct stat {
    double sum, sum2;
    int n;
} stat;

static void stat_add(stat *s, double x)
{
    s->sum += x;
    s->sum2 += x * x;
    s->n++;
}

static double stat_mean(const stat *s)
{
    return s->sum / s->n;
}

static double stat_se(const stat *s)
{
    double m = stat_mean(s);
    double v = (s->sum2 - s->n * m * m) / (s->n - 1);
    return sqrt((v > 0 ? v : 0) / s->n);
}

typedef struct reps {
    stat att, wait, resp, p95, busy;
} reps;

/* REPS independent replications, each with `counted` requests expected after
 * a warm-up of 20 % of the counted window. */
static void run_reps(const sim__svc_pool *p, double lambda, double counted,
                     sim__svc_service_dist svc, uint64_t seed, reps *out)
{
    memset(out, 0, sizeof *out);
    double t_count = counted / lambda;
    for (int r = 0; r < REPS; r++) {
        gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(g, (unsigned long)(seed + (uint64_t)r));
        sim__svc_reqsim_opts o = {0};
        o.t0_us = 0;
        o.warmup_us = (int64_t)(0.2 * t_count * SIM_US_PER_S);
        o.t1_us = o.warmup_us + (int64_t)(t_count * SIM_US_PER_S);
        o.service = svc;
        o.r = g;
        sim__svc_reqsim_result res;
        tm_diag d;
        int rc = sim__svc_reqsim_run(p, &o, &res, &d);
        CHECK_EQ_INT(rc, TM_OK);
        if (rc == TM_OK) {
            stat_add(&out->att, res.attainment);
            stat_add(&out->wait, res.wait_mean_s);
            stat_add(&out->resp, res.response_mean_s);
            stat_add(&out->p95, res.lat_p95_s);
            stat_add(&out->busy, res.busy_frac);
        }
        gsl_rng_free(g);
    }
}

#define CHECK_AGREE(name, st, want)                                                                \
    do {                                                                                           \
        double sim_ = stat_mean(&(st)), se__ = stat_se(&(st)), model_ = (want);                    \
        printf("  %-10s sim %.5f  model %.5f  SE %.5f  (%+.2f SE)\n", name, sim_, model_, se__,    \
               (sim_ - model_) / se__);                                                            \
        CHECK_NEAR(sim_, model_, T_999_9 *se__);                                                   \
        CHECK(se__ < 0.03 * fabs(model_) + 1e-3); /* sharp enough to mean something */             \
    } while (0)

static void agree_case(const char *label, size_t n_types, const double *tps, const uint32_t *conc,
                       const uint32_t *ready, double rho, sim__svc_slo_kind kind, double slo_s,
                       double counted, uint64_t seed)
{
    sim__svc_cfg c;
    sim__svc_pool p;
    sim__svc_perf pf;
    tm_diag d;
    cfg_simple(&c, n_types, tps, conc);
    c.slo_kind = kind;
    c.slo_s = slo_s;
    c.slo_target = 0.5; /* low, so that lambda_max > the load and nothing overflows */
    pool_or_fail(&p, &c, ready, n_types);
    double lambda = rho * p.cap_req_per_s;
    trace_arrival_cfg_poisson(&c.load, lambda);
    CHECK_EQ_INT(sim__svc_perf_eval(&p, lambda, &pf, &d), TM_OK);
    CHECK_NEAR(pf.admitted, lambda, 0.0);
    reps r;
    run_reps(&p, lambda, counted, SIM__SVC_SERVICE_EXP, seed, &r);
    printf("%s: rho %.2f, %u servers, %s <= %.2f s (seed %llu)\n", label, rho,
           p.sub[0].servers + (p.n_sub > 1 ? p.sub[1].servers : 0),
           kind == SIM__SVC_SLO_WAIT ? "wait" : "response", slo_s, (unsigned long long)seed);
    CHECK_AGREE("attainment", r.att, pf.attain_admitted);
    CHECK_AGREE("wait", r.wait, pf.wait_mean_s);
    CHECK_AGREE("response", r.resp, pf.response_mean_s);
    CHECK_AGREE("p95", r.p95, pf.lat_p95_s);
    CHECK_AGREE("busy", r.busy, pf.util);
}

static void test_reqsim_agrees(void)
{
    double tps1 = 100.0, tps_a = 400.0, tps_b = 1600.0;
    uint32_t c1 = 1, c4 = 4, c16 = 16, r1 = 1, r2 = 2, r4 = 4;
    /* mu = 1 per slot in each: tps / (conc x 100 tokens) */
    agree_case("M/M/1", 1, &tps1, &c1, &r1, 0.5, SIM__SVC_SLO_RESPONSE, 4.0, 1e5, base_seed + 100);
    agree_case("M/M/8", 1, &tps_a, &c4, &r2, 0.8, SIM__SVC_SLO_RESPONSE, 3.0, 1e5, base_seed + 200);
    agree_case("M/M/64", 1, &tps_b, &c16, &r4, 0.9, SIM__SVC_SLO_WAIT, 0.05, 3e5, base_seed + 300);
    /* two GPU types, mu 1 and 0.5: capacity-proportional routing */
    double tps2[2] = {800.0, 200.0};
    uint32_t conc2[2] = {8, 4}, ready2[2] = {2, 3};
    agree_case("2 types", 2, tps2, conc2, ready2, 0.85, SIM__SVC_SLO_RESPONSE, 5.0, 1e5,
               base_seed + 400);
}

/* Deterministic service (TOKENS with Poisson arrivals): the M/D/n queue waits
 * less than M/M/n; at n = 1 exactly half (Pollaczek-Khinchine). */
static void test_reqsim_deterministic(void)
{
    const uint32_t concs[2] = {1, 8};
    const uint32_t readys[2] = {1, 2};
    const double rhos[2] = {0.7, 0.85};
    for (int i = 0; i < 2; i++) {
        sim__svc_cfg c;
        sim__svc_pool p;
        sim__svc_perf pf;
        tm_diag d;
        double tps = 100.0 * concs[i]; /* mu = 1 */
        cfg_simple(&c, 1, &tps, &concs[i]);
        c.slo_kind = SIM__SVC_SLO_RESPONSE;
        c.slo_s = 10.0;
        c.slo_target = 0.5;
        pool_or_fail(&p, &c, &readys[i], 1);
        double lambda = rhos[i] * p.cap_req_per_s;
        trace_arrival_cfg_poisson(&c.load, lambda);
        CHECK_EQ_INT(sim__svc_perf_eval(&p, lambda, &pf, &d), TM_OK);
        reps r;
        run_reps(&p, lambda, 100000.0, SIM__SVC_SERVICE_TOKENS, base_seed + 500 + 100 * (uint64_t)i,
                 &r);
        double m = stat_mean(&r.wait), se = stat_se(&r.wait);
        printf("M/D/%u rho %.2f: mean wait %.5f s (SE %.5f), M/M/n %.5f s, ratio %.3f\n",
               p.sub[0].servers, rhos[i], m, se, pf.wait_mean_s, m / pf.wait_mean_s);
        CHECK(m < pf.wait_mean_s - T_999_9 * se); /* the documented direction */
        if (i == 0)
            CHECK_NEAR(m, 0.5 * pf.wait_mean_s, T_999_9 * se); /* P-K: rho / (2 mu (1 - rho)) */
        /* the response never ends before the service time: its p95 is lower too */
        CHECK(stat_mean(&r.p95) < pf.lat_p95_s);
    }
}

/* ------------------------------------------------------------------------- */
/* the Azure LLM inference trace 2023 (conversation)                          */

static int test_azure(void)
{
    const char *dir = check_data_dir();
    if (!dir)
        return check_skip("TARMAC_DATA_DIR not set");
    char path[1024];
    snprintf(path, sizeof path, "%s/azure-llm-inference-2023/splitwise_conv.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return check_skip("azure-llm-inference-2023/splitwise_conv.csv not found");
    fclose(f);
    double *t = NULL, *in = NULL, *out = NULL;
    size_t nt = 0, ni = 0, no = 0;
    tm_diag d;
    CHECK_EQ_INT(trace_csv_column(path, "arrived_at", &t, &nt, &d), TM_OK);
    CHECK_EQ_INT(trace_csv_column(path, "num_prefill_tokens", &in, &ni, &d), TM_OK);
    CHECK_EQ_INT(trace_csv_column(path, "num_decode_tokens", &out, &no, &d), TM_OK);
    CHECK(nt == ni && nt == no && nt > 1000);
    if (!(nt == ni && nt == no && nt > 1000))
        goto out;
    double span = t[nt - 1] - t[0], mean_out = 0, mean_in = 0;
    for (size_t i = 0; i < nt; i++) {
        mean_out += out[i] / (double)nt;
        mean_in += in[i] / (double)nt;
    }
    /* one H100 replica of the 8B preset (3,400 tok/s, 67 slots), the hour
     * compressed so that the model's utilisation is 0.8 */
    const sim__svc_preset *ps = sim__svc_preset_find("llama-3.1-8b-fp8");
    CHECK(ps != NULL);
    if (!ps)
        goto out;
    double tps = ps->types[0].tokens_per_s;
    uint32_t conc = ps->types[0].concurrency, ready = 1;
    sim__svc_cfg c;
    sim__svc_pool p;
    sim__svc_perf pf;
    cfg_simple(&c, 1, &tps, &conc);
    c.tokens_in_per_req = mean_in;
    c.tokens_out_per_req = mean_out;
    c.slo_kind = SIM__SVC_SLO_WAIT;
    c.slo_s = 2.0;
    c.slo_target = 0.5;
    pool_or_fail(&p, &c, &ready, 1);
    double lambda_trace = (double)(nt - 1) / span;
    double squeeze = lambda_trace / (0.8 * p.cap_req_per_s);
    sim__svc_request *rq = malloc(nt * sizeof *rq);
    CHECK(rq != NULL);
    if (!rq)
        goto out;
    for (size_t i = 0; i < nt; i++)
        rq[i] = (sim__svc_request){(t[i] - t[0]) * squeeze, in[i], out[i]};
    double len = span * squeeze, lambda = (double)(nt - 1) / len;
    CHECK_EQ_INT(sim__svc_perf_eval(&p, lambda, &pf, &d), TM_OK);
    sim__svc_reqsim_opts o = {0};
    o.t0_us = 0;
    o.t1_us = (int64_t)ceil(len * SIM_US_PER_S) + 1;
    o.reqs = rq;
    o.n_reqs = nt;
    o.service = SIM__SVC_SERVICE_TOKENS; /* each request's own decode tokens */
    sim__svc_reqsim_result res;
    CHECK_EQ_INT(sim__svc_reqsim_run(&p, &o, &res, &d), TM_OK);
    printf("Azure conv (%zu requests, x%.3f faster, rho %.2f, %u slots): mean wait %.4f s vs "
           "M/M/n %.4f s; wait <= 2 s for %.4f vs %.4f; p99 wait %.3f vs %.3f s; busy %.3f\n",
           nt, 1.0 / squeeze, pf.util, p.sub[0].servers, res.wait_mean_s, pf.wait_mean_s,
           res.attainment, pf.attain_admitted, res.lat_p99_s, pf.lat_p99_s, res.busy_frac);
    CHECK_EQ_U64(res.counted, nt);
    /* the same work as the model assumes (mean tokens), to rounding */
    CHECK_NEAR(res.busy_frac, pf.util, 0.01);
    /* the documented direction: bursty arrivals wait longer and miss more */
    CHECK(res.wait_mean_s > 2.0 * pf.wait_mean_s);
    CHECK(res.attainment < pf.attain_admitted);
    CHECK(res.lat_p99_s > pf.lat_p99_s);
    /* the arrivals alone (exponential service, so only the arrival assumption
     * fails): still more waiting than M/M/n, so burstiness is the cause */
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    CHECK(g != NULL);
    if (g) {
        gsl_rng_set(g, (unsigned long)base_seed);
        o.service = SIM__SVC_SERVICE_EXP;
        o.r = g;
        sim__svc_reqsim_result rx;
        CHECK_EQ_INT(sim__svc_reqsim_run(&p, &o, &rx, &d), TM_OK);
        printf("Azure conv arrivals, exponential service (seed %llu): mean wait %.4f s, "
               "wait <= 2 s for %.4f\n",
               (unsigned long long)base_seed, rx.wait_mean_s, rx.attainment);
        CHECK(rx.wait_mean_s > 2.0 * pf.wait_mean_s);
        gsl_rng_free(g);
    }
    free(rq);
out:
    free(t);
    free(in);
    free(out);
    return check_finish("test_service azure");
}

/* ------------------------------------------------------------------------- */
/* presets, configuration, bad input                                          */

static void test_presets(void)
{
    size_t nt, np;
    const sim_gpu_type *types = sim_catalog_builtin(&nt);
    const sim__svc_preset *ps = sim__svc_presets(&np);
    CHECK(np >= 4);
    for (size_t i = 0; i < np; i++) {
        const sim__svc_preset *p = &ps[i];
        CHECK(sim__svc_preset_find(p->name) == p);
        for (size_t k = 0; k < p->n_types; k++) {
            int t = sim_catalog_find(types, nt, p->types[k].gpu_type);
            CHECK(t >= 0);
            /* the replica fits the GPU it is rated on */
            if (t >= 0)
                CHECK(p->gpu_mem_mib <= types[t].mem_mib);
            CHECK(p->types[k].tokens_per_s > 0 && p->types[k].concurrency > 0);
        }
        sim__svc_cfg c;
        sim__svc_cfg_defaults(&c);
        tm_diag d;
        CHECK_EQ_INT(sim__svc_cfg_apply_preset(&c, p, types, nt, &d), TM_OK);
        CHECK_EQ_INT(sim__svc_cfg_check(&c, nt, &d), TM_OK);
    }
    const sim__svc_preset *p8 = sim__svc_preset_find("llama-3.1-8b-fp8");
    const sim__svc_preset *p70 = sim__svc_preset_find("llama-3.1-70b-fp8-tp2");
    CHECK(p8 && p70);
    if (!p8 || !p70)
        return;
    sim__svc_cfg c;
    tm_diag d;
    sim__svc_cfg_defaults(&c);
    CHECK_EQ_INT(sim__svc_cfg_apply_preset(&c, p8, types, nt, &d), TM_OK);
    int h100 = sim_catalog_find(types, nt, "H100"), a100 = sim_catalog_find(types, nt, "A100-80GB");
    int l4 = sim_catalog_find(types, nt, "L4");
    CHECK(h100 >= 0 && a100 >= 0 && l4 >= 0);
    if (h100 < 0 || a100 < 0 || l4 < 0)
        return;
    CHECK_NEAR(c.tokens_per_s[h100], 3400.0, 0.0);
    CHECK_EQ_INT(c.concurrency[h100], 67); /* 3,400 x 19.8 ms */
    CHECK_NEAR(c.tokens_per_s[a100], 1518.0, 0.0);
    CHECK_EQ_INT(c.concurrency[a100], 65); /* 1,518 x 42.9 ms */
    CHECK_EQ_INT(sim__svc_type_ok(&c, (uint32_t)l4), 0);
    CHECK_EQ_U64(c.gpu_mem_mib, 27627); /* 8.03e9 B + 78 x 2,048 x 128 KiB, in MiB, rounded up */
    sim__svc_cfg_defaults(&c);
    CHECK_EQ_INT(sim__svc_cfg_apply_preset(&c, p70, types, nt, &d), TM_OK);
    CHECK_EQ_INT(c.replica_gpus, 2);
    CHECK_NEAR(c.tokens_per_s[h100], 1728.0, 0.0);
    CHECK_EQ_INT(c.concurrency[h100], 85); /* 1,728 x 49 ms */
    /* a scenario with none of the preset's types */
    sim_gpu_type only_l4 = types[l4];
    CHECK_EQ_INT(sim__svc_cfg_apply_preset(&c, p70, &only_l4, 1, &d), TM_ERR_INVAL);
    CHECK(sim__svc_preset_find("no-such-model") == NULL);
}

static void expect_bad(const sim__svc_cfg *c, const char *where)
{
    tm_diag d;
    tm_diag_clear(&d);
    int rc = sim__svc_cfg_check(c, 2, &d);
    CHECK_EQ_INT(rc, TM_ERR_INVAL);
    if (rc != TM_OK)
        CHECK_STR(d.where, where);
}

static void test_cfg_check(void)
{
    double tps[2] = {100.0, 0.0};
    uint32_t conc[2] = {0, 0};
    sim__svc_cfg base, c;
    cfg_simple(&base, 2, tps, conc);
    tm_diag d;
    CHECK_EQ_INT(sim__svc_cfg_check(&base, 2, &d), TM_OK);
    CHECK_EQ_INT(sim__svc_concurrency(&base, 0), SIM__SVC_CONCURRENCY_DEFAULT);
    c = base, c.replica_gpus = 0, expect_bad(&c, "service.replica_gpus");
    c = base, c.type_mask = 4, expect_bad(&c, "service.type_mask");
    c = base, c.type_mask = 2, expect_bad(&c, "service.tokens_per_s"); /* only type 1: 0 tok/s */
    c = base, c.tokens_per_s[1] = -1, expect_bad(&c, "service.tokens_per_s[1]");
    c = base, c.tokens_per_s[0] = NAN, expect_bad(&c, "service.tokens_per_s[0]");
    c = base, c.tokens_out_per_req = 0, expect_bad(&c, "service.tokens_out_per_req");
    c = base, c.tokens_in_per_req = INFINITY, expect_bad(&c, "service.tokens_in_per_req");
    c = base, c.prefill_weight = -0.5, expect_bad(&c, "service.prefill_weight");
    c = base, c.load.daily[3] = -1, expect_bad(&c, "service.load.daily[3]");
    c = base, c.slo_s = 0, expect_bad(&c, "service.slo_s");
    c = base, c.slo_target = 1.0, expect_bad(&c, "service.slo_target");
    c = base, c.slo_kind = (sim__svc_slo_kind)7, expect_bad(&c, "service.slo_kind");
    c = base, c.overflow = (sim__svc_overflow)7, expect_bad(&c, "service.overflow");
    c = base, c.max_replicas = 0, c.min_replicas = 0, expect_bad(&c, "service.max_replicas");
    c = base, c.min_replicas = 5, c.max_replicas = 4, expect_bad(&c, "service.min_replicas");
    c = base, c.target_util = 0, expect_bad(&c, "service.target_util");
    c = base, c.scale_up_delay_s = -1, expect_bad(&c, "service.scale_up_delay_s");
    c = base, c.scale_down_window_s = NAN, expect_bad(&c, "service.scale_down_window_s");
    /* with prompt work, W = out + weight x in */
    c = base, c.tokens_out_per_req = 0, c.tokens_in_per_req = 1000, c.prefill_weight = 0.1;
    CHECK_EQ_INT(sim__svc_cfg_check(&c, 2, &d), TM_OK);
    CHECK_REL(sim__svc_work_per_req(&c), 100.0, 1e-15);
}

static void test_reqsim_bad_input(void)
{
    double tps = 100.0;
    uint32_t one = 1, ready = 1, none = 0;
    sim__svc_cfg c;
    sim__svc_pool p;
    sim__svc_reqsim_result res;
    tm_diag d;
    cfg_simple(&c, 1, &tps, &one);
    trace_arrival_cfg_poisson(&c.load, 0.5);
    pool_or_fail(&p, &c, &ready, 1);
    sim__svc_request rq[3] = {{0.0, 10, 100}, {2.0, 10, 100}, {1.0, 10, 100}};
    sim__svc_reqsim_opts o = {0};
    o.t1_us = 10 * SIM_US_PER_S;
    o.reqs = rq;
    o.n_reqs = 3;
    o.service = SIM__SVC_SERVICE_TOKENS;
    CHECK_EQ_INT(sim__svc_reqsim_run(&p, &o, &res, &d), TM_ERR_INVAL); /* not sorted */
    CHECK_STR(d.where, "service.reqsim.reqs[2]");
    /* two sorted requests by hand: service 1 s each, the second arrives at 0.5 s */
    rq[1].t_s = 0.5;
    o.n_reqs = 2;
    CHECK_EQ_INT(sim__svc_reqsim_run(&p, &o, &res, &d), TM_OK);
    CHECK_EQ_U64(res.counted, 2);
    CHECK_REL(res.wait_mean_s, 0.25, 1e-15);     /* (0 + 0.5) / 2 */
    CHECK_REL(res.response_mean_s, 1.25, 1e-15); /* (1 + 1.5) / 2 */
    CHECK_REL(res.served.tok_out, 200.0, 0.0);
    o.service = SIM__SVC_SERVICE_EXP; /* needs a generator */
    CHECK_EQ_INT(sim__svc_reqsim_run(&p, &o, &res, &d), TM_ERR_INVAL);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, (unsigned long)base_seed);
    sim__svc_reqsim_opts o2 = {0};
    o2.t1_us = 1000 * SIM_US_PER_S;
    o2.max_requests = 10;
    o2.r = g;
    CHECK_EQ_INT(sim__svc_reqsim_run(&p, &o2, &res, &d), TM_ERR_LIMIT);
    pool_or_fail(&p, &c, &none, 1);
    CHECK_EQ_INT(sim__svc_reqsim_run(&p, &o2, &res, &d), TM_ERR_INVAL);
    gsl_rng_free(g);
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    base_seed = check_seed(20240611);
    if (argc > 1 && strcmp(argv[1], "azure") == 0)
        return test_azure();
    test_erlang();
    test_closed_form();
    test_slo_capacity();
    test_overflow();
    test_interval();
    test_autoscaler();
    test_presets();
    test_cfg_check();
    test_reqsim_bad_input();
    test_reqsim_agrees();
    test_reqsim_deterministic();
    return check_finish("test_service");
}
