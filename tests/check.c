/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check.c — the test harness behind check.h.
 */
#include "check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int check_failures = 0;
uint64_t check_current_seed = 0;
static int seeded = 0;

void check_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (seeded)
        fprintf(stderr, " [reproduce with TARMAC_TEST_SEED=%" PRIu64 "]", check_current_seed);
    fputc('\n', stderr);
    check_failures++;
}

uint64_t check_seed(uint64_t fallback)
{
    const char *s = getenv("TARMAC_TEST_SEED");
    check_current_seed = (s && *s) ? strtoull(s, NULL, 10) : fallback;
    seeded = 1;
    return check_current_seed;
}

int check_finish(const char *name)
{
    if (check_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}

const char *check_data_dir(void)
{
    const char *d = getenv("TARMAC_DATA_DIR");
    struct stat st;
    if (!d || !*d || stat(d, &st) != 0 || !S_ISDIR(st.st_mode))
        return NULL;
    return d;
}

int check_skip(const char *why)
{
    const char *ci = getenv("CI");
    if (ci && strcmp(ci, "true") == 0) {
        fprintf(stderr, "FAIL (CI=true, so this cannot be skipped): %s\n", why);
        return 1;
    }
    printf("SKIPPED: %s\n", why);
    return 77;
}
