/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c — the tarmac executable: everything is in the sim library's CLI, so
 * tests and other programs can call sim_cli_main too.
 */
#include "cli/cli.h"

int main(int argc, char **argv)
{
    return sim_cli_main(argc, argv);
}
