/* SPDX-License-Identifier: Apache-2.0 */
/*
 * failalloc.h — allocation failure injection for tests.
 *
 * A test linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
 * (tests/failalloc.cmake) sends every allocation of the objects it links (the
 * test and the static libraries of policies/, traces/ and sim/) through
 * failalloc.c. Allocations inside other shared libraries (libc's own, GSL, HDF5,
 * zlib) are not seen. cJSON allocates through hooks that the scenario loader
 * sets to functions of its own (sim/config/json.c), so they are seen too.
 *
 * Armed, it counts allocations (malloc, calloc, realloc to a non-zero size),
 * makes the k-th one fail (return NULL, errno ENOMEM), and remembers every
 * pointer it handed out until it is freed, so that a test can ask whether a
 * call that failed left anything behind.
 */
#ifndef TARMAC_FAILALLOC_H
#define TARMAC_FAILALLOC_H

#include <stddef.h>
#include <stdint.h>

/* Start counting from zero; allocation number `fail_at` (from 1) fails, or
 * none when it is 0. Forgets the pointers of earlier rounds. */
void failalloc_arm(uint64_t fail_at);
/* Stop counting and failing; returns the number of allocations counted. */
uint64_t failalloc_disarm(void);
/* Whether the armed round reached its failing allocation. */
int failalloc_injected(void);
/* Pointers allocated since failalloc_arm and not freed yet, and their bytes. */
size_t failalloc_live(size_t *bytes);

#endif
