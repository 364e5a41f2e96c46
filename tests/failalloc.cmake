# SPDX-License-Identifier: Apache-2.0
# failalloc: allocation failure injection on the set-up paths.
#   test_failalloc   unit: for every k, the k-th allocation of a scenario load
#                    and short run, of each trace reader and of a `tarmac
#                    place` request fails; the call must report out of memory
#                    (or succeed unchanged) and leave nothing allocated.
# The wrappers (failalloc.c) see every allocation of the objects linked here,
# our static libraries included; cJSON's through the loader's hooks.
tarmac_test(test_failalloc SOURCES test_failalloc.c failalloc.c LIBS tarmac_sim LABELS unit)
target_link_options(test_failalloc PRIVATE
                    -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free)
