# Curtain — build, test and measure. `make test` is what CI runs (.ci/run).
SHELL := /bin/bash
SWIFT ?= swift
VENV := .venv
# Debian packages a fresh Debian 12 machine lacks for building and testing Curtain.
APT_PACKAGES := libsystemd-dev python3-venv hyperfine varlink-go
# Python packages for the test clients (the Varlink reference implementation).
PIP_PACKAGES := varlink==31.0.0
STAMP := .build/.setup-done

.PHONY: setup build test bench fuzz release clean

setup: $(STAMP)

$(STAMP): Makefile
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "setup: installing $$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@test -x $(VENV)/bin/python || python3 -m venv $(VENV)
	@$(VENV)/bin/pip install -q --disable-pip-version-check $(PIP_PACKAGES)
	@mkdir -p .build && touch $(STAMP)

build: setup
	$(SWIFT) build

release: setup
	$(SWIFT) build -c release

# Every test (the certification suites need the python venv and varlink-go from setup),
# then a bounded fixed-seed fuzzing pass over the Varlink parsers (see Fuzz/run).
test: setup
	$(SWIFT) build
	CI=$${CI:-} $(SWIFT) test
	./Fuzz/run --ci

FUZZ_SECONDS ?= 300

fuzz: setup
	./Fuzz/run $(FUZZ_SECONDS)

bench: setup
	./Benchmarks/run

clean:
	rm -rf .build .build-bench .build-fuzz $(VENV)
