/* SPDX-License-Identifier: Apache-2.0 */
/*
 * size_bound.c — sizing by simulation, its load bound: the fewest nodes of
 * each searched pool below which the fleet has fewer GPU-hours than the
 * offered load needs, so that its queue grows for the whole horizon and no
 * simulation is needed to know it (docs/cost.md, "Sizing").
 *
 * How it works: the need is the expected GPU-time of everything that arrives
 * over the horizon at the demand factor, each piece on the fastest GPU type it
 * may use in the fleet (so it is never more than any placement needs): a
 * class's expected arrivals x its expected reference GPU-seconds per job (the
 * specialized shape for arrivals after the switch) / its best speed; a
 * service's expected requests x work per request / its best replica
 * throughput x GPUs per replica, and at least its minimum replicas the whole
 * time. Failures, repairs, deliveries, fragmentation and queueing only add to
 * what a fleet needs, so a fleet with less capacity than the need cannot do
 * the work that arrives. A pool's floor is what remains of the need after
 * every pool not searched and every other searched pool at its maximum. Trace
 * classes (no expected size) add nothing: the bound stays a bound, only
 * weaker.
 */
#include "studies/size_int.h"

#include "model/service_int.h"

#include <math.h>

/* The fastest speed class cc has on a GPU type of the fleet it may use (0:
 * none). */
static double best_class_speed(const sim_scenario *sc, const sim_class_cfg *cc)
{
    double best = 0;
    for (size_t p = 0; p < sc->n_pools; p++) {
        uint32_t t = sc->pools[p].type;
        if (cc->type_mask && !((cc->type_mask >> t) & 1u))
            continue;
        if (cc->speed[t] > best)
            best = cc->speed[t];
    }
    return best;
}

/* Expected reference GPU-seconds of class cc's arrivals over [t0, t1) at the
 * demand factor, on its fastest type. */
static double class_need(const sim_scenario *sc, const sim_class_cfg *cc, double t0, double t1,
                         double demand)
{
    if (!(t1 > t0) || !isfinite(cc->mean_ref_gpu_s))
        return 0;
    double n = trace_arrival_expected(&cc->arrival, t0, t1) * demand;
    double v = best_class_speed(sc, cc);
    if (!(n > 0) || !(v > 0))
        return 0;
    return n * cc->mean_ref_gpu_s / v;
}

double sim__size_need_gpus(const sim_scenario *sc, double demand)
{
    double h = (double)sc->horizon_us / SIM_US_PER_S;
    if (!(h > 0))
        return 0;
    double need = 0; /* GPU-seconds */
    for (size_t c = 0; c < sc->n_classes; c++) {
        const sim_class_cfg *cc = &sc->classes[c];
        double at =
            cc->special && cc->special_at_us >= 0 ? (double)cc->special_at_us / SIM_US_PER_S : h;
        if (at > h)
            at = h;
        need += class_need(sc, cc, 0, at, demand);
        if (cc->special)
            need += class_need(sc, cc->special, at, h, demand);
    }
    for (size_t v = 0; v < sc->n_services; v++) {
        const sim_service_spec *s = &sc->services[v];
        double at = s->special_at_us >= 0 && (double)s->special_at_us / SIM_US_PER_S < h
                        ? (double)s->special_at_us / SIM_US_PER_S
                        : h;
        for (int part = 0; part < 2; part++) {
            const sim__svc_cfg *cfg = part ? &s->special : &s->cfg;
            double t0 = part ? at : 0, t1 = part ? h : at;
            if (!(t1 > t0))
                continue;
            double tps = 0;
            for (size_t p = 0; p < sc->n_pools; p++) {
                uint32_t t = sc->pools[p].type;
                if (sim__svc_type_ok(cfg, t) && cfg->tokens_per_s[t] > tps)
                    tps = cfg->tokens_per_s[t];
            }
            double busy = 0;
            if (tps > 0)
                busy = trace_arrival_expected(&cfg->load, t0, t1) * demand *
                       sim__svc_work_per_req(cfg) / tps * cfg->replica_gpus;
            double floor = (double)cfg->min_replicas * cfg->replica_gpus * (t1 - t0);
            need += busy > floor ? busy : floor;
        }
    }
    return need / h;
}

void sim__size_load_floor(const sim__size_runner *r, const uint32_t *max, double demand,
                          uint32_t *floor, double *need_gpus)
{
    const sim_scenario *sc = r->base;
    double need = sim__size_need_gpus(sc, demand);
    double fixed = 0;
    for (size_t p = 0; p < sc->n_pools; p++) {
        int searched = 0;
        for (size_t k = 0; k < r->n_vary; k++)
            searched |= r->vary[k] == p;
        if (!searched)
            fixed += (double)sc->pools[p].nodes * sc->pools[p].gpus_per_node;
    }
    for (size_t k = 0; k < r->n_vary; k++) {
        double rest = need - fixed;
        for (size_t j = 0; j < r->n_vary; j++)
            if (j != k)
                rest -= (double)max[j] * sc->pools[r->vary[j]].gpus_per_node;
        double gpn = sc->pools[r->vary[k]].gpus_per_node;
        /* the need is an expectation in floating point: a relative slack of
         * 1e-9 keeps a need of exactly k nodes at k */
        double f = rest > 0 ? ceil(rest / gpn * (1 - 1e-9)) : 0;
        floor[k] = f >= (double)max[k] ? max[k] : (uint32_t)f;
    }
    if (need_gpus)
        *need_gpus = need;
}
