/* SPDX-License-Identifier: Apache-2.0 */
/*
 * workload.c — job classes: arrivals, kinds and their defaults, sizes,
 * shares, speeds, tenants, and specializations.
 *
 * A class starts from the defaults of its kind (kind_table) and every key
 * given replaces one. An arrival process is Poisson with daily and weekly
 * profiles, growth and MMPP bursts; "offered_load" is turned into a rate
 * once the class's mean GPU-time per job is known. A specialization is the
 * class's own object with some keys replaced (merged_object), loaded again
 * as a class. Arrivals are read by dist.c (services share them).
 */
#include "config/config_int.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* workload                                                                   */

/* Defaults per kind of work. These are starting points for a scenario, not
 * measurements: scenarios/SCHEMA.md lists them, and the figures that have a
 * source say so there (restart cost: cost-figures.md §5). */
typedef struct kind_defaults {
    int n_gpus;
    double gpus[4], gpus_w[4];
    int dur_exponential; /* exponential of the mean instead of lognormal */
    double dur_mean_s, dur_sigma;
    double mem_gib;
    int preemptible;
    double checkpoint_s, restart_s;
    int priority;
    sim_speed_basis basis;
    double scaling;
    int can_span;
    double span_slowdown;
    double deadline_s;  /* < 0: none */
    double share_milli; /* 0: whole GPUs */
} kind_defaults;

static const kind_defaults kind_table[SIM_KIND_COUNT] = {
    [SIM_KIND_GENERIC] = {1, {1}, {1}, 0, 0, 0, 0, 0, 0, 0, 0, SIM_SPEED_COMPUTE, 1, 0, 1, -1, 0},
    [SIM_KIND_TRAINING] = {4,
                           {8, 16, 32, 64},
                           {0.4, 0.3, 0.2, 0.1},
                           0,
                           24 * 3600.0,
                           1.2,
                           40,
                           1,
                           3600,
                           1200,
                           0,
                           SIM_SPEED_COMPUTE,
                           0.95,
                           1,
                           1.1,
                           -1,
                           0},
    [SIM_KIND_FINE_TUNING] = {4,
                              {1, 2, 4, 8},
                              {0.3, 0.3, 0.3, 0.1},
                              0,
                              4 * 3600.0,
                              1.0,
                              24,
                              1,
                              1800,
                              300,
                              1,
                              SIM_SPEED_COMPUTE,
                              0.9,
                              0,
                              1,
                              -1,
                              0},
    [SIM_KIND_QUANTIZATION] =
        {1, {1}, {1}, 0, 1800, 0.7, 60, 0, 0, 0, 2, SIM_SPEED_MEMORY, 1, 0, 1, -1, 0},
    [SIM_KIND_BATCH_INFERENCE] = {3,
                                  {1, 2, 4},
                                  {0.6, 0.3, 0.1},
                                  0,
                                  2 * 3600.0,
                                  1.0,
                                  20,
                                  1,
                                  900,
                                  120,
                                  1,
                                  SIM_SPEED_MEMORY,
                                  0.95,
                                  0,
                                  1,
                                  24 * 3600.0,
                                  0},
    [SIM_KIND_EMBEDDING] =
        {1, {1}, {1}, 0, 3600, 0.8, 8, 1, 600, 60, 0, SIM_SPEED_COMPUTE, 1, 0, 1, -1, 500},
    [SIM_KIND_EVALUATION] =
        {1, {1}, {1}, 1, 1200, 0, 16, 0, 0, 0, 3, SIM_SPEED_COMPUTE, 1, 0, 1, -1, 0},
};

static const char *const class_keys[] = {"name",
                                         "kind",
                                         "arrival",
                                         "gpus",
                                         "duration",
                                         "work_gpu_hours",
                                         "scaling_per_doubling",
                                         "gpu_milli",
                                         "gpu_slices",
                                         "gpu_mem_gib",
                                         "gpu_types",
                                         "can_span",
                                         "span_slowdown",
                                         "preemptible",
                                         "checkpoint",
                                         "restart_overhead",
                                         "priority",
                                         "value",
                                         "deadline",
                                         "estimate",
                                         "tenants",
                                         "speeds",
                                         "speed_basis",
                                         "max_jobs",
                                         "specialize",
                                         NULL};

