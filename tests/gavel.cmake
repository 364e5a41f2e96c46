# SPDX-License-Identifier: Apache-2.0
# Gavel (docs/gavel.md): the allocation LP (sim/model/gavel_alloc.c) against
# brute force, the rounds (policies/gavel_round.c) converging to X with lease
# renewal, and the engine's round preemptions in the GPU-hour ledger.
tarmac_test(test_gavel SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_gavel.c
            LIBS tarmac_sim LABELS unit)
tarmac_script_test(test_gavel_ledger
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/gavel_ledger.sh LABELS validation)
tarmac_script_test(test_gavel_resolve
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/gavel_resolve.sh LABELS validation)
