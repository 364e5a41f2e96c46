# SPDX-License-Identifier: Apache-2.0
# Sweeps (issue 8): sweep files, points, shards, workers, resume, merge, MPI.
#   test_sweep        unit: expansion (order, counts, values, seeds, errors),
#                     shards, the worker pool (equal results for any number of
#                     workers, a failing job, a worker killed, stopping), point
#                     files (valid, foreign, temporary, truncated), failure
#                     records, h5io's edit / 2-D / external link additions
#   test_sweep_cli    integration: plan --json, shard partition, -j 1 = -j 2 =
#                     --point alone bit for bit, failed and missing points,
#                     merge tables against the point files (h5py), SIGTERM and
#                     SIGKILL mid-way then --resume
#   test_sweep_pack   integration: a packing sweep equals `tarmac replay
#                     --protocol pack` seed for seed; the merged curves (needs
#                     the openb trace)
#   test_sweep_slurm  integration: the Slurm and GNU parallel recipes of
#                     docs/sweeps.md run as a simulated array, merged result
#                     equal to one process's
#   test_sweep_mpi    integration (TARMAC_MPI only): mpirun -np 2 equals the
#                     single-process run point for point
tarmac_test(test_sweep SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep.c LIBS tarmac_sim
            LABELS unit)
tarmac_script_test(test_sweep_cli
  COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/sweep_check.py LABELS integration)
tarmac_script_test(test_sweep_pack
  COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/sweep_pack_check.py LABELS integration)
tarmac_script_test(test_sweep_slurm
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sweep_slurm.sh LABELS integration)
if(TARMAC_MPI)
  tarmac_script_test(test_sweep_mpi
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sweep_mpi.sh LABELS integration)
endif()