/* Mean GPU-time per job at reference speed, for offered_load. */
static double mean_gpu_s(const sim_class_cfg *cc)
{
    double eg = trace_dist_mean(&cc->gpus);
    double share = cc->has_share ? trace_dist_mean(&cc->share_milli) / 1000.0 : 1.0;
    if (!cc->use_work)
        return eg * share * trace_dist_mean(&cc->duration_s);
    /* work / e(g): exact over a discrete GPU count, e(E[g]) otherwise */
    double inv_e = 0;
    if (cc->gpus.kind == TRACE_DIST_DISCRETE) {
        for (size_t i = 0; i < cc->gpus.n; i++) {
            double g = floor(cc->gpus.values[i] + 0.5);
            inv_e += cc->gpus.weights[i] / pow(cc->scaling_per_doubling, log2(g < 1 ? 1 : g));
        }
    } else {
        inv_e = 1.0 / pow(cc->scaling_per_doubling, log2(eg < 1 ? 1 : eg));
    }
    return trace_dist_mean(&cc->work_gpu_s) * share * inv_e;
}

/* Relative speed of type t for a class: from the matrix if given, else the
 * catalog figure the class's basis names, relative to the reference type. A
 * type without the figure runs at speed 1. */
double sim__cfg_derived_speed(const sim_scenario *sc, sim_speed_basis basis, uint32_t t)
{
    const sim_gpu_type *g = &sc->types[t], *r = &sc->types[sc->reference_type];
    double a = basis == SIM_SPEED_MEMORY ? g->mem_bw_gbs : g->bf16_tflops;
    double b = basis == SIM_SPEED_MEMORY ? r->mem_bw_gbs : r->bf16_tflops;
    if (!(a > 0) || !(b > 0) || !isfinite(a) || !isfinite(b))
        return 1.0;
    return a / b;
}

static int load_speeds(sim__loader *L, const cJSON *o, const char *p, sim_class_cfg *cc)
{
    for (size_t t = 0; t < L->sc->n_types; t++)
        cc->speed[t] = sim__cfg_derived_speed(L->sc, cc->speed_basis, (uint32_t)t);
    const cJSON *m = sim__json_member(o, "speeds");
    if (!m)
        return TM_OK;
    char q[SIM__PATH_MAX_LEN];
    sim__json_child(q, p, "speeds");
    if (!cJSON_IsObject(m))
        return sim__cfg_fail(L, q, "expected an object {\"GPU type\": speed, ...}, got %s",
                             sim__json_kind(m));
    for (const cJSON *e = m->child; e; e = e->next) {
        char r[SIM__PATH_MAX_LEN];
        sim__json_child(r, q, e->string);
        uint32_t t = 0;
        int rc = sim__cfg_find_type(L, r, e->string, &t);
        if (rc)
            return rc;
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || !(e->valuedouble >= 1e-6) ||
            e->valuedouble > 1e6) {
            if (cJSON_IsNumber(e))
                return sim__cfg_fail(L, r, "expected a speed in [1e-06, 1e+06], got %g",
                                     e->valuedouble);
            return sim__cfg_fail(L, r, "expected a speed in [1e-06, 1e+06], got %s",
                                 sim__json_kind(e));
        }
        cc->speed[t] = e->valuedouble;
    }
    return TM_OK;
}

