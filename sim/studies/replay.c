/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay.c — the SWF window protocol.
 *
 * The evaluation of batch-scheduling papers on SWF logs: each window of a
 * trace (N jobs from job K) runs as its own drained run of the engine,
 * through trace_window_open over a fresh source, and gives one row of
 * results. The scenario it runs is built from the trace by
 * config/replay_scenario.c.
 *
 * Two utilizations per window (docs/traces.md, "Protocols"): util, GPU-time
 * allocated over GPU-time in service from the first submit (time 0 of the
 * window) to the last end; and util_rlsched, the same GPU-time over the
 * GPUs in service times the span from the first submit to the last start,
 * as RLScheduler computes it (Zhang et al., SC 2020). The last start comes
 * from the job rows, through a sink that keeps nothing else.
 */
#include "studies/studies.h"

#include <string.h>

/* The sink of a window's run: the latest first start of any job. */
static int last_start_row(void *ud, const sim_job_row *row, tm_diag *diag)
{
    (void)diag;
    int64_t *t = ud;
    if (row->start_us > *t)
        *t = row->start_us;
    return TM_OK;
}

int sim_window_replay(const sim_scenario *sc, sim_source_open_fn open, void *ud,
                      const sim_window *w, size_t n, volatile int *stop, sim_window_result *out,
                      tm_diag *diag)
{
    sim_scenario run = *sc; /* shallow: only stop changes */
    run.stop = SIM_STOP_DRAIN;
    for (size_t i = 0; i < n; i++) {
        trace_source raw, win;
        int rc = open(ud, &raw, diag);
        if (rc != TM_OK)
            return rc;
        if ((rc = trace_window_open(&win, raw, w[i].first, w[i].count, 1, diag)))
            return rc;
        sim_run_opts opts;
        memset(&opts, 0, sizeof opts);
        opts.sources = &win;
        opts.n_sources = 1;
        opts.stop_flag = stop;
        sim_result res;
        int64_t last_start_us = 0;
        sim_sink sink = {last_start_row, NULL, &last_start_us};
        rc = sim_run(&run, &opts, &sink, &res, diag);
        win.close(win.ud);
        if (rc == TM_ERR_INTERRUPTED) {
            char why[sizeof diag->msg];
            snprintf(why, sizeof why, "%s", diag->msg);
            return tm_diag_set(diag, rc, "replay",
                               "interrupted while simulating window %zu of %zu (%s)", i + 1, n,
                               why);
        }
        if (rc != TM_OK)
            return rc;
        const sim_class_result *all = &res.classes[res.n_classes];
        sim_window_result *o = &out[i];
        memset(o, 0, sizeof *o);
        o->first = w[i].first;
        o->count = w[i].count;
        o->jobs = all->arrived;
        o->completed = all->completed;
        o->rejected = all->rejected;
        o->wait_mean_s = all->wait_mean_s;
        o->bsld_mean = all->slowdown_mean;
        o->util = res.alloc_util;
        /* GPUs in service: constant in a window (an SWF machine never fails) */
        double span_s = (double)res.t_end_us / SIM_US_PER_S;
        double gpus = span_s > 0 ? res.gpu_s_up / span_s : 0;
        double last_s = (double)last_start_us / SIM_US_PER_S;
        o->util_rlsched = gpus > 0 && last_s > 0 ? res.gpu_s_alloc / (gpus * last_s) : 0;
        o->makespan_s = (double)res.t_end_us / SIM_US_PER_S;
        o->policy_errors = res.policy_errors;
        sim_result_fini(&res);
    }
    return TM_OK;
}
