#ifndef TARMAC_SIM_OUTPUT_H
#define TARMAC_SIM_OUTPUT_H

#include "config/config.h"

/* ------------------------------------------------------------------------- */
/* Reporting                                                                  */



/* The curves as HDF5 (layout: docs/output.md, "Packing experiment"). */
int sim_pack_write_h5(const sim_pack_result *r, const sim_pack_cfg *cfg, const char *pods_path,
                      const char *path, tm_diag *diag);
/* The curves as a whitespace table for plotting: one block per policy
 * (gnuplot `index`), columns arrived_pct then mean and sd of each metric. */
int sim_pack_write_dat(const sim_pack_result *r, const sim_pack_cfg *cfg, const char *path,
                       tm_diag *diag);

#endif