static int load_tenant_mix(sim__loader *L, const cJSON *o, const char *p, sim_class_cfg *cc)
{
    const sim_scenario *sc = L->sc;
    const cJSON *m = sim__json_member(o, "tenants");
    if (!m && sc->n_tenants <= 1)
        return TM_OK;
    double *w = calloc(sc->n_tenants, sizeof *w), *v = calloc(sc->n_tenants, sizeof *v);
    if (!w || !v) {
        free(w);
        free(v);
        return sim__cfg_oom(L);
    }
    int rc = TM_OK;
    for (size_t k = 0; k < sc->n_tenants; k++) {
        v[k] = (double)k;
        w[k] = m ? 0.0 : sc->tenant_share[k];
    }
    char q[SIM__PATH_MAX_LEN];
    sim__json_child(q, p, "tenants");
    if (m && !cJSON_IsObject(m))
        rc = sim__cfg_fail(L, q, "expected an object {\"tenant\": weight, ...}, got %s",
                           sim__json_kind(m));
    else if (m && (size_t)cJSON_GetArraySize(m) > sc->n_tenants) /* each key looked up once */
        rc = sim__cfg_fail(L, q, "more keys (%d) than tenants (%zu): a tenant given twice",
                           cJSON_GetArraySize(m), sc->n_tenants);
    for (const cJSON *e = m ? m->child : NULL; e && rc == TM_OK; e = e->next) {
        char r[SIM__PATH_MAX_LEN];
        sim__json_child(r, q, e->string);
        size_t k;
        for (k = 0; k < sc->n_tenants; k++)
            if (strcmp(sc->tenants[k], e->string) == 0)
                break;
        if (k == sc->n_tenants)
            rc = sim__cfg_fail(L, r, "no tenant named \"%s\" in the top-level \"tenants\"",
                               e->string);
        else if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0 ||
                 e->valuedouble > 1e12)
            rc = sim__cfg_fail(L, r, "expected a weight in [0, 1e+12], got %s", sim__json_kind(e));
        else
            w[k] = e->valuedouble;
    }
    if (rc == TM_OK) {
        tm_diag sub;
        tm_diag_clear(&sub);
        rc = trace_dist_init_discrete(&cc->tenant, v, w, sc->n_tenants, &sub);
        if (rc != TM_OK)
            rc = sim__cfg_dist_diag(L, q, rc, &sub);
        else
            cc->has_tenants = 1;
    }
    free(w);
    free(v);
    return rc;
}

/* gpu_slices: k MIG-style slices of a GPU type partitioned into S: a share of
 * floor(1000 k / S) milli-GPU and k/S of its memory. Every allowed type must
 * have the same S. */
static int load_slices(sim__loader *L, const char *p, sim_class_cfg *cc, int64_t k)
{
    const sim_scenario *sc = L->sc;
    char q[SIM__PATH_MAX_LEN];
    sim__json_child(q, p, "gpu_slices");
    uint32_t S = 0, mem = 0;
    for (size_t t = 0; t < sc->n_types; t++) {
        if (cc->type_mask && !((cc->type_mask >> t) & 1u))
            continue;
        if (!cc->type_mask && sc->types[t].partition_slices == 0)
            continue;
        uint32_t st = sc->types[t].partition_slices;
        if (st == 0)
            return sim__cfg_fail(L, q, "GPU type %s cannot be partitioned", sc->types[t].name);
        if (S && st != S)
            return sim__cfg_fail(
                L, q,
                "the allowed GPU types split into %u and %u slices; list types with one "
                "partition geometry in gpu_types",
                S, st);
        S = st;
        uint32_t m = (uint32_t)((uint64_t)sc->types[t].mem_mib * (uint64_t)k / st);
        if (!mem || m < mem)
            mem = m;
        if (!cc->type_mask)
            continue;
    }
    if (!cc->type_mask)
        return sim__cfg_fail(L, q, "needs gpu_types: the partitioned types it may use");
    if (!S)
        return sim__cfg_fail(L, q, "no allowed GPU type can be partitioned");
    if (k > S)
        return sim__cfg_fail(L, q, "%lld slices of a GPU that has %u", (long long)k, S);
    cc->slices = (uint32_t)k;
    tm_diag sub;
    int rc = trace_dist_init(&cc->share_milli, TRACE_DIST_CONSTANT, floor(1000.0 * (double)k / S),
                             0, &sub);
    if (rc != TM_OK)
        return sim__cfg_dist_diag(L, q, rc, &sub);
    cc->has_share = 1;
    if (cc->gpu_mem_mib == 0)
        cc->gpu_mem_mib = mem;
    return TM_OK;
}

