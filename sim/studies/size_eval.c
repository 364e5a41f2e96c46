/* SPDX-License-Identifier: Apache-2.0 */
/*
 * size_eval.c — sizing by simulation, its evaluation: a candidate fleet (nodes
 * per searched pool, at a demand factor) simulated with R replications and
 * judged by the decision rule of size_int.h (one-sided confidence bounds of
 * each term's mean over the replications; any rejected job fails the fleet).
 *
 * How it works: each replication runs sim_run on a shallow copy of the base
 * scenario with the searched pools resized, the rates scaled by the demand
 * factor and (for breakeven) services made elastic, streaming job rows into
 * per-class accumulators (waits, bounded slowdown, deadlines; jobs arriving
 * in the warm-up are not counted) and reading services' SLO attainment and
 * API share from the result; the cost model prices the fleet as given and as
 * owned, reserved and on demand. Replications run on the worker pool of
 * work.c (-j N); each uses its own random streams, so the answer is the same
 * for any number of workers.
 */
#include "studies/size_int.h"

#include "studies/compare_int.h"
#include "model/cost_int.h"
#include "model/metrics_int.h"
#include "model/service_int.h"
#include "studies/work_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cls_acc {
    sim_quantiles wait; /* started jobs, and waiting ones with the wait so far */
    double wait_sum_s;
    uint64_t n_wait;
    double slowdown_sum;
    uint64_t n_done;
    uint64_t dl_met, dl_missed;
} cls_acc;

/* The backlog monitor of one replication (the test: size_int.h, "Early
 * rejection"): the mean number of waiting jobs of the monitored classes per
 * window after the warm-up. */
#define MON_K          6     /* windows the test looks back over */
#define MON_T          4.604 /* Student's t, one-sided 0.995, MON_K - 2 degrees of freedom */
#define MON_MIN_GROWTH 10    /* jobs: smaller growth is never called unbounded */
typedef struct monitor {
    int on;
    int cls;        /* the class whose backlog is watched; -1 all classes */
    int64_t win_us; /* window length */
    int64_t t0_us;  /* start of the open window */
    double acc;     /* integral of the backlog over the open window (jobs x us) */
    double q[MON_K];
    size_t n;
    int fired;
    double q_first, q_last, span_h, slope_per_h, t;
    double arrivals; /* expected arrivals of the watched classes in the last window */
} monitor;

typedef struct run_acc {
    int64_t warm_us;
    size_t n; /* classes; c[n] is all of them */
    cls_acc *c;
    uint64_t rejected;
    const sim_scenario *sc;
    monitor mon;
} run_acc;

static void acc_one(cls_acc *a, const sim_job_row *r, int64_t end_us)
{
    if (r->state != SIM_JOB_REJECTED) {
        a->wait_sum_s += (double)r->wait_us / SIM_US_PER_S;
        a->n_wait++;
        sim__quant_add(&a->wait, r->wait_us > 0 ? r->wait_us : 0);
    }
    if (r->state == SIM_JOB_COMPLETED) {
        double run_s = (double)r->run_us / SIM_US_PER_S, wait_s = (double)r->wait_us / SIM_US_PER_S;
        double sd = (wait_s + run_s) / (run_s > 10 ? run_s : 10);
        a->slowdown_sum += sd > 1 ? sd : 1;
        a->n_done++;
    }
    if (r->deadline_us >= 0) {
        if (r->state == SIM_JOB_COMPLETED && r->end_us <= r->deadline_us)
            a->dl_met++;
        else if (r->state == SIM_JOB_COMPLETED)
            a->dl_missed++;
        else if (r->deadline_us <= end_us || r->state == SIM_JOB_FAILED)
            a->dl_missed++; /* unfinished past its deadline */
    }
}

static int acc_job(void *ud, const sim_job_row *r, tm_diag *diag)
{
    (void)diag;
    run_acc *a = ud;
    if (r->state == SIM_JOB_REJECTED)
        a->rejected++;
    if (r->submit_us < a->warm_us)
        return TM_OK;
    /* the end of the run, as the row shows it: waiting jobs waited to it,
     * running ones ran to it */
    int64_t end_us = r->state == SIM_JOB_QUEUED    ? r->submit_us + r->wait_us
                     : r->state == SIM_JOB_RUNNING ? r->start_us + r->run_us
                                                   : INT64_MAX;
    if (r->cls < a->n)
        acc_one(&a->c[r->cls], r, end_us);
    acc_one(&a->c[a->n], r, end_us);
    return TM_OK;
}

/* Least squares over the last MON_K window means: the slope, its t
 * statistic, and whether the growth is unbounded (size_int.h). */
