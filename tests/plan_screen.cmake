# SPDX-License-Identifier: Apache-2.0
# Screening in `tarmac plan` (issue 18; docs/plan.md, "Screening").
#   test_plan_screen  integration: on tests/plan_tiny.json, each period's
#                     fleet of the screened plan passes in full and is
#                     minimal in full (one node fewer failed in full), the
#                     schedule is the unscreened one, the screen's decisions
#                     are printed; --screen's bad values refused
tarmac_script_test(test_plan_screen
                   COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/plan_screen_check.py
                   LABELS integration)
set_tests_properties(test_plan_screen PROPERTIES TIMEOUT 300)
