/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service_scaler.c — the autoscaler of a service's replicas (service_int.h
 * has the rule, docs/services.md its sources).
 *
 * How it works: scale-up is immediate (desired above ready + loading requests
 * the difference); scale-down keeps a monotone window of desired values, the
 * sliding maximum of a piecewise-constant signal: each entry is a value and
 * the time it stopped being in force; a new value drops the entries it
 * dominates, and the front expires once it stopped before the window. A full
 * window merges its two last entries into the larger value, which can only
 * delay a scale-down. Every step is a function of the calls' times and loads.
 */
#include "model/service_int.h"

#include <math.h>
#include <string.h>

void sim__svc_scaler_init(sim__svc_scaler *s, uint32_t ready)
{
    memset(s, 0, sizeof *s);
    s->ready = ready;
    s->desired = ready;
    s->last_us = INT64_MIN;
}

static int64_t us_of(double s)
{
    return (int64_t)llround(s * (double)SIM_US_PER_S);
}

uint32_t sim__svc_desired(const sim__svc_cfg *cfg, double load_req_per_s,
                          double replica_tokens_per_s)
{
    /* ceil with a relative slack of 1e-12, so that a load of exactly k
     * replicas' worth does not round up to k + 1 */
    double x = load_req_per_s * sim__svc_work_per_req(cfg) /
               (cfg->target_util * replica_tokens_per_s) / (1.0 + 1e-12);
    uint32_t d;
    if (!(x < (double)cfg->max_replicas))
        d = cfg->max_replicas;
    else
        d = (uint32_t)ceil(x);
    return d < cfg->min_replicas ? cfg->min_replicas : d;
}

void sim__svc_scaler_signal(sim__svc_scaler *s, const sim__svc_cfg *cfg, const sim__svc_acct *acct)
{
    if (!cfg->scale_signal || acct->sig_n == 0)
        return;
    s->has_signal = 1;
    s->signal = cfg->scale_signal == SIM__SVC_SIGNAL_KV ? acct->sig_kv : acct->sig_queue;
}

/* ceil(ready x signal / target) within [min, max]; a signal within 10 % of
 * its target keeps `ready` (the HPA's default tolerance). */
static uint32_t signal_desired(const sim__svc_cfg *cfg, uint32_t ready, double signal)
{
    double ratio = signal / cfg->scale_target;
    double x = (double)ready * ratio;
    uint32_t d;
    if (!(x >= 0) || fabs(ratio - 1.0) <= 0.1)
        d = ready;
    else if (!(x < (double)cfg->max_replicas))
        d = cfg->max_replicas;
    else
        d = (uint32_t)ceil(x);
    return d < cfg->min_replicas ? cfg->min_replicas : d;
}

int sim__svc_scaler_step(sim__svc_scaler *s, const sim__svc_cfg *cfg, int64_t t_us,
                         double load_req_per_s, double replica_tokens_per_s, sim__svc_action *act,
                         tm_diag *diag)
{
    memset(act, 0, sizeof *act);
    act->next_eval_us = INT64_MAX;
    if (!(isfinite(load_req_per_s) && load_req_per_s >= 0.0))
        return sim__svc_bad(diag, "load", "a finite rate >= 0 requests/s", load_req_per_s);
    if (!(isfinite(replica_tokens_per_s) && replica_tokens_per_s > 0.0))
        return sim__svc_bad(diag, "replica_tokens_per_s", "a finite throughput > 0",
                            replica_tokens_per_s);
    if (t_us < s->last_us)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.autoscaler",
                           "time went back: %lld us after %lld us", (long long)t_us,
                           (long long)s->last_us);
    uint32_t d = sim__svc_desired(cfg, load_req_per_s, replica_tokens_per_s);
    if (cfg->scale_signal && s->has_signal && s->ready > 0)
        d = signal_desired(cfg, s->ready, s->signal);

    /* the window of values in force: the last one stops now */
    if (s->n_win > 0)
        s->win_until_us[s->n_win - 1] = t_us;
    while (s->n_win > 0 && s->win_value[s->n_win - 1] <= d)
        s->n_win--;
    if (s->n_win == SIM__SVC_SCALER_WINDOW) { /* merge the last two into the larger value */
        s->win_until_us[s->n_win - 2] = s->win_until_us[s->n_win - 1];
        s->n_win--;
    }
    s->win_value[s->n_win] = d;
    s->win_until_us[s->n_win] = INT64_MAX;
    s->n_win++;
    int64_t w_us = us_of(cfg->scale_down_window_s);
    int64_t from = t_us < INT64_MIN + w_us ? INT64_MIN : t_us - w_us;
    uint32_t drop = 0;
    while (s->n_win - drop > 1 && s->win_until_us[drop] <= from)
        drop++;
    if (drop) {
        memmove(s->win_value, s->win_value + drop, (s->n_win - drop) * sizeof s->win_value[0]);
        memmove(s->win_until_us, s->win_until_us + drop,
                (s->n_win - drop) * sizeof s->win_until_us[0]);
        s->n_win -= drop;
    }
    uint32_t keep = s->win_value[0]; /* the largest desired in the window, >= d */

    uint64_t have = (uint64_t)s->ready + s->loading;
    act->desired = d;
    if (d > have) {
        act->request = (uint32_t)(d - have);
        act->ready_at_us = t_us + us_of(cfg->scale_up_delay_s);
        s->loading += act->request;
    } else if (keep < have) {
        uint32_t rel = (uint32_t)(have - keep);
        act->release_loading = rel < s->loading ? rel : s->loading;
        act->release_ready = rel - act->release_loading;
        s->loading -= act->release_loading;
        s->ready -= act->release_ready;
    }
    if (s->n_win > 1 && (uint64_t)s->ready + s->loading > d) {
        int64_t u = s->win_until_us[0];
        act->next_eval_us = u > INT64_MAX - w_us ? INT64_MAX : u + w_us;
    }
    if (cfg->scale_signal) { /* a signal changes without a load change: look again */
        int64_t per = us_of(cfg->scale_period_s > 0 ? cfg->scale_period_s : 3600.0);
        int64_t at = t_us > INT64_MAX - per ? INT64_MAX : t_us + per;
        if (at < act->next_eval_us)
            act->next_eval_us = at;
    }
    s->desired = d;
    s->last_us = t_us;
    return TM_OK;
}

int sim__svc_scaler_ready(sim__svc_scaler *s, uint32_t k, tm_diag *diag)
{
    if (k > s->loading)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.autoscaler",
                           "%u replicas ready, but only %u loading", k, s->loading);
    s->loading -= k;
    s->ready += k;
    return TM_OK;
}

int sim__svc_scaler_lost(sim__svc_scaler *s, uint32_t ready_lost, uint32_t loading_lost,
                         tm_diag *diag)
{
    if (ready_lost > s->ready || loading_lost > s->loading)
        return tm_diag_set(diag, TM_ERR_INVAL, "service.autoscaler",
                           "lost %u ready and %u loading replicas of %u and %u", ready_lost,
                           loading_lost, s->ready, s->loading);
    s->ready -= ready_lost;
    s->loading -= loading_lost;
    return TM_OK;
}
