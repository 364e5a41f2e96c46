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
 *
 * Per set of GPU types (Hall's condition): the pieces of the load that may
 * only use types in a set S need at least their GPUs from the pools of S.
 * With 5 pools covering a 287-GPU load, the total alone gives the H100 pool
 * a floor of 0, yet the classes that can only run on H100 may need far more
 * than the other H100 pool holds; every subset of the fleet's types (up to
 * 12 types; beyond, the whole fleet and each piece's own set) is checked and
 * the highest floor kept, with the set that gives it for the message.
 */
#include "studies/size_int.h"

#include "model/service_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* One piece of the offered load: the GPUs it needs on average over the
 * horizon, and the GPU types of the fleet it may use (bits of sc->types). */
typedef struct need_item {
    double gpus;
    uint64_t types;
} need_item;

/* The types of the fleet's pools (bits of sc->types). */
static uint64_t fleet_types(const sim_scenario *sc)
{
    uint64_t f = 0;
    for (size_t p = 0; p < sc->n_pools; p++)
        if (sc->pools[p].type < 64)
            f |= 1ull << sc->pools[p].type;
    return f;
}

static uint64_t class_types(const sim_scenario *sc, const sim_class_cfg *cc)
{
    uint64_t m = 0;
    for (size_t p = 0; p < sc->n_pools; p++) {
        uint32_t t = sc->pools[p].type;
        if (t < 64 && (!cc->type_mask || ((cc->type_mask >> t) & 1u)) && cc->speed[t] > 0)
            m |= 1ull << t;
    }
    return m;
}

/* Every piece of the load at `demand` into items[] (at most 2 per class and
 * per service); returns how many. */
static size_t need_items(const sim_scenario *sc, double demand, need_item *items)
{
    size_t n = 0;
    double h = (double)sc->horizon_us / SIM_US_PER_S;
    if (!(h > 0))
        return 0;
    for (size_t c = 0; c < sc->n_classes; c++) {
        const sim_class_cfg *cc = &sc->classes[c];
        double at =
            cc->special && cc->special_at_us >= 0 ? (double)cc->special_at_us / SIM_US_PER_S : h;
        if (at > h)
            at = h;
        items[n++] = (need_item){class_need(sc, cc, 0, at, demand) / h, class_types(sc, cc)};
        if (cc->special)
            items[n++] = (need_item){class_need(sc, cc->special, at, h, demand) / h,
                                     class_types(sc, cc->special)};
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
            uint64_t m = 0;
            for (size_t p = 0; p < sc->n_pools; p++) {
                uint32_t t = sc->pools[p].type;
                if (!sim__svc_type_ok(cfg, t))
                    continue;
                if (t < 64)
                    m |= 1ull << t;
                if (cfg->tokens_per_s[t] > tps)
                    tps = cfg->tokens_per_s[t];
            }
            double busy = 0;
            if (tps > 0)
                busy = trace_arrival_expected(&cfg->load, t0, t1) * demand *
                       sim__svc_work_per_req(cfg) / tps * cfg->replica_gpus;
            double floor = (double)cfg->min_replicas * cfg->replica_gpus * (t1 - t0);
            items[n++] = (need_item){(busy > floor ? busy : floor) / h, m};
        }
    }
    return n;
}

double sim__size_need_gpus(const sim_scenario *sc, double demand)
{
    size_t cap = 2 * (sc->n_classes + sc->n_services);
    need_item *items = malloc((cap ? cap : 1) * sizeof *items);
    if (!items)
        return 0; /* a bound of 0 is still a bound */
    size_t n = need_items(sc, demand, items);
    double need = 0;
    for (size_t i = 0; i < n; i++)
        if (items[i].types)
            need += items[i].gpus;
    free(items);
    return need;
}

static int searched(const sim__size_runner *r, size_t p)
{
    for (size_t k = 0; k < r->n_vary; k++)
        if (r->vary[k] == p)
            return 1;
    return 0;
}

/* The floor of every searched pool from the load that may only use the types
 * in S, against the GPUs of S outside the pool; raised in floor[] and why[]
 * where it binds harder. */
