# Entry points for a fresh Debian 12 machine. See README.md.
BUILD ?= build
PY ?= /usr/bin/python3
JOBS ?= $(shell nproc)

.PHONY: deps configure build run test deb clean format

deps:
	bash packaging/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	bash packaging/run-example.sh $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The Debian package, build/jitscope_VERSION_ARCH.deb (CPack; dpkg-shlibdeps computes Depends).
deb: build
	bash packaging/install-deps.sh --package
	cd $(BUILD) && cpack -G DEB

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
