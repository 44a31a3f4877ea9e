#!/usr/bin/env bash
# Captions and a logo over a clip (issue 29): one full-frame 1080p30 H.264 clip (testsrc2,
# no sound), a boxed, stroked caption line a second (Noto Sans Bold 48 px, white, 3 px black
# stroke, on black at 60%, centred near the bottom) and a 200x200 PNG logo with soft edges
# in the top-right corner (32 px margin). Rendered by `cutroom export`, by ffmpeg alone (one
# filtergraph: overlay + one drawtext a line with enable=between(t,...), the same font file,
# same x264 veryfast CRF 20, 2 threads), and the clip alone by each (cutroom's state without
# the captions and logo; `ffmpeg -i clip -c:v libx264`, same settings): "overlays cost" is
# cutroom against cutroom-alone, the clip decoding's floor ffmpeg-alone. Prints wall time,
# CPU time (user+sys, children included), peak RSS and the 1-minute load average before and
# after each run, their medians and the median per-round ratios.
#
# usage: bench/overlays.sh [--seconds 20] [--threads 2] [--rounds N] [--base BINARY]
#
# --rounds N runs the programs N times, interleaved; --base BINARY adds another cutroom
# build (main's, say) as "base" to every round.
set -euo pipefail
cd "$(dirname "$0")"
SECS=20 THREADS=2 ROUNDS=1 BASE=
. lib/clips_args.sh
clips_args "$@"
D=out/overlays-$SECS
mkdir -p "$D"
(cd .. && go build -tags extlib,pkgconfig -o bench/out/cutroom ./cmd/cutroom)
FONT=$(realpath ../compositor/text/fonts/NotoSans-Bold.ttf)
LS=200 LX=$((1920 - 32 - 200)) LY=32
if [ ! -f "$D/clip.mp4" ] || [ ! -f "$D/logo.png" ]; then
	ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=s=1920x1080:r=30:d=$SECS" -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p "$D/clip.mp4"
	# an orange disc with a soft edge and a half-transparent white ring
	ffmpeg -nostdin -v error -y -f lavfi -i "color=c=black:s=${LS}x${LS},format=rgba" -frames:v 1 \
		-vf "geq=r='if(between(hypot(X-100,Y-100),55,75),255,240)':g='if(between(hypot(X-100,Y-100),55,75),255,120)':b='if(between(hypot(X-100,Y-100),55,75),255,20)':a='255*clip(99-hypot(X-99.5,Y-99.5),0,1)*if(between(hypot(X-100,Y-100),55,75),0.5,1)'" \
		"$D/logo.png"
fi
# a caption line a second, of varying lengths (letters, digits and spaces: nothing drawtext
# or the filtergraph would need escaped)
words=(the quick brown fox jumps over a lazy dog while seven bright cameras record every moment)
: >"$D/captions.txt"
for s in $(seq 0 $((SECS - 1))); do
	n=$((3 + s % 7))
	line="Line $((s + 1))"
	for k in $(seq 0 $((n - 1))); do line="$line ${words[$(((s * 3 + k) % ${#words[@]}))]}"; done
	echo "$line" >>"$D/captions.txt"
done
python3 lib/overlays_state.py "$D/state.json" "$D/alone.json" "$SECS" "$LS" "$LX" "$LY"
GRAPH="[0:v][1:v]overlay=$LX:$LY:shortest=1"
s=0
while IFS= read -r line; do
	GRAPH="$GRAPH,drawtext=fontfile=$FONT:text='$line':enable='between(t,$s,$((s + 1)))':fontsize=48:fontcolor=white"
	GRAPH="$GRAPH:borderw=3:bordercolor=black:box=1:boxcolor=black@0.6:boxborderw=16:x=(w-text_w)/2:y=h-120-text_h"
	s=$((s + 1))
done <"$D/captions.txt"
GRAPH="$GRAPH,format=yuv420p[v]"
ENC=(-c:v libx264 -preset veryfast -crf 20 -g 150 -threads "$THREADS")
CUT=(--assets "$D" --fps 30 --preset veryfast --crf 20 --threads "$THREADS" --progress none)
. lib/rounds.sh
run() { timed "$1" overlays "${@:2}"; }
: >out/overlays-results.txt
for round in $(seq "$ROUNDS"); do
	{
		if [ -n "$BASE" ]; then
			run base "$BASE" export "$D/state.json" "${CUT[@]}" -o "$D/base.mp4"
		fi
		run cutroom out/cutroom export "$D/state.json" "${CUT[@]}" -o "$D/cutroom.mp4"
		run ffmpeg ffmpeg -nostdin -v error -y -i "$D/clip.mp4" -loop 1 -framerate 30 -i "$D/logo.png" \
			-filter_complex "$GRAPH" -map "[v]" -t "$SECS" "${ENC[@]}" "$D/ffmpeg.mp4"
		run alone out/cutroom export "$D/alone.json" "${CUT[@]}" -o "$D/alone.mp4"
		run ff-alone ffmpeg -nostdin -v error -y -i "$D/clip.mp4" "${ENC[@]}" "$D/ff-alone.mp4"
	} | sed "s/^/$round /" | tee -a out/overlays-results.txt
done
for f in "$D/cutroom.mp4" "$D/ffmpeg.mp4" "$D/alone.mp4" "$D/ff-alone.mp4"; do
	echo "$f: $(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames,width,height -of csv=p=0 "$f") (frames, w, h)"
done
echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 lib/medians.py out/overlays-results.txt cutroom/ffmpeg cutroom/alone alone/ff-alone cutroom/base ffmpeg/ff-alone
