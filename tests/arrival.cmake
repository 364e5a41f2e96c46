# SPDX-License-Identifier: Apache-2.0
# Arrival processes (traces/arrival.c). A sampler that never returns (a lost
# termination, a runaway MMPP) shows up as this test's timeout.
tarmac_test(test_arrival SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_arrival.c LIBS tarmac_traces
            LABELS unit)
set_tests_properties(test_arrival PROPERTIES TIMEOUT 120)
