/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service_none.c — no service rule: replicas are placed by the placement rule
 * like any other job, and never routed to an API.
 * Source: the default of schedulers that do not distinguish services.
 */
#include "place_int.h"

const place_service place__service_none = {
    .name = "none",
    .summary = "replicas are placed like batch jobs",
};
