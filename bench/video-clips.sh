#!/usr/bin/env bash
# Video clips benchmark (issue 9): 1080p30, 60 s, two H.264 clips joined by a 1 s
# crossfade, with music (-6 dB, 2 s fade in and out), rendered by `cutroom export` and by
# ffmpeg alone (one filtergraph, same x264 veryfast crf 20 and AAC 192 kb/s). Prints wall
# time, CPU time (user+sys) and peak RSS of each (/usr/bin/time) and the ratios.
#
# usage: bench/video-clips.sh [--seconds 60] [--threads 2] [--rounds N] [--base BINARY]
#                             [--source WxH]
#
# --rounds N runs the programs N times, interleaved, and prints medians (and the median of
# per-round ratios); --base BINARY adds another cutroom build (main's, say) as "base" to
# every round, for before/after figures on a loaded machine. --source 3840x2160 makes the
# clips 4K (the export stays 1080p; ffmpeg's graph scales them with scale=1920:1080).
#
# Result (2 shared vCPUs, one run each, 2026-11-21; clips are testsrc2/testsrc 1080p30):
#   cutroom  wall 115.7 s  cpu 115.2 s  peak RSS 578 MiB
#   ffmpeg   wall 108.7 s  cpu  73.4 s  peak RSS 377 MiB
#   cutroom/ffmpeg: wall 1.06x  cpu 1.57x  peak RSS 1.53x
# Both outputs: h264 1800 frames 60.000 s, aac LC 48 kHz stereo 60.000 s.
set -euo pipefail
cd "$(dirname "$0")"
SECS=60 THREADS=2 ROUNDS=1 BASE= SRC=1920x1080
. lib/clips_args.sh
CLIPS_SOURCE=1 clips_args "$@"
D=out/clips-$SECS
[ "$SRC" = 1920x1080 ] || D=out/clips-$SECS-$SRC
mkdir -p "$D"
(cd .. && go build -tags extlib,pkgconfig -o bench/out/cutroom ./cmd/cutroom)
HALF=$((SECS / 2))
CLIP=$((HALF + 1)) # each clip plays 0.5 s past the cut
if [ ! -f "$D/a.mp4" ] || [ ! -f "$D/b.mp4" ] || [ ! -f "$D/music.mp3" ]; then
	ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=s=$SRC:r=30:d=$CLIP" -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p "$D/a.mp4"
	ffmpeg -nostdin -v error -y -f lavfi -i "testsrc=s=$SRC:r=30:d=$CLIP" -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p "$D/b.mp4"
	ffmpeg -nostdin -v error -y -f lavfi -i "sine=f=220:d=$SECS:sample_rate=44100" -f lavfi -i "sine=f=330:d=$SECS:sample_rate=44100" \
		-filter_complex "[0][1]amix=inputs=2,aformat=channel_layouts=stereo" -c:a libmp3lame -b:a 192k "$D/music.mp3"
fi
python3 lib/clips_state.py "$D/state.json" "$SECS" "$SRC"
OFF=$(echo "$HALF - 0.5" | bc)
SCALE=
[ "$SRC" = 1920x1080 ] || SCALE=scale=1920:1080,
GRAPH="[0:v]${SCALE}trim=0:$((HALF))+0.5,setpts=PTS-STARTPTS[a];[1:v]${SCALE}setpts=PTS-STARTPTS[b];\
[a][b]xfade=transition=fade:duration=1:offset=$OFF,format=yuv420p[v];\
[2:a]volume=-6dB,afade=t=in:d=2,afade=t=out:st=$((SECS - 2)):d=2,aresample=48000[m]"
GRAPH=${GRAPH//\+0.5/.5}
. lib/rounds.sh
run() { timed "$1" clips "${@:2}"; }
: >out/clips-results.txt
for round in $(seq "$ROUNDS"); do
	{
		if [ -n "$BASE" ]; then
			run base "$BASE" export "$D/state.json" -o "$D/base.mp4" --assets "$D" --fps 30 \
				--preset veryfast --crf 20 --threads "$THREADS" --progress none
		fi
		run cutroom out/cutroom export "$D/state.json" -o "$D/cutroom.mp4" --assets "$D" --fps 30 \
			--preset veryfast --crf 20 --threads "$THREADS" --progress none
		run ffmpeg ffmpeg -nostdin -v error -y -i "$D/a.mp4" -i "$D/b.mp4" -i "$D/music.mp3" -filter_complex "$GRAPH" \
			-map "[v]" -map "[m]" -t "$SECS" -c:v libx264 -preset veryfast -crf 20 -g 150 -threads "$THREADS" \
			-c:a aac -b:a 192k "$D/ffmpeg.mp4"
	} | sed "s/^/$round /" | tee -a out/clips-results.txt
done
python3 lib/medians.py out/clips-results.txt cutroom/ffmpeg cutroom/base base/ffmpeg
