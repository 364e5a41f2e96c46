/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_run.h — `tarmac run --json` (json_run.c; internal to the CLI).
 */
#ifndef TARMAC_JSON_RUN_H
#define TARMAC_JSON_RUN_H

#include "cli/cli_int.h"
#include "config/json_out.h"

#include <stdio.h>

/* Print the JSON summary of run r of scenario sc (written to file out, as
 * replication rep) on f: every figure of the run's /summary, /tenants,
 * /ledger and /cost (docs/cli.md). TM_OK; TM_ERR_NOMEM (nothing printed);
 * TM_ERR_IO when f fails. */
int sim__cli_run_json(FILE *f, const sim_scenario *sc, const sim_result *r, const char *out,
                      uint64_t rep, tm_diag *diag);

#endif
