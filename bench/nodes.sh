#!/usr/bin/env bash
# bench/nodes.sh: `cutroom serve` as one node and as two on this machine (docs/nodes.md):
# API latency p50/p99 (GET a task, list tasks, create a project) and exports per minute under
# the same load, for bbolt, PostgreSQL, PostgreSQL + NATS (the files in its Object Store) with
# one node, and the same with two nodes. Interleaved rounds, medians; CPU seconds (nodes,
# PostgreSQL, the load and NATS) and the load average beside every figure. See bench/nodes.
#
# It starts its own PostgreSQL 15 (Debian's, /usr/lib/postgresql/15/bin; as the user postgres
# when run as root) in a temporary directory, on a free loopback port, and removes it after.
#
#	bench/nodes.sh [rounds] [-- driver flags, e.g. -seconds 20 -configs bbolt,pg]
#	(default 3 rounds of 30 s per configuration; results in bench/README.md, "nodes")
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
shift || true
[ "${1:-}" = "--" ] && shift
pgbin=/usr/lib/postgresql/15/bin
work=$(mktemp -d)
pgdata="$work/pg"
cleanup() {
	[ -f "$pgdata/postmaster.pid" ] && as_pg "$pgbin/pg_ctl" -D "$pgdata" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$work"
go build -tags extlib,pkgconfig -o "$work/cutroom" ./cmd/cutroom
as_pg "$pgbin/initdb" -D "$pgdata" -A trust -U postgres >/dev/null
port=$((20000 + RANDOM % 20000))
as_pg "$pgbin/pg_ctl" -D "$pgdata" -l "$pgdata/log" -w \
	-o "-p $port -k $pgdata -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
echo "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
go run -tags extlib,pkgconfig ./bench/nodes -bin "$work/cutroom" -pg "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable" \
	-pg-pid "$(head -1 "$pgdata/postmaster.pid")" -rounds "$rounds" "$@"