static int mon_test(monitor *m)
{
    const size_t k = MON_K;
    double xm = (double)(k - 1) / 2, ym = 0;
    for (size_t i = 0; i < k; i++)
        ym += m->q[i] / (double)k;
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < k; i++) {
        sxx += ((double)i - xm) * ((double)i - xm);
        sxy += ((double)i - xm) * (m->q[i] - ym);
    }
    double b = sxy / sxx, a = ym - b * xm, sse = 0;
    for (size_t i = 0; i < k; i++) {
        double r = m->q[i] - (a + b * (double)i);
        sse += r * r;
    }
    double se = sqrt(sse / (double)(k - 2) / sxx);
    double t = se > 0 ? b / se : (b > 0 ? INFINITY : 0);
    /* the later half grows at least half as fast as the whole: linear, not
     * a queue filling up to its steady state */
    double b2 = (m->q[k - 1] - m->q[k / 2]) / (double)(k - 1 - k / 2);
    double growth = m->q[k - 1] - m->q[0];
    int fire = b > 0 && t > MON_T && growth >= MON_MIN_GROWTH && growth >= 0.5 * m->q[0] &&
               b2 >= 0.5 * b && m->q[k - 1] >= m->arrivals;
    if (fire) {
        double w_h = (double)m->win_us / SIM_US_PER_S / 3600;
        m->fired = 1;
        m->q_first = m->q[0];
        m->q_last = m->q[k - 1];
        m->span_h = (double)k * w_h;
        m->slope_per_h = b / w_h;
        m->t = t;
    }
    return fire;
}

/* sim_sink.bin: feed the monitor; stop the run (TM_ERR_LIMIT, recognised by
 * mon.fired) once the backlog grows without bound. */
static int acc_bin(void *ud, const sim_bin_row *row, tm_diag *diag)
{
    run_acc *a = ud;
    monitor *m = &a->mon;
    if (!m->on || row->t1_us <= m->t0_us)
        return TM_OK;
    double q;
    if (m->cls >= 0) {
        q = row->avg[sim_level_class(a->sc, (size_t)m->cls, SIM_LV_C_QUEUE)];
    } else {
        q = 0;
        for (size_t c = 0; c < a->sc->n_classes; c++)
            q += row->avg[sim_level_class(a->sc, c, SIM_LV_C_QUEUE)];
    }
    int64_t t0 = row->t0_us > m->t0_us ? row->t0_us : m->t0_us;
    int64_t end = m->t0_us + m->win_us;
    /* a bin may straddle a window edge: split its (constant) average */
    while (t0 < row->t1_us) {
        int64_t t1 = row->t1_us < end ? row->t1_us : end;
        m->acc += q * (double)(t1 - t0);
        t0 = t1;
        if (t1 == end) {
            if (m->n == MON_K) {
                memmove(m->q, m->q + 1, (MON_K - 1) * sizeof *m->q);
                m->n--;
            }
            m->q[m->n++] = m->acc / (double)m->win_us;
            m->arrivals = 0;
            for (size_t c = 0; c < a->sc->n_classes; c++)
                if (m->cls < 0 || (size_t)m->cls == c)
                    m->arrivals += trace_arrival_expected(&a->sc->classes[c].arrival,
                                                          (double)m->t0_us / SIM_US_PER_S,
                                                          (double)end / SIM_US_PER_S);
            m->acc = 0;
            m->t0_us = end;
            end += m->win_us;
            if (m->n == MON_K && mon_test(m))
                return tm_diag_set(diag, TM_ERR_LIMIT, "size", "backlog grows without bound");
        }
    }
    return TM_OK;
}

static void acc_fini(run_acc *a)
{
    for (size_t i = 0; a->c && i <= a->n; i++)
        sim__quant_fini(&a->c[i].wait);
    free(a->c);
}

static int acc_init(run_acc *a, size_t n, int64_t warm_us)
{
    memset(a, 0, sizeof *a);
    a->warm_us = warm_us;
    a->n = n;
    a->c = calloc(n + 1, sizeof *a->c);
    if (!a->c)
        return TM_ERR_NOMEM;
    for (size_t i = 0; i <= n; i++)
        if (sim__quant_init(&a->c[i].wait) != TM_OK) {
            acc_fini(a);
            return TM_ERR_NOMEM;
        }
    return TM_OK;
}

