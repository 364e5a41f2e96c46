/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fleet.c — GPU types, pools, and fleet-only files.
 *
 * The types start as the built-in catalog; "gpu_types" overrides a type's
 * figures by name or adds a type (from nothing, or from a "base" type).
 * Pools name their type, so types are loaded first. Fleet-only files are
 * read by fleet_file.c.
 */
#include "config/config_int.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* GPU types                                                                  */

static const char *const type_keys[] = {"name",
                                        "base",
                                        "mem_gib",
                                        "bf16_tflops",
                                        "mem_bw_gbs",
                                        "power_idle_w",
                                        "power_peak_w",
                                        "purchase_usd",
                                        "ondemand_usd_per_h",
                                        "reserved_usd_per_h",
                                        "partition_slices",
                                        NULL};

int sim__cfg_load_types(sim__loader *L, const cJSON *arr)
{
    sim_scenario *sc = L->sc;
    size_t nb;
    const sim_gpu_type *b = sim_catalog_builtin(&nb);
    sc->types = calloc(PLACE_MAX_TYPES, sizeof *sc->types);
    if (!sc->types)
        return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
    memcpy(sc->types, b, nb * sizeof *b);
    sc->n_types = nb;
    if (!arr)
        return TM_OK;
    if (!cJSON_IsArray(arr))
        return sim__cfg_fail(L, "gpu_types", "expected an array, got %s", sim__json_kind(arr));
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        char p[SIM__PATH_MAX_LEN];
        sim__json_element(p, "gpu_types", i);
        int rc = sim__cfg_check_object(L, o, p, type_keys);
        if (rc)
            return rc;
        char name[SIM_NAME_MAX], base[SIM_NAME_MAX];
        if ((rc = sim__cfg_get_name(L, o, p, "name", name, sizeof name, NULL)) ||
            (rc = sim__cfg_get_string(L, o, p, "base", base, sizeof base, "")))
            return rc;
        int idx = sim_catalog_find(sc->types, sc->n_types, name);
        sim_gpu_type *t;
        if (idx >= 0) {
            if (base[0]) {
                char q[SIM__PATH_MAX_LEN];
                sim__json_child(q, p, "base");
                return sim__cfg_fail(L, q, "type \"%s\" already exists; \"base\" is for new types",
                                     name);
            }
            t = &sc->types[idx];
        } else {
            if (sc->n_types == PLACE_MAX_TYPES)
                return sim__cfg_fail(L, p, "more than %u GPU types", PLACE_MAX_TYPES);
            t = &sc->types[sc->n_types++];
            memset(t, 0, sizeof *t);
            t->purchase_usd = t->ondemand_usd_per_h = t->reserved_usd_per_h = NAN;
            if (base[0]) {
                int bi = sim_catalog_find(sc->types, sc->n_types - 1, base);
                if (bi < 0) {
                    char q[SIM__PATH_MAX_LEN];
                    sim__json_child(q, p, "base");
                    return sim__cfg_fail(L, q, "no GPU type named \"%s\"", base);
                }
                *t = sc->types[bi];
            } else if (!sim__json_member(o, "mem_gib")) {
                return sim__cfg_fail(L, p, "a new GPU type needs \"mem_gib\" (or a \"base\" type)");
            }
            snprintf(t->name, sizeof t->name, "%s", name);
        }
        double mem = (double)t->mem_mib / 1024.0;
        int64_t slices = t->partition_slices;
        if ((rc = sim__cfg_get_number(L, o, p, "mem_gib", &mem, 0.001, 65536, 0)) ||
            (rc = sim__cfg_get_number(L, o, p, "bf16_tflops", &t->bf16_tflops, 0, 1e6, 0)) ||
            (rc = sim__cfg_get_number(L, o, p, "mem_bw_gbs", &t->mem_bw_gbs, 0, 1e7, 0)) ||
            (rc = sim__cfg_get_number(L, o, p, "power_idle_w", &t->power_idle_w, 0, 1e5, 0)) ||
            (rc = sim__cfg_get_number(L, o, p, "power_peak_w", &t->power_peak_w, 0, 1e5, 0)) ||
            (rc = sim__cfg_get_number(L, o, p, "purchase_usd", &t->purchase_usd, 0, 1e9, 0)) ||
            (rc = sim__cfg_get_number(L, o, p, "ondemand_usd_per_h", &t->ondemand_usd_per_h, 0, 1e6,
                                      0)) ||
            (rc = sim__cfg_get_number(L, o, p, "reserved_usd_per_h", &t->reserved_usd_per_h, 0, 1e6,
                                      0)) ||
            (rc = sim__cfg_get_int(L, o, p, "partition_slices", &slices, 0, 64, 0)))
            return rc;
        t->mem_mib = (uint32_t)llround(mem * 1024.0);
        t->partition_slices = (uint32_t)slices;
    }
    return TM_OK;
}

