/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_validate.c — `tarmac validate`: load scenarios, hold each to the run
 * limits (admission), report the first error of each.
 */
#include "cli/cli_int.h"

#include <stdio.h>
#include <string.h>

static const char validate_help[] =
    "Usage: tarmac validate SCENARIO... [--limit NAME=VALUE]... [-v]\n"
    "\n"
    "Load each scenario and report the first error in each (with its JSON path),\n"
    "without running anything. Each is also held to the limits every command\n"
    "holds a run to (docs/cli.md, \"Limits\"): a scenario that validates is not\n"
    "refused when it runs with the same limits. Exit 0 when all are valid.\n"
    "\n"
    "  --limit NAME=VALUE   raise (or lower) a limit: arrivals, request_rate, nodes,\n"
    "                       gpus, tables, series, events (repeatable)\n"
    "  -v, --verbose        print each scenario's estimate, one line per heading\n";

static const sim__cli_spec validate_spec = {
    .cmd = &sim__cmd_validate,
    .shared = SIM__CLI_LIMIT | SIM__CLI_VERBOSE,
    .operand = "scenario",
    .max_operands = -1,
};

static int cmd_validate(int argc, char **argv)
{
    int files = 0, bad = 0, code = 0;
    sim__cli_args a;
    if (sim__cli_parse(&a, &validate_spec, argc, argv) == SIM__CLI_STOP)
        return a.code;
    for (int i = 0; i < a.n_operands; i++) {
        const char *path = a.operands[i];
        files++;
        tm_diag d;
        tm_diag_clear(&d);
        sim_scenario sc;
        sim_estimate est;
        int rc = sim_scenario_load_file(&sc, path, &d);
        if (rc == TM_OK && (rc = sim_scenario_admit(&sc, &a.limits, &est, &d)) != TM_OK)
            sim_scenario_fini(&sc);
        if (rc != TM_OK) {
            code = sim__cli_error(rc, &d);
            bad++;
            continue;
        }
        printf("%s: ok (%zu pools, %zu classes, policy %s)\n", path, sc.n_pools, sc.n_classes,
               sc.policy);
        if (a.verbose)
            sim__cli_print_estimate(stdout, &est, &a.limits, "  ");
        sim__cli_warn_no_gpus(&sc, path);
        sim_scenario_fini(&sc);
    }
    if (!files)
        return sim__cli_usage("validate", "%s", "needs at least one scenario file");
    return bad ? code : 0;
}

const sim__cli_command sim__cmd_validate = {
    "validate", cmd_validate, "check scenarios without running them", validate_help, NULL,
};
