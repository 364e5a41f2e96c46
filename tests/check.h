/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check.h — the test harness: assertions that print both operands, a seed
 * that reproduces the failure, and the data-folder rule.
 *
 * A failing CHECK prints "file:line: got X, want Y" and marks the test failed
 * but goes on, so that one run shows every failure; the test's main returns
 * check_finish(). Tests that draw random numbers call check_seed() first so a
 * failure prints the seed to rerun with (TARMAC_TEST_SEED=N overrides it).
 */
#ifndef TARMAC_CHECK_H
#define TARMAC_CHECK_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

extern int check_failures;
extern uint64_t check_current_seed;

void check_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The seed for this test: TARMAC_TEST_SEED from the environment, or `fallback`. */
uint64_t check_seed(uint64_t fallback);
/* 0 when every check passed, 1 otherwise (prints a summary line). */
int check_finish(const char *name);
/* The public-trace folder, or NULL: then the test should `return check_skip(...)`. */
const char *check_data_dir(void);
/* Exit status for a test that cannot run here: 77 (ctest "skipped"), or 1
 * under CI=true, where missing data is a failure. */
int check_skip(const char *why);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            check_fail(__FILE__, __LINE__, "check failed: %s", #cond);                             \
    } while (0)

#define CHECK_EQ_INT(got, want)                                                                    \
    do {                                                                                           \
        long long g_ = (long long)(got), w_ = (long long)(want);                                   \
        if (g_ != w_)                                                                              \
            check_fail(__FILE__, __LINE__, "%s: got %lld, want %lld", #got, g_, w_);               \
    } while (0)

#define CHECK_EQ_U64(got, want)                                                                    \
    do {                                                                                           \
        uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                                      \
        if (g_ != w_)                                                                              \
            check_fail(__FILE__, __LINE__, "%s: got %" PRIu64 ", want %" PRIu64, #got, g_, w_);    \
    } while (0)

#define CHECK_NEAR(got, want, tol)                                                                 \
    do {                                                                                           \
        double g_ = (double)(got), w_ = (double)(want), t_ = (double)(tol);                        \
        if (!(g_ >= w_ - t_ && g_ <= w_ + t_))                                                     \
            check_fail(__FILE__, __LINE__, "%s: got %.9g, want %.9g +- %.3g", #got, g_, w_, t_);   \
    } while (0)

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        if (!g_ || !w_ || strcmp(g_, w_) != 0)                                                     \
            check_fail(__FILE__, __LINE__, "%s: got \"%s\", want \"%s\"", #got,                    \
                       g_ ? g_ : "(null)", w_ ? w_ : "(null)");                                    \
    } while (0)

#endif
