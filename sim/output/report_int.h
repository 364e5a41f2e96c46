/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_int.h — the writers of a run's report that other rooms call
 * (internal to sim/): the /cost and /ledger groups and their lines of the
 * summary.
 * Each takes finished results; none computes a figure.
 */
#ifndef TARMAC_REPORT_INT_H
#define TARMAC_REPORT_INT_H

#include "model/cost_int.h"
#include "output/h5io_int.h"
#include "output/output.h"

#include <stdio.h>

/* A run's report file (docs/output.md), written in three steps so that
 * the study that runs the model owns the run:
 *   sim_report_open    creates the file under a temporary name, with the
 *                      /jobs table and the time series of scenario sc;
 *   sim_report_sink    the sink to hand sim_run: rows stream into the file;
 *   sim_report_commit  writes the finished summary, cost and provenance and
 *                      renames the file into place; frees the report.
 * sim_report_abort removes the temporary file and frees (NULL: no-op).
 * Both commit and abort consume the report, whatever they return; sc must
 * outlive it. */
typedef struct sim_report sim_report;
int sim_report_open(sim_report **rp, const sim_scenario *sc, const char *path, tm_diag *diag);
/* The same, keeping of the jobs what `jobs` says: /jobs (sim_report_open),
 * /jobs_summary or nothing (docs/output.md, "What --jobs keeps"). */
int sim_report_open_jobs(sim_report **rp, const sim_scenario *sc, const char *path,
                         sim_jobs_table jobs, tm_diag *diag);
const sim_sink *sim_report_sink(sim_report *rp);
int sim_report_commit(sim_report *rp, const sim_run_opts *opts, const sim_result *res,
                      const sim__cost_report *cost, tm_diag *diag);
void sim_report_abort(sim_report *rp);

/* `/jobs_summary` (output/report_jobsum.c): job rows folded into one row
 * per shape as they come, written sorted at commit. add and write fail only
 * for memory or the file. */
typedef struct sim__jobsum sim__jobsum;
int sim__jobsum_new(sim__jobsum **s); /* TM_OK or TM_ERR_NOMEM */
int sim__jobsum_add(sim__jobsum *s, const sim_job_row *r, tm_diag *diag);
int sim__jobsum_write(sim__jobsum *s, sim__h5w *w, const sim_scenario *sc, tm_diag *diag);
void sim__jobsum_free(sim__jobsum *s);

/* Write /cost (docs/output.md) into a run's file from the accounting *r of
 * the run's result res (sim__cost_account). */
int sim__cost_write_h5(sim__h5w *w, const sim_scenario *sc, const sim_result *res,
                       const sim__cost_report *r, tm_diag *diag);

/* A few lines for `tarmac run`'s summary. */
void sim__cost_print_summary(FILE *f, const sim_scenario *sc, const sim__cost_report *r);

/* Write /ledger (docs/output.md), the GPU-hour ledger of a run's result, per
 * bucket, per pool and per consumer (output/ledger_report.c). */
int sim__ledger_write_h5(sim__h5w *w, const sim_scenario *sc, const sim_result *r, tm_diag *diag);

/* The ledger and the useful work, as lines of `tarmac run`'s summary. */
void sim__ledger_print_summary(FILE *f, const sim_scenario *sc, const sim_result *r);

/* One figure of a group of /summary: the dataset's name (and the member's
 * of `tarmac run --json`), its value, units ("count": an integer dataset;
 * an integer in the JSON) and description. The sim__figs_* functions fill
 * out (room for SIM__FIGS_MAX) with a group's figures, in the file's order,
 * and return how many: the one list both the HDF5 report and the JSON
 * summary (cli/json_run.c) print. */
typedef struct sim__fig {
    const char *name;
    double v;
    const char *units, *desc;
} sim__fig;
#define SIM__FIGS_MAX 32

/* /summary/pools/<name> and /summary/types/<name>. */
size_t sim__figs_gpu_time(const sim_gpu_time *g, sim__fig *out);
/* /summary/services/<name> (its SLO is attributes, not figures). */
size_t sim__figs_service(const sim_service_result *v, sim__fig *out);
/* /summary/classes/<name>/specialization and
 * /summary/services/<name>/specialization: 0 when the class or service was
 * not specialized within the run (no group). */
size_t sim__figs_class_special(const sim_class_result *c, sim__fig *out);
size_t sim__figs_service_special(const sim_service_result *v, sim__fig *out);

/* Does the fleet of sc have GPUs of type t? (/summary/types and the
 * time series list only those.) */
int sim__fleet_has_type(const sim_scenario *sc, size_t t);

/* A dollar amount for people: "$1,234,567", with cents under $100 ("$12.34"),
 * "n/a" for NaN or an infinity. */
void sim__cost_fmt_usd(char *buf, size_t n, double v);

#endif
