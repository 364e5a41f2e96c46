# SPDX-License-Identifier: Apache-2.0
# h5io: the HDF5 writer and reader (sim/output/h5io*.c, sim/output/h5io_int.h).
#   test_h5io     unit: write, commit, read back; abort; bad folders; misuse; EFBIG
#   h5io_python   integration: h5py and h5dump read what test_h5io --write wrote,
#                 and the same checks reject a perturbed file
#   h5io_enospc   unit: a 64 KiB tmpfs (ENOSPC) and a read-only one (EROFS);
#                 skipped (77) where mount is not allowed
# Each run works in its own mkdtemp folder, so ctest -j is safe.
tarmac_test(test_h5io SOURCES test_h5io.c LIBS tarmac_sim LABELS unit)
tarmac_script_test(h5io_python
  COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/h5io_check.py $<TARGET_FILE:test_h5io>
  LABELS integration)
tarmac_script_test(h5io_enospc
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/h5io_enospc.sh $<TARGET_FILE:test_h5io>
  LABELS unit)
