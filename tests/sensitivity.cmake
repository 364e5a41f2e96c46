# SPDX-License-Identifier: Apache-2.0
# tarmac sensitivity: the cost at each main input -/+ delta (docs/cost.md
# "Sensitivity"); the parts are described in sensitivity_check.py.
foreach(part linear order bad file plot)
  tarmac_script_test(test_sensitivity_${part}
                     COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/sensitivity_check.py ${part}
                     LABELS integration)
  set_tests_properties(test_sensitivity_${part} PROPERTIES TIMEOUT 300)
endforeach()
