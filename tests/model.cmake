# SPDX-License-Identifier: Apache-2.0
# The fleet and workload model, mechanism by mechanism, on hand-worked cases.
tarmac_test(test_model SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_model.c
            LIBS tarmac_sim LABELS unit)
