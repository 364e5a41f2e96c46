# SPDX-License-Identifier: Apache-2.0
# SIGINT and SIGTERM in every phase (docs/hardening.md, "Injected faults").
#   test_signal_phases       unit: the stop flag set at a chosen moment in the
#                            HDF5 writer (before commit, mid-table), compare's
#                            replications, the packing experiment and a
#                            sweep's merge: TM_ERR_INTERRUPTED, no file, no
#                            temporary; with the flag clear, the same calls
#                            succeed
#   test_signal_phases_cli   integration: real signals to the commands in each
#                            long phase (inputs made on the fly): exit 130,
#                            "interrupted while ...", no output, no temporary,
#                            the time from signal to exit measured (a failure
#                            past 5 s)
tarmac_test(test_signal_phases SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_signal_phases.c
            LIBS tarmac_sim LABELS unit)
tarmac_script_test(test_signal_phases_cli
                   COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/signal_phases.sh LABELS integration)
