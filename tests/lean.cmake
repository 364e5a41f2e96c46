# SPDX-License-Identifier: Apache-2.0
# The engine's lean loop against its general loop: random scenarios that
# qualify, every result, bin and job row (placement included) equal.
tarmac_test(test_lean SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_lean.c
            LIBS tarmac_sim LABELS integration)
