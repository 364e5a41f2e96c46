/*
 * compose.c — the composed policy: a queue order, a placement rule and a
 * backfilling rule, named in one specification:
 *
 *     order=fifo placement=best-fit backfill=none
 *
 * begin() asks the order for a permutation of the queue (none for arrival
 * order); decide() walks it from a cursor, asking the placement rule for parts for each waiting
 * job. A job that fits is returned as a START; one that does not either ends the pass
 * (backfill=none) or is passed over (backfill=greedy). The cursor only moves
 * forward, so a pass costs O(queue) placement attempts at most, and O(1) when
 * the head of a strict queue does not fit.
 */
#include "place.h"
#include "place_int.h"

#include <stdio.h>
#include <string.h>

typedef struct compose {
    place_env env;
    const place_order *order;
    const place_fit *fit;
    const place_backfill *backfill;
    uint32_t *perm;
    uint32_t cap, n, cursor;
} compose;

/* Parse "key=value key=value" (separated by spaces or tabs) into the three
 * components. Keys and values are at most 63 bytes. */
static int parse_spec(compose *s, const char *args, char *err, size_t err_len)
{
    const char *p = args;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0')
            return PLACE_OK;
        size_t len = strcspn(p, " \t");
        char tok[128];
        if (len >= sizeof tok) {
            if (err && err_len)
                snprintf(err, err_len, "policy token too long: '%.40s...'", p);
            return PLACE_ERR_SPEC;
        }
        memcpy(tok, p, len);
        tok[len] = '\0';
        p += len;
        char *eq = strchr(tok, '=');
        if (!eq) {
            if (err && err_len)
                snprintf(err, err_len, "expected key=value, got '%s'", tok);
            return PLACE_ERR_SPEC;
        }
        *eq = '\0';
        const char *key = tok, *val = eq + 1;
        int found = 1;
        if (strcmp(key, "order") == 0)
            found = (s->order = place__order_find(val)) != NULL;
        else if (strcmp(key, "placement") == 0)
            found = (s->fit = place__fit_find(val)) != NULL;
        else if (strcmp(key, "backfill") == 0)
            found = (s->backfill = place__backfill_find(val)) != NULL;
        else {
            if (err && err_len)
                snprintf(err, err_len, "unknown policy key '%s' (order, placement, backfill)", key);
            return PLACE_ERR_SPEC;
        }
        if (!found) {
            if (err && err_len)
                snprintf(err, err_len, "unknown %s '%s'", key, val);
            return PLACE_ERR_NOTFOUND;
        }
    }
}

static int compose_create(const place_env *env, const char *args, void **state, char *err,
                          size_t err_len)
{
    compose *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->env = *env;
    s->order = &place__order_fifo;
    s->fit = &place__fit_first;
    s->backfill = &place__backfill_none;
    int rc = parse_spec(s, args ? args : "", err, err_len);
    if (rc != PLACE_OK) {
        place__free(env, s, sizeof *s);
        return rc;
    }
    *state = s;
    return PLACE_OK;
}

static void compose_destroy(void *state)
{
    compose *s = state;
    if (!s)
        return;
    place__free(&s->env, s->perm, s->cap * sizeof *s->perm);
    place_env env = s->env;
    place__free(&env, s, sizeof *s);
}

static int compose_begin(void *state, const place_view *v)
{
    compose *s = state;
    s->n = v->n_queue;
    s->cursor = 0;
    if (!s->order->sort)
        return PLACE_OK; /* arrival order: the cursor indexes the queue itself */
    if (v->n_queue > s->cap) {
        uint32_t cap = s->cap ? s->cap : 64;
        while (cap < v->n_queue)
            cap *= 2;
        uint32_t *p = place__realloc(&s->env, s->perm, s->cap * sizeof *p, cap * sizeof *p);
        if (!p)
            return PLACE_ERR_NOMEM;
        s->perm = p;
        s->cap = cap;
    }
    for (uint32_t i = 0; i < s->n; i++)
        s->perm[i] = i;
    return s->order->sort(v, s->perm, s->n);
}

static int compose_decide(void *state, const place_view *v, place_decision *d)
{
    compose *s = state;
    while (s->cursor < s->n) {
        uint32_t i = s->order->sort ? s->perm[s->cursor] : s->cursor;
        if (v->queue_state[i] != PLACE_Q_WAITING) {
            s->cursor++;
            continue;
        }
        int rc = s->fit->fit(v, &v->queue[i], d, &s->env);
        if (rc == PLACE_OK) {
            d->kind = PLACE_START;
            d->index = i;
            s->cursor++;
            return PLACE_OK;
        }
        if (rc != PLACE_ERR_NOFIT)
            return rc;
        if (s->backfill->mode == PLACE_BF_STOP) {
            s->cursor = s->n;
            break;
        }
        s->cursor++;
    }
    return PLACE_DONE;
}

const place_policy place__policy_compose = {
    PLACE_ABI_VERSION,
    sizeof(place_policy),
    "compose",
    "order=ORDER placement=FIT backfill=RULE, composed from the component registry",
    compose_create,
    compose_destroy,
    compose_begin,
    compose_decide,
    NULL,
};
