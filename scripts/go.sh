#!/usr/bin/env bash
# Prints the go command to build cutroom with: `go` from PATH when it is at least the version
# go.mod names, else that exact toolchain, installed once into the user's cache
# ($XDG_CACHE_HOME or ~/.cache, cutroom/go<version>; outside the repository, so that no Go
# tree lands inside the module for gofmt, vet or editors to walk) from the Go module proxy (golang.org/toolchain, the module `go` itself downloads when it
# switches toolchains) and checked against the SHA-256 pinned in scripts/go-toolchain.sha256.
# Messages go to standard error; the Makefile runs it once (GO := $(shell scripts/go.sh)).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
want=$(awk '$1 == "go" { print $2; exit }' "$root/go.mod")

# at_least A B: version A is B or later (go1.26.8 numbering, compared field by field).
at_least() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n1)" = "$2" ]; }

if command -v go >/dev/null 2>&1; then
	have=$(go env GOVERSION 2>/dev/null | sed 's/^go//; s/[^0-9.].*//')
	if [ -n "$have" ] && at_least "$have" "$want"; then
		echo go
		exit 0
	fi
	echo "cutroom: go on PATH is ${have:-unknown}, go.mod needs $want: using Go $want from the cache" >&2
fi

cache="${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/cutroom"
dir="$cache/go$want"
if [ -x "$dir/bin/go" ]; then
	echo "$dir/bin/go"
	exit 0
fi

case "$(uname -s)-$(uname -m)" in
Linux-x86_64) platform=linux-amd64 ;;
Linux-aarch64) platform=linux-arm64 ;;
*) echo "cutroom: no Go $want here; install Go $want or later from your system's packages or go.dev/dl" >&2; exit 1 ;;
esac
sum=$(awk -v k="go$want.$platform" '$2 == k { print $1 }' "$root/scripts/go-toolchain.sha256")
if [ -z "$sum" ]; then
	echo "cutroom: no pinned checksum for go$want.$platform in scripts/go-toolchain.sha256; install Go $want or later" >&2
	exit 1
fi
for tool in curl unzip; do
	command -v "$tool" >/dev/null 2>&1 && continue
	echo "cutroom: installing $tool to fetch the Go toolchain" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	# through env: sudo's env_reset would drop DEBIAN_FRONTEND
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends curl unzip ca-certificates >/dev/null
done

proxy=${GOPROXY:-https://proxy.golang.org}
proxy=${proxy%%[,|]*}
case "$proxy" in
http://* | https://*) ;;
*) proxy=https://proxy.golang.org ;;
esac
mod="golang.org/toolchain@v0.0.1-go$want.$platform"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "cutroom: fetching Go $want ($platform) from $proxy" >&2
curl -fsSL --retry 3 --connect-timeout 30 --max-time 900 -o "$tmp/go.zip" "$proxy/golang.org/toolchain/@v/v0.0.1-go$want.$platform.zip"
got=$(sha256sum "$tmp/go.zip" | cut -d' ' -f1)
if [ "$got" != "$sum" ]; then
	echo "cutroom: the Go toolchain's SHA-256 is $got, want $sum (scripts/go-toolchain.sha256): refused" >&2
	exit 1
fi
unzip -q "$tmp/go.zip" -d "$tmp/x"
mkdir -p "$cache"
rm -rf "$dir"
mv "$tmp/x/$mod" "$dir"
"$dir/bin/go" version >&2
echo "$dir/bin/go"
