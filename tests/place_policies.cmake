# The placement core's policies against hand-built views (orders, fits,
# backfilling, preemption, services, validation): C library and the placement
# core only, like every test of policies/.
foreach(t orders fits backfill preempt)
  tarmac_test(test_place_${t}
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_place_${t}.c ${CMAKE_CURRENT_SOURCE_DIR}/place_views.c
    LIBS tarmac_place ${MATH_LIBRARY} LABELS unit)
endforeach()
