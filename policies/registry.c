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
static const place_policy *const policies[] = {
    &place__policy_compose,
};

/* presets: a short name for a common composition */
static const struct {
    const char *name, *spec;
} presets[] = {
    {"fifo-first-fit", "order=fifo placement=first-fit backfill=none"},
    {"fifo-best-fit", "order=fifo placement=best-fit backfill=none"},
};

static const place_order *const orders[] = {
    &place__order_fifo,
};

static const place_fit *const fits[] = {
    &place__fit_first,
    &place__fit_best,
};

static const place_backfill *const backfills[] = {
    &place__backfill_none,
    &place__backfill_greedy,
};

#define COUNT_(a) (sizeof(a) / sizeof((a)[0]))

const place_policy *place_policy_find(const char *name)
{
    for (size_t i = 0; name && i < COUNT_(policies); i++)
        if (strcmp(policies[i]->name, name) == 0)
            return policies[i];
    return NULL;
}

const place_policy *const *place_policy_list(size_t *n)
{
    *n = COUNT_(policies);
    return policies;
}

const char *place__preset_find(const char *name)
{
    for (size_t i = 0; name && i < COUNT_(presets); i++)
        if (strcmp(presets[i].name, name) == 0)
            return presets[i].spec;
    return NULL;
}

const place_order *place__order_find(const char *name)
{
    for (size_t i = 0; i < COUNT_(orders); i++)
        if (strcmp(orders[i]->name, name) == 0)
            return orders[i];
    return NULL;
}

const place_fit *place__fit_find(const char *name)
{
    for (size_t i = 0; i < COUNT_(fits); i++)
        if (strcmp(fits[i]->name, name) == 0)
            return fits[i];
    return NULL;
}

const place_backfill *place__backfill_find(const char *name)
{
    for (size_t i = 0; i < COUNT_(backfills); i++)
        if (strcmp(backfills[i]->name, name) == 0)
            return backfills[i];
    return NULL;
}
