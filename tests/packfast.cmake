# SPDX-License-Identifier: Apache-2.0
# FGD's answers from its trees (policies/fit_fgd.c, "Best node without a
# scan") against its scan ("placement=fgd:scan"): random worlds, decision by
# decision (unit); and openb_pod_list_default packed both ways, the curves
# equal (integration, needs TARMAC_DATA_DIR).
tarmac_test(test_packfast SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_packfast.c
            LIBS tarmac_sim ${MATH_LIBRARY} LABELS unit)
add_test(NAME test_packfast_openb COMMAND test_packfast openb)
set_tests_properties(test_packfast_openb PROPERTIES LABELS integration SKIP_RETURN_CODE 77
  ENVIRONMENT "TARMAC_DATA_DIR=${TARMAC_DATA_DIR}")
