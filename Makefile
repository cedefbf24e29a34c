# Entry points for a fresh Debian 12 machine. See README.md.
BUILD ?= build
PY ?= /usr/bin/python3
JOBS ?= $(shell nproc)
# The Python whose torch (2.x) is the engine's libtorch: the project's own virtual environment by default, which
# `make deps` creates with torch 2.14.1 and torchvision 0.29.1. Another: make TORCH_PYTHON=/path/to/python.
TORCH_PYTHON ?= $(CURDIR)/.venv/bin/python
export TORCH_PYTHON
# ccache, when there, keyed on paths relative to the checkout: a clean clone elsewhere reuses the same objects.
CCACHE := $(shell command -v ccache 2>/dev/null)
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

.PHONY: deps configure build run test deb clean format

deps:
	bash packaging/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DJITSCOPE_TORCH_PYTHON=$(TORCH_PYTHON) \
	  $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE))

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	bash packaging/run-example.sh $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The Debian package, build/jitscope_VERSION_ARCH.deb (CPack; dpkg-shlibdeps computes Depends), with the engine's
# libtorch inside (/usr/lib/jitscope): it installs on any Debian 12 (README.md, Installing).
deb: build
	cd $(BUILD) && cpack -G DEB

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