static double term_value(const sim__size_term *t, const run_acc *a, const sim_result *res)
{
    const cls_acc *c = t->scope >= 0 && (size_t)t->scope < a->n ? &a->c[t->scope] : &a->c[a->n];
    const double us = 1.0 / SIM_US_PER_S;
    switch (t->metric) {
    case SIM__SIZE_WAIT_MEAN:
        return c->n_wait ? c->wait_sum_s / (double)c->n_wait : 0.0;
    case SIM__SIZE_WAIT_P50:
        return c->n_wait ? sim__quant_get(&c->wait, 0.50) * us : 0.0;
    case SIM__SIZE_WAIT_P95:
        return c->n_wait ? sim__quant_get(&c->wait, 0.95) * us : 0.0;
    case SIM__SIZE_WAIT_P99:
        return c->n_wait ? sim__quant_get(&c->wait, 0.99) * us : 0.0;
    case SIM__SIZE_SLOWDOWN:
        return c->n_done ? c->slowdown_sum / (double)c->n_done : NAN;
    case SIM__SIZE_DEADLINE: {
        uint64_t n = c->dl_met + c->dl_missed;
        return n ? (double)c->dl_met / (double)n : 1.0;
    }
    case SIM__SIZE_SLO: {
        const sim_service_result *v = &res->services[t->scope];
        if (isfinite(v->attainment))
            return v->attainment;
        return v->req_demanded > 0 ? 0.0 : 1.0; /* nothing kept on the fleet */
    }
    case SIM__SIZE_API_SHARE: {
        const sim_service_result *v = &res->services[t->scope];
        return v->req_demanded > 0 ? v->req_api / v->req_demanded : 0.0;
    }
    default:
        return NAN;
    }
}

/* Replicas of service c the fleet of rs could host (at least 1, as the
 * autoscaler's max must be). */
static uint32_t fleet_replicas(const sim_scenario *rs, const sim__svc_cfg *c)
{
    uint64_t n = 0;
    for (size_t p = 0; p < rs->n_pools; p++) {
        const sim_pool_cfg *pc = &rs->pools[p];
        if (sim__svc_type_ok(c, pc->type) && c->replica_gpus > 0)
            n += (uint64_t)pc->nodes * (pc->gpus_per_node / c->replica_gpus);
    }
    return n < 1 ? 1u : n > 1000000 ? 1000000u : (uint32_t)n;
}

/* The scenario of one evaluation: the base with its searched pools resized,
 * rates scaled and (for breakeven) services made elastic. Shallow: only the
 * arrays it changes are copied (free them with free_run). */
static int build_run(const sim__size_runner *r, const uint32_t *nodes, double demand,
                     sim_scenario *rs)
{
    const sim_scenario *b = r->base;
    *rs = *b;
    rs->pools = malloc((b->n_pools ? b->n_pools : 1) * sizeof *rs->pools);
    rs->classes = malloc((b->n_classes ? b->n_classes : 1) * sizeof *rs->classes);
    rs->services = malloc((b->n_services ? b->n_services : 1) * sizeof *rs->services);
    if (!rs->pools || !rs->classes || !rs->services) {
        free(rs->pools);
        free(rs->classes);
        free(rs->services);
        return TM_ERR_NOMEM;
    }
    /* a scenario without classes or services has NULL arrays: memcpy must not see them */
    if (b->n_pools)
        memcpy(rs->pools, b->pools, b->n_pools * sizeof *rs->pools);
    if (b->n_classes)
        memcpy(rs->classes, b->classes, b->n_classes * sizeof *rs->classes);
    if (b->n_services)
        memcpy(rs->services, b->services, b->n_services * sizeof *rs->services);
    for (size_t k = 0; k < r->n_vary; k++)
        rs->pools[r->vary[k]].nodes = nodes[k];
    if (r->horizon_us > 0 && r->horizon_us < rs->horizon_us)
        rs->horizon_us = r->horizon_us;
    for (size_t c = 0; c < rs->n_classes; c++)
        rs->classes[c].arrival.rate_per_s *= demand;
    for (size_t s = 0; s < rs->n_services; s++) {
        sim_service_spec *v = &rs->services[s];
        v->cfg.load.rate_per_s *= demand;
        v->special.load.rate_per_s *= demand;
        if (r->services_elastic) {
            /* the fleet, not the autoscaler's cap, limits the replicas (the
             * cap becomes the replicas the fleet could host: a larger one
             * only queues replicas that can never be placed), and what it
             * cannot serve within the SLO counts as missed */
            v->cfg.overflow = v->special.overflow = SIM__SVC_OVERFLOW_MISS;
            v->cfg.max_replicas = fleet_replicas(rs, &v->cfg);
            v->special.max_replicas = fleet_replicas(rs, &v->special);
        }
    }
    return TM_OK;
}

static void free_run(sim_scenario *rs)
{
    free(rs->pools);
    free(rs->classes);
    free(rs->services);
}

