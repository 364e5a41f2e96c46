/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.c — one run of a scenario into its report file: the study behind
 * `tarmac run`, `tarmac replay` and every point of a sweep.
 *
 * The model runs with the report's sink (job rows and time-series bins
 * stream into the file, so memory stays constant in the number of jobs);
 * the cost of the finished result is accounted here, once; then the report
 * writes what it is handed and commits the file. An error anywhere leaves no
 * file under the final name.
 */
#include "studies/studies.h"

#include "output/report_int.h"

#include <string.h>

int sim_study_run(const sim_scenario *sc, const sim_run_opts *opts, const char *path,
                  sim_result *res, tm_diag *diag)
{
    return sim_study_run_jobs(sc, opts, path, SIM_JOBS_FULL, res, diag);
}

int sim_study_run_jobs(const sim_scenario *sc, const sim_run_opts *opts, const char *path,
                       sim_jobs_table jobs, sim_result *res, tm_diag *diag)
{
    memset(res, 0, sizeof *res);
    sim_report *rp = NULL;
    int rc = sim_report_open_jobs(&rp, sc, path, jobs, diag);
    if (rc != TM_OK)
        return rc;
    if ((rc = sim_run(sc, opts, sim_report_sink(rp), res, diag)) != TM_OK) {
        sim_report_abort(rp);
        sim_result_fini(res);
        return rc;
    }
    sim__cost_report cost;
    if ((rc = sim__cost_account(sc, res, &cost, diag)) != TM_OK) {
        sim_report_abort(rp);
        sim_result_fini(res);
        return rc;
    }
    rc = sim_report_commit(rp, opts, res, &cost, diag);
    sim__cost_report_fini(&cost);
    if (rc != TM_OK)
        sim_result_fini(res);
    return rc;
}
