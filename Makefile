# Curtain — build, test and measure. `make test` is what CI runs (.ci/run).
SHELL := /bin/bash
SWIFT ?= swift
VENV := .venv
# Debian packages a fresh Debian 12 machine lacks for building and testing Curtain.
APT_PACKAGES := libsystemd-dev systemd dbus python3-venv python3-systemd hyperfine varlink-go \
	libcairo2-dev libpango1.0-dev librsvg2-dev libwebp-dev fonts-dejavu-core
# curtain-web's browser tests (Tests/WebTests): Playwright drives Debian's headless Chromium.
APT_PACKAGES += chromium-headless-shell
# The unit backend's tests check the shipped polkit rule with a real polkitd (in the contained systemd).
APT_PACKAGES += polkitd
# curtain-overlay (docs/overlay.md): libwayland and wayland-scanner, xdg-shell's XML, and the
# compositors and screenshot tools its tests run headless (sway+grim, weston).
APT_PACKAGES += libwayland-dev wayland-protocols libxkbcommon-dev sway grim weston
# Python packages for the test clients (the Varlink reference implementation).
PIP_PACKAGES := varlink==31.0.0 playwright==1.65.2
STAMP := .build/.setup-done

.PHONY: setup protocols build test lint check-units install demo bench fuzz release clean

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

# wayland-scanner's C glue for curtain-overlay, generated before `swift build`: SwiftPM
# (through 6.3) ignores C sources and headers a build-tool plugin produces unless the package
# opts into an experimental tools version. Package.swift leaves the Wayland targets out
# until these files exist, so a bare `swift build` of a fresh clone still builds the rest.
WL_PROTOCOLS := Sources/CWaylandProtocols
WL_XDG_SHELL := $(or $(shell pkg-config --variable=pkgdatadir wayland-protocols 2>/dev/null),/usr/share/wayland-protocols)/stable/xdg-shell/xdg-shell.xml
WL_GENERATED := $(WL_PROTOCOLS)/generated/xdg-shell-protocol.c $(WL_PROTOCOLS)/include/xdg-shell-client-protocol.h \
	$(WL_PROTOCOLS)/generated/wlr-layer-shell-unstable-v1-protocol.c $(WL_PROTOCOLS)/include/wlr-layer-shell-unstable-v1-client-protocol.h \
	$(WL_PROTOCOLS)/generated/wlr-virtual-pointer-unstable-v1-protocol.c $(WL_PROTOCOLS)/include/wlr-virtual-pointer-unstable-v1-client-protocol.h

protocols: setup $(WL_GENERATED)

$(WL_PROTOCOLS)/generated/xdg-shell-protocol.c: $(WL_XDG_SHELL)
	@mkdir -p $(@D) && wayland-scanner private-code $< $@
$(WL_PROTOCOLS)/include/xdg-shell-client-protocol.h: $(WL_XDG_SHELL)
	wayland-scanner client-header $< $@
$(WL_PROTOCOLS)/generated/%-protocol.c: $(WL_PROTOCOLS)/protocols/%.xml
	@mkdir -p $(@D) && wayland-scanner private-code $< $@
$(WL_PROTOCOLS)/include/%-client-protocol.h: $(WL_PROTOCOLS)/protocols/%.xml
	wayland-scanner client-header $< $@

build: protocols
	$(SWIFT) build

# Release builds put each function in a section of its own, so that curtaind's link lays out
# the code a daemon runs together (Sources/curtaind/Link/; BENCHMARKS.md, "curtaind's memory").
# make bench builds with them too.
RELEASE_FLAGS := -Xswiftc -Xfrontend -Xswiftc -function-sections
CONFIG_FLAGS = $(if $(filter release,$(CONFIG)),$(RELEASE_FLAGS))

release: protocols
	$(SWIFT) build -c release $(RELEASE_FLAGS)

