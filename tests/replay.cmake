# SPDX-License-Identifier: Apache-2.0
# Replay protocols on hand-worked cases (SWF windows, FGD packing), fleet
# builders, fleet-only files, synth -> tarmac trace -> replay equivalence;
# and the replay / synth commands end to end on the real traces.
tarmac_test(test_replay SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_replay.c
            LIBS tarmac_sim LABELS integration)
tarmac_script_test(test_replay_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/replay_cli.sh
                   LABELS integration)
# EASY and conservative on SWF windows against the rules' statement, replayed
# independently in Python (count-based backfilling, policies/backfill_count.c).
tarmac_script_test(test_backfill_count COMMAND ${TARMAC_PY}
                   ${CMAKE_CURRENT_SOURCE_DIR}/backfill_count_check.py LABELS validation)
