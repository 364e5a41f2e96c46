/*
 * replay.c — the SWF window protocol.
 *
 * The evaluation of batch-scheduling papers on SWF logs: each window of a
 * trace (N jobs from job K) runs as its own drained run of the engine,
 * through trace_window_open over a fresh source, and gives one row of
 * results. The scenario it runs is built from the trace by
 * config/replay_scenario.c.
 */
#include "studies/studies.h"

#include <string.h>

int sim_window_replay(const sim_scenario *sc, sim_source_open_fn open, void *ud,
                      const sim_window *w, size_t n, sim_window_result *out, tm_diag *diag)
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
        sim_result res;
        rc = sim_run(&run, &opts, NULL, &res, diag);
        win.close(win.ud);
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
        o->makespan_s = (double)res.t_end_us / SIM_US_PER_S;
        o->policy_errors = res.policy_errors;
        sim_result_fini(&res);
    }
    return TM_OK;
}
