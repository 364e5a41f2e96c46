# SPDX-License-Identifier: Apache-2.0
# Trace readers: every format against its real file in ../shared/data, malformed
# fixtures (file:line, strict vs lenient), tarmac format round trips.
tarmac_test(test_traces SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_traces.c
            LIBS tarmac_traces LABELS unit)
