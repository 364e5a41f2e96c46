/* SPDX-License-Identifier: Apache-2.0 */
/*
 * provenance_int.h — the /provenance group every tarmac HDF5 file carries
 * (internal to sim/; layout: docs/output.md, "/provenance").
 *
 * One writer for all of them, so that every file says the same things the
 * same way: which tarmac and which libraries wrote it and, when the file
 * comes from a scenario, the scenario as given and as resolved, where it came
 * from, its name and seed. A single run's file adds its replication and
 * placement policy.
 */
#ifndef TARMAC_PROVENANCE_INT_H
#define TARMAC_PROVENANCE_INT_H

#include "config/config.h"
#include "output/h5io_int.h"

#include <stdint.h>

/* What a file's /provenance holds beyond the versions and the scenario. */
typedef struct sim__provenance_extra {
    int run;              /* a single run's file: write replication and policy */
    uint32_t replication; /* the run's replication index (with run) */
} sim__provenance_extra;

/* Record the process's command line (argv[0]'s base name, then the
 * arguments, shell-quoted where needed) so that every file written after it
 * carries it as /provenance/command_line: the flags of size, plan, breakeven
 * and the rest are inputs as much as the scenario is. sim_cli_main records
 * it for the length of the command and clears it after (argc 0 clears; a
 * later call replaces the record). Not
 * thread-safe: call it before any writer runs. Out of memory, the record is
 * cleared (files then say nothing rather than something wrong). */
void sim__provenance_command_line(int argc, char *const *argv);

/* Write /provenance into w: scenario_given, scenario_resolved,
 * scenario_source, scenario_name and seed when sc is not NULL, then
 * replication (x->run), tarmac_version, policy (x->run, from sc),
 * command_line (when recorded) and libraries/{gsl,hdf5,cjson,zlib}. x may be NULL (nothing extra).
 * Fails like any h5io write (the writer's sticky status), or TM_ERR_NOMEM. */
int sim__provenance_write(sim__h5w *w, const sim_scenario *sc, const sim__provenance_extra *x,
                          tm_diag *diag);

#endif
