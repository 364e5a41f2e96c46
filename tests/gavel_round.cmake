# SPDX-License-Identifier: Apache-2.0
# Gavel's rounds (policies/gavel_round.c): a boundary's preemptions and starts
# on random hand-built views against the rule written out plainly.
tarmac_test(test_gavel_round SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_gavel_round.c
            LIBS tarmac_place LABELS unit)