/* The cost of run `res` with every pool priced as `own` (-1: as given). */
static int cost_as(const sim_scenario *rs, const sim_result *res, int own, sim__cost_report *cr,
                   tm_diag *diag)
{
    if (own < 0)
        return sim__cost_account(rs, res, cr, diag);
    sim_scenario s2 = *rs;
    s2.pools = malloc((rs->n_pools ? rs->n_pools : 1) * sizeof *s2.pools);
    if (!s2.pools)
        return tm_diag_set(diag, TM_ERR_NOMEM, "size", "out of memory");
    memcpy(s2.pools, rs->pools, rs->n_pools * sizeof *s2.pools);
    for (size_t p = 0; p < rs->n_pools; p++)
        s2.pools[p].ownership = (sim_ownership)own;
    int rc = sim__cost_account(&s2, res, cr, diag);
    free(s2.pools);
    return rc;
}

void sim__size_fleet_format(char *buf, size_t n, const sim__size_runner *r, const uint32_t *nodes)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < r->n_vary && len < n; k++) {
        const sim_pool_cfg *pc = &r->base->pools[r->vary[k]];
        len += (size_t)snprintf(buf + len, n - len, "%s%s %u node%s (%llu %s)", k ? ", " : "",
                                pc->name, nodes[k], nodes[k] == 1 ? "" : "s",
                                (unsigned long long)nodes[k] * pc->gpus_per_node,
                                r->base->types[pc->type].name);
    }
}

/* One replication's measurements: what the worker pool carries back from a
 * worker process (a fixed size and no pointers). cost[] holds the monthly
 * cost of the fleet as given and as owned, reserved and on demand
 * (SIM__SIZE_AS_*), then the API spend, the tokens demanded, their API list
 * price (per month) and the owned fleet's operating cost per month. */
typedef struct rep_out {
    double vals[SIM__SIZE_MAX_TERMS];
    double cost[8];
    double capex_usd, alloc_util, busy_util;
    uint64_t rejected, events;
    int unstable; /* the monitor stopped it: the figures below, nothing above */
    double q_first, q_last, span_h, slope_per_h, t, at_h;
} rep_out;

typedef struct rep_ctx {
    const sim__size_runner *r;
    const sim_scenario *rs;
    size_t first; /* replication of job 0 */
} rep_ctx;

/* The monitor of a run of the runner's terms: on when early rejection is and
 * some term is about jobs; it watches the class every such term names, or all
 * classes. */
static void mon_setup(monitor *m, const sim__size_runner *r, const sim_scenario *rs)
{
    memset(m, 0, sizeof *m);
    if (r->no_early || rs->n_classes == 0)
        return;
    int cls = -2;
    for (size_t i = 0; i < r->n_terms; i++) {
        const sim__size_term *t = &r->terms[i];
        if (t->metric == SIM__SIZE_SLO || t->metric == SIM__SIZE_API_SHARE)
            continue;
        cls = cls == -2 || cls == t->scope ? t->scope : -1;
    }
    if (cls == -2)
        return;
    int64_t left = rs->horizon_us - r->warmup_us;
    int64_t win = (int64_t)86400 * SIM_US_PER_S;
    if (left / (2 * MON_K) < win)
        win = left / (2 * MON_K);
    if (win < rs->sample_us)
        win = rs->sample_us;
    if (win <= 0 || (int64_t)MON_K * win > left)
        return;
    m->on = 1;
    m->cls = cls;
    m->win_us = win;
    m->t0_us = r->warmup_us > 0 ? r->warmup_us : 0;
}

