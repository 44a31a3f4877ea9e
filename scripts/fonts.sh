#!/usr/bin/env bash
# Puts the web fonts the binary embeds into compositor/text/webfonts/ (git-ignored): each
# package of scripts/webfonts.sha256 is fetched from npm at its exact version (`npm pack`,
# which reads npm's cache first), its tarball checked against the pinned SHA-256, and its
# WOFF2 files of the embedded subsets (SUBSETS, every weight and style), LICENSE,
# metadata.json and unicode.json copied into webfonts/<id>/. The Makefile runs it before
# every go build; it does nothing when the files of the pinned tarballs are in place (a
# .sha256 stamp in each directory). A build without it still compiles: the binary then has
# no web fonts and says so (`cutroom version`). It also copies, for the tests, the WOFF 1.0
# files of the latin 400 faces into compositor/text/testdata/webfonts/ (git-ignored).
# Offline: `npm pack` finds a package in npm's cache (~/.npm) from an earlier run, or
# CUTROOM_WEBFONT_TARBALLS=DIR names a directory holding the tarballs (fontsource-inter-5.3.0.tgz, ...).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/compositor/text/webfonts"
testdata="$root/compositor/text/testdata/webfonts"
SUBSETS=${SUBSETS:-latin latin-ext}

grep -v '^#' "$root/scripts/webfonts.sha256" | while read -r sum spec; do
	[ -n "$sum" ] || continue
	name=${spec%@*}                       # @fontsource/inter
	version=${spec##*@}                   # 5.3.0
	id=${name##*/}                        # inter
	tgzname="$(echo "${name#@}" | tr / -)-$version.tgz" # fontsource-inter-5.3.0.tgz
	dir="$dest/$id"
	if [ "$(cat "$dir/.sha256" 2>/dev/null)" = "$sum $SUBSETS" ] && [ -f "$testdata/$id-latin-400-normal.woff" ]; then
		continue
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	if [ -n "${CUTROOM_WEBFONT_TARBALLS:-}" ] && [ -f "$CUTROOM_WEBFONT_TARBALLS/$tgzname" ]; then
		cp "$CUTROOM_WEBFONT_TARBALLS/$tgzname" "$tmp/"
	else
		if ! command -v npm >/dev/null 2>&1; then
			echo "cutroom: npm is needed to fetch $spec (the embedded web fonts); install npm or set CUTROOM_WEBFONT_TARBALLS" >&2
			exit 1
		fi
		echo "cutroom: fetching $spec (embedded web fonts)" >&2
		(cd "$tmp" && npm pack --prefer-offline --silent "$spec" >/dev/null)
	fi
	got=$(sha256sum "$tmp/$tgzname" | cut -d' ' -f1)
	if [ "$got" != "$sum" ]; then
		echo "cutroom: $tgzname has SHA-256 $got, scripts/webfonts.sha256 pins $sum: refusing it" >&2
		exit 1
	fi
	tar -xzf "$tmp/$tgzname" -C "$tmp"
	rm -rf "$dir"
	mkdir -p "$dir" "$testdata"
	cp "$tmp/package/LICENSE" "$tmp/package/metadata.json" "$tmp/package/unicode.json" "$dir/"
	n=0
	for subset in $SUBSETS; do
		for f in "$tmp/package/files/$id-$subset-"[1-9]00-normal.woff2 "$tmp/package/files/$id-$subset-"[1-9]00-italic.woff2; do
			[ -f "$f" ] || continue
			cp "$f" "$dir/"
			n=$((n + 1))
		done
	done
	if [ "$n" -eq 0 ]; then
		echo "cutroom: $spec has no WOFF2 files for the subsets $SUBSETS" >&2
		exit 1
	fi
	cp "$tmp/package/files/$id-latin-400-normal.woff" "$testdata/"
	echo "$sum $SUBSETS" >"$dir/.sha256"
	rm -rf "$tmp"
	trap - EXIT
	echo "cutroom: $spec: $n font files in ${dir#$root/}" >&2
done
