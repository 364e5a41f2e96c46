# SPDX-License-Identifier: Apache-2.0
# FCFS, EASY and conservative backfilling pinned start by start: a hand-worked
# log and a generated one against an independent replay of the rules
# (tests/bfpin_check.py, tests/backfill_rules.py). With the sanitizers
# (TARMAC_SANITIZE, the build-asan of .ci/run) the generated log is the first
# 300 jobs of the same sequence instead of 600: the replays there are slow,
# and the Release suite keeps the full log.
if(TARMAC_SANITIZE)
  set(TARMAC_BFPIN_JOBS 300)
else()
  set(TARMAC_BFPIN_JOBS 600)
endif()
tarmac_script_test(test_bfpin COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/bfpin_check.py
                   --jobs ${TARMAC_BFPIN_JOBS} LABELS validation)
