# SPDX-License-Identifier: Apache-2.0
# Trace replay benchmark: wall time, jobs/s and peak memory per real trace
# (bench/README.md, "Trace replay"). Run: build/bench/bench_replay ../shared/data
add_executable(bench_replay ${CMAKE_CURRENT_SOURCE_DIR}/bench_replay.c)
target_link_libraries(bench_replay PRIVATE tarmac_sim)
add_dependencies(benchmarks bench_replay)
