# SPDX-License-Identifier: Apache-2.0
# bench_evq: the event queue (sim/model/evq.c) under the hold model, next to a bare
# 4-ary heap of the same keys (the floor). Built by `make bench` (target
# benchmarks), run by bench/run.sh, never by ctest. The benchmark's own code,
# floor included, is compiled at -O2 whatever the build type; the queue comes
# from tarmac_sim at the build's flags, so figures are taken from a Release build.
add_executable(bench_evq ${CMAKE_CURRENT_SOURCE_DIR}/bench_evq.c)
target_link_libraries(bench_evq PRIVATE tarmac_sim)
target_compile_options(bench_evq PRIVATE -O2)
add_dependencies(benchmarks bench_evq)