int sim__cfg_find_type(sim__loader *L, const char *p, const char *name, uint32_t *out)
{
    int t = sim_catalog_find(L->sc->types, L->sc->n_types, name);
    if (t < 0)
        return sim__cfg_fail(
            L, p, "no GPU type named \"%s\" (see docs/catalog.md or add it under gpu_types)", name);
    *out = (uint32_t)t;
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* fleet                                                                      */

static const char *const pool_keys[] = {"name",      "gpu_type",     "nodes",     "gpus_per_node",
                                        "cpu_cores", "host_mem_gib", "ownership", "delivered",
                                        "retired",   "tenant",       NULL};

/* A pool's owner: "tenant", a name from the scenario's "tenants" (absent:
 * shared). Tenants are loaded before the fleet. */
static int pool_tenant(sim__loader *L, const cJSON *o, const char *p, sim_pool_cfg *pc)
{
    char name[SIM_NAME_MAX], q[SIM__PATH_MAX_LEN];
    int rc = sim__cfg_get_string(L, o, p, "tenant", name, sizeof name, "");
    if (rc || !sim__json_member(o, "tenant"))
        return rc;
    sim__json_child(q, p, "tenant");
    const sim_scenario *sc = L->sc;
    for (size_t k = 0; k < sc->n_tenants; k++)
        if (strcmp(sc->tenants[k], name) == 0) {
            pc->has_tenant = 1;
            pc->tenant = (uint32_t)k;
            return TM_OK;
        }
    return sim__cfg_fail(L, q, "no tenant named \"%s\" in the top-level \"tenants\"", name);
}

int sim__cfg_load_fleet(sim__loader *L, const cJSON *fleet)
{
    static const char *const fleet_keys[] = {"pools", NULL};
    int rc = sim__cfg_check_object(L, fleet, "fleet", fleet_keys);
    if (rc)
        return rc;
    const cJSON *arr = sim__json_member(fleet, "pools");
    if (!cJSON_IsArray(arr))
        return sim__cfg_fail(L, "fleet.pools", "expected an array of pools, got %s",
                             sim__json_kind(arr));
    int n = cJSON_GetArraySize(arr);
    if (n < 1)
        return sim__cfg_fail(L, "fleet.pools", "expected at least one pool");
    if (n > SIM__MAX_POOLS)
        return sim__cfg_fail(L, "fleet.pools", "expected at most %d pools, got %d", SIM__MAX_POOLS,
                             n);
    sim_scenario *sc = L->sc;
    sc->pools = calloc((size_t)n, sizeof *sc->pools);
    if (!sc->pools)
        return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        char p[SIM__PATH_MAX_LEN], q[SIM__PATH_MAX_LEN];
        sim__json_element(p, "fleet.pools", i);
        if ((rc = sim__cfg_check_object(L, o, p, pool_keys)))
            return rc;
        sim_pool_cfg *pc = &sc->pools[i];
        char tname[SIM_NAME_MAX], own[32], defname[SIM_NAME_MAX];
        snprintf(defname, sizeof defname, "pool%d", i);
        int64_t nodes = 0, gpn = 8;
        double cores = 0, mem_gib = 0;
        pc->retired_us = -1;
        if ((rc = sim__cfg_get_name(L, o, p, "name", pc->name, sizeof pc->name, defname)) ||
            (rc = sim__cfg_get_string(L, o, p, "gpu_type", tname, sizeof tname, NULL)) ||
            (rc = sim__cfg_get_int(L, o, p, "nodes", &nodes, 0, 10000000, 1)) ||
            (rc =
                 sim__cfg_get_int(L, o, p, "gpus_per_node", &gpn, 1, PLACE_MAX_GPUS_PER_NODE, 0)) ||
            (rc = sim__cfg_get_number(L, o, p, "cpu_cores", &cores, 0, 1e6, 0)) ||
            (rc = sim__cfg_get_number(L, o, p, "host_mem_gib", &mem_gib, 0, 1e9, 0)) ||
            (rc = sim__cfg_get_string(L, o, p, "ownership", own, sizeof own, "owned")) ||
            (rc = sim__cfg_get_duration(L, o, p, "delivered", &pc->delivered_us, 0)) ||
            (rc = sim__cfg_get_duration(L, o, p, "retired", &pc->retired_us, 0)))
            return rc;
        sim__json_child(q, p, "gpu_type");
        if ((rc = sim__cfg_find_type(L, q, tname, &pc->type)))
            return rc;
        pc->nodes = (uint32_t)nodes;
        pc->gpus_per_node = (uint32_t)gpn;
        /* no host limits given: the node's CPU and memory never constrain */
        pc->cpu_milli = cores > 0 ? (int64_t)llround(cores * 1000) : INT64_MAX / 4;
        pc->mem_mib = mem_gib > 0 ? (int64_t)llround(mem_gib * 1024) : INT64_MAX / 4;
        if (strcmp(own, "owned") == 0)
            pc->ownership = SIM_OWNED;
        else if (strcmp(own, "reserved") == 0)
            pc->ownership = SIM_RESERVED;
        else if (strcmp(own, "on-demand") == 0)
            pc->ownership = SIM_ONDEMAND;
        else {
            sim__json_child(q, p, "ownership");
            return sim__cfg_fail(
                L, q, "expected \"owned\", \"reserved\" or \"on-demand\", got \"%s\"", own);
        }
        if (pc->retired_us >= 0 && pc->retired_us <= pc->delivered_us) {
            sim__json_child(q, p, "retired");
            return sim__cfg_fail(L, q, "retired at %.0f s, not after delivery at %.0f s",
                                 (double)pc->retired_us / 1e6, (double)pc->delivered_us / 1e6);
        }
        if ((rc = pool_tenant(L, o, p, pc)))
            return rc;
    }
    sc->n_pools = (size_t)n;
    size_t rep;
    if (sim__names_first_repeat(sc->pools[0].name, sc->n_pools, sizeof *sc->pools, &rep) != TM_OK)
        return sim__cfg_oom(L);
    if (rep < sc->n_pools) {
        char p[SIM__PATH_MAX_LEN], q[SIM__PATH_MAX_LEN];
        sim__json_element(p, "fleet.pools", (int)rep);
        sim__json_child(q, p, "name");
        return sim__cfg_fail(L, q, "pool name \"%s\" used twice", sc->pools[rep].name);
    }
    uint64_t nodes_total = 0;
    for (size_t k = 0; k < sc->n_pools; k++)
        nodes_total += sc->pools[k].nodes;
    if (nodes_total > PLACE_NONE / 2)
        return sim__cfg_fail(L, "fleet.pools", "more than %u nodes in all", PLACE_NONE / 2);
    return TM_OK;
}

/* GPUs in service at time 0 (for offered_load). */
double sim__cfg_gpus_at_start(const sim_scenario *sc)
{
    double g = 0;
    for (size_t p = 0; p < sc->n_pools; p++)
        if (sc->pools[p].delivered_us <= 0)
            g += (double)sc->pools[p].nodes * sc->pools[p].gpus_per_node;
    return g;
}
