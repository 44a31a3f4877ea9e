#!/usr/bin/env bash
# Generates the reference scene's 1920x1080 PNG images into bench/assets/ (not committed)
# with ffmpeg's test sources: bg1 (a two-colour gradient), bg2 (testsrc2), hero (a
# Mandelbrot set) and overlay (SMPTE HD colour bars).
set -euo pipefail
dir="$(cd "$(dirname "$0")" && pwd)/assets"
mkdir -p "$dir"
gen() { # name lavfi-source
	[ -s "$dir/$1.png" ] || ffmpeg -nostdin -v error -y -f lavfi -i "$2" -frames:v 1 -pix_fmt rgb24 "$dir/$1.png"
}
gen bg1 "gradients=s=1920x1080:c0=0x203060:c1=0xd07030:x0=0:y0=0:x1=1919:y1=1079:nb_colors=2:seed=1"
gen bg2 "testsrc2=s=1920x1080:r=1"
gen hero "mandelbrot=s=1920x1080:rate=1"
gen overlay "smptehdbars=s=1920x1080"
ls -l "$dir"
