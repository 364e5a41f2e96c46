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
 * The generator is GSL's mt19937, chosen in code (never from GSL_RNG_TYPE).
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

gsl_rng *sim_rng_new(uint64_t seed, uint32_t rep, uint32_t purpose, uint32_t index)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (r)
        gsl_rng_set(r, sim_rng_seed(seed, rep, purpose, index));
    return r;
}

const char *sim_lib_version_gsl(void)
{
    return gsl_version;
}