static int load_class(sim__loader *L, const cJSON *o, const char *p, sim_class_cfg *cc, int index)
{
    int rc = sim__cfg_check_object(L, o, p, class_keys);
    if (rc)
        return rc;
    char defname[SIM_NAME_MAX], q[SIM__PATH_MAX_LEN], kind[32];
    snprintf(defname, sizeof defname, "class%d", index);
    if ((rc = sim__cfg_get_name(L, o, p, "name", cc->name, sizeof cc->name, defname)) ||
        (rc = sim__cfg_get_string(L, o, p, "kind", kind, sizeof kind, "generic")))
        return rc;
    int ki;
    for (ki = 0; ki < SIM_KIND_COUNT; ki++)
        if (strcmp(kind, sim_kind_name(ki)) == 0)
            break;
    if (ki == SIM_KIND_COUNT) {
        sim__json_child(q, p, "kind");
        return sim__cfg_fail(
            L, q,
            "unknown kind \"%s\" (generic, training, fine-tuning, quantization, "
            "batch-inference, embedding, evaluation; real-time inference is a service)",
            kind);
    }
    cc->kind = (sim_job_kind)ki;
    const kind_defaults *kd = &kind_table[ki];
    tm_diag sub;
    tm_diag_clear(&sub);

    const cJSON *arr = sim__json_member(o, "arrival");
    sim__json_child(q, p, "arrival");
    if (!arr)
        return sim__cfg_fail(L, q, "required: an arrival process");
    double load;
    if ((rc = sim__cfg_load_arrival(L, arr, q, &cc->arrival, &load)))
        return rc;

    sim__json_child(q, p, "gpus");
    const cJSON *g = sim__json_member(o, "gpus");
    if (g) {
        if ((rc = sim__cfg_load_dist(L, g, q, SIM__VAL_NUMBER, &cc->gpus)))
            return rc;
    } else if ((kd->n_gpus == 1
                    ? trace_dist_init(&cc->gpus, TRACE_DIST_CONSTANT, kd->gpus[0], 0, &sub)
                    : trace_dist_init_discrete(&cc->gpus, kd->gpus, kd->gpus_w, (size_t)kd->n_gpus,
                                               &sub)) != TM_OK) {
        return sim__cfg_oom(L);
    }
    if (cc->gpus.kind == TRACE_DIST_CONSTANT && !(cc->gpus.p[0] >= 0.5))
        return sim__cfg_fail(L, q, "expected at least 1 GPU, got %g", cc->gpus.p[0]);

    /* size: a duration, or work and a scaling efficiency */
    const cJSON *d = sim__json_member(o, "duration"), *w = sim__json_member(o, "work_gpu_hours");
    cc->scaling_per_doubling = kd->scaling;
    if ((rc = sim__cfg_get_number(L, o, p, "scaling_per_doubling", &cc->scaling_per_doubling, 0.01,
                                  1, 0)))
        return rc;
    if (d && w)
        return sim__cfg_fail(L, p, "give \"duration\" or \"work_gpu_hours\", not both");
    if (w) {
        sim__json_child(q, p, "work_gpu_hours");
        if ((rc = sim__cfg_load_dist(L, w, q, SIM__VAL_NUMBER, &cc->work_gpu_s)))
            return rc;
        /* GPU-hours to GPU-seconds: scale the distribution by sampling in hours
         * and converting in the synthesizer would hide the unit; rebuild it */
        trace_dist hours = cc->work_gpu_s;
        memset(&cc->work_gpu_s, 0, sizeof cc->work_gpu_s);
        rc = trace_dist_scaled(&cc->work_gpu_s, &hours, 3600.0, &sub);
        trace_dist_fini(&hours);
        if (rc != TM_OK)
            return sim__cfg_dist_diag(L, q, rc, &sub);
        cc->use_work = 1;
    } else if (d) {
        sim__json_child(q, p, "duration");
        if ((rc = sim__cfg_load_dist(L, d, q, SIM__VAL_DURATION, &cc->duration_s)))
            return rc;
    } else if (ki != SIM_KIND_GENERIC) {
        rc = kd->dur_exponential
                 ? trace_dist_init(&cc->duration_s, TRACE_DIST_EXPONENTIAL, kd->dur_mean_s, 0, &sub)
                 : trace_dist_init_lognormal_mean(&cc->duration_s, kd->dur_mean_s, kd->dur_sigma,
                                                  &sub);
        if (rc != TM_OK)
            return sim__cfg_oom(L);
    } else {
        sim__json_child(q, p, "duration");
        return sim__cfg_fail(L, q,
                             "required: a duration distribution (or work_gpu_hours, or a kind)");
    }

    double mem_gib = kd->mem_gib, slowdown = kd->span_slowdown, value = 1.0;
    int span = kd->can_span, preempt = kd->preemptible;
    int64_t prio = kd->priority, maxj = 0, slices = 0;
    cc->checkpoint_us = (int64_t)(kd->checkpoint_s * SIM_US_PER_S);
    cc->restart_us = (int64_t)(kd->restart_s * SIM_US_PER_S);
    cc->deadline_us = kd->deadline_s < 0 ? -1 : (int64_t)(kd->deadline_s * SIM_US_PER_S);
    if ((rc = sim__cfg_get_number(L, o, p, "gpu_mem_gib", &mem_gib, 0, 65536, 0)) ||
        (rc = sim__cfg_get_bool(L, o, p, "can_span", &span)) ||
        (rc = sim__cfg_get_number(L, o, p, "span_slowdown", &slowdown, 1, 1000, 0)) ||
        (rc = sim__cfg_get_bool(L, o, p, "preemptible", &preempt)) ||
        (rc = sim__cfg_get_duration(L, o, p, "checkpoint", &cc->checkpoint_us, 0)) ||
        (rc = sim__cfg_get_duration(L, o, p, "restart_overhead", &cc->restart_us, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "priority", &prio, -1000000, 1000000, 0)) ||
        (rc = sim__cfg_get_number(L, o, p, "value", &value, 0, 1e12, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "gpu_slices", &slices, 1, 64, 0)) ||
        (rc = sim__cfg_get_int(L, o, p, "max_jobs", &maxj, 0, INT64_MAX / 2, 0)))
        return rc;
    if (sim__json_member(o, "deadline")) {
        const cJSON *dl = sim__json_member(o, "deadline");
        sim__json_child(q, p, "deadline");
        if (cJSON_IsNull(dl))
            cc->deadline_us = -1;
        else if ((rc = sim__cfg_get_duration(L, o, p, "deadline", &cc->deadline_us, 1)))
            return rc;
    }
    cc->gpu_mem_mib = (uint32_t)llround(mem_gib * 1024);
    cc->flags = (span ? TRACE_JOB_CAN_SPAN : 0u) | (preempt ? TRACE_JOB_PREEMPTIBLE : 0u);
    cc->span_slowdown = slowdown;
    cc->priority = (int32_t)prio;
    cc->value = value;
    cc->max_jobs = (uint64_t)maxj;

    const cJSON *types = sim__json_member(o, "gpu_types");
    if (types) {
        sim__json_child(q, p, "gpu_types");
        if (!cJSON_IsArray(types) || cJSON_GetArraySize(types) < 1)
            return sim__cfg_fail(L, q, "expected a non-empty array of GPU type names, got %s",
                                 sim__json_kind(types));
        int i = 0;
        for (const cJSON *e = types->child; e; e = e->next, i++) {
            char r[SIM__PATH_MAX_LEN];
            sim__json_element(r, q, i);
            if (!cJSON_IsString(e))
                return sim__cfg_fail(L, r, "expected a GPU type name, got %s", sim__json_kind(e));
            uint32_t t = 0;
            if ((rc = sim__cfg_find_type(L, r, e->valuestring, &t)))
                return rc;
            cc->type_mask |= 1ull << t;
        }
    }

    /* shares: a milli-GPU share, partition slices, or whole GPUs */
    const cJSON *gm = sim__json_member(o, "gpu_milli");
    if (gm && slices)
        return sim__cfg_fail(L, p, "give \"gpu_milli\" or \"gpu_slices\", not both");
    if (gm) {
        sim__json_child(q, p, "gpu_milli");
        if ((rc = sim__cfg_load_dist(L, gm, q, SIM__VAL_NUMBER, &cc->share_milli)))
            return rc;
        cc->has_share = 1;
        double m = trace_dist_mean(&cc->share_milli);
        if (!(m >= 1 && m <= 1000))
            return sim__cfg_fail(L, q, "expected a share in milli-GPU within [1, 1000], mean %g",
                                 m);
    } else if (slices) {
        if ((rc = load_slices(L, p, cc, slices)))
            return rc;
    } else if (kd->share_milli > 0 && !g) {
        if (trace_dist_init(&cc->share_milli, TRACE_DIST_CONSTANT, kd->share_milli, 0, &sub))
            return sim__cfg_oom(L);
        cc->has_share = 1;
    }
    if (cc->has_share &&
        !(cc->gpus.kind == TRACE_DIST_CONSTANT && cc->gpus.p[0] >= 0.5 && cc->gpus.p[0] < 1.5)) {
        sim__json_child(q, p, "gpus");
        return sim__cfg_fail(L, q,
                             "a job with a GPU share (gpu_milli, gpu_slices) uses exactly 1 GPU");
    }

    /* estimates: exact by default; a factor, a distribution of factors, or "none" */
    const cJSON *est = sim__json_member(o, "estimate");
    sim__json_child(q, p, "estimate");
    cc->has_estimate = 1;
    if (est && cJSON_IsString(est) && strcmp(est->valuestring, "none") == 0) {
        cc->has_estimate = 0;
    } else if (!est || (cJSON_IsString(est) && strcmp(est->valuestring, "exact") == 0)) {
        if (trace_dist_init(&cc->estimate_factor, TRACE_DIST_CONSTANT, 1.0, 0, &sub) != TM_OK)
            return sim__cfg_oom(L);
    } else if ((rc = sim__cfg_load_dist(L, est, q, SIM__VAL_NUMBER, &cc->estimate_factor))) {
        return rc;
    }

    char basis[16];
    if ((rc = sim__cfg_get_string(L, o, p, "speed_basis", basis, sizeof basis,
                                  kd->basis == SIM_SPEED_MEMORY ? "memory" : "compute")))
        return rc;
    if (strcmp(basis, "compute") == 0)
        cc->speed_basis = SIM_SPEED_COMPUTE;
    else if (strcmp(basis, "memory") == 0)
        cc->speed_basis = SIM_SPEED_MEMORY;
    else {
        sim__json_child(q, p, "speed_basis");
        return sim__cfg_fail(L, q, "expected \"compute\" or \"memory\", got \"%s\"", basis);
    }
    if ((rc = load_speeds(L, o, p, cc)) || (rc = load_tenant_mix(L, o, p, cc)))
        return rc;
    cc->mean_ref_gpu_s = mean_gpu_s(cc);

    if (!isnan(load)) {
        /* offered load = rate x mean GPU-time per job / GPUs at time 0 */
        double gs = mean_gpu_s(cc), cap = sim__cfg_gpus_at_start(L->sc);
        sim__json_child(q, p, "arrival.offered_load");
        if (!(gs > 0 && isfinite(gs)))
            return sim__cfg_fail(L, q,
                                 "needs GPU-count and duration distributions with finite means");
        if (!(cap > 0))
            return sim__cfg_fail(L, q, "needs GPUs in service at time 0");
        cc->arrival.rate_per_s = load * cap / gs;
    }
    trace_arrival probe;
    sim__json_child(q, p, "arrival");
    rc = trace_arrival_init(&probe, &cc->arrival, 0, &sub);
    if (rc == TM_ERR_NOMEM)
        return tm_diag_set(L->diag, rc, L->file, "out of memory");
    if (rc != TM_OK)
        return sim__cfg_fail(L, q, "%s", sub.msg);
    return TM_OK;
}

