# The placement core installed with its pkg-config file, used by a program
# that sees only the installed header and library.
# (a sanitized build installs a sanitized library: the program links the runtime too)
set(TARMAC_PC_TEST_FLAGS "")
if(TARMAC_SANITIZE)
  set(TARMAC_PC_TEST_FLAGS "-fsanitize=address,undefined")
endif()
tarmac_script_test(test_place_pkgconfig
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/place_pkgconfig.sh ${CMAKE_C_COMPILER}
          ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/place_pkgconfig
          "${TARMAC_PC_TEST_FLAGS}"
  LABELS integration)