# Every test (the certification suites need the python venv and varlink-go from setup),
# then a bounded fixed-seed fuzzing pass over the Varlink parsers and curtaind's bindings (see Fuzz/run).
# The suites that drive other programs hard (a browser, compositors, a booted systemd) run
# after the rest, not beside it: on two cores they starved the timing of the socket tests.
HEAVY_SUITES := WebTests|OverlayTests|SystemdIntegrationTests
test: protocols
	@if [ "$(LINT)" = yes ]; then $(MAKE) --no-print-directory lint; fi
	$(SWIFT) build
	CI=$${CI:-} $(SWIFT) test --skip '$(HEAVY_SUITES)'
	CI=$${CI:-} $(SWIFT) test --skip-build --filter '$(HEAVY_SUITES)'
	$(MAKE) --no-print-directory check-units
	./tools/demo
	./Fuzz/run --ci

# The Swift sources against .swift-format (swift-nio's configuration, line length 120):
# `swift format lint --strict` over Package.swift, Sources, Tests, Benchmarks and Fuzz (about
# 8 s of CPU; 20-25 s on a busy two-core machine). tools/format formats in place. `make test`
# runs the lint first (LINT=no skips it, e.g. while a change is being shaped).
LINT ?= yes
lint:
	./tools/format --check

# Installation. DESTDIR stages (packaging); PREFIX places binaries and the systemd, sysusers,
# tmpfiles and catalog files (systemd reads /usr/local/lib too). The configuration goes to
# $(SYSCONFDIR)/curtain and is never overwritten. CONFIG=debug installs the debug build.
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
CONFIG ?= release
BINDIR := $(PREFIX)/bin
UNITDIR := $(PREFIX)/lib/systemd/system
USERUNITDIR := $(PREFIX)/lib/systemd/user
SYSUSERSDIR := $(PREFIX)/lib/sysusers.d
TMPFILESDIR := $(PREFIX)/lib/tmpfiles.d
CATALOGDIR := $(PREFIX)/lib/systemd/catalog
MANDIR := $(PREFIX)/share/man
DATADIR := $(PREFIX)/share
# polkitd reads rules from here (and /etc/polkit-1/rules.d, the administrator's), whatever PREFIX.
POLKITRULESDIR ?= /usr/share/polkit-1/rules.d
BINARIES := curtaind curtainctl curtain-demo-app curtain-web

