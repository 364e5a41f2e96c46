# The placement core installed with its pkg-config file, used by a program
# that sees only the installed header and library.
tarmac_script_test(test_place_pkgconfig
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/place_pkgconfig.sh ${CMAKE_C_COMPILER}
          ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/place_pkgconfig
  LABELS integration)
