# SPDX-License-Identifier: Apache-2.0
# Distributions and CSV columns (traces/dist.c, traces/csvcol.c).
tarmac_test(test_dist SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_dist.c LIBS tarmac_traces
            LABELS unit)
set_tests_properties(test_dist PROPERTIES TIMEOUT 120)
