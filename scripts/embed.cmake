# SPDX-License-Identifier: Apache-2.0
# embed.cmake — write file IN as a NUL-terminated C array NAME into OUT.
# Usage: cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x[0-9a-f][0-9a-f],){16}" "\\0\n    " body "${body}")
file(WRITE "${OUT}" "/* generated from ${IN} by scripts/embed.cmake; do not edit */\n"
     "#include <stddef.h>\n"
     "extern const char ${NAME}[];\nextern const size_t ${NAME}_len;\n"
     "const char ${NAME}[] = {\n    ${body}0x00};\n"
     "const size_t ${NAME}_len = ${bytes};\n")
