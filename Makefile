# cutroom: the two set-up commands are `make run` and `make test`.
# The go command: go.mod's Go from PATH, or that toolchain installed once into ~/.cache/cutroom/
# from the Go module proxy and checked by its pinned SHA-256 (scripts/go.sh); GO=... overrides it.
ifeq ($(origin GO),undefined)
GO := $(shell ./scripts/go.sh)
endif
ifeq ($(GO),)
$(error no Go toolchain: scripts/go.sh says why above)
endif
BIN ?= ./cutroom
# packages with goroutines, also run under the race detector
RACE_PKGS ?= ./server/ ./storage/ ./compositor/ ./export/ ./render/ ./webhook/ ./assets/ ./media/ ./editor/ ./app/ ./cluster/ ./lottie/ ./internal/loadtest/
# the API test suites (server's routes, app's whole App), run once more on PostgreSQL by
# `make test` (CUTROOM_TEST_DATABASE=postgres: internal/teststore.Open and apptest.Serve open a
# fresh PostgreSQL schema); about 55 s wall, 35 CPU-s (bbolt's: 47 s, 30 CPU-s), load 8
PG_SUITE_PKGS ?= ./server/ ./app/
# Link H.264 against the system libx264 (Debian libx264-dev, with assembly) instead of
# the portable C copy bundled in github.com/gen2brain/x264-go/x264c. Plain `go build`
# also works (bundled copy, about 2x slower H.264); see encode/README.md.
GOTAGS ?= extlib,pkgconfig

.PHONY: run build fonts deps deb-deps test-deps windows-deps test vet fmt-check bench browser-check fuzz deb deb-check windows

## run: install missing system packages, build, and serve on 127.0.0.1:8787 with data in ./data
run: build
	$(BIN) serve

## build: build the cutroom binary (with the web fonts of scripts/webfonts.sha256 embedded)
build: deps fonts
	$(GO) build -tags '$(GOTAGS)' -o $(BIN) ./cmd/cutroom

## fonts: fetch the embedded web fonts (pinned npm tarballs, checked by SHA-256) into
## compositor/text/webfonts/; does nothing when they are there
fonts:
	@./scripts/fonts.sh

deps:
	@./scripts/install-deps.sh

deb-deps:
	@./scripts/install-deps.sh --deb

test-deps:
	@./scripts/install-deps.sh --test

## deb: build the Debian package build/cutroom_<version>_<arch>.deb (binary, hardened systemd
## unit, /etc/default/cutroom; nfpm through the Go module proxy); DEB_VERSION=1.2.3 sets its version
deb: deb-deps
	@GO='$(GO)' GOTAGS='$(GOTAGS)' DEB_VERSION='$(DEB_VERSION)' ./scripts/deb.sh

## deb-check: build the package, install it (dpkg -i; as root), run cutroom version, verify the
## unit (systemd-analyze verify), serve once as the cutroom user, and remove it again
deb-check: deb
	@./scripts/deb-check.sh

windows-deps:
	@./scripts/install-deps.sh --windows

## windows: cross-build cutroom.exe for windows/amd64 with mingw-w64 and the zip
## build/cutroom_<version>_windows_amd64.zip (C libraries from checked Debian sources, cross-built
## once into ~/.cache/cutroom/windows/; no Lottie; see docs/bundling.md); WINDOWS_VERSION=1.2.3
windows: windows-deps fonts
	@GO='$(GO)' WINDOWS_VERSION='$(WINDOWS_VERSION)' ./scripts/windows.sh

## browser-check: compare compositor frames with headless Chromium renders of the same
## states (SSIM >= 0.97), and Lottie frames with lottie-web's in Chromium. `make test` runs
## them too, as part of go test ./...
browser-check: test-deps fonts
	CUTROOM_REQUIRE_WEBFONTS=1 $(GO) test -tags '$(GOTAGS)' -count=1 -run 'Browser|LottieWeb' -v ./compositor/... ./lottie/

## test: the whole test suite and the package check (what CI runs); cmd/cutroom's tests also
## build `make windows` and run cutroom.exe under Wine (docs/bundling.md)
# CUTROOM_REQUIRE_WEBFONTS: the tests of the embedded web fonts fail, rather than skip,
# when the build has none; CUTROOM_REQUIRE_POSTGRES: the PostgreSQL tests (internal/pgtest)
# fail, rather than skip, without Debian's postgresql-15
test: export CUTROOM_REQUIRE_WEBFONTS = 1
test: export CUTROOM_REQUIRE_POSTGRES = 1
test: test-deps fonts
	$(GO) vet -tags '$(GOTAGS)' ./...
	@out=$$("$$($(GO) env GOROOT)/bin/gofmt" -l .); test -z "$$out" || { echo "$$out" >&2; echo "gofmt: files above need formatting" >&2; exit 1; }
	$(GO) test -tags '$(GOTAGS)' -count=1 -timeout 30m ./...
	$(GO) test -tags '$(GOTAGS)' -count=1 -race -timeout 20m $(RACE_PKGS)
	CUTROOM_TEST_DATABASE=postgres $(GO) test -tags '$(GOTAGS)' -count=1 -timeout 20m $(PG_SUITE_PKGS)
	@GO='$(GO)' GOTAGS='$(GOTAGS)' FUZZTIME='$(FUZZTIME)' ./scripts/fuzz-short.sh
	@$(MAKE) --no-print-directory deb-check

## fuzz: run every fuzz target for FUZZTIME (default 4s) each, after its checked-in corpus
FUZZTIME ?= 4s
fuzz:
	@GO='$(GO)' GOTAGS='$(GOTAGS)' FUZZTIME='$(FUZZTIME)' ./scripts/fuzz-short.sh
