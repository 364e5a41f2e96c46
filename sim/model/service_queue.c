/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service_queue.c — the queueing model of a service's ready replicas: M/M/n
 * subpools of batch slots, the SLO capacity and the overflow rule, and
 * interval accounting of demand (service_int.h has the contract,
 * docs/services.md the derivations and sources).
 *
 * How it works:
 *  - Erlang B by the backward form of its recursion: 1/B(n, a) is the sum over
 *    i of n (n-1) ... (n-i+1) / a^i, positive terms that rise while n - i > a
 *    and then fall faster than a Gaussian of width sqrt(a), so the sum stops
 *    after O(sqrt(n)) terms with a bound on the tail; a sum past 1e300 means B
 *    is below 1e-300 and is returned as 0. Erlang C = B / (1 - rho + rho B).
 *  - Latency CDFs in closed form (service_int.h), the response time's written
 *    with phi(x) = -expm1(-x) / x so that theta = mu is not a special case and
 *    theta near mu loses nothing. Quantiles by bisection on the survival
 *    function (a mixture over subpools when GPU types differ).
 *  - The SLO capacity by bisection on the utilisation: the fraction meeting
 *    the SLO falls as the load rises (Erlang C rises, theta falls), so the set
 *    of loads that meet the target is an interval [0, lambda_max].
 *  - Interval accounting cuts at hour boundaries of the load profile and
 *    evaluates each piece at its mean rate (its exact expected demand divided
 *    by its length), so the totals are additive over hour-aligned pieces.
 */
#include "model/service_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define HOUR_S 3600.0

/* ------------------------------------------------------------------------- */
/* M/M/n                                                                      */

double sim__svc_erlang_b(uint32_t n, double a)
{
    if (!(isfinite(a) && a >= 0.0))
        return NAN;
    if (n == 0)
        return 1.0;
    if (a == 0.0)
        return 0.0;
    /* 1/B = sum_{i=0..n} term_i, term_i = term_{i-1} (n - i + 1) / a. Once
     * r = (n - i) / a < 1 the later terms fall at least geometrically by r, so
     * the tail is below term r / (1 - r): stop when that is below 1e-17 sum. */
    double sum = 1.0, term = 1.0;
    for (uint32_t i = 1; i <= n; i++) {
        term *= (double)(n - i + 1) / a;
        sum += term;
        if (sum > 1e300)
            return 0.0;
        double rest = (double)(n - i);
        if (rest < a && term * rest < 1e-17 * sum * (a - rest))
            break;
    }
    return 1.0 / sum;
}

double sim__svc_erlang_c(uint32_t n, double a)
{
    if (!(isfinite(a) && a >= 0.0))
        return NAN;
    if (a >= (double)n)
        return 1.0;
    double b = sim__svc_erlang_b(n, a);
    double rho = a / (double)n;
    return b / (1.0 - rho + rho * b);
}

int sim__svc_mmn_init(sim__svc_mmn *q, uint32_t n, double lambda, double mu)
{
    memset(q, 0, sizeof *q);
    if (n < 1 || !(isfinite(mu) && mu > 0.0) || !(isfinite(lambda) && lambda >= 0.0))
        return TM_ERR_INVAL;
    double a = lambda / mu;
    double theta = (double)n * mu - lambda;
    if (!(a < (double)n && theta > 0.0))
        return TM_ERR_INVAL;
    q->n = n;
    q->lambda = lambda;
    q->mu = mu;
    q->a = a;
    q->rho = a / (double)n;
    q->c = sim__svc_erlang_c(n, a);
    q->theta = theta;
    return TM_OK;
}

/* (1 - e^{-x}) / x for x >= 0, 1 at 0. */
static double phi(double x)
{
    return x == 0.0 ? 1.0 : -expm1(-x) / x;
}

