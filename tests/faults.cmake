# SPDX-License-Identifier: Apache-2.0
# Injected faults on the command line (docs/hardening.md lists each case).
#   test_cli_faults   integration: SIGINT/SIGTERM during long runs (stop within a
#                     second, exit 130, no output), kill -9 (nothing under the
#                     final name), a file-size limit, an output path under a
#                     file, /dev/full, and a full or read-only tmpfs (skipped
#                     where mount is not allowed)
tarmac_script_test(test_cli_faults COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli_faults.sh
                   LABELS integration)
