/* SPDX-License-Identifier: Apache-2.0 */
/*
 * failalloc.c — the counting, failing allocator behind -Wl,--wrap=malloc etc.
 *
 * How it works. The linker sends the wrapped objects' calls of malloc,
 * calloc, realloc and free to __wrap_*, which reach the C library through
 * __real_*. While armed, each allocation takes a number; number `fail_at`
 * returns NULL. Every pointer handed out while armed goes into an
 * open-addressing hash set (linear probing, backward-shift deletion, kept at
 * most half full); free and realloc take it out again. A pointer the set does
 * not hold (allocated before arming, or inside libc, such as getline's
 * buffer) passes through untouched, so mixing is safe. One mutex guards the
 * state: the HDF5 writer's worker thread allocates too.
 */
#include "failalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

typedef struct slot {
    void *p;
    size_t n;
} slot;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int armed;
static uint64_t count, fail_at;
static int injected;
static slot *set;
static size_t set_cap, set_len, set_bytes;

static size_t hash_ptr(const void *p)
{
    uint64_t z = (uint64_t)(uintptr_t)p;
    z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdu;
    z ^= z >> 33;
    return (size_t)z;
}

static void set_put(void *p, size_t n);

static void set_grow(void)
{
    slot *old = set;
    size_t old_cap = set_cap;
    set_cap = set_cap ? 2 * set_cap : 4096;
    set = __real_calloc(set_cap, sizeof *set);
    if (!set)
        abort(); /* the harness itself cannot go on */
    set_len = set_bytes = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].p)
            set_put(old[i].p, old[i].n);
    __real_free(old);
}

static void set_put(void *p, size_t n)
{
    if (2 * (set_len + 1) > set_cap)
        set_grow();
    size_t m = set_cap - 1, i = hash_ptr(p) & m;
    while (set[i].p)
        i = (i + 1) & m;
    set[i].p = p;
    set[i].n = n;
    set_len++;
    set_bytes += n;
}

/* Take p out of the set; 1 if it was there. */
static int set_take(void *p)
{
    if (!set_len)
        return 0;
    size_t m = set_cap - 1, i = hash_ptr(p) & m;
    while (set[i].p && set[i].p != p)
        i = (i + 1) & m;
    if (!set[i].p)
        return 0;
    set_len--;
    set_bytes -= set[i].n;
    set[i].p = NULL;
    /* backward shift: move later members of the cluster into the hole */
    for (size_t j = (i + 1) & m; set[j].p; j = (j + 1) & m) {
        size_t home = hash_ptr(set[j].p) & m;
        /* j stays if its home lies cyclically in (i, j] */
        if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
            continue;
        set[i] = set[j];
        set[j].p = NULL;
        i = j;
    }
    return 1;
}

/* Under mu: whether this allocation is the one to fail. */
static int take_number(void)
{
    if (!armed)
        return 0;
    count++;
    if (count == fail_at) {
        injected = 1;
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t n)
{
    pthread_mutex_lock(&mu);
    void *p = NULL;
    if (!take_number()) {
        p = __real_malloc(n);
        if (p && armed)
            set_put(p, n);
    }
    pthread_mutex_unlock(&mu);
    if (!p)
        errno = ENOMEM;
    return p;
}

void *__wrap_calloc(size_t k, size_t n)
{
    pthread_mutex_lock(&mu);
    void *p = NULL;
    if (!take_number()) {
        p = __real_calloc(k, n);
        if (p && armed)
            set_put(p, k * n);
    }
    pthread_mutex_unlock(&mu);
    if (!p)
        errno = ENOMEM;
    return p;
}

void *__wrap_realloc(void *p, size_t n)
{
    if (n == 0 && p) {
        __wrap_free(p);
        return NULL;
    }
    pthread_mutex_lock(&mu);
    void *q = NULL;
    if (!take_number()) {
        q = __real_realloc(p, n);
        if (q) {
            int ours = p ? set_take(p) : armed;
            if (ours && armed)
                set_put(q, n);
        }
    }
    pthread_mutex_unlock(&mu);
    if (!q)
        errno = ENOMEM;
    return q;
}

void __wrap_free(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&mu);
    set_take(p);
    pthread_mutex_unlock(&mu);
    __real_free(p);
}

void failalloc_arm(uint64_t k)
{
    pthread_mutex_lock(&mu);
    if (set)
        memset(set, 0, set_cap * sizeof *set);
    set_len = set_bytes = 0;
    count = 0;
    fail_at = k;
    injected = 0;
    armed = 1;
    pthread_mutex_unlock(&mu);
}

uint64_t failalloc_disarm(void)
{
    pthread_mutex_lock(&mu);
    armed = 0;
    uint64_t n = count;
    pthread_mutex_unlock(&mu);
    return n;
}

int failalloc_injected(void)
{
    pthread_mutex_lock(&mu);
    int r = injected;
    pthread_mutex_unlock(&mu);
    return r;
}

size_t failalloc_live(size_t *bytes)
{
    pthread_mutex_lock(&mu);
    size_t n = set_len;
    if (bytes)
        *bytes = set_bytes;
    pthread_mutex_unlock(&mu);
    return n;
}
