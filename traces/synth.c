/* SPDX-License-Identifier: Apache-2.0 */
/*
 * synth.c — the synthesizer: one workload class as a stream of jobs.
 *
 * Arrivals come from the class's arrival process; GPU counts, durations (or
 * work), GPU shares, estimates and tenants from their distributions, each
 * with its own generator (borrowed from the caller) so that changing one
 * never shifts the others' draws: two runs that differ only in the duration
 * distribution see the same arrival times and gang sizes (common random
 * numbers). Each job draws exactly one value from each stream it uses, in a
 * fixed order. Jobs stop at t_end_s or after max_jobs.
 */
#include "trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(trace_job) == 112, "trace_job_defaults sets every field of trace_job");

void trace_job_defaults(trace_job *j)
{
    /* field by field, not memset or an aggregate: gcc clears a 112-byte
     * aggregate with `rep stos`, whose start-up costs more than these stores
     * (this runs once for every synthesized job) */
    j->id = 0;
    j->submit_us = 0;
    j->duration_us = 0;
    j->estimate_us = -1;
    j->deadline_us = -1;
    j->gpus = 1;
    j->gpu_milli = PLACE_MILLI_WHOLE;
    j->gpu_mem_mib = 0;
    j->flags = 0;
    j->cpu_milli = 0;
    j->host_mem_mib = 0;
    j->type_mask = 0;
    j->cls = 0;
    j->tenant = 0;
    j->priority = 0;
    j->status = 0;
    j->value = 1.0;
    j->speed = NULL;
}

/* What a configuration's constant distributions give, found once: their
 * samples draw nothing (trace_dist_sample ignores the generator for a
 * constant), so a job takes the same value without the call. */
typedef struct synth_fixed {
    uint32_t gpus;     /* the GPU count, or 0: drawn */
    double est_factor; /* the estimate factor, or NAN: drawn (or none) */
} synth_fixed;

typedef struct synth {
    trace_synth_cfg cfg;
    trace_arrival arrival;
    uint64_t count;
    synth_fixed fixed, fixed_special; /* of cfg, of *cfg.special */
} synth;

/* A sampled GPU count as a job's: rounded, at least 1, at most 4096 nodes of
 * PLACE_MAX_GPUS_PER_NODE. */
static uint32_t gpus_of(double g)
{
    double gr = floor(g + 0.5);
    return gr < 1 ? 1u : (gr > PLACE_MAX_GPUS_PER_NODE * 4096.0 ? 4096u * 64u : (uint32_t)gr);
}

static synth_fixed fixed_of(const trace_synth_cfg *k)
{
    synth_fixed f = {0, NAN};
    if (k->gpus && k->gpus->kind == TRACE_DIST_CONSTANT)
        f.gpus = gpus_of(trace_dist_sample(k->gpus, NULL));
    if (k->estimate_factor && k->estimate_factor->kind == TRACE_DIST_CONSTANT)
        f.est_factor = trace_dist_sample(k->estimate_factor, NULL);
    return f;
}

/* Round a sampled time (s) to microseconds once, half away from zero as
 * llround; clamp to int64. Inline rather than llround (a libm call, 1.6 % of
 * an M/M/c run): for 0 < us < 9.2e18 the truncation i is exact and so is
 * us - i (for us >= 2^52 both are us itself), so comparing the fraction with
 * 0.5 rounds exactly as llround does (test_synth checks it against llround). */
static int64_t to_us(double s)
{
    double us = s * 1e6;
    if (!(us < 9.2e18))
        return INT64_MAX;
    if (us <= 0)
        return 0;
    int64_t i = (int64_t)us;
    return us - (double)i >= 0.5 ? i + 1 : i;
}

static int synth_next(void *ud, trace_job *job, tm_diag *diag)
{
    synth *s = ud;
    (void)diag;
    if (s->cfg.max_jobs && s->count >= s->cfg.max_jobs)
        return TRACE_END;
    double t = trace_arrival_next(&s->arrival, s->cfg.r_arrival);
    if (!(t <= s->cfg.t_end_s))
        return TRACE_END;
    trace_job_defaults(job);
    s->count++;
    job->id = s->count;
    job->submit_us = to_us(t);
    /* what the job is: the class, or its specialization from special_s on;
     * the draws come from the class's own generators either way */
    int sp = s->cfg.special && t >= s->cfg.special_s;
    const trace_synth_cfg *k = sp ? s->cfg.special : &s->cfg;
    const synth_fixed *fx = sp ? &s->fixed_special : &s->fixed;
    job->gpus = fx->gpus ? fx->gpus : gpus_of(trace_dist_sample(k->gpus, s->cfg.r_gpus));
    double d;
    if (k->work_gpu_s) {
        double w = trace_dist_sample(k->work_gpu_s, s->cfg.r_duration);
        double eff = pow(k->scaling_per_doubling, log2((double)job->gpus));
        d = w / ((double)job->gpus * eff);
    } else {
        d = trace_dist_sample(k->duration_s, s->cfg.r_duration);
    }
    job->duration_us = to_us(d);
    if (k->share_milli && job->gpus == 1 && s->cfg.r_share) {
        double m = floor(trace_dist_sample(k->share_milli, s->cfg.r_share) + 0.5);
        job->gpu_milli = m < 1 ? 1u : (m > PLACE_MILLI_WHOLE ? PLACE_MILLI_WHOLE : (uint32_t)m);
    }
    if (k->estimate_factor && s->cfg.r_estimate) {
        double f = !isnan(fx->est_factor)
                       ? fx->est_factor
                       : trace_dist_sample(k->estimate_factor, s->cfg.r_estimate);
        job->estimate_us = to_us(d * f);
    }
    if (s->cfg.tenant) {
        double kt = trace_dist_sample(s->cfg.tenant, s->cfg.r_tenant);
        job->tenant = kt < 0 ? 0u : (uint32_t)kt;
    }
    if (k->deadline_us >= 0)
        job->deadline_us = job->submit_us + k->deadline_us;
    job->value = k->value;
    job->cls = s->cfg.cls;
    job->gpu_mem_mib = k->gpu_mem_mib;
    job->type_mask = k->type_mask;
    job->flags = k->flags;
    job->priority = k->priority;
    return TM_OK;
}

static void synth_close(void *ud)
{
    free(ud);
}

int trace_synth_open(trace_source *src, const trace_synth_cfg *cfg, tm_diag *diag)
{
    memset(src, 0, sizeof *src);
    if (!cfg || !cfg->arrival || !cfg->gpus || !(cfg->duration_s || cfg->work_gpu_s) ||
        !cfg->r_arrival || !cfg->r_gpus || !cfg->r_duration ||
        (cfg->share_milli && !cfg->r_share) || (cfg->estimate_factor && !cfg->r_estimate) ||
        (cfg->tenant && !cfg->r_tenant) || (cfg->work_gpu_s && !(cfg->scaling_per_doubling > 0)))
        return tm_diag_set(diag, TM_ERR_INVAL, "synth", "incomplete synthesizer configuration");
    synth *s = calloc(1, sizeof *s);
    if (!s)
        return tm_diag_set(diag, TM_ERR_NOMEM, "synth", "out of memory");
    s->cfg = *cfg;
    s->fixed = fixed_of(cfg);
    if (cfg->special)
        s->fixed_special = fixed_of(cfg->special);
    int rc = trace_arrival_init(&s->arrival, cfg->arrival, 0.0, diag);
    if (rc != TM_OK) {
        free(s);
        return rc;
    }
    src->next = synth_next;
    src->close = synth_close;
    src->ud = s;
    return TM_OK;
}
