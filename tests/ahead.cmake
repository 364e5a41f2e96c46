# SPDX-License-Identifier: Apache-2.0
# Sources read ahead on a thread: the same jobs, end and errors, in order;
# lanes closed early without a hang.
tarmac_test(test_ahead SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_ahead.c
            LIBS tarmac_traces LABELS unit)
