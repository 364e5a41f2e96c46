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
/* The packing experiment's curves (output/pack_report.c)                     */

/* The curves as HDF5 (layout: docs/output.md, "Packing experiment"). */
int sim_pack_write_h5(const sim_pack_result *r, const sim_pack_cfg *cfg, const char *pods_path,
                      const char *path, tm_diag *diag);
/* The curves as a whitespace table for plotting: one block per policy
 * (gnuplot `index`), columns arrived_pct then mean and sd of each metric. */
int sim_pack_write_dat(const sim_pack_result *r, const sim_pack_cfg *cfg, const char *path,
                       tm_diag *diag);

#endif