/* A copy of object `base` with the members of `over` (but `skip`) replacing
 * its own, and without `drop`. Used for specializations, which are the class
 * or service they specialize with some fields replaced. NULL on out of memory. */
static cJSON *merged_object(const cJSON *base, const cJSON *over, const char *skip,
                            const char *drop)
{
    cJSON *m = cJSON_Duplicate(base, 1);
    if (!m)
        return NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(m, drop);
    for (const cJSON *e = over->child; e; e = e->next) {
        if (strcmp(e->string, skip) == 0)
            continue;
        cJSON *d = cJSON_Duplicate(e, 1);
        if (!d) {
            cJSON_Delete(m);
            return NULL;
        }
        if (cJSON_GetObjectItemCaseSensitive(m, e->string))
            cJSON_ReplaceItemInObjectCaseSensitive(m, e->string, d);
        else
            cJSON_AddItemToObject(m, e->string, d);
    }
    return m;
}

/* Keys of `over` that replace one of a pair in the base (a class gives
 * duration or work, a share or slices): the other goes. */
static void drop_rivals(cJSON *m, const cJSON *over, const char *a, const char *b)
{
    if (sim__json_member(over, a))
        cJSON_DeleteItemFromObjectCaseSensitive(m, b);
    if (sim__json_member(over, b))
        cJSON_DeleteItemFromObjectCaseSensitive(m, a);
}

