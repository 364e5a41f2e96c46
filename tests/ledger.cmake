# SPDX-License-Identifier: Apache-2.0
# The return on each installed GPU: useful work in reference GPU-hours,
# work_util and value_util, and the GPU-hour ledger (docs/output.md).
tarmac_test(test_ledger SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_ledger.c
            LIBS tarmac_sim LABELS validation)
