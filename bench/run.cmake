# SPDX-License-Identifier: Apache-2.0
# bench_run: a scenario end to end (engine alone, and with the HDF5 report).
add_executable(bench_run ${CMAKE_CURRENT_SOURCE_DIR}/bench_run.c)
target_link_libraries(bench_run PRIVATE tarmac_sim)
add_dependencies(benchmarks bench_run)
