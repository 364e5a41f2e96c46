# SPDX-License-Identifier: Apache-2.0
# Cost, breakeven and sizing (issue 6).
#   test_cost        unit: the cost model against cases worked by hand (one GPU
#                    for a year owned, reserved, on-demand; a fleet idle half
#                    the time; staff minimum; API only), breakeven with a closed
#                    form, payback, bad cost sections
#   test_size        unit: target parsing and its errors; the search logic with
#                    closed-form evaluators (one pool, mixes, impossible,
#                    growth)
#   test_size_mmc    validation: `size` on M/M/c against Erlang C (mean-wait and
#                    p95-wait targets)
#   test_cost_cli    integration: run/size/breakeven on the command line, bad
#                    input and its exit codes, the /cost and /breakeven files
tarmac_test(test_cost SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_cost.c LIBS tarmac_sim
            LABELS unit)
tarmac_test(test_size SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_size.c LIBS tarmac_sim
            LABELS unit)
add_test(NAME test_size_mmc COMMAND test_size mmc)
set_tests_properties(test_size_mmc PROPERTIES LABELS "validation" TIMEOUT 600)
tarmac_script_test(test_cost_cli COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/cost_check.py
                   LABELS integration)
set_tests_properties(test_cost_cli PROPERTIES TIMEOUT 600)
