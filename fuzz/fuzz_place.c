/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_place.c — libFuzzer target: `tarmac place` on a snapshot
 * (docs/place-json.md), the whole command: the JSON parse
 * (sim_snapshot_parse), the cluster rebuilt from the running jobs, the
 * policy named by the snapshot, one pass, the decisions written. Whatever
 * the input, the command must return an exit code (0, or an error with an
 * error object), never crash, leak or hang.
 */
#include "fuzz_common.h"
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_tmp_path(".json");
    /* the decisions and error objects are not what is tested here (stderr
     * stays: the sanitizers report there; run.sh sends it to a log) */
    if (!freopen("/dev/null", "w", stdout))
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fuzz_tmp_path(".json");
    fuzz_tmp_write(p, data, size);
    char *argv[] = {"tarmac", "place", (char *)p, NULL};
    int code = sim_cli_main(3, argv);
    if (code != 0 && code != 65 && code != 71)
        abort(); /* 70 is a bug; 74 (I/O) or 66 (missing file) cannot happen here */
    return 0;
}
