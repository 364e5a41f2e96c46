# SPDX-License-Identifier: Apache-2.0
# The option conventions every command shares (docs/cli.md, "Options").
tarmac_script_test(test_cli_options COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli_options.sh
                   LABELS integration)
