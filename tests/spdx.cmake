# SPDX-License-Identifier: Apache-2.0
# Every source file names its licence in an SPDX line (LICENSE, Apache-2.0).
tarmac_script_test(test_spdx COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/spdx_check.sh LABELS unit)
