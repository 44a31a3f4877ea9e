#!/usr/bin/env bash
# Checks scripts/go.sh on a machine without Go: with a PATH that has no go on it, it must
# install go.mod's toolchain from the Go module proxy (into a cache dir of its own here, so the
# check always fetches and verifies) and answer that go.
# .ci/run runs it before `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bare=/usr/sbin:/usr/bin:/sbin:/bin
if env PATH=$bare sh -c 'command -v go' >/dev/null 2>&1; then
	echo "check-go-install: go is in $bare; nothing to check" >&2
	exit 0
fi
want="go$(awk '$1 == "go" { print $2; exit }' go.mod)"
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
gobin=$(env -u GOROOT PATH=$bare XDG_CACHE_HOME="$cache" ./scripts/go.sh)
case "$gobin" in
"$cache"/*) ;;
*) echo "check-go-install: without go on PATH, scripts/go.sh answered $gobin" >&2; exit 1 ;;
esac
got=$(env -u GOROOT PATH=$bare "$gobin" env GOVERSION)
[ "$got" = "$want" ] || { echo "check-go-install: the installed toolchain is $got, want $want" >&2; exit 1; }
echo "check-go-install: without go on PATH, scripts/go.sh installed $got ($gobin)"
