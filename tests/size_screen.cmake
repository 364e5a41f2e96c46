# SPDX-License-Identifier: Apache-2.0
# Screening in sizing (issue 18; docs/cost.md §6, "Screening").
#   test_size_screen      unit: the confirmation of a screened answer against
#                         closed forms (a screen too strict, too lenient, or
#                         never passing gives the unscreened answer, frontier
#                         and neighbours; the corrections are counted)
#   test_size_screen_cli  integration: `tarmac size` with and without the
#                         screen gives the same fleet on the golden size case
#                         and on a second target, and says what the screen
#                         decided and what was confirmed (one case where the
#                         screen's verdict is wrong and corrected in full)
tarmac_test(test_size_screen SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_size_screen.c
            LIBS tarmac_sim LABELS unit)
tarmac_script_test(test_size_screen_cli
                   COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/size_screen_cli.sh
                   LABELS integration)
set_tests_properties(test_size_screen_cli PROPERTIES TIMEOUT 300)
