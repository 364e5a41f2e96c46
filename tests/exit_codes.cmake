# SPDX-License-Identifier: Apache-2.0
# One case per exit code (sysexits: 64, 65, 66, 69, 71, 73, 74, 130), and bad
# inputs that once exited 70, which is for bugs only (docs/cli.md).
tarmac_script_test(test_exit_codes COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/exit_codes.sh
                   LABELS integration)
