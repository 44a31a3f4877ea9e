#!/usr/bin/env bash
# Compositor benchmarks at 1920x1080: one goroutine and GOMAXPROCS goroutines.
# cpu-ms/frame is the process CPU time per frame: on a shared machine it is the number to
# compare, since ms/frame (wall) includes time spent waiting for a core.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -run '^$' -bench 'RenderFrame1080p|ReferencePass' -benchmem -benchtime "${BENCHTIME:-60x}" -count "${COUNT:-1}" ./compositor/
