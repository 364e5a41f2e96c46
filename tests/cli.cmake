# SPDX-License-Identifier: Apache-2.0
# The command line: bad input, and the HDF5 file of `tarmac run` read back by
# real readers (h5py from Debian's python3-h5py, h5dump).
tarmac_script_test(test_cli_bad_input COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli_bad_input.sh
                   LABELS integration)
tarmac_script_test(test_run_h5 COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/run_h5_check.py
                   LABELS integration)
