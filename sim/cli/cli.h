#ifndef TARMAC_SIM_CLI_H
#define TARMAC_SIM_CLI_H

#include "plot/plot.h"

/* The command-line interface: returns the process exit code. */
int sim_cli_main(int argc, char **argv);

#endif
