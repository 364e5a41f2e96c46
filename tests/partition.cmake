# SPDX-License-Identifier: Apache-2.0
# Node owners and the partition rule (docs/partition.md): the siloed fleet
# equals each team's pools alone, strict keeps jobs on their tenant's nodes,
# none ignores owners, borrowing bounds an owner's wait by the reclaim delay,
# `tarmac place` snapshots per mode, and bad owners or delays are refused.
tarmac_script_test(test_partition
  COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/partition_check.py LABELS integration)
