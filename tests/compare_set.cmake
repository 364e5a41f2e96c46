# SPDX-License-Identifier: Apache-2.0
# Arms that change the scenario (`tarmac compare --set`) and class
# specializations: the specialized class keeps its arrivals, an arm that sets
# what the scenario has changes nothing, a siloed team is untouched by another
# team's specialization (common random numbers across arms), the settings are
# recorded, bad arms are refused with the arm named.
tarmac_script_test(test_compare_set
  COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/compare_set_check.py LABELS integration)
