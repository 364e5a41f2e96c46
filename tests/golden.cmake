# SPDX-License-Identifier: Apache-2.0
# Golden text summaries of every command at fixed seeds (scripts/goldens.sh):
# run, compare, size, breakeven, validate, export, sweep, and replay of every
# trace format; the data cases are skipped without TARMAC_DATA_DIR (a failure
# under CI=true). A golden that changes is a behaviour change: regenerate with
# `sh scripts/goldens.sh --update build` and say why in the commit.
tarmac_script_test(test_golden
                   COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/goldens.sh --check ${CMAKE_BINARY_DIR}
                   LABELS integration)