install: protocols
	$(SWIFT) build -c $(CONFIG) $(CONFIG_FLAGS)
	@bin=$$($(SWIFT) build -c $(CONFIG) --show-bin-path); \
	for b in $(BINARIES) curtainctl-config curtainctl-render curtain-overlay; do install -Dm755 $$bin/$$b "$(DESTDIR)$(BINDIR)/$$b"; done
	@# curtainctl linked statically: it starts in ~2 ms instead of ~9 (BENCHMARKS.md).
	@if [ "$(CONFIG)" = release ]; then \
		$(SWIFT) build -c release --product curtainctl -Xswiftc -static-executable --scratch-path .build-static 2>&1 | grep -v dlopen || true; \
		install -m755 .build-static/release/curtainctl "$(DESTDIR)$(BINDIR)/curtainctl"; fi
	@# Scenes (docs/scene.md): curtainctl render finds them in $(DATADIR)/curtain/scenes.
	@cd scenes && find . -type f | while read -r f; do install -Dm644 "$$f" "$(DESTDIR)$(DATADIR)/curtain/scenes/$${f#./}"; done
	install -d "$(DESTDIR)$(UNITDIR)"
	sed -e 's|/usr/bin/curtaind|$(BINDIR)/curtaind|' -e 's|/etc/curtain/|$(SYSCONFDIR)/curtain/|' \
		units/curtaind.service > "$(DESTDIR)$(UNITDIR)/curtaind.service"
	install -m644 units/curtaind.socket "$(DESTDIR)$(UNITDIR)/curtaind.socket"
	@# curtain-overlay: a user unit of the compositor's account (docs/overlay.md).
	install -d "$(DESTDIR)$(USERUNITDIR)"
	sed 's|/usr/bin/curtain-overlay|$(BINDIR)/curtain-overlay|' units/curtain-overlay.service > "$(DESTDIR)$(USERUNITDIR)/curtain-overlay.service"
	install -Dm644 units/curtain.sysusers.conf "$(DESTDIR)$(SYSUSERSDIR)/curtain.conf"
	install -Dm644 units/curtain.tmpfiles.conf "$(DESTDIR)$(TMPFILESDIR)/curtain.conf"
	install -Dm644 units/curtain.catalog "$(DESTDIR)$(CATALOGDIR)/curtain.catalog"
	@# The polkit rule for the units of the shipped configuration's apps (docs/units.md).
	@bin=$$($(SWIFT) build -c $(CONFIG) --show-bin-path); \
	install -d "$(DESTDIR)$(POLKITRULESDIR)" && \
	$$bin/curtainctl-config config polkit-rule config/curtain.toml > "$(DESTDIR)$(POLKITRULESDIR)/50-curtain.rules" && \
	chmod 644 "$(DESTDIR)$(POLKITRULESDIR)/50-curtain.rules"
	@# Man pages: curtainctl's from its own help (swift-argument-parser's generate-manual); curtaind's is man/curtaind.8 (it has no ArgumentParser: no Foundation); completions.
	$(SWIFT) build -c $(CONFIG) $(CONFIG_FLAGS) --product generate-manual
	@bin=$$($(SWIFT) build -c $(CONFIG) --show-bin-path); \
	install -d "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man5" "$(DESTDIR)$(MANDIR)/man8" && \
	$$bin/generate-manual $$bin/curtainctl --section 1 --authors "The Curtain developers" -o "$(DESTDIR)$(MANDIR)/man1" && \
	install -m644 man/curtaind.8 "$(DESTDIR)$(MANDIR)/man8/curtaind.8" && \
	install -m644 man/curtain.toml.5 "$(DESTDIR)$(MANDIR)/man5/curtain.toml.5" && \
	install -d "$(DESTDIR)$(DATADIR)/bash-completion/completions" "$(DESTDIR)$(DATADIR)/zsh/site-functions" "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d" && \
	$$bin/curtainctl --generate-completion-script bash > "$(DESTDIR)$(DATADIR)/bash-completion/completions/curtainctl" && \
	$$bin/curtainctl --generate-completion-script zsh > "$(DESTDIR)$(DATADIR)/zsh/site-functions/_curtainctl" && \
	$$bin/curtainctl --generate-completion-script fish > "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/curtainctl.fish"
	@test -e "$(DESTDIR)$(SYSCONFDIR)/curtain/curtain.toml" || { install -d "$(DESTDIR)$(SYSCONFDIR)/curtain" && \
		sed 's|/usr/bin/curtain-demo-app|$(BINDIR)/curtain-demo-app|' config/curtain.toml > "$(DESTDIR)$(SYSCONFDIR)/curtain/curtain.toml"; }
	@echo "installed; on a live system run: systemd-sysusers; systemd-tmpfiles --create; journalctl --update-catalog; systemctl daemon-reload; systemctl enable --now curtaind.socket"

# The units as systemd sees them, installed into a staging root: `systemd-analyze verify`
# must print nothing (its exit status misses unknown keys), and the sandbox's exposure must
# stay at or below 0.4 (`--threshold` counts tenths).
EXPOSURE_LIMIT ?= 4
check-units: setup
	@stage=$$(mktemp -d); trap 'rm -rf "$$stage"' EXIT; \
	$(MAKE) --no-print-directory install DESTDIR=$$stage PREFIX=/usr CONFIG=debug >/dev/null && \
	./units/check "$$stage" $(EXPOSURE_LIMIT)

# curtaind, the demo app and four launches on a temporary socket (see tools/demo).
demo: setup
	./tools/demo

FUZZ_SECONDS ?= 300

fuzz: setup
	./Fuzz/run $(FUZZ_SECONDS)

# Plymouth is only the reference of make bench's scenarios 1 and 5 (not needed to build or test).
# libstdc++'s static archive: curtaind's release link takes it (Sources/curtaind/Link/libstdc++.so);
# Debian's Swift toolchain setup installs it already.
BENCH_APT_PACKAGES := plymouth libstdc++-12-dev

bench: protocols
	@missing=$$(for p in $(BENCH_APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "bench: installing $$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	RELEASE_FLAGS="$(RELEASE_FLAGS)" ./Benchmarks/run

clean:
	rm -rf .build .build-bench .build-fuzz $(VENV)
