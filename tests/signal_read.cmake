# SPDX-License-Identifier: Apache-2.0
# SIGINT/SIGTERM during a trace read: exit 130, nothing left.
tarmac_script_test(test_signal_read COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/signal_read.sh
                   LABELS integration)
