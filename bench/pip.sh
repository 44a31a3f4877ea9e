#!/usr/bin/env bash
# Picture-in-picture benchmark (issue 17): 1080p30, two H.264 clips joined by a 1 s
# crossfade filling the frame, a third clip scaled to 480x270 into the bottom-right corner
# (32 px margin) for the whole duration, and music (-6 dB, 2 s fade in and out). Rendered by
# `cutroom export`, by ffmpeg alone (one filtergraph: xfade + scale + overlay, same x264
# veryfast CRF 20, 2 threads, AAC 192 kb/s) and by x264 alone on the same frames ("x264":
# ffmpeg reading cutroom's own output decoded once, before the timed rounds, to a raw yuv420p
# file, and encoding it with the same x264 settings, video only). Prints wall time, CPU time
# (user+sys, children included) and peak RSS of each (/usr/bin/time), medians and the
# median per-round ratios.
#
# usage: bench/pip.sh [--seconds 20] [--threads 2] [--rounds N] [--base BINARY]
#
# --rounds N runs the programs N times, interleaved; --base BINARY adds another cutroom
# build (main's, say) as "base" to every round. The raw file for x264 alone is
# seconds*30*3 MB (1.9 GB at 20 s) under bench/out.
set -euo pipefail
cd "$(dirname "$0")"
SECS=20 THREADS=2 ROUNDS=1 BASE=
. lib/clips_args.sh
clips_args "$@"
D=out/pip-$SECS
mkdir -p "$D"
(cd .. && go build -tags extlib,pkgconfig -o bench/out/cutroom ./cmd/cutroom)
HALF=$((SECS / 2))
CLIP=$((HALF + 1)) # each full-frame clip plays 0.5 s past the cut
if [ ! -f "$D/a.mp4" ] || [ ! -f "$D/b.mp4" ] || [ ! -f "$D/c.mp4" ] || [ ! -f "$D/music.mp3" ]; then
	ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=s=1920x1080:r=30:d=$CLIP" -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p "$D/a.mp4"
	ffmpeg -nostdin -v error -y -f lavfi -i "testsrc=s=1920x1080:r=30:d=$CLIP" -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p "$D/b.mp4"
	ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=s=1920x1080:r=30:d=$SECS" -vf hue=h=120 -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p "$D/c.mp4"
	ffmpeg -nostdin -v error -y -f lavfi -i "sine=f=220:d=$SECS:sample_rate=44100" -f lavfi -i "sine=f=330:d=$SECS:sample_rate=44100" \
		-filter_complex "[0][1]amix=inputs=2,aformat=channel_layouts=stereo" -c:a libmp3lame -b:a 192k "$D/music.mp3"
fi
PW=480 PH=270 PX=1408 PY=778
python3 lib/clips_state.py "$D/state.json" "$SECS" 1920x1080 "$PW" "$PH" "$PX" "$PY"
OFF=$(echo "$HALF - 0.5" | bc)
GRAPH="[0:v]trim=0:$((HALF))+0.5,setpts=PTS-STARTPTS[a];[1:v]setpts=PTS-STARTPTS[b];\
[a][b]xfade=transition=fade:duration=1:offset=$OFF[bg];[2:v]scale=$PW:$PH,setpts=PTS-STARTPTS[c];\
[bg][c]overlay=$PX:$PY,format=yuv420p[v];\
[3:a]volume=-6dB,afade=t=in:d=2,afade=t=out:st=$((SECS - 2)):d=2,aresample=48000[m]"
GRAPH=${GRAPH//\+0.5/.5}
ENC=(-c:v libx264 -preset veryfast -crf 20 -g 150 -threads "$THREADS")
CUT=(export "$D/state.json" --assets "$D" --fps 30 --preset veryfast --crf 20 --threads "$THREADS" --progress none)
YUV=$D/frames.yuv
. lib/rounds.sh
run() { timed "$1" pip "${@:2}"; }
# Warm up once (untimed) and make x264's input: cutroom's frames, decoded to raw yuv420p.
if [ ! -s "$YUV" ]; then
	out/cutroom "${CUT[@]}" -o "$D/cutroom.mp4"
	ffmpeg -nostdin -v error -y -i "$D/cutroom.mp4" -f rawvideo -pix_fmt yuv420p "$YUV"
fi
: >out/pip-results.txt
for round in $(seq "$ROUNDS"); do
	{
		if [ -n "$BASE" ]; then
			run base "$BASE" "${CUT[@]}" -o "$D/base.mp4"
		fi
		run cutroom out/cutroom "${CUT[@]}" -o "$D/cutroom.mp4"
		run ffmpeg ffmpeg -nostdin -v error -y -i "$D/a.mp4" -i "$D/b.mp4" -i "$D/c.mp4" -i "$D/music.mp3" \
			-filter_complex "$GRAPH" -map "[v]" -map "[m]" -t "$SECS" "${ENC[@]}" -c:a aac -b:a 192k "$D/ffmpeg.mp4"
		run x264 ffmpeg -nostdin -v error -y -f rawvideo -pix_fmt yuv420p -s 1920x1080 -r 30 -i "$YUV" \
			"${ENC[@]}" "$D/x264.mp4"
	} | sed "s/^/$round /" | tee -a out/pip-results.txt
done
for f in "$D/cutroom.mp4" "$D/ffmpeg.mp4" "$D/x264.mp4"; do
	echo "$f: $(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames,width,height -of csv=p=0 "$f") (frames, w, h)"
done
echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 lib/medians.py out/pip-results.txt cutroom/ffmpeg cutroom/x264 cutroom/base
