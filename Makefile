# The two entry points the README opens with, and the steps behind them.
#   make demo   set up, build, and run a 2-replica local training job
#   make test   set up, build, and run every test
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)

.PHONY: demo test setup configure build build-tools clean format

demo: build-tools
	scripts/demo.sh $(BUILD_DIR)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure --timeout 900 -j $(JOBS)

setup:
	scripts/setup.sh

configure: setup
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DKFTRAIN_BUILD_TRAINER=ON \
		-DKFTRAIN_BUILD_TESTS=ON

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# Only the two programs, not the tests: what the demo needs.
build-tools: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target kftrain kftrain-trainer

format:
	clang-format -i $$(git ls-files '*.h' '*.cpp')

clean:
	rm -rf $(BUILD_DIR)
