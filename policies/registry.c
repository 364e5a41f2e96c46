/* SPDX-License-Identifier: Apache-2.0 */
/*
 * registry.c — the names of every built-in policy and component.
 *
 * Adding a policy or a component is one file with its table and one line in
 * the matching list below. Lists are searched linearly: they are short and
 * looked up once per run, never per event.
 */
#include "place.h"
#include "place_int.h"

#include <string.h>

/* whole policies, selectable by name in a specification */
extern const place_policy place__policy_tiresias;
extern const place_policy place__policy_gavel; /* gavel_round.c */
static const place_policy *const policies[] = {
    &place__policy_compose,
    &place__policy_tiresias,
    &place__policy_gavel,
};

/* presets: a short name for a common composition */
static const struct {
    const char *name, *spec;
} presets[] = {
    {.name = "fifo-first-fit", .spec = "order=fifo placement=first-fit backfill=none"},
    {.name = "fifo-best-fit", .spec = "order=fifo placement=best-fit backfill=none"},
    {.name = "easy", .spec = "order=fifo placement=first-fit backfill=easy"},
    {.name = "conservative", .spec = "order=fifo placement=first-fit backfill=conservative"},
    {.name = "fgd", .spec = "order=fifo placement=fgd backfill=greedy"},
    {.name = "tiresias", .spec = "tiresias-2dlas"},
    {.name = "las", .spec = "order=las placement=topology backfill=greedy"},
    /* "gavel" is a whole policy (gavel_round.c), no longer a preset */
    {.name = "priority-preempt",
     .spec = "order=priority placement=best-fit backfill=greedy preempt=priority"},
};

/* The components, one line each: NAME stands for the table place__NAME that
 * the component's file defines. Adding a component is adding its line. */
#define ORDERS(X)                                                                                  \
    X(order_fifo) X(order_priority) X(order_sjf) X(order_las) X(order_drf) X(order_edf)
#define FITS(X)                                                                                    \
    X(fit_first)                                                                                   \
    X(fit_best)                                                                                    \
    X(fit_worst)                                                                                   \
    X(fit_topology)                                                                                \
    X(fit_hetero)                                                                                  \
    X(fit_fgd)                                                                                     \
    X(fit_dotprod)                                                                                 \
    X(fit_gpu_packing)                                                                             \
    X(fit_gpu_clustering)                                                                          \
    X(fit_random)                                                                                  \
    X(fit_example)
#define BACKFILLS(X)  X(backfill_none) X(backfill_greedy) X(backfill_easy) X(backfill_conservative)
#define PREEMPTS(X)   X(preempt_none) X(preempt_priority)
#define SERVICES(X)   X(service_none) X(service_slo) X(service_hybrid)
#define PARTITIONS(X) X(partition_none) X(partition_strict) X(partition_borrow)

#define DECLARE_(type)     extern const type
#define DECL_ORDER_(n)     DECLARE_(place_order) place__##n;
#define DECL_FIT_(n)       DECLARE_(place_fit) place__##n;
#define DECL_BACKFILL_(n)  DECLARE_(place_backfill) place__##n;
#define DECL_PREEMPT_(n)   DECLARE_(place_preempt) place__##n;
#define DECL_SERVICE_(n)   DECLARE_(place_service) place__##n;
#define DECL_PARTITION_(n) DECLARE_(place_partition) place__##n;
ORDERS(DECL_ORDER_)
FITS(DECL_FIT_)
BACKFILLS(DECL_BACKFILL_)
PREEMPTS(DECL_PREEMPT_)
SERVICES(DECL_SERVICE_)
PARTITIONS(DECL_PARTITION_)

#define ENTRY_(n) &place__##n,
static const place_order *const orders[] = {ORDERS(ENTRY_)};
static const place_fit *const fits[] = {FITS(ENTRY_)};
static const place_backfill *const backfills[] = {BACKFILLS(ENTRY_)};
static const place_preempt *const preempts[] = {PREEMPTS(ENTRY_)};
static const place_service *const services[] = {SERVICES(ENTRY_)};
static const place_partition *const partitions[] = {PARTITIONS(ENTRY_)};

#define COUNT_(a) (sizeof(a) / sizeof((a)[0]))

/* find and list for one kind of table: one definition, five kinds */
#define REGISTRY_(kind, list)                                                                      \
    const place_##kind *place_##kind##_find(const char *name)                                      \
    {                                                                                              \
        for (size_t i = 0; name && i < COUNT_(list); i++)                                          \
            if (strcmp(list[i]->name, name) == 0)                                                  \
                return list[i];                                                                    \
        return NULL;                                                                               \
    }                                                                                              \
    const place_##kind *const *place_##kind##_list(size_t *n)                                      \
    {                                                                                              \
        *n = COUNT_(list);                                                                         \
        return list;                                                                               \
    }

REGISTRY_(policy, policies)
REGISTRY_(order, orders)
REGISTRY_(fit, fits)
REGISTRY_(backfill, backfills)
REGISTRY_(preempt, preempts)
REGISTRY_(service, services)
REGISTRY_(partition, partitions)

const char *place__preset_find(const char *name)
{
    for (size_t i = 0; name && i < COUNT_(presets); i++)
        if (strcmp(presets[i].name, name) == 0)
            return presets[i].spec;
    return NULL;
}
