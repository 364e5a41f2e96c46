# SPDX-License-Identifier: Apache-2.0
# The service model (sim/model/service*.c): closed forms against hand-worked cases,
# the request-level mode against the queueing model, overflow conservation,
# interval accounting, the autoscaler. `test_service azure` replays the Azure
# LLM inference trace 2023 (skipped where TARMAC_DATA_DIR lacks it).
tarmac_test(test_service SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_service.c
            LIBS tarmac_sim LABELS validation)
set_tests_properties(test_service PROPERTIES TIMEOUT 300)
add_test(NAME test_service_azure COMMAND test_service azure)
set_tests_properties(test_service_azure PROPERTIES LABELS "validation" SKIP_RETURN_CODE 77
  TIMEOUT 120 ENVIRONMENT "TARMAC_DATA_DIR=${TARMAC_DATA_DIR}")
