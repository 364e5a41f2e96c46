/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot.h — the plot room of sim/ (docs/architecture.md): gnuplot figures of
 * the files the studies write, one figure kind per file over the shared
 * plotting base (plot.c, plot_int.h); the only room that runs gnuplot. Its
 * API for the command line is plot_int.h.
 */
#ifndef TARMAC_SIM_PLOT_H
#define TARMAC_SIM_PLOT_H

#include "studies/studies.h"

#endif
