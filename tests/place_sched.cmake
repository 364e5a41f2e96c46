# SPDX-License-Identifier: Apache-2.0
# `tarmac place` with a snapshot's scheduler state: Gavel's allocation X
# (given, or solved by tarmac place) and the seconds received steering the
# round on hand-worked two-type cases; Tiresias' gittins=class over the
# snapshot's per-class distributions; malformed rows and distributions
# refused at their JSON path (docs/place-json.md).
tarmac_script_test(test_place_sched
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/place_sched.sh LABELS integration)
