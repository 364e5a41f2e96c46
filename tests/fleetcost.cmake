# SPDX-License-Identifier: Apache-2.0
# Procurement (issue 18): a fast, honest size search, whole-fleet breakeven and
# sensitivity.
#   fleetcost_early   unit: early rejection on M/M/c (an overloaded fleet is
#                     stopped with the evidence, a stable one never is; the
#                     sequential rule)
tarmac_test(fleetcost_early SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fleetcost_early.c
            LIBS tarmac_sim LABELS unit)
set_tests_properties(fleetcost_early PROPERTIES TIMEOUT 300)
