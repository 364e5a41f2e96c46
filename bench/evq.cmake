# bench_evq: the event queue (sim/evq.c) under the hold model, next to a bare
# 4-ary heap of the same keys. Built by `make bench`, never run by ctest.
add_executable(bench_evq ${CMAKE_CURRENT_SOURCE_DIR}/bench_evq.c)
target_link_libraries(bench_evq PRIVATE tarmac_sim)
add_dependencies(benchmarks bench_evq)
