/* SPDX-License-Identifier: Apache-2.0 */
/*
 * workload.c — a scenario's workload class as a stream of jobs.
 *
 * The one place that turns a class's configuration into the synthesizer's
 * (traces/synth.c), with the class's random streams (docs/rng.md) and its
 * specialization. The engine runs it; `tarmac synth` writes it to a trace
 * file; both therefore produce the same jobs for the same seed.
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

enum { R_ARRIVAL, R_GPUS, R_DURATION, R_SHARE, R_ESTIMATE, R_TENANT, R_COUNT };

typedef struct class_source {
    trace_source synth;
    trace_synth_cfg special;
    gsl_rng *r[R_COUNT];
} class_source;

static void class_source_close(void *ud)
{
    class_source *cs = ud;
    if (!cs)
        return;
    if (cs->synth.close)
        cs->synth.close(cs->synth.ud);
    for (int k = 0; k < R_COUNT; k++)
        if (cs->r[k])
            gsl_rng_free(cs->r[k]);
    free(cs);
}

static int class_source_next(void *ud, trace_job *job, tm_diag *diag)
{
    class_source *cs = ud;
    return cs->synth.next(cs->synth.ud, job, diag);
}

/* The synthesizer's view of what a class's jobs are. */
static void shape_of(trace_synth_cfg *cfg, const sim_class_cfg *cc)
{
    cfg->gpus = &cc->gpus;
    cfg->duration_s = cc->use_work ? NULL : &cc->duration_s;
    cfg->work_gpu_s = cc->use_work ? &cc->work_gpu_s : NULL;
    cfg->scaling_per_doubling = cc->scaling_per_doubling;
    cfg->share_milli = cc->has_share ? &cc->share_milli : NULL;
    cfg->estimate_factor = cc->has_estimate ? &cc->estimate_factor : NULL;
    cfg->gpu_mem_mib = cc->gpu_mem_mib;
    cfg->flags = cc->flags;
    cfg->type_mask = cc->type_mask;
    cfg->priority = cc->priority;
    cfg->deadline_us = cc->deadline_us;
    cfg->value = cc->value;
}

int sim_class_source_open(const sim_scenario *sc, size_t cls, uint32_t rep, trace_source *out,
                          tm_diag *diag)
{
    memset(out, 0, sizeof *out);
    if (cls >= sc->n_classes)
        return tm_diag_set(diag, TM_ERR_INVAL, "workload", "no class %zu", cls);
    const sim_class_cfg *cc = &sc->classes[cls];
    class_source *cs = calloc(1, sizeof *cs);
    if (!cs)
        return tm_diag_set(diag, TM_ERR_NOMEM, "workload", "out of memory");
    static const uint32_t purpose[R_COUNT] = {SIM_STREAM_ARRIVALS, SIM_STREAM_GPUS,
                                              SIM_STREAM_DURATION, SIM_STREAM_SHARE,
                                              SIM_STREAM_ESTIMATE, SIM_STREAM_TENANT};
    for (int k = 0; k < R_COUNT; k++)
        if (!(cs->r[k] = sim_rng_new(sc->seed, rep, purpose[k], (uint32_t)cls))) {
            class_source_close(cs);
            return tm_diag_set(diag, TM_ERR_NOMEM, "workload", "out of memory");
        }
    trace_synth_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.cls = (uint32_t)cls;
    cfg.arrival = &cc->arrival;
    shape_of(&cfg, cc);
    cfg.tenant = cc->has_tenants ? &cc->tenant : NULL;
    cfg.t_end_s = (double)sc->horizon_us / SIM_US_PER_S;
    cfg.max_jobs = cc->max_jobs;
    cfg.r_arrival = cs->r[R_ARRIVAL];
    cfg.r_gpus = cs->r[R_GPUS];
    cfg.r_duration = cs->r[R_DURATION];
    cfg.r_share = cs->r[R_SHARE];
    cfg.r_estimate = cs->r[R_ESTIMATE];
    cfg.r_tenant = cs->r[R_TENANT];
    if (cc->special) {
        cs->special = cfg;
        shape_of(&cs->special, cc->special);
        cfg.special = &cs->special;
        cfg.special_s = (double)cc->special_at_us / SIM_US_PER_S;
    }
    int rc = trace_synth_open(&cs->synth, &cfg, diag);
    if (rc != TM_OK) {
        class_source_close(cs);
        return rc;
    }
    out->next = class_source_next;
    out->close = class_source_close;
    out->ud = cs;
    return TM_OK;
}

static const char *const kind_names[SIM_KIND_COUNT] = {
#define SIM_KIND_NAME_(name, str) str,
    SIM_KINDS(SIM_KIND_NAME_)
#undef SIM_KIND_NAME_
};

const char *sim_kind_name(int kind)
{
    return kind >= 0 && kind < SIM_KIND_COUNT ? kind_names[kind] : "unknown";
}
