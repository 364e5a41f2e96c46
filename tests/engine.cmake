# SPDX-License-Identifier: Apache-2.0
# The engine: hand-worked FIFO cases, rejection, M/M/c against Erlang C,
# Little's law, GPU-time conservation, determinism.
tarmac_test(test_engine SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_engine.c
            LIBS tarmac_sim LABELS validation)
