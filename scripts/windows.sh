#!/usr/bin/env bash
# Builds cutroom for windows/amd64 (`make windows`) with Debian's mingw-w64: the C libraries
# from scripts/windows-libs.sh (cached), `go vet` of every package for Windows, then
# build/windows/cutroom.exe, statically linked (it needs no DLL but Windows' own), and
# build/cutroom_<version>_windows_amd64.zip (the program, README.txt, the licences of
# everything linked and where the sources are). Prints the zip's path.
#   --exe-only       build and check cutroom.exe, no vet and no zip (the wine test)
#   GO               the go command (go)
#   WINDOWS_VERSION  the zip's version (default: scripts/version.sh's)
# The build tags are none: x264 is the portable C copy bundled in
# github.com/gen2brain/x264-go (no extlib), rlottie is left out (lottie builds its renderer
# processes on Linux only), see docs/bundling.md "Windows".
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
host=x86_64-w64-mingw32
out=build/windows

libdir=$(./scripts/windows-libs.sh)
# go's build cache does not see pkg-config's files: a changed library changes CGO_CFLAGS
# (its prefixes' keys), so every cgo package builds again against it
export GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=$host-gcc CXX=$host-g++ \
	PKG_CONFIG_LIBDIR="$libdir" PKG_CONFIG_PATH= \
	CGO_CFLAGS="-O2 -g -DCUTROOM_WINDOWS_LIBS=$(echo "$libdir" | sha256sum | cut -c1-16)"

if [ "${1:-}" != --exe-only ]; then
	"$GO" vet ./...
fi
mkdir -p "$out"
"$GO" build -ldflags '-s -w -extldflags=-static' -o "$out/cutroom.exe" ./cmd/cutroom

# Windows' own DLLs only: a mingw runtime DLL (winpthread, libgcc, libssp) would be missing
# on the machines it runs on
system='^(kernel32|advapi32|bcrypt|bcryptprimitives|crypt32|dnsapi|iphlpapi|msvcrt|netapi32|ntdll|ole32|powrprof|secur32|shell32|shlwapi|user32|userenv|winmm|ws2_32|mswsock|api-ms-win-[a-z0-9-]+)\.dll$'
while read -r dll; do
	if ! echo "$dll" | tr 'A-Z' 'a-z' | grep -Eq "$system"; then
		echo "cutroom: $out/cutroom.exe imports $dll, which Windows does not ship" >&2
		exit 1
	fi
done < <($host-objdump -p "$out/cutroom.exe" | sed -n 's/^\s*DLL Name: //p')
[ "${1:-}" = --exe-only ] && exit 0

# The zip: the program, README.txt, LICENSES/ and SOURCES.txt.
version=$(./scripts/version.sh "${WINDOWS_VERSION:-}")
name="cutroom_${version}_windows_amd64"
stage="$out/$name"
rm -rf "$stage" build/cutroom_*_windows_amd64.zip
mkdir -p "$stage/LICENSES"
cp "$out/cutroom.exe" "$stage/"
sed "s/@VERSION@/$version/" packaging/windows/README.txt >"$stage/README.txt"
lic="$stage/LICENSES"
cp LICENSE "$lic/cutroom-GPL-2.0-or-later.txt"
cp compositor/text/fonts/OFL.txt "$lic/fonts-Noto-OFL-1.1.txt"
cp compositor/text/fonts/Symbola-LICENSE.txt "$lic/fonts-Symbola.txt"
# the C libraries: their licence files from the sources the build used
src=${CUTROOM_CACHE:-$HOME/.cache/cutroom}/windows/src
tar xzf "$src/opus_1.3.1.orig.tar.gz" -O opus-1.3.1/COPYING >"$lic/opus-BSD-3-Clause.txt"
tar xzf "$src/libvpx_1.12.0.orig.tar.gz" -O libvpx-1.12.0/LICENSE >"$lic/libvpx-BSD-3-Clause.txt"
tar xzf "$src/libvpx_1.12.0.orig.tar.gz" -O libvpx-1.12.0/PATENTS >"$lic/libvpx-PATENTS.txt"
tar xzf "$src/vo-aacenc_0.1.3.orig.tar.gz" -O vo-aacenc-0.1.3/COPYING >"$lic/vo-aacenc-Apache-2.0.txt"
tar xzf "$src/vo-aacenc_0.1.3.orig.tar.gz" -O vo-aacenc-0.1.3/NOTICE >"$lic/vo-aacenc-NOTICE.txt"
tar xzf "$src/libjpeg-turbo_2.1.5.orig.tar.gz" -O libjpeg-turbo-2.1.5/LICENSE.md >"$lic/libjpeg-turbo-LICENSE.md"
tar xzf "$src/libjpeg-turbo_2.1.5.orig.tar.gz" -O libjpeg-turbo-2.1.5/README.ijg >"$lic/libjpeg-turbo-README.ijg.txt"
# the mingw-w64 runtime, winpthreads, libgcc and libssp linked statically: Debian's
# copyright files of the packages they come from
cp /usr/share/doc/mingw-w64-x86-64-dev/copyright "$lic/mingw-w64-runtime-and-winpthreads.txt"
cp /usr/share/doc/gcc-mingw-w64-base/copyright "$lic/gcc-runtime-libgcc-libssp.txt"
# Go, and every Go module linked (x264 among them: github.com/gen2brain/x264-go)
cp "$("$GO" env GOROOT)/LICENSE" "$lic/go-BSD-3-Clause.txt"
"$GO" list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}' ./cmd/cutroom |
	sort -u >"$out/modules.txt"
while read -r path modver dir; do
	found=""
	for f in "$dir"/LICENSE* "$dir"/LICENCE* "$dir"/COPYING* "$dir"/UNLICENSE* "$dir"/NOTICE* "$dir"/PATENTS*; do
		[ -f "$f" ] || continue
		cp "$f" "$lic/go-$(echo "$path" | tr '/' '_')-$(basename "$f")"
		found=1
	done
	[ -n "$found" ] || { echo "cutroom: Go module $path $modver has no licence file" >&2; exit 1; }
done <"$out/modules.txt"
{
	echo "Where the source of everything in cutroom.exe is (cutroom $version)."
	echo
	echo "cutroom: https://github.com/cutroom/cutroom, commit $(git rev-parse HEAD 2>/dev/null || echo unknown)"
	echo
	echo "Go modules (from https://proxy.golang.org, checked by the go.sum of cutroom's source):"
	awk '{print "  " $1 " " $2}' "$out/modules.txt"
	echo
	echo "x264 (GPL-2.0-or-later) is the C source inside the Go module github.com/gen2brain/x264-go"
	echo "(directory x264c/external/x264), compiled as it is there."
	echo
	echo "C libraries, from a Debian mirror's pool/main/ (the .orig archives are the upstream"
	echo "releases; libvpx has Debian's patches applied), with their SHA-256:"
	grep -v '^#' packaging/windows/libs.lock | awk 'NF {print "  " $1 " " $2 "  pool/main/" $3 "  " $4}'
} >"$stage/SOURCES.txt"
(cd "$out" && rm -f "../$name.zip" && zip -qr -X "../$name.zip" "$name")
echo "build/$name.zip"
