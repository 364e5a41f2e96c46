# SPDX-License-Identifier: Apache-2.0
# packgrid_clus: gpu-clustering's per-node affinity counts, kept between
# decisions, against a fresh instance at every decision (random worlds with
# starts, ends, a moved running array, a new cluster, more affinities than
# the counts keep; tarmac's and the k8s mode).
tarmac_test(packgrid_clus SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/packgrid_clus.c
            LIBS tarmac_place LABELS unit)
