# SPDX-License-Identifier: Apache-2.0
# test_evq: the pending-event queue (sim/model/evq.c): ordering and ties, cancel,
# stale handles, growth, allocation failure, and a seeded random mix against a
# reference, with the invariant checker after every step of the smaller runs.
tarmac_test(test_evq SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_evq.c LIBS tarmac_sim LABELS unit)
