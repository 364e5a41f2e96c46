# SPDX-License-Identifier: Apache-2.0
# Admission of every command, and inputs refused with the right exit code
# (issue 16, second round). Most cases are hostile-corpus cases
# (tests/hostile/adm2-*); here, what the corpus cannot express:
#   test_adm2_sweep_mpi   integration (TARMAC_MPI only): `sweep run --mpi`
#                         admits every point before any runs; every rank
#                         exits 65
if(TARMAC_MPI)
  tarmac_script_test(test_adm2_sweep_mpi
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/adm2_sweep_mpi.sh LABELS integration)
endif()
#   test_adm2_worker_signal  integration: a `compare -j 2` worker killed by
#                         SIGKILL: exit 71 naming the signal, no output
tarmac_script_test(test_adm2_worker_signal
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/adm2_worker_signal.sh LABELS integration)
