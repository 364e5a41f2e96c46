/* sim.h: every room of sim/ (see docs/architecture.md) */
#ifndef TARMAC_SIM_H
#define TARMAC_SIM_H

#include "cli/cli.h"

#endif
