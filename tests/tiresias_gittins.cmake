# SPDX-License-Identifier: Apache-2.0
# Tiresias' Gittins index over each class's configured distribution
# (gittins=class; docs/tiresias.md): the order on hand-built views with
# hand-computed indices (placement core only), the engine's discretisation
# of the classes' distributions, and a run on a heavy-tailed mix against
# FIFO and gittins=learn.
tarmac_test(test_tiresias_class
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tiresias_class.c ${CMAKE_CURRENT_SOURCE_DIR}/place_views.c
  LIBS tarmac_place ${MATH_LIBRARY} LABELS unit)
tarmac_test(test_tiresias_gittins_dist
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tiresias_gittins_dist.c
  LIBS tarmac_sim LABELS unit)
tarmac_script_test(test_tiresias_gittins
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tiresias_gittins.sh LABELS integration)
# Replayed traces made preemptible (tarmac replay --preemptible): Tiresias
# preempts on a slice of Gavel's Philly-derived trace, and the ledger shows
# the cost (needs TARMAC_DATA_DIR).
tarmac_script_test(test_tiresias_replay
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tiresias_replay.sh LABELS integration)