/* sim__work_fn: replication `rep` of the candidate fleet. */
static int eval_rep(void *ud, size_t rep, void *outp, tm_diag *diag)
{
    const rep_ctx *x = ud;
    const sim__size_runner *r = x->r;
    const sim_scenario *rs = x->rs;
    rep_out *o = outp;
    run_acc acc;
    rep += x->first;
    if (acc_init(&acc, rs->n_classes, r->warmup_us) != TM_OK)
        return tm_diag_set(diag, TM_ERR_NOMEM, "size", "out of memory");
    acc.sc = rs;
    mon_setup(&acc.mon, r, rs);
    sim_run_opts ro = {.replication = (uint32_t)rep, .stop_flag = r->stop_flag};
    sim_sink sink = {acc_job, acc.mon.on ? acc_bin : NULL, &acc};
    sim_result res;
    int rc = sim_run(rs, &ro, &sink, &res, diag);
    if (rc != TM_OK && acc.mon.fired) {
        /* not an error: the evidence that the fleet cannot keep up */
        const monitor *m = &acc.mon;
        o->unstable = 1;
        o->q_first = m->q_first;
        o->q_last = m->q_last;
        o->span_h = m->span_h;
        o->slope_per_h = m->slope_per_h;
        o->t = m->t;
        o->at_h = (double)m->t0_us / SIM_US_PER_S / 3600;
        o->rejected = acc.rejected;
        for (size_t i = 0; i < r->n_terms; i++)
            o->vals[i] = NAN;
        for (int k = 0; k < 8; k++)
            o->cost[k] = NAN;
        o->capex_usd = o->alloc_util = o->busy_util = NAN;
        tm_diag_clear(diag);
        acc_fini(&acc);
        return TM_OK;
    }
    if (rc != TM_OK) {
        acc_fini(&acc);
        return rc;
    }
    o->events = res.events;
    o->rejected = acc.rejected;
    for (size_t i = 0; i < r->n_terms; i++)
        o->vals[i] = term_value(&r->terms[i], &acc, &res);
    for (int as = 0; rc == TM_OK && as < SIM__SIZE_N_AS; as++) {
        sim__cost_report cr;
        rc = cost_as(rs, &res, as == SIM__SIZE_AS_GIVEN ? -1 : as - 1, &cr, diag);
        if (rc != TM_OK)
            break;
        double month = cr.hours > 0 ? SIM_HOURS_PER_MONTH / cr.hours : NAN;
        o->cost[as] = cr.usd_per_month;
        if (as == SIM__SIZE_AS_GIVEN) {
            o->cost[4] = cr.api_usd * month;
            double tok = 0, list = 0;
            for (size_t s = 0; s < rs->n_services; s++) {
                const sim_service_result *v = &res.services[s];
                double pin, pout;
                int api;
                sim__cost_service_price(rs, s, &pin, &pout, &api);
                tok += v->tok_in_demanded + v->tok_out_demanded;
                list += (v->tok_in_demanded * pin + v->tok_out_demanded * pout) / 1e6;
            }
            o->cost[5] = tok * month;
            o->cost[6] = list * month;
        } else if (as == SIM__SIZE_AS_OWNED) {
            o->capex_usd = cr.capex_usd; /* the same in every replication */
            o->cost[7] = cr.owned_opex_usd * month;
        }
        sim__cost_report_fini(&cr);
    }
    o->alloc_util = res.alloc_util;
    o->busy_util = res.busy_util;
    sim_result_fini(&res);
    acc_fini(&acc);
    return rc;
}

/* Replications first .. first + n - 1 into reps[0 .. n). */
static int run_reps(const sim__size_runner *r, const sim_scenario *rs, size_t first, size_t n,
                    rep_out *reps, tm_diag *diag)
{
    rep_ctx x = {r, rs, first};
    sim__work_opts wo = {.workers = r->workers ? r->workers : 1,
                         .out_size = sizeof(rep_out),
                         .stop_on_error = 1,
                         .stop_flag = r->stop_flag};
    return sim__work_run(n, eval_rep, &x, &wo, reps, NULL, NULL, diag);
}

/* After the first n replications: the fleet fails whatever the rest show
 * when one of them was stopped by the monitor, a job was rejected, or some
 * term's two-sided interval at the confidence lies wholly beyond its limit
 * (the mean of all R would then fall beyond it too, unless the rest
 * contradicted these at that confidence). */
static int certain_fail(const sim__size_runner *r, const rep_out *reps, uint32_t n)
{
    size_t nt = r->n_terms;
    for (uint32_t k = 0; k < n; k++)
        if (reps[k].unstable || reps[k].rejected)
            return 1;
    if (n < 2)
        return 0;
    double t = sim__t_quantile(2 * r->confidence - 1, n);
    double v[64];
    for (size_t i = 0; i < nt; i++) {
        const sim__size_term *tm = &r->terms[i];
        int nan = 0;
        for (uint32_t k = 0; k < n && k < 64; k++) {
            v[k] = reps[k].vals[i];
            nan |= isnan(v[k]);
        }
        if (nan || n > 64)
            continue;
        double m, sd, lo, hi;
        sim__stat_interval(v, n, 1, t, &m, &sd, &lo, &hi);
        if (tm->le ? lo > tm->limit : hi < tm->limit)
            return 1;
    }
    return 0;
}

/* The values a term's metric can take in one replication: waits from 0,
 * bounded slowdown from 1, shares in [0, 1]. 0 when not known. */
static int metric_range(int metric, double *a, double *b)
{
    switch (metric) {
    case SIM__SIZE_WAIT_MEAN:
    case SIM__SIZE_WAIT_P50:
    case SIM__SIZE_WAIT_P95:
    case SIM__SIZE_WAIT_P99:
        *a = 0;
        *b = INFINITY;
        return 1;
    case SIM__SIZE_SLOWDOWN:
        *a = 1;
        *b = INFINITY;
        return 1;
    case SIM__SIZE_DEADLINE:
    case SIM__SIZE_SLO:
    case SIM__SIZE_API_SHARE:
        *a = 0;
        *b = 1;
        return 1;
    default:
        return 0;
    }
}

