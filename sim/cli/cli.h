/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.h — the cli room of sim/ (docs/architecture.md): the `tarmac` command
 * line, one file per command (cmd_*.c) over the command table and the shared
 * option handling of cli.c. The top of the house: nothing includes it but
 * main.c and sim.h.
 */
#ifndef TARMAC_SIM_CLI_H
#define TARMAC_SIM_CLI_H

#include "plot/plot.h"

/* The command-line interface: returns the process exit code. */
int sim_cli_main(int argc, char **argv);

#endif
