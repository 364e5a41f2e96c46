/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sim.h — the whole of sim/, for programs that use the simulator as a library
 * (tests, benchmarks, fuzz targets). Inside sim/ a file includes its own
 * room's header instead, so that the include graph shows the rooms
 * (docs/architecture.md):
 *
 *     base <- model <- config <- output <- studies <- plot <- cli
 */
#ifndef TARMAC_SIM_H
#define TARMAC_SIM_H

#include "cli/cli.h"

#endif
