# The two entry points the README opens with, and the steps behind them.
#   make demo   set up, build, and run a 2-replica local training job
#   make test   set up, build, and run every test
#   make install PREFIX=~/.local   a Release build of kftrain, installed under PREFIX
#   make package                   the same Release build packed as .deb files (cpack -G DEB)
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
# Line tables only: stack traces keep file and line, and each translation unit compiles in
# three quarters of the time full debug information takes (a third less for libtorch's).
DEBUG_FLAGS ?= -g1
JOBS ?= $(shell nproc)
# Tests mostly wait on processes they start: one more at a time than there are cores keeps
# the cores busy (each test polls with its own deadline, none asserts a timing).
TEST_JOBS ?= $(shell echo $$(( $$(nproc) + 1 )))
# The CLI, its tests and fakes built with AddressSanitizer and UBSan (the trainer stays plain).
# One setting for demo and test, so that one build directory serves both without rebuilding.
SANITIZE ?= ON
# The fuzz targets (fuzz/), run for FUZZ_SECONDS each by make test. In CI a missing clang with
# libFuzzer fails the build; elsewhere (AUTO) the fuzz tests are left out.
FUZZ ?= $(if $(filter true,$(CI)),ON,AUTO)
FUZZ_SECONDS ?= 10
# Compile the larger targets in batches of 8 files (CMakeLists.txt kftrain_unity): a clean
# build in about half the time. UNITY=OFF for many small rebuilds while editing.
UNITY ?= ON
# ccache, where installed (scripts/setup.sh installs it), keeps compiled objects in its cache
# outside the clone (~/.cache/ccache): a clean clone's build then reuses what an earlier one
# compiled. LAUNCHER= builds without it.
LAUNCHER ?= $(shell command -v ccache 2>/dev/null)
# So that a clean clone anywhere (CI's) finds what another compiled: paths under the clone are
# hashed relative to it, the working directory is not hashed, and debug information names
# files relative to the clone (-fdebug-prefix-map below), so no object carries another's path.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true
export CCACHE_SLOPPINESS := pch_defines,time_macros
# install and package use their own plain Release build, never the sanitized test build.
RELEASE_DIR ?= build-release
PREFIX ?= /usr/local
# Build (and package) kftrain-trainer too, where libtorch is installed.
TRAINER ?= ON

.PHONY: demo test e2e setup configure build build-tools release install package clean format \
	format-check

demo: build-tools
	scripts/demo.sh $(BUILD_DIR)

test: build
	cd $(BUILD_DIR) && ctest -LE e2e --output-on-failure --timeout 900 -j $(TEST_JOBS)

# The cluster suite on a real single-node Kubernetes (test/e2e/run.sh; needs root).
e2e: build
	test/e2e/run.sh $(BUILD_DIR)

setup:
	scripts/setup.sh

configure: setup
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DKFTRAIN_BUILD_TRAINER=ON \
		-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 $(DEBUG_FLAGS) -DNDEBUG -fdebug-prefix-map=$(CURDIR)=." \
		-DKFTRAIN_BUILD_TESTS=ON -DKFTRAIN_SANITIZE=$(SANITIZE) -DKFTRAIN_FUZZ=$(FUZZ) \
		-DKFTRAIN_FUZZ_SECONDS=$(FUZZ_SECONDS) -DKFTRAIN_UNITY_BUILD=$(UNITY) \
		-DCMAKE_CXX_COMPILER_LAUNCHER=$(LAUNCHER) -DCMAKE_C_COMPILER_LAUNCHER=$(LAUNCHER)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# Only the two programs, not the tests: what the demo needs.
build-tools: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target kftrain kftrain-trainer

release: setup
	cmake -S . -B $(RELEASE_DIR) -DCMAKE_BUILD_TYPE=Release -DKFTRAIN_BUILD_TESTS=OFF \
		-DKFTRAIN_BUILD_BENCH=OFF \
		-DKFTRAIN_SANITIZE=OFF -DKFTRAIN_FUZZ=OFF -DKFTRAIN_BUILD_TRAINER=$(TRAINER)
	cmake --build $(RELEASE_DIR) -j $(JOBS)

# DESTDIR=/tmp/stage make install PREFIX=/usr stages the files instead.
install: release
	cmake --install $(RELEASE_DIR) --prefix $(PREFIX)

# kftrain_<version>_<arch>.deb (and kftrain-trainer_... where the trainer is built) in
# $(RELEASE_DIR); Depends come from dpkg-shlibdeps.
package: release
	cd $(RELEASE_DIR) && cpack -G DEB

# One clang-format version for everyone (setup.sh installs it): another version formats some
# constructs differently, and the check would flag lines nobody changed.
CLANG_FORMAT ?= clang-format-14

format:
	$(CLANG_FORMAT) -i $$(git ls-files '*.h' '*.cpp')

# Fails, naming each file and line, where a source is not as `make format` would leave it.
format-check:
	$(CLANG_FORMAT) --dry-run -Werror $$(git ls-files '*.h' '*.cpp')

clean:
	rm -rf $(BUILD_DIR)
