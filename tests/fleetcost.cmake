# SPDX-License-Identifier: Apache-2.0
# Procurement (issue 18): a fast, honest size search, whole-fleet breakeven and
# sensitivity.
#   fleetcost_early   unit: early rejection on M/M/c (an overloaded fleet is
#                     stopped with the evidence, a stable one never is; the
#                     sequential rule)
tarmac_test(fleetcost_early SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fleetcost_early.c
            LIBS tarmac_sim LABELS unit)
set_tests_properties(fleetcost_early PROPERTIES TIMEOUT 300)
#   fleetcost_be      unit: whole-fleet breakeven's crossovers and verdict on
#                     cases worked by hand
tarmac_test(fleetcost_be SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fleetcost_be.c
            LIBS tarmac_sim LABELS unit)
#   fleetcost_cli     integration: `breakeven --fleet` end to end (file,
#                     provenance, figure, verdict) and its bad input; `size`
#                     early rejection on the command line gives the same fleet
#                     in fewer runs
tarmac_script_test(fleetcost_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/fleetcost_cli.sh
                   LABELS integration)
set_tests_properties(fleetcost_cli PROPERTIES TIMEOUT 600)
