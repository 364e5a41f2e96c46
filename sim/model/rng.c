/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rng.c — random streams: one GSL generator per (replication, purpose, index).
 *
 * A stream's seed is derived from the scenario seed, the replication and the
 * stream's name (purpose, index) by chaining SplitMix64's finalizer, which
 * mixes every input bit into every output bit:
 *
 *     h = mix(seed);  h = mix(h ^ rep);  h = mix(h ^ (purpose << 32 | index))
 *     seed32 = (h >> 32) ^ (h & 0xffffffff), and 1 if that is 0
 *
 * A purpose is a number from the append-only table SIM_STREAMS (model.h);
 * the lookups below are switches over it, so two purposes with one number
 * do not compile.
 *
 * The generator is MT19937, chosen in code (never from GSL_RNG_TYPE), as a
 * GSL generator type of our own (sim_rng_mt19937, below) whose words are
 * GSL's gsl_rng_mt19937's, one for one, from the same seed (test_rng checks
 * it), so every GSL distribution draws what it drew with GSL's type.
 * gsl_rng_set keeps 32 bits of the seed and maps 0 to 4357, so seeds are 32-bit
 * and never 0 (0 would alias 4357). docs/rng.md records this derivation; it
 * is part of what makes results reproducible and must not change silently.
 */
#include "model/model.h"

#include <gsl/gsl_rng.h>
#include <gsl/gsl_version.h>

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

unsigned long sim_rng_seed(uint64_t seed, uint32_t rep, uint32_t purpose, uint32_t index)
{
    uint64_t h = mix(seed);
    h = mix(h ^ rep);
    h = mix(h ^ (((uint64_t)purpose << 32) | index));
    unsigned long s = (unsigned long)((h >> 32) ^ (h & 0xffffffffull));
    return s ? s : 1ul;
}

const char *sim_stream_name(uint32_t purpose)
{
    switch (purpose) {
#define NAME_(id, number, name, index)                                                             \
    case number:                                                                                   \
        return name;
        SIM_STREAMS(NAME_)
#undef NAME_
    }
    return NULL;
}

const char *sim_stream_index(uint32_t purpose)
{
    switch (purpose) {
#define INDEX_(id, number, name, index)                                                            \
    case number:                                                                                   \
        return index;
        SIM_STREAMS(INDEX_)
#undef INDEX_
    }
    return NULL;
}

/*
 * MT19937 (Matsumoto and Nishimura, ACM TOMACS 8(1), 1998), with the seeding
 * of their 2002 reference code (init_genrand), which GSL's mt19937 uses too:
 * a seed of 0 becomes 4357, only its low 32 bits are kept, and
 * mt[i] = 1812433253 (mt[i-1] ^ (mt[i-1] >> 30)) + i. A double is the word
 * divided by 2^32, as GSL's. Why our own: the twist chooses the matrix A's
 * row by the low bit of each word, and a branch on that bit mispredicts half
 * the time; here it is a mask, and a draw costs one indirect call and no
 * mispredicted branch. Every stream draws a few million numbers a second in
 * a queueing run, two a job.
 */
enum { MT_N = 624, MT_M = 397 };

typedef struct mt_state {
    uint32_t mt[MT_N];
    uint32_t next; /* the index of the next word; MT_N: twist first */
} mt_state;

static inline uint32_t mt_mix(uint32_t hi, uint32_t lo, uint32_t far)
{
    uint32_t y = (hi & 0x80000000u) | (lo & 0x7fffffffu);
    return far ^ (y >> 1) ^ (0x9908b0dfu & -(y & 1u));
}

static void mt_twist(mt_state *st)
{
    uint32_t *mt = st->mt;
    int k = 0;
    for (; k < MT_N - MT_M; k++)
        mt[k] = mt_mix(mt[k], mt[k + 1], mt[k + MT_M]);
    for (; k < MT_N - 1; k++)
        mt[k] = mt_mix(mt[k], mt[k + 1], mt[k + MT_M - MT_N]);
    mt[MT_N - 1] = mt_mix(mt[MT_N - 1], mt[0], mt[MT_M - 1]);
    st->next = 0;
}

static inline uint32_t mt_word(mt_state *st)
{
    if (__builtin_expect(st->next >= MT_N, 0))
        mt_twist(st);
    uint32_t k = st->mt[st->next++];
    k ^= k >> 11;
    k ^= (k << 7) & 0x9d2c5680u;
    k ^= (k << 15) & 0xefc60000u;
    return k ^ (k >> 18);
}

static void mt_set(void *vs, unsigned long s)
{
    mt_state *st = vs;
    if (s == 0)
        s = 4357;
    st->mt[0] = (uint32_t)s;
    for (uint32_t i = 1; i < MT_N; i++)
        st->mt[i] = 1812433253u * (st->mt[i - 1] ^ (st->mt[i - 1] >> 30)) + i;
    st->next = MT_N;
}

static unsigned long mt_get(void *vs)
{
    return mt_word(vs);
}

static double mt_get_double(void *vs)
{
    return mt_word(vs) / 4294967296.0;
}

static const gsl_rng_type mt_type = {"mt19937", 0xffffffffUL, 0, sizeof(mt_state), mt_set,
                                     mt_get,    mt_get_double};

const gsl_rng_type *sim_rng_mt19937(void)
{
    return &mt_type;
}

gsl_rng *sim_rng_new(uint64_t seed, uint32_t rep, uint32_t purpose, uint32_t index)
{
    gsl_rng *r = gsl_rng_alloc(&mt_type);
    if (r)
        gsl_rng_set(r, sim_rng_seed(seed, rep, purpose, index));
    return r;
}

const char *sim_lib_version_gsl(void)
{
    return gsl_version;
}