static int load_class_special(sim__loader *L, const cJSON *o, const char *p, sim_class_cfg *cc,
                              int index)
{
    cc->special_at_us = -1;
    const cJSON *sp = sim__json_member(o, "specialize");
    if (!sp)
        return TM_OK;
    char q[SIM__PATH_MAX_LEN];
    sim__json_child(q, p, "specialize");
    static const char *const keys[] = {"at",
                                       "gpus",
                                       "duration",
                                       "work_gpu_hours",
                                       "scaling_per_doubling",
                                       "gpu_milli",
                                       "gpu_slices",
                                       "gpu_mem_gib",
                                       "gpu_types",
                                       "can_span",
                                       "span_slowdown",
                                       "speeds",
                                       "speed_basis",
                                       "estimate",
                                       "value",
                                       NULL};
    int rc = sim__cfg_check_object(L, sp, q, keys);
    if (rc || (rc = sim__cfg_get_duration(L, sp, q, "at", &cc->special_at_us, 1)))
        return rc;
    cJSON *m = merged_object(o, sp, "at", "specialize");
    if (!m)
        return sim__cfg_oom(L);
    drop_rivals(m, sp, "duration", "work_gpu_hours");
    drop_rivals(m, sp, "gpu_milli", "gpu_slices");
    cc->special = calloc(1, sizeof *cc->special);
    if (!cc->special) {
        cJSON_Delete(m);
        return sim__cfg_oom(L);
    }
    rc = load_class(L, m, q, cc->special, index);
    cJSON_Delete(m);
    if (rc)
        return rc;
    /* the same arrivals: a specialization changes what the jobs are, not when
     * they come (offered_load would otherwise rescale the rate) */
    cc->special->arrival = cc->arrival;
    return TM_OK;
}