double sim__svc_mmn_sf(const sim__svc_mmn *q, sim__svc_slo_kind kind, double t_s)
{
    if (isnan(t_s))
        return NAN;
    if (t_s < 0.0)
        return 1.0;
    if (kind == SIM__SVC_SLO_WAIT)
        return q->c * exp(-q->theta * t_s);
    double m = q->theta < q->mu ? q->theta : q->mu;
    return exp(-q->mu * t_s) +
           q->c * q->mu * t_s * exp(-m * t_s) * phi(fabs(q->theta - q->mu) * t_s);
}

double sim__svc_mmn_cdf(const sim__svc_mmn *q, sim__svc_slo_kind kind, double t_s)
{
    return 1.0 - sim__svc_mmn_sf(q, kind, t_s);
}

double sim__svc_mmn_mean(const sim__svc_mmn *q, sim__svc_slo_kind kind)
{
    double w = q->c / q->theta;
    return kind == SIM__SVC_SLO_WAIT ? w : 1.0 / q->mu + w;
}

/* A mixture of M/M/n queues with weights summing to 1 (one entry: a queue). */
typedef struct mix {
    size_t n;
    const sim__svc_mmn *q;
    const double *w;
    sim__svc_slo_kind kind;
} mix;

static double mix_sf(const mix *m, double t)
{
    double s = 0.0;
    for (size_t i = 0; i < m->n; i++)
        s += m->w[i] * sim__svc_mmn_sf(&m->q[i], m->kind, t);
    return s;
}

static double mix_mean(const mix *m)
{
    double s = 0.0;
    for (size_t i = 0; i < m->n; i++)
        s += m->w[i] * sim__svc_mmn_mean(&m->q[i], m->kind);
    return s;
}

