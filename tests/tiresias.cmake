# SPDX-License-Identifier: Apache-2.0
# Tiresias (policies/tiresias.c, docs/tiresias.md): queues and preemption,
# demotion at the wake-up the policy asks for, starvation promotion, the
# Gittins order, consolidated and relaxed placement, and the queue property
# over random views: hand-built views, placement core only.
tarmac_test(test_tiresias
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tiresias.c ${CMAKE_CURRENT_SOURCE_DIR}/place_views.c
  LIBS tarmac_place ${MATH_LIBRARY} LABELS unit)
# In the engine, on a heavy-tailed mix: short jobs complete sooner than under
# FIFO and non-preemptive LAS; the preemptions' cost is in the ledger.
tarmac_script_test(test_tiresias_engine
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tiresias_engine.sh LABELS integration)
