/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario.c — the scenario loader: JSON text to a resolved sim_scenario.
 *
 * The tree is converted to typed structs at once and freed; nothing keeps a
 * pointer into it. Every object's keys are checked against the keys it may
 * have, so a typo is an error, not a silent default. Errors name the JSON
 * path ("workload.classes[1].gpus") and say what was expected and what was
 * found; a syntax error names the line and column. This file holds the top
 * level (load_tree), the policy, tenants and failures, and the scenarios
 * built in code; the sections have their own files: fleet.c (types, pools),
 * workload.c (classes), dist.c, services.c, cost_json.c, with the readers
 * they share in json.c.
 *
 * Conventions (scenarios/SCHEMA.md is the user's reference):
 *   durations   a number of seconds, or a string with a unit: "90s", "15m",
 *               "2.5h", "30d", "1w" (also "us", "ms");
 *   rates       "rate_per_s" | "rate_per_hour" | "rate_per_day", or
 *               "offered_load" (fraction of the fleet's GPUs at time 0);
 *   memory      GiB in names ending in _gib;
 *   policy      a specification string ("order=fifo placement=best-fit"), or an
 *               object {"order": ..., "placement": ..., "backfill": ...}.
 */
#include "config/config_int.h"

#include "base/fileio_int.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int load_policy(sim__loader *L, const cJSON *v)
{
    sim_scenario *sc = L->sc;
    if (!v) {
        snprintf(sc->policy, sizeof sc->policy, "order=fifo placement=first-fit backfill=none");
        return TM_OK;
    }
    if (cJSON_IsString(v)) {
        if (strlen(v->valuestring) >= sizeof sc->policy)
            return sim__cfg_fail(L, "policy", "longer than %zu bytes", sizeof sc->policy - 1);
        snprintf(sc->policy, sizeof sc->policy, "%s", v->valuestring);
        return TM_OK;
    }
    static const char *const keys[] = {"order",   "placement", "backfill", "preempt",
                                       "service", "partition", NULL};
    int rc = sim__cfg_check_object(L, v, "policy", keys);
    if (rc)
        return rc;
    char order[64], placement[64], backfill[64], preempt[64], service[64], partition[64];
    if ((rc = sim__cfg_get_string(L, v, "policy", "order", order, sizeof order, "fifo")) ||
        (rc = sim__cfg_get_string(L, v, "policy", "placement", placement, sizeof placement,
                                  "first-fit")) ||
        (rc = sim__cfg_get_string(L, v, "policy", "backfill", backfill, sizeof backfill, "none")) ||
        (rc = sim__cfg_get_string(L, v, "policy", "preempt", preempt, sizeof preempt, "")) ||
        (rc = sim__cfg_get_string(L, v, "policy", "service", service, sizeof service, "")) ||
        (rc = sim__cfg_get_string(L, v, "policy", "partition", partition, sizeof partition, "")))
        return rc;
    int n = snprintf(sc->policy, sizeof sc->policy, "order=%s placement=%s backfill=%s", order,
                     placement, backfill);
    if (preempt[0] && n >= 0 && (size_t)n < sizeof sc->policy)
        n += snprintf(sc->policy + n, sizeof sc->policy - (size_t)n, " preempt=%s", preempt);
    if (service[0] && n >= 0 && (size_t)n < sizeof sc->policy)
        n += snprintf(sc->policy + n, sizeof sc->policy - (size_t)n, " service=%s", service);
    if (partition[0] && n >= 0 && (size_t)n < sizeof sc->policy)
        n += snprintf(sc->policy + n, sizeof sc->policy - (size_t)n, " partition=%s", partition);
    if (n < 0 || (size_t)n >= sizeof sc->policy)
        return sim__cfg_fail(L, "policy", "specification longer than %zu bytes",
                             sizeof sc->policy - 1);
    return TM_OK;
}

/* Check the policy specification now, so that `tarmac validate` catches it. */
static int check_policy(sim__loader *L)
{
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    place_instance pi;
    char err[256];
    int rc = place_instance_init(&pi, &env, L->sc->policy, err, sizeof err);
    place_instance_fini(&pi);
    if (rc == PLACE_ERR_NOMEM)
        return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
    if (rc != PLACE_OK)
        return sim__cfg_fail(L, "policy", "%s", err[0] ? err : place_strerror(rc));
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* tenants and failures                                                       */

static int load_tenants(sim__loader *L, const cJSON *arr)
{
    sim_scenario *sc = L->sc;
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (arr && (!cJSON_IsArray(arr) || n < 1))
        return sim__cfg_fail(L, "tenants", "expected a non-empty array of tenants, got %s",
                             sim__json_kind(arr));
    if (n > SIM__MAX_TENANTS)
        return sim__cfg_fail(L, "tenants", "expected at most %d tenants, got %d", SIM__MAX_TENANTS,
                             n);
    size_t m = n ? (size_t)n : 1;
    sc->tenants = calloc(m, sizeof *sc->tenants);
    sc->tenant_share = calloc(m, sizeof *sc->tenant_share);
    if (!sc->tenants || !sc->tenant_share)
        return sim__cfg_oom(L);
    sc->n_tenants = m;
    if (!arr) {
        snprintf(sc->tenants[0], SIM_NAME_MAX, "default");
        sc->tenant_share[0] = 1.0;
        return TM_OK;
    }
    static const char *const keys[] = {"name", "share", NULL};
    double total = 0;
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        char p[SIM__PATH_MAX_LEN];
        sim__json_element(p, "tenants", i);
        int rc = sim__cfg_check_object(L, o, p, keys);
        double share = 1.0;
        if (rc || (rc = sim__cfg_get_name(L, o, p, "name", sc->tenants[i], SIM_NAME_MAX, NULL)) ||
            (rc = sim__cfg_get_number(L, o, p, "share", &share, 0, 1e12, 0)))
            return rc;
        sc->tenant_share[i] = share;
        total += share;
    }
    size_t rep;
    if (sim__names_first_repeat(sc->tenants[0], m, sizeof sc->tenants[0], &rep) != TM_OK)
        return sim__cfg_oom(L);
    if (rep < m) {
        char p[SIM__PATH_MAX_LEN];
        sim__json_element(p, "tenants", (int)rep);
        return sim__cfg_fail(L, p, "tenant name \"%s\" used twice", sc->tenants[rep]);
    }
    if (!(total > 0))
        return sim__cfg_fail(L, "tenants", "the shares add up to 0");
    for (size_t k = 0; k < m; k++)
        sc->tenant_share[k] /= total;
    return TM_OK;
}

/* Default MTBF: one job-interrupting failure per 50,700 GPU-hours, from Meta's
 * Llama 3 405B run (419 unexpected interruptions over 16,384 H100 for 54 days;
 * cost-figures.md §5, solid). Only H100s were measured: the same figure is
 * used for every type unless the scenario gives its own. The repair time is an
 * assumption (exponential, mean 8 h): no source gives one. */
#define DEFAULT_MTBF_H   50700.0
#define DEFAULT_REPAIR_S (8 * 3600.0)

static int load_failures(sim__loader *L, const cJSON *o)
{
    sim_failure_cfg *f = &L->sc->failures;
    for (size_t t = 0; t < PLACE_MAX_TYPES; t++)
        f->mtbf_h[t] = DEFAULT_MTBF_H;
    f->restart = 1;
    if (!o)
        return TM_OK;
    static const char *const keys[] = {"mtbf_h", "repair", "restart", NULL};
    int rc = sim__cfg_check_object(L, o, "failures", keys);
    if (rc)
        return rc;
    f->enabled = 1;
    const cJSON *m = sim__json_member(o, "mtbf_h");
    if (cJSON_IsNumber(m)) {
        double x;
        if ((rc = sim__cfg_get_number(L, o, "failures", "mtbf_h", &x, 1e-3, 1e12, 1)))
            return rc;
        for (size_t t = 0; t < PLACE_MAX_TYPES; t++)
            f->mtbf_h[t] = x;
    } else if (cJSON_IsObject(m)) {
        for (const cJSON *e = m->child; e; e = e->next) {
            char p[SIM__PATH_MAX_LEN];
            sim__json_child(p, "failures.mtbf_h", e->string);
            uint32_t t = 0;
            if ((rc = sim__cfg_find_type(L, p, e->string, &t)))
                return rc;
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || !(e->valuedouble >= 1e-3) ||
                e->valuedouble > 1e12)
                return sim__cfg_fail(L, p, "expected an MTBF in hours in [0.001, 1e+12], got %s",
                                     sim__json_kind(e));
            f->mtbf_h[t] = e->valuedouble;
        }
    } else if (m) {
        return sim__cfg_fail(L, "failures.mtbf_h",
                             "expected hours, or {\"GPU type\": hours}, got %s", sim__json_kind(m));
    }
    const cJSON *r = sim__json_member(o, "repair");
    if (r) {
        if ((rc = sim__cfg_load_dist(L, r, "failures.repair", SIM__VAL_DURATION, &f->repair_s)))
            return rc;
    } else {
        tm_diag sub;
        if (trace_dist_init(&f->repair_s, TRACE_DIST_EXPONENTIAL, DEFAULT_REPAIR_S, 0, &sub))
            return sim__cfg_oom(L);
    }
    return sim__cfg_get_bool(L, o, "failures", "restart", &f->restart);
}

static int load_tree(sim__loader *L, const cJSON *root)
{
    static const char *const keys[] = {"name",          "description", "seed",     "horizon",
                                       "stop",          "sample",      "policy",   "gpu_types",
                                       "reference_gpu", "tenants",     "failures", "fleet",
                                       "workload",      "cost",        NULL};
    int rc = sim__cfg_check_object(L, root, "", keys);
    if (rc)
        return rc;
    sim_scenario *sc = L->sc;
    char stop[16], desc[1024];
    int64_t seed = 1;
    sc->horizon_us = 30 * 86400 * SIM_US_PER_S;
    sc->sample_us = 0;
    if ((rc = sim__cfg_get_text(L, root, "", "name", sc->name, sizeof sc->name, "unnamed", 0)) ||
        (rc = sim__cfg_get_text(L, root, "", "description", desc, sizeof desc, "", 1)) ||
        (rc = sim__cfg_get_int(L, root, "", "seed", &seed, 0, (1ll << 53) - 1, 0)) ||
        (rc = sim__cfg_get_duration(L, root, "", "horizon", &sc->horizon_us, 0)) ||
        (rc = sim__cfg_get_string(L, root, "", "stop", stop, sizeof stop, "horizon")) ||
        (rc = sim__cfg_get_duration(L, root, "", "sample", &sc->sample_us, 0)))
        return rc;
    sc->seed = (uint64_t)seed;
    /* a planning horizon: 100 years keeps what compounds over it finite (the
     * API price factor of a year, growth is bounded by admission) */
    if (sc->horizon_us <= 0 || sc->horizon_us > SIM__HORIZON_MAX_US)
        return sim__cfg_fail(L, "horizon", "expected a horizon in (0, 100 years], got %g s",
                             (double)sc->horizon_us / SIM_US_PER_S);
    if (strcmp(stop, "horizon") == 0)
        sc->stop = SIM_STOP_HORIZON;
    else if (strcmp(stop, "drain") == 0)
        sc->stop = SIM_STOP_DRAIN;
    else
        return sim__cfg_fail(L, "stop", "expected \"horizon\" or \"drain\", got \"%s\"", stop);
    if (sc->sample_us == 0) {
        /* about 500 bins over the horizon, rounded to a whole minute */
        int64_t s = sc->horizon_us / 500 / (60 * SIM_US_PER_S) * (60 * SIM_US_PER_S);
        sc->sample_us = s > 0 ? s : 60 * SIM_US_PER_S;
    }
    if (sc->horizon_us / sc->sample_us > 10000000)
        return sim__cfg_fail(L, "sample", "more than 10 million time-series bins over the horizon");
    if ((rc = sim__cfg_load_types(L, sim__json_member(root, "gpu_types"))))
        return rc;
    char ref[SIM_NAME_MAX];
    if ((rc = sim__cfg_get_string(L, root, "", "reference_gpu", ref, sizeof ref, "H100")) ||
        (rc = sim__cfg_find_type(L, "reference_gpu", ref, &sc->reference_type)) ||
        (rc = load_tenants(L, sim__json_member(root, "tenants"))))
        return rc;
    const cJSON *fleet = sim__json_member(root, "fleet");
    if (!fleet)
        return sim__cfg_fail(L, "fleet", "required: the fleet");
    if ((rc = sim__cfg_load_fleet(L, fleet)))
        return rc;
    const cJSON *w = sim__json_member(root, "workload");
    if (!w)
        return sim__cfg_fail(L, "workload", "required: the workload");
    if ((rc = sim__cfg_load_workload(L, w)) ||
        (rc = load_policy(L, sim__json_member(root, "policy"))) || (rc = check_policy(L)) ||
        (rc = load_failures(L, sim__json_member(root, "failures"))) ||
        (rc = sim__cfg_load_cost(L, sim__json_member(root, "cost"))))
        return rc;
    return TM_OK;
}

int sim_scenario_load_text(sim_scenario *sc, const char *text, size_t len, const char *name,
                           tm_diag *diag)
{
    memset(sc, 0, sizeof *sc);
    tm_diag_clear(diag);
    sim__loader L = {name ? name : "(scenario)", "", diag, sc};
    const char *slash = name ? strrchr(name, '/') : NULL;
    if (slash && (size_t)(slash - name) < sizeof L.dir)
        snprintf(L.dir, sizeof L.dir, "%.*s", (int)(slash - name), name);
    snprintf(sc->source, sizeof sc->source, "%s", L.file);
    if (len > SIM__SCENARIO_MAX_BYTES)
        return tm_diag_set(diag, TM_ERR_LIMIT, L.file, "larger than %u MiB",
                           SIM__SCENARIO_MAX_BYTES >> 20);
    sc->json_given = malloc(len + 1);
    if (!sc->json_given)
        return tm_diag_set(diag, TM_ERR_NOMEM, L.file, "out of memory");
    memcpy(sc->json_given, text, len);
    sc->json_given[len] = '\0';
    if (memchr(text, '\0', len)) {
        int rc = tm_diag_set(diag, TM_ERR_JSON, L.file, "contains a NUL byte: not a JSON text");
        sim_scenario_fini(sc);
        return rc;
    }
    const char *end = NULL;
    int oom;
    /* the length includes the terminating NUL: cJSON checks for it after the value */
    cJSON *root = sim__json_parse(sc->json_given, len + 1, &end, &oom);
    if (!root && oom) {
        sim_scenario_fini(sc);
        return tm_diag_set(diag, TM_ERR_NOMEM, L.file, "out of memory");
    }
    if (!root) {
        int line, col;
        const char *at = end ? end : cJSON_GetErrorPtr();
        if (!at)
            at = sc->json_given + len;
        sim__json_line_col(sc->json_given, at, &line, &col);
        char where[600];
        snprintf(where, sizeof where, "%s:%d:%d", L.file, line, col);
        int rc = tm_diag_set(diag, TM_ERR_JSON, where,
                             "malformed JSON near \"%.20s\" (a syntax error, or nesting deeper "
                             "than %d levels)",
                             at, CJSON_NESTING_LIMIT);
        sim_scenario_fini(sc);
        return rc;
    }
    int rc = sim__json_no_nul(&L, sc->json_given, len);
    if (rc == TM_OK)
        rc = load_tree(&L, root);
    cJSON_Delete(root);
    if (rc != TM_OK) {
        char keep[sizeof sc->source];
        snprintf(keep, sizeof keep, "%s", sc->source);
        sim_scenario_fini(sc);
        snprintf(sc->source, sizeof sc->source, "%s", keep);
    }
    return rc;
}

int sim_scenario_load_file(sim_scenario *sc, const char *path, tm_diag *diag)
{
    memset(sc, 0, sizeof *sc);
    char *buf;
    size_t len;
    int rc = sim__file_read(path, SIM__SCENARIO_MAX_BYTES, &buf, &len, diag);
    if (rc != TM_OK)
        return rc;
    rc = sim_scenario_load_text(sc, buf, len, path, diag);
    free(buf);
    return rc;
}

int sim_scenario_load_default(sim_scenario *sc, tm_diag *diag)
{
    int rc = sim_scenario_load_text(sc, sim__default_scenario, sim__default_scenario_len,
                                    "(embedded default)", diag);
    return rc;
}

void sim_scenario_fini(sim_scenario *sc)
{
    if (!sc)
        return;
    for (size_t c = 0; c < sc->n_classes; c++)
        sim__cfg_class_fini(&sc->classes[c]);
    free(sc->classes);
    free(sc->services);
    free(sc->tenants);
    free(sc->tenant_share);
    trace_dist_fini(&sc->failures.repair_s);
    free(sc->pools);
    free(sc->types);
    free(sc->json_given);
    free(sc->cost);
    memset(sc, 0, sizeof *sc);
}

/* ------------------------------------------------------------------------- */
/* scenarios built in code (trace replay)                                     */

void sim_scenario_class_defaults(const sim_scenario *sc, sim_class_cfg *cc, const char *name)
{
    memset(cc, 0, sizeof *cc);
    snprintf(cc->name, sizeof cc->name, "%s", name);
    cc->kind = SIM_KIND_GENERIC;
    trace_arrival_cfg_poisson(&cc->arrival, 0.0);
    cc->scaling_per_doubling = 1.0;
    cc->span_slowdown = 1.0;
    cc->value = 1.0;
    cc->deadline_us = -1;
    cc->special_at_us = -1;
    cc->mean_ref_gpu_s = NAN;
    cc->speed_basis = SIM_SPEED_COMPUTE;
    for (size_t t = 0; t < sc->n_types; t++)
        cc->speed[t] = sim__cfg_derived_speed(sc, cc->speed_basis, (uint32_t)t);
}

int sim_scenario_init_code(sim_scenario *sc, const char *name, tm_diag *diag)
{
    memset(sc, 0, sizeof *sc);
    sim__loader L = {"(scenario)", "", diag, sc};
    snprintf(sc->name, sizeof sc->name, "%s", name ? name : "unnamed");
    snprintf(sc->source, sizeof sc->source, "(built in code)");
    sc->seed = 1;
    sc->horizon_us = 30 * 86400 * SIM_US_PER_S;
    sc->sample_us = 3600 * SIM_US_PER_S;
    snprintf(sc->policy, sizeof sc->policy, "order=fifo placement=first-fit backfill=none");
    int rc = sim__cfg_load_types(&L, NULL);
    if (rc == TM_OK)
        rc = sim__cfg_find_type(&L, "reference_gpu", "H100", &sc->reference_type);
    if (rc == TM_OK)
        rc = load_tenants(&L, NULL);
    if (rc == TM_OK)
        rc = load_failures(&L, NULL);
    if (rc != TM_OK)
        sim_scenario_fini(sc);
    return rc;
}
