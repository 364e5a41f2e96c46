# SPDX-License-Identifier: Apache-2.0
# FCFS, EASY and conservative backfilling pinned start by start: a hand-worked
# log and a generated one against an independent replay of the rules
# (tests/bfpin_check.py).
tarmac_script_test(test_bfpin COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/bfpin_check.py
                   LABELS validation)
