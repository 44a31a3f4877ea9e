#!/usr/bin/env bash
# Drives 20 exports of the reference scene through the API and prints throughput and the
# p50/p99 latency of GET /v1/exports/{taskId} while renders run (target p99 < 20 ms).
# The server runs in process with the real pipeline; the scene is bench/reference-scene.json.
# Extra arguments go to the program, e.g. bench/exports.sh -n 20 -scale 0.6.
set -euo pipefail
cd "$(dirname "$0")/.."
bench/make-assets.sh >/dev/null
exec go run -tags extlib,pkgconfig ./bench/exports "$@"
