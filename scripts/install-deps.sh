#!/usr/bin/env bash
# Installs the Debian packages cutroom needs to build, run and test, when they are missing.
# Safe to run repeatedly: it does nothing when everything is present.
#   build:   gcc, pkg-config, libx264-dev (H.264), libvpx-dev (VP8/VP9), libopus-dev (Opus),
#            librlottie-dev (Lottie animations; its runtime library librlottie0-1 comes with it),
#            libjpeg62-turbo-dev (frame previews compressed by libjpeg-turbo; runtime libjpeg62-turbo),
#            npm (scripts/fonts.sh fetches the embedded web fonts' packages)
#   runtime: ffmpeg (optional at run time: decoding video and compressed audio inputs)
#   examples: curl and jq (examples/*.sh send requests and read and rewrite JSON with them)
#   tests:   ffmpeg/ffprobe (reference decoder), chromium (browser reference renders),
#            fonts-dejavu-core (the system-font and font-upload tests draw DejaVu),
#            unicode-data (the UAX #9 conformance files BidiCharacterTest.txt and BidiTest.txt
#            for compositor/text's bidi tests), time (/usr/bin/time for bench/compare.sh),
#            postgresql (the PostgreSQL 15 server the storage tests start: internal/pgtest),
#            the package check's tools, and
#            npm with lottie-web (the Lottie reference renderer, installed in node_modules/
#            of the repository: package lottie's test finds it there)
#   --deb:   dpkg-dev (dpkg-shlibdeps: the package's library dependencies), adduser (the
#            package's postinst), systemd (systemd-analyze verify of its unit)
#   --windows: the Windows cross-build (`make windows`, scripts/windows.sh) and its run under
#            Wine: gcc-mingw-w64-x86-64, nasm (libvpx's and libjpeg-turbo's x86 assembly),
#            cmake (libjpeg-turbo), make, curl, xz-utils and patch (the sources and
#            Debian's patches), zip, and wine64 (its loader is /usr/lib/wine/wine64)
#   --test installs --windows's packages too: the tests run cutroom.exe under Wine
set -euo pipefail

want=(gcc pkg-config libx264-dev libvpx-dev libopus-dev libvo-aacenc-dev librlottie-dev libjpeg62-turbo-dev ffmpeg curl jq)
# npm from Debian unless one is already there (NodeSource's nodejs bundles its own)
command -v npm >/dev/null 2>&1 || want+=(npm)
windows=(gcc-mingw-w64-x86-64 nasm cmake make curl xz-utils patch zip wine64)
case "${1:-}" in
--test)
  want+=(chromium fonts-noto-core fonts-dejavu-core unicode-data time postgresql dpkg-dev adduser systemd "${windows[@]}")
  ;;
--deb) want+=(dpkg-dev adduser systemd) ;;
--windows) want+=("${windows[@]}") ;;
esac

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# lottie-web, the reference of the Lottie comparison (--test only): an exact version into
# the repository's node_modules/ (git-ignored), once npm is there.
lottie_web() {
  [ "${1:-}" = --test ] || return 0
  local root
  root=$(cd "$(dirname "$0")/.." && pwd)
  [ -f "$root/node_modules/lottie-web/build/player/lottie.min.js" ] && return 0
  echo "cutroom: installing lottie-web 5.13.0 into $root/node_modules" >&2
  (cd "$root" && npm install --no-save --no-package-lock --no-audit --no-fund lottie-web@5.13.0 >/dev/null)
}

if [ ${#missing[@]} -eq 0 ]; then
  lottie_web "${1:-}"
  exit 0
fi

echo "cutroom: installing missing system packages: ${missing[*]}" >&2
if ! command -v apt-get >/dev/null 2>&1; then
  echo "cutroom: apt-get not found; install these packages by hand: ${missing[*]}" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "cutroom: run as root or install sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
# through env: sudo's env_reset drops an exported DEBIAN_FRONTEND, and debconf would ask
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
lottie_web "${1:-}"
