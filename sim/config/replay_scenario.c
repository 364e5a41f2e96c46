/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay_scenario.c — scenarios built from traces, for replay.
 *
 * A replay needs a fleet and classes but no synthesizer: the fleet comes from
 * a node list (openb, PAI), from an SWF header (the machine as nodes of
 * processor-"GPUs"), or from a scenario / fleet file (fleet.c); the classes
 * are named after what the trace distinguishes (one "trace" class, or
 * Gavel's job types), at speed 1 on every GPU type: a trace records run
 * times, not work at a reference speed. Consecutive identical nodes share a
 * pool, so a node list of thousands of machines stays a few pools and node
 * order is kept.
 */
#include "config/config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sim_scenario_init_replay(sim_scenario *sc, const char *name, tm_diag *diag)
{
    int rc = sim_scenario_init_code(sc, name ? name : "replay", diag);
    if (rc != TM_OK)
        return rc;
    snprintf(sc->source, sizeof sc->source, "(built from a trace)");
    sc->horizon_us = INT64_MAX / 4;
    sc->stop = SIM_STOP_DRAIN;
    sc->sample_us = 3600 * SIM_US_PER_S;
    snprintf(sc->policy, sizeof sc->policy, "order=fifo placement=first-fit backfill=none");
    const char *trace = "trace";
    return sim_scenario_set_classes(sc, &trace, 1, diag);
}

int sim_scenario_set_classes(sim_scenario *sc, const char *const *names, size_t n, tm_diag *diag)
{
    if (n == 0)
        return tm_diag_set(diag, TM_ERR_INVAL, "replay", "expected at least one class");
    sim_class_cfg *c = calloc(n, sizeof *c);
    if (!c)
        return tm_diag_set(diag, TM_ERR_NOMEM, "replay", "out of memory");
    /* never sampled: the trace supplies the jobs. A trace's durations are the
     * run times it recorded, on whatever GPU ran them, so its classes run at
     * speed 1 on every type; per-type speeds come only from the trace itself
     * (trace_job.speed: Gavel's throughput matrix). */
    for (size_t i = 0; i < n; i++) {
        sim_scenario_class_defaults(sc, &c[i], names[i]);
        for (size_t t = 0; t < PLACE_MAX_TYPES; t++)
            c[i].speed[t] = 1.0;
    }
    for (size_t i = 0; i < sc->n_classes; i++) {
        trace_dist_fini(&sc->classes[i].gpus);
        trace_dist_fini(&sc->classes[i].duration_s);
    }
    free(sc->classes);
    sc->classes = c;
    sc->n_classes = n;
    return TM_OK;
}

size_t sim_scenario_type_names(const sim_scenario *sc, const char **names)
{
    for (size_t t = 0; t < sc->n_types; t++)
        names[t] = sc->types[t].name;
    return sc->n_types;
}

static int add_pool(sim_scenario *sc, uint32_t type, uint32_t gpus, int64_t cpu, int64_t mem,
                    tm_diag *diag)
{
    size_t n = sc->n_pools;
    if (n > 0) {
        sim_pool_cfg *last = &sc->pools[n - 1];
        if (last->type == type && last->gpus_per_node == gpus && last->cpu_milli == cpu &&
            last->mem_mib == mem) {
            last->nodes++;
            return TM_OK;
        }
    }
    /* pools grow by doubling; the capacity is kept implicitly as the next power of two */
    if ((n & (n - 1)) == 0) {
        size_t cap = n ? 2 * n : 1;
        sim_pool_cfg *p = realloc(sc->pools, cap * sizeof *p);
        if (!p)
            return tm_diag_set(diag, TM_ERR_NOMEM, "replay", "out of memory");
        sc->pools = p;
    }
    sim_pool_cfg *p = &sc->pools[n];
    memset(p, 0, sizeof *p);
    uint64_t first = 0;
    for (size_t k = 0; k < n; k++)
        first += sc->pools[k].nodes;
    snprintf(p->name, sizeof p->name, "nodes-%llu-%.24s", (unsigned long long)first,
             sc->types[type].name);
    p->type = type;
    p->nodes = 1;
    p->gpus_per_node = gpus;
    p->cpu_milli = cpu;
    p->mem_mib = mem;
    p->ownership = SIM_OWNED;
    p->retired_us = -1;
    sc->n_pools = n + 1;
    return TM_OK;
}

int sim_scenario_add_nodes(sim_scenario *sc, trace_node_source *nodes, uint64_t *cpu_only,
                           tm_diag *diag)
{
    if (cpu_only)
        *cpu_only = 0;
    trace_node nd;
    int rc;
    while ((rc = nodes->next(nodes->ud, &nd, diag)) == TM_OK) {
        if (nd.gpus == 0) {
            if (cpu_only)
                (*cpu_only)++;
            continue;
        }
        int t = sim_catalog_find(sc->types, sc->n_types, nd.type_name);
        if (t < 0)
            return tm_diag_set(diag, TM_ERR_TRACE, nd.name,
                               "GPU model \"%s\" maps to type \"%s\", which is not in the catalog",
                               nd.model, nd.type_name);
        if ((rc =
                 add_pool(sc, (uint32_t)t, nd.gpus, nd.cpu_milli > 0 ? nd.cpu_milli : INT64_MAX / 4,
                          nd.mem_mib > 0 ? nd.mem_mib : INT64_MAX / 4, diag)))
            return rc;
    }
    return rc == TRACE_END ? TM_OK : rc;
}

int sim_scenario_add_swf_machine(sim_scenario *sc, const trace_swf_info *info, tm_diag *diag)
{
    if (info->nodes == 0)
        return tm_diag_set(diag, TM_ERR_TRACE, "SWF header",
                           "expected MaxNodes or MaxProcs in the header to give the machine; "
                           "give a fleet with --fleet");
    int t = sim_catalog_find(sc->types, sc->n_types, "SWF-PROC");
    if (t < 0) {
        if (sc->n_types >= PLACE_MAX_TYPES)
            return tm_diag_set(diag, TM_ERR_SCENARIO, "replay", "too many GPU types");
        sim_gpu_type *g = &sc->types[sc->n_types];
        memset(g, 0, sizeof *g);
        snprintf(g->name, sizeof g->name, "SWF-PROC");
        g->bf16_tflops = g->mem_bw_gbs = g->power_idle_w = g->power_peak_w = NAN;
        g->purchase_usd = g->ondemand_usd_per_h = g->reserved_usd_per_h = NAN;
        t = (int)sc->n_types++;
    }
    for (uint32_t k = 0; k < info->nodes; k++) {
        int rc =
            add_pool(sc, (uint32_t)t, info->procs_per_node, INT64_MAX / 4, INT64_MAX / 4, diag);
        if (rc)
            return rc;
    }
    return TM_OK;
}