/* The decision rule's bound of a term over R values: v[0 .. n) as measured
 * and the other R - n all equal to x (as in sim__size_runner_eval). */
static double bound_with(const sim__size_term *tm, double *v, uint32_t n, uint32_t R, double t,
                         double x)
{
    for (uint32_t k = n; k < R; k++)
        v[k] = x;
    double m, sd, lo, hi;
    sim__stat_interval(v, R, 1, t, &m, &sd, &lo, &hi);
    double half = R >= 2 && sd > 0 ? (hi - lo) / 2 : 0;
    return tm->le ? m + half : m - half;
}

/* sim__size_decided_fail (size_int.h). The bound (the mean plus or minus
 * t sd / sqrt(R)) is convex in the values for a "<=" term (concave for
 * ">="), and symmetric in the remaining ones, so its best over them is
 * reached with all of them equal (averaging a best point over their
 * permutations gives another: Jensen): a one-dimensional convex search, by
 * ternary search between the range's good end and the measured values
 * (beyond them the mean and the spread only grow). */
int sim__size_decided_fail(const sim__size_term *terms, size_t n_terms, double confidence,
                           int mean_only, const double *vals, uint32_t n, uint32_t R)
{
    if (n >= R || R > 64)
        return 0;
    double t = R >= 2 && !mean_only ? sim__t_quantile(2 * confidence - 1, R) : 0;
    double v[64];
    for (size_t i = 0; i < n_terms; i++) {
        const sim__size_term *tm = &terms[i];
        double a, b, lo_v = INFINITY, hi_v = -INFINITY;
        for (uint32_t k = 0; k < n; k++) {
            double x = vals[(size_t)k * n_terms + i];
            if (isnan(x))
                return 1; /* an undefined value fails the term outright */
            lo_v = x < lo_v ? x : lo_v;
            hi_v = x > hi_v ? x : hi_v;
        }
        if (!metric_range(tm->metric, &a, &b))
            continue;
        double x0 = tm->le ? a : (lo_v < b ? lo_v : b), x1 = tm->le ? (hi_v > a ? hi_v : a) : b;
        if (!isfinite(x0) || !isfinite(x1))
            continue;
        for (uint32_t k = 0; k < n; k++)
            v[k] = vals[(size_t)k * n_terms + i];
        for (int it = 0; it < 200 && x1 - x0 > 0; it++) {
            double p = x0 + (x1 - x0) / 3, q = x1 - (x1 - x0) / 3;
            double fp = bound_with(tm, v, n, R, t, p), fq = bound_with(tm, v, n, R, t, q);
            if (tm->le ? fp < fq : fp > fq)
                x1 = q;
            else
                x0 = p;
        }
        double best = tm->le ? INFINITY : -INFINITY, xs[3] = {x0, x1, tm->le ? a : b};
        for (int j = 0; j < 3; j++) {
            double f = bound_with(tm, v, n, R, t, xs[j]);
            best = tm->le ? (f < best ? f : best) : (f > best ? f : best);
        }
        double tol = 1e-9 * (fabs(tm->limit) > 1 ? fabs(tm->limit) : 1);
        if (tm->le ? best > tm->limit + tol : best < tm->limit - tol)
            return 1;
    }
    return 0;
}

/* After n of R replications: does the fleet fail whatever the other R - n
 * show? One run stopped by the monitor or a job rejected fails it outright;
 * else sim__size_decided_fail on the terms' values. */
static int decided_fail(const sim__size_runner *r, const rep_out *reps, uint32_t n, uint32_t R)
{
    for (uint32_t k = 0; k < n; k++)
        if (reps[k].unstable || reps[k].rejected)
            return 1;
    size_t nt = r->n_terms;
    if (n >= R || R > 64 || nt == 0)
        return 0;
    double v[64 * SIM__SIZE_MAX_TERMS];
    for (uint32_t k = 0; k < n; k++)
        for (size_t i = 0; i < nt; i++)
            v[(size_t)k * nt + i] = reps[k].vals[i];
    return sim__size_decided_fail(r->terms, nt, r->confidence, r->mean_only, v, n, R);
}

/* 1893.4 -> "1,893" */
static void fmt_count(char *buf, size_t n, double v)
{
    char raw[48];
    snprintf(raw, sizeof raw, "%.0f", v);
    size_t len = strlen(raw), j = 0, digits = len - (raw[0] == '-');
    for (size_t i = 0; i < len && j + 2 < n; i++) {
        buf[j++] = raw[i];
        size_t left = len - 1 - i;
        if (raw[i] != '-' && left > 0 && left % 3 == 0 && digits > 3)
            buf[j++] = ',';
    }
    buf[j] = '\0';
}