void sim__cfg_class_fini(sim_class_cfg *cc)
{
    trace_dist_fini(&cc->gpus);
    trace_dist_fini(&cc->duration_s);
    trace_dist_fini(&cc->work_gpu_s);
    trace_dist_fini(&cc->share_milli);
    trace_dist_fini(&cc->estimate_factor);
    trace_dist_fini(&cc->tenant);
    if (cc->special) {
        sim__cfg_class_fini(cc->special);
        free(cc->special);
        cc->special = NULL;
    }
}

int sim__cfg_load_workload(sim__loader *L, const cJSON *w)
{
    static const char *const keys[] = {"classes", "services", NULL};
    int rc = sim__cfg_check_object(L, w, "workload", keys);
    if (rc || (rc = sim__cfg_load_services(L, sim__json_member(w, "services"))))
        return rc;
    const cJSON *arr = sim__json_member(w, "classes");
    sim_scenario *sc = L->sc;
    if (!arr && sc->n_services > 0)
        return TM_OK;
    if (!cJSON_IsArray(arr) || (cJSON_GetArraySize(arr) < 1 && sc->n_services == 0))
        return sim__cfg_fail(L, "workload.classes", "expected a non-empty array of classes, got %s",
                             sim__json_kind(arr));
    int n = cJSON_GetArraySize(arr);
    if (n > SIM__MAX_CLASSES)
        return sim__cfg_fail(L, "workload.classes", "expected at most %d classes, got %d",
                             SIM__MAX_CLASSES, n);
    sc->classes = calloc(n ? (size_t)n : 1, sizeof *sc->classes);
    if (!sc->classes)
        return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        char p[SIM__PATH_MAX_LEN];
        sim__json_element(p, "workload.classes", i);
        sc->n_classes = (size_t)i + 1; /* so that fini frees what was loaded */
        if ((rc = load_class(L, o, p, &sc->classes[i], i)) ||
            (rc = load_class_special(L, o, p, &sc->classes[i], i)))
            return rc;
    }
    size_t rep;
    if (sim__names_first_repeat(sc->classes[0].name, sc->n_classes, sizeof *sc->classes, &rep) !=
        TM_OK)
        return sim__cfg_oom(L);
    if (rep < sc->n_classes) {
        char p[SIM__PATH_MAX_LEN], q[SIM__PATH_MAX_LEN];
        sim__json_element(p, "workload.classes", (int)rep);
        sim__json_child(q, p, "name");
        return sim__cfg_fail(L, q, "class name \"%s\" used twice", sc->classes[rep].name);
    }
    return TM_OK;
}
