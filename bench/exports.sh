#!/usr/bin/env bash
# Drives 20 exports of the reference scene through the API and prints throughput and the
# p50/p99 latency of GET /v1/exports/{taskId} while renders run (target p99 < 20 ms).
# Extra arguments go to the program, e.g. bench/exports.sh -n 20 -seconds 4 -scale 1.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench/exports "$@"
