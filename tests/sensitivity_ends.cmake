# SPDX-License-Identifier: Apache-2.0
# tarmac sensitivity beyond the cost: breakeven and size at each end, --json,
# replications (docs/cost.md §6b); the parts are described in
# sensitivity_ends.py.
foreach(part breakeven json reps bad size)
  tarmac_script_test(test_sensitivity_ends_${part}
                     COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/sensitivity_ends.py ${part}
                     LABELS integration)
  set_tests_properties(test_sensitivity_ends_${part} PROPERTIES TIMEOUT 600)
endforeach()
