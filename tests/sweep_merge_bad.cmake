# SPDX-License-Identifier: Apache-2.0
# sweep merge with an unreadable point file: recorded as failed, not fatal.
tarmac_script_test(test_sweep_merge_bad COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sweep_merge_bad.sh
                   LABELS integration)
