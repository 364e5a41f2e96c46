/* SPDX-License-Identifier: Apache-2.0 */
/*
 * output.h — the output room of sim/ (docs/architecture.md): files written
 * from finished results. HDF5 lives here only (h5io: writer, table layer,
 * reader); the run report (report.c, with its cost group) and the packing
 * curves are writers that compute nothing; every file appears under its
 * final name only when complete. Internal writers other rooms call:
 * output/report_int.h and output/h5io_int.h.
 */
#ifndef TARMAC_SIM_OUTPUT_H
#define TARMAC_SIM_OUTPUT_H

#include "config/config.h"

/* ------------------------------------------------------------------------- */
/* What a run's report keeps of its jobs (`--jobs`, docs/output.md)            */

typedef enum sim_jobs_table {
    SIM_JOBS_FULL = 0, /* /jobs, one row per job (the default) */
    SIM_JOBS_SUMMARY,  /* /jobs_summary, one row per job shape, instead */
    SIM_JOBS_NONE      /* neither: /summary and the rest only */
} sim_jobs_table;

/* "full", "summary", "none" (the root attribute jobs_table of a run file). */
const char *sim_jobs_table_name(sim_jobs_table t);
/* The mode named s; -1 for anything else. */
int sim_jobs_table_parse(const char *s, sim_jobs_table *out);

/* ------------------------------------------------------------------------- */
/* The packing experiment's curves (output/pack_report.c)                     */

/* The curves as HDF5 (layout: docs/output.md, "Packing experiment"). */
int sim_pack_write_h5(const sim_pack_result *r, const sim_pack_cfg *cfg, const char *pods_path,
                      const char *path, tm_diag *diag);
/* The curves as a whitespace table for plotting: one block per policy
 * (gnuplot `index`), columns arrived_pct then mean and sd of each metric. */
int sim_pack_write_dat(const sim_pack_result *r, const sim_pack_cfg *cfg, const char *path,
                       tm_diag *diag);

#endif
