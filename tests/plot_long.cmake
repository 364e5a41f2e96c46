# SPDX-License-Identifier: Apache-2.0
# plot refuses a series longer than a figure reads, unread (bounded memory).
tarmac_script_test(test_plot_long COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/plot_long.sh
                   LABELS integration)
