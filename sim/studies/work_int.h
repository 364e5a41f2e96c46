/* SPDX-License-Identifier: Apache-2.0 */
/*
 * work_int.h — run N independent jobs on K worker processes (internal to sim/).
 *
 * The machinery under `tarmac sweep`, `tarmac compare` and `tarmac size`: the
 * caller has jobs numbered 0 .. N-1, each a call fn(ud, job, out, diag) whose
 * result depends only on the job's index (a run of some scenario at some
 * replication), and wants them spread over the cores of this machine.
 *
 *   workers == 1   the jobs run one after the other in this process, no fork;
 *   workers  > 1   that many worker processes are forked (fork only, no exec:
 *                  they inherit everything fn needs). Each takes the next job
 *                  index from a counter in shared memory as it becomes free,
 *                  so long and short jobs balance themselves; fn's result
 *                  (out_size bytes), status and diagnostic go back through
 *                  shared memory, and a note on a pipe tells the parent, which
 *                  calls `done` in its own process, in completion order.
 *
 * Results are the same either way: a job sees the same inputs in a worker as
 * in the parent. A worker that dies (a signal, an exit) while running a job
 * has that job recorded as failed (TM_ERR_INTERNAL, "worker ... killed by
 * signal N") and is replaced while jobs remain. Files a job writes are its
 * own business: fn should write them atomically (h5io does).
 *
 * Stopping. The caller installs its SIGINT/SIGTERM handler (which sets
 * *stop_flag) before calling; forked workers inherit it. When the parent sees
 * the flag it starts no more jobs, forwards SIGTERM to the workers and waits
 * for them: a job whose fn watches its copy of the flag (sim_run_opts.stop_flag)
 * stops at its next event and leaves no file; others finish their job. On
 * Linux the workers also get SIGTERM if the parent dies (PR_SET_PDEATHSIG).
 *
 * How `tarmac size` should use it: one job per candidate fleet and
 * replication, out = the few doubles it compares against its targets, and
 * workers from its -j option; see sim/studies/compare.c for a complete caller.
 */
#ifndef TARMAC_WORK_INT_H
#define TARMAC_WORK_INT_H

#include "status.h"

#include <stddef.h>

/* One job: compute job `job`'s result into out[0 .. out_size) (zeroed before
 * the call) and return a status, with detail in diag on failure. */
typedef int (*sim__work_fn)(void *ud, size_t job, void *out, tm_diag *diag);

/* Called in the calling process as each job ends (also for a job whose worker
 * died), with the job's status, diagnostic and result. */
typedef void (*sim__work_done_fn)(void *ud, size_t job, int rc, const tm_diag *d, const void *out);

typedef struct sim__work_opts {
    unsigned workers;  /* processes; 0 = the online cores (sim__work_cores); 1 = in this one */
    size_t out_size;   /* bytes of result per job (may be 0) */
    int stop_on_error; /* 1: once a job fails, start no more (compare); 0: run all (sweep) */
    volatile int *stop_flag; /* set by the caller's signal handler; NULL: never stop */
    sim__work_done_fn done;  /* may be NULL */
} sim__work_opts;

/* Run jobs 0 .. n_jobs-1 with fn. out (n_jobs * out_size bytes, or NULL when
 * out_size is 0) gets every job's result; rcs[job] (may be NULL) its status,
 * TM_ERR_INTERRUPTED for a job that was stopped or never started; diags[job]
 * (may be NULL) its diagnostic.
 *
 * Returns TM_OK when every job returned TM_OK; TM_ERR_INTERRUPTED when the
 * stop flag was set; otherwise the status of the failed job with the lowest
 * index, its diagnostic in *diag (so the result does not depend on timing);
 * or the failure of the machinery itself (fork, pipe, memory). */
int sim__work_run(size_t n_jobs, sim__work_fn fn, void *ud, const sim__work_opts *o, void *out,
                  int *rcs, tm_diag *diags, tm_diag *diag);

/* The number of online cores (sysconf(_SC_NPROCESSORS_ONLN)), at least 1. */
unsigned sim__work_cores(void);

#endif
