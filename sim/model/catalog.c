/* SPDX-License-Identifier: Apache-2.0 */
/*
 * catalog.c — the built-in GPU catalog.
 *
 * One row per type; docs/catalog.md gives every figure's source, date and
 * confidence (from ../shared/reference/cost-figures.md where it has them).
 * Memory is the vendor's "GB" read as GiB (80 GB -> 81,920 MiB). Idle power is
 * 25 % of the board power (the reference's uncertain "idle 0.25" fraction).
 * Cloud prices: on-demand is the neocloud on-demand rate, reserved the 1-year
 * rate (cost-figures.md §9). NAN marks a figure nobody sourced (older types
 * exist so that public traces map onto the catalog; they have no prices).
 */
#include "model/model.h"

#include <ctype.h>
#include <math.h>

#define GIB(x) ((uint32_t)((x)*1024u))

/* name, memory MiB, BF16 dense TFLOPS, GB/s, idle W, peak W, purchase $, on-demand $/h,
 * reserved $/h, partition slices */
static const sim_gpu_type builtin[] = {
    {"H100", GIB(80), 989, 3350, 175, 700, 30000, 2.99, 1.85, 7},
    {"H200", GIB(141), 989, 4800, 175, 700, 35000, 3.6, 2.6, 7},
    {"B200", GIB(180), 2250, 7700, 250, 1000, 45000, 5.5, 4.0, 7},
    {"A100-80GB", GIB(80), 312, 2039, 100, 400, 12000, 1.3, 1.1, 7},
    {"L40S", GIB(48), 362, 864, 87.5, 350, 9000, 1.0, 0.89, 0},
    {"L4", GIB(24), 121, 300, 18, 72, 3000, 0.6, 0.5, 0},
    {"MI300X", GIB(192), 1307, 5300, 187.5, 750, 12500, 1.85, 1.5, 8},
    {"MI325X", GIB(256), 1307, 6000, 250, 1000, 17500, 2.1, 1.8, 8},
    /* older types, for public traces (no sourced prices) */
    {"V100", GIB(16), 125, 900, 75, 300, NAN, NAN, NAN, 0},
    {"V100-32GB", GIB(32), 125, 900, 75, 300, NAN, NAN, NAN, 0},
    {"P100", GIB(16), 18.7, 732, 62.5, 250, NAN, NAN, NAN, 0},
    {"T4", GIB(16), 65, 320, 17.5, 70, NAN, NAN, NAN, 0},
    {"K80", GIB(12), 4.37, 240, 37.5, 150, NAN, NAN, NAN, 0},
    {"A10", GIB(24), 125, 600, 37.5, 150, NAN, NAN, NAN, 0},
    /* UNKNOWN SPECIFICATION: Alibaba's undisclosed internal GPU models of the
     * v2023 (openb) trace. Nothing about them is published: memory 0 (no
     * memory check applies; openb pods ask for none), every other figure NAN.
     * They exist so that the trace's nodes map onto the catalog. */
    {"G1", 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0},
    {"G2", 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0},
    {"G3", 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0},
};

const sim_gpu_type *sim_catalog_builtin(size_t *n)
{
    *n = sizeof builtin / sizeof builtin[0];
    return builtin;
}

static int same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

int sim_catalog_find(const sim_gpu_type *types, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (same_name(types[i].name, name))
            return (int)i;
    return -1;
}
