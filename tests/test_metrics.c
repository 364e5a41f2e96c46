/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_metrics.c — sim/model/metrics.c on hand-worked cases: a level's
 * integral and its bins' averages, exact past 64 bits, a level that mirrors
 * another (what the engine uses for a lone class's levels), and a quantile
 * histogram copied against one fed the same values.
 */
#include "model/metrics_int.h"

#include "check.h"

#include <string.h>

/* The bins a series hands out: up to 8, three levels each. */
typedef struct bins {
    int n;
    int64_t t0[8], t1[8];
    double avg[8][3];
} bins;

static int bin_sink(void *ud, const sim_bin_row *row, tm_diag *diag)
{
    (void)diag;
    bins *b = ud;
    if (b->n < 8) {
        b->t0[b->n] = row->t0_us;
        b->t1[b->n] = row->t1_us;
        for (size_t i = 0; i < row->n_avg && i < 3; i++)
            b->avg[b->n][i] = row->avg[i];
    }
    b->n++;
    return TM_OK;
}

/* Level 0 is 3 on [0, 10), 5 on [10, 25), 0 on [25, 30); bins of 20:
 * [0, 20) holds 3 x 10 + 5 x 10 = 80 (average 4), [20, 30) holds 5 x 5 = 25
 * (average 2.5 over its 10 us); the integral is 105. Level 1 is set to 7 at
 * t = 4 and left: 7 x 16 = 112 in the first bin (5.6), 70 in the last (7). */
static void test_integrals(void)
{
    sim__series s;
    tm_diag d;
    bins b;
    memset(&b, 0, sizeof b);
    sim_sink sink = {NULL, bin_sink, &b};
    CHECK_EQ_INT(sim__series_init(&s, 3, 20), TM_OK);
    sim__level_add(&s, 0, 0, 3);
    sim__level_set(&s, 1, 4, 7);
    CHECK_EQ_INT(sim__series_advance(&s, 10, &sink, &d), TM_OK);
    sim__level_add(&s, 0, 10, 2);
    CHECK_EQ_INT(b.n, 0);
    CHECK_EQ_INT(sim__series_advance(&s, 25, &sink, &d), TM_OK);
    CHECK_EQ_INT(b.n, 1);
    sim__level_add(&s, 0, 25, -5);
    CHECK(sim__level_integral(&s, 0, 25) == 105);
    CHECK(sim__level_integral(&s, 0, 1000) == 105); /* 0 from 25 on */
    CHECK_EQ_INT(sim__series_finish(&s, 30, &sink, &d), TM_OK);
    CHECK_EQ_INT(b.n, 2);
    CHECK_EQ_INT(b.t0[0], 0);
    CHECK_EQ_INT(b.t1[0], 20);
    CHECK_NEAR(b.avg[0][0], 4.0, 0);
    CHECK_NEAR(b.avg[0][1], 5.6, 1e-12);
    CHECK_NEAR(b.avg[0][2], 0.0, 0);
    CHECK_EQ_INT(b.t0[1], 20);
    CHECK_EQ_INT(b.t1[1], 30);
    CHECK_NEAR(b.avg[1][0], 2.5, 0);
    CHECK_NEAR(b.avg[1][1], 7.0, 0);
    CHECK(sim__level_total(&s, 0) == 105);
    CHECK(sim__level_total(&s, 1) == 7 * 26);
    CHECK(sim__level_total(&s, 2) == 0);
    sim__series_fini(&s);
}

/* Past 64 bits: 10^7 milli-GPU (10,000 GPUs) for 10^13 us (about 116 days)
 * is 10^20, more than INT64_MAX (about 9.2 x 10^18); the change in the
 * middle is exact too. */
static void test_wide(void)
{
    sim__series s;
    tm_diag d;
    CHECK_EQ_INT(sim__series_init(&s, 1, INT64_C(1) << 60), TM_OK);
    const int64_t t1 = INT64_C(10000000000000), v = 10000000;
    sim__level_add(&s, 0, 0, v);
    sim__level_add(&s, 0, t1 / 2, 1); /* one more milli-GPU for the second half */
    CHECK_EQ_INT(sim__series_finish(&s, t1, NULL, &d), TM_OK);
    sim__area want = (sim__area)v * t1 + t1 / 2;
    sim__area got = sim__level_total(&s, 0);
    CHECK(got == want);
    CHECK_EQ_U64((uint64_t)(got >> 64), (uint64_t)(want >> 64));
    CHECK_EQ_U64((uint64_t)got, (uint64_t)want);
    sim__series_fini(&s);
}

/* Level 2 mirrors level 0: only level 0 is changed, level 2 reads the same in
 * every bin and in the total; an alias of an alias resolves to the source;
 * aliasing a level to itself or out of range, a mirrored level again, or a
 * level others mirror, is refused. */
static void test_alias(void)
{
    sim__series s;
    tm_diag d;
    bins b;
    memset(&b, 0, sizeof b);
    sim_sink sink = {NULL, bin_sink, &b};
    CHECK_EQ_INT(sim__series_init(&s, 3, 10), TM_OK);
    CHECK_EQ_INT(sim__series_alias(&s, 2, 0), TM_OK);
    CHECK_EQ_INT(sim__series_alias(&s, 1, 2), TM_OK); /* 1 -> 2 -> 0 */
    CHECK(sim__series_alias(&s, 1, 1) != TM_OK);
    CHECK(sim__series_alias(&s, 3, 0) != TM_OK);
    CHECK(sim__series_alias(&s, 0, 1) != TM_OK); /* 1 reads as 0: a cycle */
    CHECK(sim__series_alias(&s, 2, 0) != TM_OK); /* 2 mirrors already */
    CHECK_EQ_INT((int)sim__level_source(&s, 2), 0);
    CHECK_EQ_INT((int)sim__level_source(&s, 1), 0);
    CHECK_EQ_INT((int)sim__level_source(&s, 0), 0);
    sim__level_add(&s, 0, 2, 4); /* 4 on [2, 15), 1 on [15, 20) */
    CHECK_EQ_INT(sim__series_advance(&s, 15, &sink, &d), TM_OK);
    sim__level_add(&s, 0, 15, -3);
    CHECK_EQ_INT(sim__series_finish(&s, 20, &sink, &d), TM_OK);
    CHECK_EQ_INT(b.n, 2);
    for (int k = 0; k < 2 && k < b.n; k++) {
        CHECK_NEAR(b.avg[k][2], b.avg[k][0], 0);
        CHECK_NEAR(b.avg[k][1], b.avg[k][0], 0);
    }
    CHECK_NEAR(b.avg[0][0], 3.2, 1e-12); /* 4 x 8 / 10 */
    CHECK_NEAR(b.avg[1][0], 2.5, 1e-12); /* (4 x 5 + 1 x 5) / 10 */
    CHECK(sim__level_total(&s, 0) == 57);
    CHECK(sim__level_total(&s, 2) == 57);
    CHECK(sim__level_total(&s, 1) == 57);
    sim__series_fini(&s);

    /* aliasing a level that others mirror: they follow its new source
     * (2 -> 0, then 0 -> 3: 0 and 2 read as 3, and only 3 is changed) */
    memset(&b, 0, sizeof b);
    CHECK_EQ_INT(sim__series_init(&s, 4, 10), TM_OK);
    CHECK_EQ_INT(sim__series_alias(&s, 2, 0), TM_OK);
    CHECK_EQ_INT(sim__series_alias(&s, 0, 3), TM_OK);
    CHECK_EQ_INT((int)sim__level_source(&s, 2), 3);
    CHECK_EQ_INT((int)sim__level_source(&s, 0), 3);
    CHECK(sim__series_alias(&s, 3, 2) != TM_OK); /* 2 reads as 3: a cycle */
    sim__level_add(&s, 3, 0, 5);
    CHECK_EQ_INT(sim__series_finish(&s, 10, &sink, &d), TM_OK);
    CHECK_EQ_INT(b.n, 1);
    if (b.n == 1) {
        CHECK_NEAR(b.avg[0][0], 5, 0);
        CHECK_NEAR(b.avg[0][2], 5, 0);
        CHECK_NEAR(b.avg[0][1], 0, 0);
    }
    CHECK(sim__level_total(&s, 2) == 50 && sim__level_total(&s, 0) == 50);
    sim__series_fini(&s);
}

/* A copy answers every quantile, count, sum and maximum as the histogram
 * that was fed the values. */
static void test_quant_copy(void)
{
    sim_quantiles a, b;
    CHECK_EQ_INT(sim__quant_init(&a), TM_OK);
    CHECK_EQ_INT(sim__quant_init(&b), TM_OK);
    sim__quant_add(&b, 999); /* overwritten by the copy */
    uint64_t x = 12345;
    for (int i = 0; i < 1000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        sim__quant_add(&a, (int64_t)(x >> 40) - 100); /* some negative: zeros */
    }
    sim__quant_copy(&b, &a);
    CHECK_EQ_U64(b.n, a.n);
    CHECK_EQ_U64(b.zeros, a.zeros);
    CHECK_EQ_INT(b.max, a.max);
    CHECK(b.sum == a.sum);
    for (int k = 1; k <= 100; k++)
        CHECK(sim__quant_get(&b, k / 100.0) == sim__quant_get(&a, k / 100.0));
    sim__quant_fini(&a);
    sim__quant_fini(&b);
}

int main(void)
{
    test_integrals();
    test_wide();
    test_alias();
    test_quant_copy();
    return check_finish("test_metrics");
}
