# SPDX-License-Identifier: Apache-2.0
# FGD with its caches against the uncached algorithm (a verbatim copy of the
# old fit_fgd.c in the test): random worlds, decision by decision (unit); and
# openb_pod_list_default packed, the curves bit for bit (integration, needs
# TARMAC_DATA_DIR).
tarmac_test(test_fgd_cache SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_fgd_cache.c
            LIBS tarmac_sim ${MATH_LIBRARY} LABELS unit)
add_test(NAME test_fgd_cache_openb COMMAND test_fgd_cache openb)
set_tests_properties(test_fgd_cache_openb PROPERTIES LABELS integration SKIP_RETURN_CODE 77
  ENVIRONMENT "TARMAC_DATA_DIR=${TARMAC_DATA_DIR}")