static void bound_for_set(const sim__size_runner *r, const uint32_t *max, const need_item *items,
                          size_t n, uint64_t S, uint32_t *floor, sim__size_bound_why *why)
{
    const sim_scenario *sc = r->base;
    double need = 0;
    for (size_t i = 0; i < n; i++)
        if (items[i].types && (items[i].types & ~S) == 0)
            need += items[i].gpus;
    if (!(need > 0))
        return;
    double fixed = 0;
    for (size_t p = 0; p < sc->n_pools; p++)
        if (!searched(r, p) && sc->pools[p].type < 64 && ((S >> sc->pools[p].type) & 1u))
            fixed += (double)sc->pools[p].nodes * sc->pools[p].gpus_per_node;
    for (size_t k = 0; k < r->n_vary; k++) {
        const sim_pool_cfg *pk = &sc->pools[r->vary[k]];
        if (pk->type >= 64 || !((S >> pk->type) & 1u) || pk->gpus_per_node == 0)
            continue;
        double rest = need - fixed;
        for (size_t j = 0; j < r->n_vary; j++) {
            const sim_pool_cfg *pj = &sc->pools[r->vary[j]];
            if (j != k && pj->type < 64 && ((S >> pj->type) & 1u))
                rest -= (double)max[j] * pj->gpus_per_node;
        }
        /* the need is an expectation in floating point: a relative slack of
         * 1e-9 keeps a need of exactly k nodes at k */
        double f = rest > 0 ? ceil(rest / pk->gpus_per_node * (1 - 1e-9)) : 0;
        uint32_t v = f >= (double)max[k] ? max[k] : (uint32_t)f;
        if (v > floor[k] || (why && why[k].types == 0 && v == floor[k] && v > 0)) {
            floor[k] = v;
            if (why) {
                why[k].types = S;
                why[k].need_gpus = need;
                why[k].other_gpus = need - rest;
            }
        }
    }
}

void sim__size_load_floor_why(const sim__size_runner *r, const uint32_t *max, double demand,
                              uint32_t *floor, sim__size_bound_why *why)
{
    const sim_scenario *sc = r->base;
    for (size_t k = 0; k < r->n_vary; k++)
        floor[k] = 0;
    if (why)
        memset(why, 0, r->n_vary * sizeof *why);
    size_t cap = 2 * (sc->n_classes + sc->n_services);
    need_item *items = malloc((cap ? cap : 1) * sizeof *items);
    if (!items)
        return; /* floors of 0 are still bounds */
    size_t n = need_items(sc, demand, items);
    uint64_t F = fleet_types(sc);
    /* Every set S of types: the load that can only use S must fit in the
     * GPUs of S (Hall's condition). All subsets of the fleet's types when
     * there are at most 12 of them; else the whole fleet and each piece's
     * own set of types. */
    int bits = 0;
    for (uint64_t x = F; x; x &= x - 1)
        bits++;
    if (bits <= 12) {
        for (uint64_t S = F; S; S = (S - 1) & F)
            bound_for_set(r, max, items, n, S, floor, why);
    } else {
        bound_for_set(r, max, items, n, F, floor, why);
        for (size_t i = 0; i < n; i++)
            if (items[i].types)
                bound_for_set(r, max, items, n, items[i].types, floor, why);
    }
    free(items);
}

void sim__size_load_floor(const sim__size_runner *r, const uint32_t *max, double demand,
                          uint32_t *floor, double *need_gpus)
{
    sim__size_load_floor_why(r, max, demand, floor, NULL);
    if (need_gpus)
        *need_gpus = sim__size_need_gpus(r->base, demand);
}

void sim__size_bound_format(char *buf, size_t n, const sim_scenario *sc,
                            const sim__size_bound_why *why)
{
    size_t len = 0;
    buf[0] = '\0';
    uint64_t F = fleet_types(sc);
    if (why->types == F) {
        snprintf(buf, n, "the whole load needs %.1f GPUs, the rest of the fleet has %.0f",
                 why->need_gpus, why->other_gpus);
        return;
    }
    len += (size_t)snprintf(buf, n, "the load that can run only on ");
    int first = 1;
    for (size_t t = 0; t < sc->n_types && t < 64 && len < n; t++)
        if ((why->types >> t) & 1u) {
            len += (size_t)snprintf(buf + len, n - len, "%s%s", first ? "" : " or ",
                                    sc->types[t].name);
            first = 0;
        }
    if (len < n)
        snprintf(buf + len, n - len, " needs %.1f GPUs, the rest of the fleet has %.0f of them",
                 why->need_gpus, why->other_gpus);
}
