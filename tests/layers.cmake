# SPDX-License-Identifier: Apache-2.0
# The layering of docs/architecture.md: no upward include, no include cycle,
# each outside library in its own room, no call from a room to one above it
# (scripts/check_layers.py over the sources and the built objects).
tarmac_script_test(test_layers COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/layers_check.py
                   ${CMAKE_BINARY_DIR} LABELS unit)
