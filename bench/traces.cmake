# SPDX-License-Identifier: Apache-2.0
# Whole-command replays of the real traces bench_replay does not cover
# (bench/README.md, "Trace replay", table 2): openb in time, Gavel with its
# throughput matrix, the Azure load profiles, LANL with EASY and HDF5. Copied
# into the build as bench/bench_traces with the source and build folders
# filled in. Run: build/bench/bench_traces [RUNS]
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/bench_traces.sh ${CMAKE_CURRENT_BINARY_DIR}/bench_traces
               @ONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
               GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
add_custom_target(bench_traces DEPENDS tarmac)
add_dependencies(benchmarks bench_traces)
