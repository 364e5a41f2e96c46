# SPDX-License-Identifier: Apache-2.0
# Thin wrapper around CMake (in the manner of neovim's): `make run` and `make test`
# are the two commands the README gives. Everything real lives in CMakeLists.txt.
#
#   make run        install missing Debian packages (as root), build, run the default scenario
#   make test       same set-up, then the whole test suite through ctest
#   make build      configure and build only
#   make bench      build and run the benchmarks (bench/README.md records the figures)
#   make clean      remove the build folder
#
# Variables: BUILD_DIR (default build), BUILD_TYPE (default Release), CMAKE_FLAGS,
# TARMAC_DATA_DIR (public traces, default ../shared/data), CTEST_FLAGS.

BUILD_DIR ?= build
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=
CTEST_FLAGS ?=
TARMAC_DATA_DIR ?= $(abspath ../shared/data)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build run test bench clean

all: build

deps:
	@sh scripts/deps.sh

$(BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	    -DTARMAC_DATA_DIR=$(TARMAC_DATA_DIR) $(CMAKE_FLAGS)

build: deps $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	./$(BUILD_DIR)/sim/tarmac run -o tarmac-out.h5

test: build
	cd $(BUILD_DIR) && TARMAC_DATA_DIR=$(TARMAC_DATA_DIR) ctest --output-on-failure -j $(JOBS) $(CTEST_FLAGS)

bench: build
	cmake --build $(BUILD_DIR) -j $(JOBS) --target benchmarks
	sh bench/run.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
