/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_scenario.c — libFuzzer target: the scenario loader (sim/config/).
 *
 * An input is a scenario's JSON text. A scenario that loads is also turned
 * into its resolved JSON (the provenance `tarmac run` writes), which walks
 * every field the loader filled in. The fleet-only loader of `tarmac replay
 * --fleet` reads the same text from a file.
 */
#include "fuzz_common.h"
#include "sim.h"

#include <gsl/gsl_errno.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsl_set_error_handler_off();
    fuzz_tmp_path(".json");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tm_diag d;
    sim_scenario sc;
    if (sim_scenario_load_text(&sc, (const char *)data, size, "fuzz/scenario.json", &d) == TM_OK)
        free(sim_scenario_resolved_json(&sc));
    sim_scenario_fini(&sc);
    const char *p = fuzz_tmp_path(".json");
    fuzz_tmp_write(p, data, size);
    if (sim_scenario_load_fleet_file(&sc, p, &d) == TM_OK)
        free(sim_scenario_resolved_json(&sc));
    sim_scenario_fini(&sc);
    return 0;
}
