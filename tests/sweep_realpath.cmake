# SPDX-License-Identifier: Apache-2.0
# A sweep's point files stay valid whatever path names the sweep file
# (absolute, relative, from another folder): merge and --resume find them.
tarmac_script_test(test_sweep_realpath COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sweep_realpath.sh
                   LABELS integration)
