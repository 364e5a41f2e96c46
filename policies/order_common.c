/* SPDX-License-Identifier: Apache-2.0 */
/*
 * order_common.c — what queue orders share: sorting queue indices by a
 * 64-bit key, and parsing a list of numbers from a component's arguments.
 *
 * A key order never compares jobs through a callback (C's qsort has no
 * context argument): each order writes one key per waiting job, and the pairs
 * (key, index) are sorted. The index is the arrival position, so equal keys
 * keep arrival order and the result does not depend on how qsort treats
 * equal elements. Cost: O(n log n) per pass, one buffer reused across passes.
 */
#include "place_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int place__keysort_reserve(place__keysort *ks, uint32_t n)
{
    return place__grow(&ks->env, (void **)&ks->k, &ks->cap, n ? n : 1, sizeof *ks->k);
}

static int key_cmp(const void *a, const void *b)
{
    const struct place__key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

void place__keysort_run(place__keysort *ks, uint32_t *perm, uint32_t n)
{
    qsort(ks->k, n, sizeof *ks->k, key_cmp);
    for (uint32_t i = 0; i < n; i++)
        perm[i] = ks->k[i].idx;
}

void place__keysort_fini(place__keysort *ks)
{
    place__free(&ks->env, ks->k, ks->cap * sizeof *ks->k);
    ks->k = NULL;
    ks->cap = 0;
}

int place__parse_numbers(const char *s, double *out, uint32_t cap, uint32_t *n)
{
    *n = 0;
    while (*s) {
        char *end;
        double x = strtod(s, &end);
        if (end == s || !isfinite(x) || *n == cap)
            return PLACE_ERR_SPEC;
        out[(*n)++] = x;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return PLACE_ERR_SPEC;
    }
    return PLACE_OK;
}

int place__keysort_create(const place_env *env, const char *args, void **state, char *err,
                          size_t err_len)
{
    if (args && *args) {
        if (err && err_len)
            snprintf(err, err_len, "this order takes no arguments, got '%.60s'", args);
        return PLACE_ERR_SPEC;
    }
    place__keysort *ks = place__realloc(env, NULL, 0, sizeof *ks);
    if (!ks)
        return PLACE_ERR_NOMEM;
    memset(ks, 0, sizeof *ks);
    ks->env = *env;
    *state = ks;
    return PLACE_OK;
}

void place__keysort_destroy(void *state)
{
    place__keysort *ks = state;
    if (!ks)
        return;
    place__keysort_fini(ks);
    place_env env = ks->env;
    place__free(&env, ks, sizeof *ks);
}
