#!/usr/bin/env bash
# Clip-alone benchmark (issue 29): one 1080p30 H.264 clip (testsrc2, yuv420p, no colour
# tags, as most camera and screen recordings) filling the frame, exported by `cutroom
# export` and re-encoded by `ffmpeg -i clip -c:v libx264` with the same x264 settings
# (veryfast, CRF 20, keyframes every 5 s, --threads encoder threads), video only. Prints
# wall time, CPU time (user+sys, the ffmpeg decoder child included) and peak RSS of each
# (/usr/bin/time), medians and the median per-round ratios. Target: cutroom's CPU <= 1.0x
# ffmpeg's.
#
# usage: bench/clip.sh [--seconds 20] [--threads 2] [--rounds N] [--base BINARY] [--source WxH]
#
# --rounds N runs the programs N times, interleaved; --base BINARY adds another cutroom
# build (main's, say) as "base" to every round. --source 3840x2160 makes the clip 4K (the
# export stays 1080p; ffmpeg then scales it with -vf scale=1920:1080).
set -euo pipefail
cd "$(dirname "$0")"
SECS=20 THREADS=2 ROUNDS=1 BASE= SRC=1920x1080
. lib/clips_args.sh
CLIPS_SOURCE=1 clips_args "$@"
D=out/clip-$SECS
[ "$SRC" = 1920x1080 ] || D=out/clip-$SECS-$SRC
mkdir -p "$D"
(cd .. && go build -tags extlib,pkgconfig -o bench/out/cutroom ./cmd/cutroom)
if [ ! -f "$D/a.mp4" ]; then
	ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=s=$SRC:r=30:d=$SECS" -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p "$D/a.mp4"
fi
python3 lib/clips_state.py "$D/state.json" "$SECS" "$SRC" single
SCALE=()
[ "$SRC" = 1920x1080 ] || SCALE=(-vf scale=1920:1080)
. lib/rounds.sh
run() { timed "$1" clip "${@:2}"; }
CUT=(export "$D/state.json" --assets "$D" --fps 30 --preset veryfast --crf 20 --threads "$THREADS" --progress none)
: >out/clip-results.txt
for round in $(seq "$ROUNDS"); do
	{
		if [ -n "$BASE" ]; then
			run base "$BASE" "${CUT[@]}" -o "$D/base.mp4"
		fi
		run cutroom out/cutroom "${CUT[@]}" -o "$D/cutroom.mp4"
		run ffmpeg ffmpeg -nostdin -v error -y -i "$D/a.mp4" "${SCALE[@]}" -c:v libx264 -preset veryfast -crf 20 -g 150 \
			-threads "$THREADS" "$D/ffmpeg.mp4"
	} | sed "s/^/$round /" | tee -a out/clip-results.txt
done
python3 lib/medians.py out/clip-results.txt cutroom/ffmpeg cutroom/base base/ffmpeg
