# SPDX-License-Identifier: Apache-2.0
# Screening in `tarmac plan` (issue 18; docs/plan.md, "Screening").
#   test_plan_screen  integration: on tests/plan_tiny.json, each period's
#                     fleet of the screened plan passes in full and is
#                     minimal in full (one node fewer failed in full), the
#                     schedule is the unscreened one, the screen's decisions
#                     are printed; --screen's bad values refused; every
#                     chosen fleet confirmed in full with all R replications
#                     (/plan/candidate_*), the one-fewer neighbour of its pool
#                     failing in full
#   test_plan_lazy    unit: lazy confirmation on hand cases (verdicts written
#                     into the caches): the cheapest screened mix fails in
#                     full and its pool steps up; nothing in its pool passes
#                     and the next candidate is chosen; --confirm-all
tarmac_script_test(test_plan_screen
                   COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/plan_screen_check.py
                   LABELS integration)
set_tests_properties(test_plan_screen PROPERTIES TIMEOUT 300)
tarmac_test(test_plan_lazy SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_plan_lazy.c
            LIBS tarmac_sim LABELS unit)
