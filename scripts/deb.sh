#!/usr/bin/env bash
# Builds the Debian package build/cutroom_<version>_<arch>.deb (`make deb`): the binary
# (built here with GOTAGS), the systemd unit, /etc/default/cutroom and the maintainer
# scripts of packaging/, with nfpm (packaging/nfpm.yaml). The package depends on the shared
# libraries the binary links, at the versions dpkg-shlibdeps derives from this machine's
# packages, so build it on the Debian release it is meant for.
#   DEB_VERSION  the package version (default: 0.0.0~git<commit time>.<commit>, or
#                0.0.0~dev outside a git checkout)
#   GO, GOTAGS   the go command and build tags (as the Makefile's)
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
GOTAGS=${GOTAGS:-extlib,pkgconfig}
NFPM=github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2

out=build/deb
rm -rf "$out"
mkdir -p "$out"
./scripts/fonts.sh
"$GO" build -tags "$GOTAGS" -o "$out/cutroom" ./cmd/cutroom

version=$(./scripts/version.sh "${DEB_VERSION:-}")

# dpkg-shlibdeps reads debian/control of the working directory: give it a minimal one.
shl="$out/shlibdeps"
mkdir -p "$shl/debian"
printf 'Source: cutroom\n\nPackage: cutroom\nArchitecture: any\n' >"$shl/debian/control"
depends=$(cd "$shl" && dpkg-shlibdeps -O ../cutroom 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
if [ -z "$depends" ]; then
	echo "cutroom: dpkg-shlibdeps found no dependencies of $out/cutroom" >&2
	exit 1
fi

export CUTROOM_DEB_VERSION="$version" CUTROOM_DEB_DEPENDS="$depends"
CUTROOM_DEB_ARCH=$(dpkg --print-architecture)
export CUTROOM_DEB_ARCH
deb="build/cutroom_${version}_${CUTROOM_DEB_ARCH}.deb"
rm -f build/cutroom_*.deb
# `go run pkg@version` builds nfpm in module mode outside this module (go.mod is untouched);
# -buildvcs=false since nfpm's build is no checkout of ours.
GOFLAGS=-buildvcs=false "$GO" run "$NFPM" package --config packaging/nfpm.yaml --packager deb --target "$deb" >/dev/null
echo "$deb"