/* The smallest t with sf(t) <= 1 - p, by bisection: ~45 steps to 1e-13. */
static double mix_quantile(const mix *m, double p)
{
    if (!(p > 0.0 && p < 1.0))
        return NAN;
    double s = 1.0 - p;
    if (mix_sf(m, 0.0) <= s)
        return 0.0;
    double hi = 0.0;
    for (size_t i = 0; i < m->n; i++) /* a scale: the slowest mean service */
        if (1.0 / m->q[i].mu > hi)
            hi = 1.0 / m->q[i].mu;
    double mean = mix_mean(m);
    if (mean > hi)
        hi = mean;
    int k = 0;
    while (mix_sf(m, hi) > s) {
        hi *= 2.0;
        if (++k > 2000 || !isfinite(hi))
            return INFINITY;
    }
    double lo = 0.0;
    for (k = 0; k < 400 && hi - lo > 1e-13 * hi; k++) {
        double mid = lo + 0.5 * (hi - lo);
        if (mix_sf(m, mid) <= s)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

double sim__svc_mmn_quantile(const sim__svc_mmn *q, sim__svc_slo_kind kind, double p)
{
    double one = 1.0;
    mix m = {1, q, &one, kind};
    return mix_quantile(&m, p);
}

/* ------------------------------------------------------------------------- */
/* Pools                                                                      */

/* The subpools' queues at total arrival rate lambda < cap (weights = routing). */
static void pool_queues(const sim__svc_pool *pool, double lambda, sim__svc_mmn *q, double *w)
{
    for (size_t i = 0; i < pool->n_sub; i++) {
        const sim__svc_sub *s = &pool->sub[i];
        double l = lambda * s->weight;
        if (l >= s->cap) /* rounding at rho -> 1 */
            l = nextafter(s->cap, 0.0);
        int rc = sim__svc_mmn_init(&q[i], s->servers, l, s->mu);
        if (rc != TM_OK) { /* theta rounded to 0: a queue that waits for ever */
            q[i] = (sim__svc_mmn){s->servers, l, s->mu, l / s->mu, l / s->cap, 1.0, 0.0};
        }
        w[i] = s->weight;
    }
}

double sim__svc_pool_attainment(const sim__svc_pool *pool, double lambda_req_per_s)
{
    if (pool->n_sub == 0)
        return 0.0;
    if (!(lambda_req_per_s >= 0.0))
        return NAN;
    if (lambda_req_per_s >= pool->cap_req_per_s)
        return 0.0;
    sim__svc_mmn q[PLACE_MAX_TYPES];
    double w[PLACE_MAX_TYPES];
    pool_queues(pool, lambda_req_per_s, q, w);
    mix m = {pool->n_sub, q, w, pool->cfg->slo_kind};
    return 1.0 - mix_sf(&m, pool->cfg->slo_s);
}

int sim__svc_pool_init(sim__svc_pool *pool, const sim__svc_cfg *cfg, const uint32_t *ready_by_type,
                       size_t n_types, tm_diag *diag)
{
    memset(pool, 0, sizeof *pool);
    pool->cfg = cfg;
    double w = sim__svc_work_per_req(cfg);
    if (!(isfinite(w) && w > 0.0))
        return sim__svc_bad(diag, "tokens_out_per_req", "work per request > 0", w);
    if (n_types > PLACE_MAX_TYPES)
        return sim__svc_bad(diag, "types", "at most 64 GPU types", (double)n_types);
    pool->work_per_req = w;
    double cap = 0.0;
    for (uint32_t t = 0; t < n_types; t++) {
        uint32_t r = ready_by_type[t];
        if (r == 0)
            continue;
        if (!sim__svc_type_ok(cfg, t)) {
            char where[64];
            snprintf(where, sizeof where, "service.replicas[%u]", t);
            return tm_diag_set(diag, TM_ERR_INVAL, where,
                               "%u replicas on GPU type %u, which the service cannot use", r, t);
        }
        uint64_t servers = (uint64_t)r * sim__svc_concurrency(cfg, t);
        if (servers > SIM__SVC_SERVERS_MAX) {
            char where[64];
            snprintf(where, sizeof where, "service.replicas[%u]", t);
            return tm_diag_set(diag, TM_ERR_LIMIT, where,
                               "%llu batch slots, more than the model's limit %u",
                               (unsigned long long)servers, (unsigned)SIM__SVC_SERVERS_MAX);
        }
        sim__svc_sub *s = &pool->sub[pool->n_sub++];
        s->type = t;
        s->replicas = r;
        s->servers = (uint32_t)servers;
        s->mu = cfg->tokens_per_s[t] / ((double)sim__svc_concurrency(cfg, t) * w);
        s->cap = (double)servers * s->mu;
        pool->replicas += r;
        cap += s->cap;
    }
    pool->cap_req_per_s = cap;
    if (pool->n_sub == 0)
        return TM_OK; /* capacity 0: everything overflows */
    double idle = 0.0;
    for (size_t i = 0; i < pool->n_sub; i++) {
        sim__svc_sub *s = &pool->sub[i];
        s->weight = s->cap / cap;
        /* at a vanishing load nobody waits: the response is the service alone */
        double f = cfg->slo_kind == SIM__SVC_SLO_WAIT ? 1.0 : -expm1(-s->mu * cfg->slo_s);
        idle += s->weight * f;
    }
    pool->attain_idle = idle;
    if (idle < cfg->slo_target)
        return TM_OK; /* no load meets the target: lambda_max = 0 */
    /* f(rho cap) >= target at lo, < target at hi (f -> 0 as rho -> 1) */
    double lo = 0.0, hi = 1.0;
    for (int k = 0; k < 200 && hi - lo > 1e-12; k++) {
        double mid = lo + 0.5 * (hi - lo);
        if (sim__svc_pool_attainment(pool, mid * cap) >= cfg->slo_target)
            lo = mid;
        else
            hi = mid;
    }
    pool->slo_cap_req_per_s = lo * cap;
    return TM_OK;
}

/* The rates of the overflow rule (no latency statistics): cheap. */
static void perf_rates(const sim__svc_pool *pool, double offered, sim__svc_perf *p)
{
    memset(p, 0, sizeof *p);
    p->offered = offered;
    p->cap = pool->cap_req_per_s;
    p->slo_cap = pool->slo_cap_req_per_s;
    double adm = offered < p->slo_cap ? offered : p->slo_cap;
    double f =
        pool->n_sub ? (adm > 0.0 ? sim__svc_pool_attainment(pool, adm) : pool->attain_idle) : NAN;
    p->admitted = adm;
    p->attain_admitted = f;
    p->slo_ok = adm > 0.0 ? adm * f : 0.0;
    p->late = adm > 0.0 ? adm - p->slo_ok : 0.0;
    double excess = offered - adm;
    if (pool->cfg->overflow == SIM__SVC_OVERFLOW_API) {
        p->api = excess;
        p->util = p->cap > 0.0 ? adm / p->cap : 0.0;
    } else {
        double served = offered < p->cap ? offered : p->cap; /* all the replicas can do */
        double extra = served - adm > 0.0 ? served - adm : 0.0;
        if (extra > excess)
            extra = excess;
        p->late += extra;
        p->unserved = excess - extra;
        p->util = p->cap > 0.0 ? served / p->cap : 0.0;
    }
    double kept = offered - p->api;
    p->attainment = kept > 0.0 ? p->slo_ok / kept : NAN;
}

int sim__svc_perf_eval(const sim__svc_pool *pool, double offered_req_per_s, sim__svc_perf *perf,
                       tm_diag *diag)
{
    /* The highest offered load the model evaluates is the bound on a peak
     * rate (TRACE_ARRIVAL_PEAK_MAX_PER_S, held by traces/arrival.c at load
     * and, with growth over the horizon, by admission): the engine keeps rates
     * in its time series as int64 micro-requests/s (SIM_RATE_SCALE), and
     * 1e12 x 1e6 stays below 2^63. Past it here is a bug of tarmac. */
    if (!(offered_req_per_s >= 0.0 && offered_req_per_s <= TRACE_ARRIVAL_PEAK_MAX_PER_S))
        return sim__svc_bad(diag, "load", "a rate in [0, 1e12] requests/s", offered_req_per_s);
    perf_rates(pool, offered_req_per_s, perf);
    if (pool->n_sub == 0) {
        perf->wait_mean_s = perf->response_mean_s = NAN;
        perf->lat_mean_s = perf->lat_p50_s = perf->lat_p95_s = perf->lat_p99_s = NAN;
        return TM_OK;
    }
    sim__svc_mmn q[PLACE_MAX_TYPES];
    double w[PLACE_MAX_TYPES];
    pool_queues(pool, perf->admitted, q, w);
    mix mw = {pool->n_sub, q, w, SIM__SVC_SLO_WAIT};
    mix mr = {pool->n_sub, q, w, SIM__SVC_SLO_RESPONSE};
    perf->wait_mean_s = mix_mean(&mw);
    perf->response_mean_s = mix_mean(&mr);
    const mix *ml = pool->cfg->slo_kind == SIM__SVC_SLO_WAIT ? &mw : &mr;
    perf->lat_mean_s = mix_mean(ml);
    perf->lat_p50_s = mix_quantile(ml, 0.50);
    perf->lat_p95_s = mix_quantile(ml, 0.95);
    perf->lat_p99_s = mix_quantile(ml, 0.99);
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* Interval accounting                                                        */

static void vol_add(sim__svc_vol *v, const sim__svc_cfg *cfg, double req)
{
    v->req += req;
    v->tok_in += req * cfg->tokens_in_per_req;
    v->tok_out += req * cfg->tokens_out_per_req;
}

int sim__svc_interval(const sim__svc_pool *pool, int64_t t0_us, int64_t t1_us, sim__svc_acct *acct,
                      tm_diag *diag)
{
    if (t1_us < t0_us)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.interval",
                           "expected t1 >= t0, got [%lld, %lld) us", (long long)t0_us,
                           (long long)t1_us);
    const sim__svc_cfg *cfg = pool->cfg;
    double t0 = (double)t0_us / (double)SIM_US_PER_S, t1 = (double)t1_us / (double)SIM_US_PER_S;
    double off = cfg->load.t0_offset_s;
    /* pieces [a, b) on which the profile is constant: O(hours) */
    double h = floor((t0 + off) / HOUR_S);
    for (double a = t0; a < t1; h += 1.0) {
        double b = (h + 1.0) * HOUR_S - off;
        if (b > t1)
            b = t1;
        if (b <= a)
            continue; /* rounding at a boundary */
        double n = trace_arrival_expected(&cfg->load, a, b);
        if (!isfinite(n))
            return tm_diag_set(diag, TM_ERR_INVAL, "service.load",
                               "no finite expected demand over [%.17g, %.17g) s", a, b);
        double dt = b - a;
        sim__svc_perf p;
        perf_rates(pool, n / dt, &p);
        acct->seconds += dt;
        vol_add(&acct->demanded, cfg, n);
        vol_add(&acct->slo_ok, cfg, p.slo_ok * dt);
        vol_add(&acct->late, cfg, p.late * dt);
        vol_add(&acct->unserved, cfg, p.unserved * dt);
        vol_add(&acct->api, cfg, p.api * dt);
        acct->replica_s += (double)pool->replicas * dt;
        acct->busy_replica_s += p.util * (double)pool->replicas * dt;
        a = b;
    }
    return TM_OK;
}

static sim__svc_vol vol_sum(const sim__svc_vol *x, const sim__svc_vol *y)
{
    return (sim__svc_vol){x->req + y->req, x->tok_in + y->tok_in, x->tok_out + y->tok_out};
}

sim__svc_vol sim__svc_acct_owned(const sim__svc_acct *acct)
{
    return vol_sum(&acct->slo_ok, &acct->late);
}

sim__svc_vol sim__svc_acct_missed(const sim__svc_acct *acct)
{
    return vol_sum(&acct->late, &acct->unserved);
}

double sim__svc_acct_attainment(const sim__svc_acct *acct)
{
    double kept = acct->demanded.req - acct->api.req;
    return kept > 0.0 ? acct->slo_ok.req / kept : NAN;
}

/* The stationary mean of the MMPP multiplier (pi_i proportional to the sojourn). */
static double mmpp_mean(const trace_arrival_cfg *c)
{
    if (c->mmpp_states <= 1)
        return c->mmpp_mult[0];
    double num = 0.0, den = 0.0;
    for (uint32_t i = 0; i < c->mmpp_states && i < TRACE_MMPP_MAX_STATES; i++) {
        num += c->mmpp_mult[i] * c->mmpp_sojourn_s[i];
        den += c->mmpp_sojourn_s[i];
    }
    return den > 0.0 ? num / den : NAN;
}

double sim__svc_load_mean(const sim__svc_cfg *cfg, int64_t t0_us, int64_t t1_us)
{
    double t0 = (double)t0_us / (double)SIM_US_PER_S, t1 = (double)t1_us / (double)SIM_US_PER_S;
    if (t1_us <= t0_us)
        return trace_arrival_rate(&cfg->load, t0) * mmpp_mean(&cfg->load);
    return trace_arrival_expected(&cfg->load, t0, t1) / (t1 - t0);
}

int64_t sim__svc_next_change_us(const sim__svc_cfg *cfg, int64_t t_us)
{
    const trace_arrival_cfg *l = &cfg->load;
    int flat = l->growth_per_month == 0.0;
    for (int i = 1; i < 24 && flat; i++)
        flat = l->daily[i] == l->daily[0];
    for (int i = 1; i < 7 && flat; i++)
        flat = l->weekly[i] == l->weekly[0];
    if (flat)
        return INT64_MAX;
    double t = (double)t_us / (double)SIM_US_PER_S;
    double h = floor((t + l->t0_offset_s) / HOUR_S) + 1.0;
    for (int k = 0; k < 4; k++, h += 1.0) {
        double b = h * HOUR_S - l->t0_offset_s;
        if (!(b < TRACE_ARRIVAL_T_MAX_S))
            return INT64_MAX;
        int64_t b_us = (int64_t)ceil(b * (double)SIM_US_PER_S);
        if (b_us > t_us)
            return b_us;
    }
    return t_us + 1; /* unreachable for |t| within the arrival range */
}
