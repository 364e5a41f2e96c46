# SPDX-License-Identifier: Apache-2.0
# plot stays readable for every result kind: time axes in the unit of the
# span, k/M instead of 10^5 tick labels, 40 classes capped and paged with
# panels of a minimum height, confidence intervals inside the quantity's
# range (tests/plot_units.py).
tarmac_script_test(test_plot_units COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/plot_units.py
                   LABELS integration)
