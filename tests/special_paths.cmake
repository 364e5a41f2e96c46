# SPDX-License-Identifier: Apache-2.0
# -o naming a FIFO or a device: written into, never replaced (sim/base/afile.c).
tarmac_script_test(test_special_paths COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/special_paths.sh
                   LABELS integration)
