/* SPDX-License-Identifier: Apache-2.0 */
/*
 * base.h — the base room of sim/ (docs/architecture.md): what every room
 * above uses and that knows nothing of the model: the status and diagnostic
 * table (traces/status.h, shared with traces/), files that appear only when
 * complete (afile_int.h). It includes nothing of sim/.
 */
#ifndef TARMAC_SIM_BASE_H
#define TARMAC_SIM_BASE_H

#include "status.h"

#endif