void sim__size_unstable_format(char *buf, size_t n, const sim__size_eval *e)
{
    char a[32], b[32];
    fmt_count(a, sizeof a, e->backlog_first);
    fmt_count(b, sizeof b, e->backlog_last);
    double span = e->backlog_span_h, slope = e->backlog_slope_per_h;
    int days = span >= 48;
    snprintf(buf, n,
             "fails: its queue grows without bound: waiting jobs grew %s -> %s over %.3g %s up "
             "to hour %.0f (slope %.3g/%s) in %u of %u replications",
             a, b, days ? span / 24 : span, days ? "d" : "h", e->backlog_at_h,
             days ? slope * 24 : slope, days ? "day" : "h", e->unstable, e->replications);
}

int sim__size_runner_eval(void *ud, const uint32_t *nodes, double demand, sim__size_eval *out,
                          tm_diag *diag)
{
    sim__size_runner *r = ud;
    memset(out, 0, sizeof *out);
    uint32_t R = r->replications ? r->replications : 1;
    size_t nt = r->n_terms;
    sim_scenario rs;
    if (build_run(r, nodes, demand, &rs) != TM_OK)
        return tm_diag_set(diag, TM_ERR_NOMEM, "size", "out of memory");
    double *vals = calloc((size_t)R * (nt ? nt : 1), sizeof *vals);
    double *cost = calloc((size_t)R * 8, sizeof *cost);
    rep_out *reps = calloc(R, sizeof *reps);
    int rc =
        vals && cost && reps ? TM_OK : tm_diag_set(diag, TM_ERR_NOMEM, "size", "out of memory");
    out->n_terms = nt;
    for (size_t p = 0; p < rs.n_pools; p++)
        out->gpus += (double)rs.pools[p].nodes * rs.pools[p].gpus_per_node;
    /* the replications run on the worker pool (-j); each has its own random
     * streams, so the answer is the same for any number of workers. With
     * early rejection, the first two run first and the rest only
     * when those leave the fleet in doubt (size_int.h, "Early rejection"). */
    uint32_t n1 = !r->no_early && R > 2 ? 2 : R; /* never the workers: the answer is the
                                                  * same for any -j */
    if (rc == TM_OK) {
        rc = run_reps(r, &rs, 0, n1, reps, diag);
        if (rc == TM_OK && n1 < R && certain_fail(r, reps, n1))
            R = n1;
        /* then two at a time (whatever -j is), stopping as soon as the
         * fleet fails whatever the rest would show (decided_fail); where
         * the rule cannot decide early (no target terms, or more
         * replications than it bounds), the rest in one call on all workers */
        if (rc == TM_OK && n1 < R && (R > 64 || nt == 0)) {
            rc = run_reps(r, &rs, n1, R - n1, reps + n1, diag);
            n1 = R;
        }
        for (uint32_t done = n1; rc == TM_OK && done < R;) {
            if (decided_fail(r, reps, done, R)) {
                R = done;
                break;
            }
            uint32_t step = R - done < 2 ? R - done : 2;
            rc = run_reps(r, &rs, done, step, reps + done, diag);
            done += step;
        }
        if (rc == TM_ERR_INTERRUPTED) {
            char fleet[256], at[64] = "";
            sim__size_fleet_format(fleet, sizeof fleet, r, nodes);
            if (demand != 1)
                snprintf(at, sizeof at, " at %.4g times the demand", demand);
            tm_diag_set(diag, rc, r->services_elastic ? "breakeven" : "size",
                        "interrupted while simulating the fleet %s%s (%llu runs done before it)",
                        fleet, at, (unsigned long long)r->runs);
        }
    }
    out->replications = R;
    out->early = R < (r->replications ? r->replications : 1);
    uint32_t done = 0; /* replications with figures (not stopped by the monitor) */
    for (uint32_t rep = 0; rc == TM_OK && rep < R; rep++) {
        const rep_out *o = &reps[rep];
        if (o->unstable && !out->unstable) {
            out->backlog_first = o->q_first;
            out->backlog_last = o->q_last;
            out->backlog_span_h = o->span_h;
            out->backlog_slope_per_h = o->slope_per_h;
            out->backlog_at_h = o->at_h;
        }
        out->unstable += (uint32_t)o->unstable;
        done += (uint32_t)!o->unstable;
    }
    for (uint32_t rep = 0; rc == TM_OK && rep < R; rep++) {
        const rep_out *o = &reps[rep];
        r->runs++;
        r->events += o->events;
        out->rejected += o->rejected;
        for (size_t i = 0; i < nt; i++)
            vals[(size_t)rep * nt + i] = o->vals[i];
        memcpy(&cost[(size_t)rep * 8], o->cost, sizeof o->cost);
        if (o->unstable)
            continue;
        out->capex_usd = o->capex_usd;
        out->alloc_util += o->alloc_util / done;
        out->busy_util += o->busy_util / done;
    }
    if (rc == TM_OK && done == 0)
        out->capex_usd = out->alloc_util = out->busy_util = NAN;
    if (rc == TM_OK) {
        double t = R >= 2 && !r->mean_only ? sim__t_quantile(2 * r->confidence - 1, R) : 0;
        out->pass = out->rejected == 0;
        out->why = out->rejected ? -2 : -1;
        for (size_t i = 0; i < nt; i++) {
            const sim__size_term *tm = &r->terms[i];
            double m, sd, lo, hi;
            int nan = 0;
            for (uint32_t rep = 0; rep < R; rep++)
                nan |= isnan(vals[(size_t)rep * nt + i]);
            sim__stat_interval(&vals[i], R, nt, t, &m, &sd, &lo, &hi);
            double half = R >= 2 && sd > 0 ? (hi - lo) / 2 : 0;
            double bound = tm->le ? m + half : m - half;
            out->mean[i] = m;
            out->bound[i] = nan ? NAN : bound;
            int ok = !nan && (tm->le ? (tm->strict ? bound < tm->limit : bound <= tm->limit)
                                     : (tm->strict ? bound > tm->limit : bound >= tm->limit));
            if (!ok && out->pass) {
                out->pass = 0;
                out->why = (int)i;
            }
        }
        if (out->unstable) {
            out->pass = 0;
            out->why = -3;
        }
        for (uint32_t rep = 0; rep < R; rep++) {
            int ok = reps[rep].rejected == 0;
            for (size_t i = 0; ok && i < nt; i++) {
                const sim__size_term *tm = &r->terms[i];
                double v = vals[(size_t)rep * nt + i];
                ok = !isnan(v) && (tm->le ? (tm->strict ? v < tm->limit : v <= tm->limit)
                                          : (tm->strict ? v > tm->limit : v >= tm->limit));
            }
            out->reps_meeting += (uint32_t)ok;
        }
        for (int k = 0; k < 8; k++) {
            double sum = 0;
            for (uint32_t rep = 0; rep < R; rep++)
                if (!reps[rep].unstable)
                    sum += cost[(size_t)rep * 8 + (size_t)k];
            double mean = done ? sum / done : NAN;
            if (k < SIM__SIZE_N_AS)
                out->usd_per_month[k] = mean;
            else if (k == 4)
                out->api_usd_per_month = mean;
            else if (k == 5)
                out->tokens_per_month = mean;
            else if (k == 6)
                out->api_list_usd_per_month = mean;
            else
                out->owned_opex_usd_per_month = mean;
        }
        if (r->log) {
            char fleet[512], why[512] = "meets the targets";
            sim__size_fleet_format(fleet, sizeof fleet, r, nodes);
            if (out->why == -3)
                sim__size_unstable_format(why, sizeof why, out);
            else if (out->why == -2)
                snprintf(why, sizeof why, "fails: %llu jobs can never fit",
                         (unsigned long long)out->rejected);
            else if (out->why >= 0) {
                char b[48];
                sim__size_term_format(b, sizeof b, &r->terms[out->why], out->bound[out->why]);
                snprintf(why, sizeof why, "fails %s (bound %s)", r->terms[out->why].text, b);
            }
            double usd = out->usd_per_month[SIM__SIZE_AS_GIVEN];
            const char *verb = r->screen ? "screened" : "simulated";
            if (isfinite(usd))
                fprintf(r->log, "  %s %s at demand x%.3g: %s, $%.0f/month\n", verb, fleet, demand,
                        why, usd);
            else
                fprintf(r->log, "  %s %s at demand x%.3g: %s\n", verb, fleet, demand, why);
            fflush(r->log);
        }
    }
    free(vals);
    free(cost);
    free(reps);
    free_run(&rs);
    return rc;
}

int sim__size_screen_runner(const sim__size_runner *r, int64_t after_us, sim__size_runner *scr)
{
    int64_t w = r->warmup_us > 0 ? r->warmup_us : 0;
    int64_t h = r->horizon_us > 0 && r->horizon_us < r->base->horizon_us ? r->horizon_us
                                                                         : r->base->horizon_us;
    if (after_us <= 0 || after_us >= h - w)
        return 0;
    *scr = *r;
    scr->horizon_us = w + after_us;
    if (scr->replications > 2)
        scr->replications = 2;
    scr->mean_only = 1;
    scr->screen = 1;
    scr->runs = scr->events = 0;
    return 1;
}
