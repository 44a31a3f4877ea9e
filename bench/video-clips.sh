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
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) SECS=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--base) BASE=$(realpath "$2"); shift 2 ;;
	--source) SRC=$2; shift 2 ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install -y time" >&2; exit 1; }
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
TB=240000
python3 - "$D/state.json" "$SECS" "$SRC" <<'PY'
import json, sys
path, secs = sys.argv[1], int(sys.argv[2])
sw, sh = (int(v) for v in sys.argv[3].split("x"))
tb, half = 240000, secs // 2
def anim(v): return {"value": v, "keyframes": []}
def item(i, typ, asset, start, dur, extra):
    m = {"id": i, "type": typ, "assetId": asset, "startTicks": start, "durationTicks": dur,
         "isDraggingInTimeline": False, "left": anim(0), "top": anim(0), "width": anim(1920), "height": anim(1080),
         "scaleX": anim(1), "scaleY": anim(1), "opacity": anim(1), "rotation": anim(0),
         "decibelAdjustment": anim(0), "playbackRate": 1, "audioFadeInDurationInSeconds": 0,
         "audioFadeOutDurationInSeconds": 0}
    m.update(extra)
    return m
vid = {"keepAspectRatio": False, "borderRadius": anim(0), "videoStartFromInSeconds": 0}
def vasset(i, f, d):
    return {"id": i, "type": "video", "filename": f, "size": 1, "remoteUrl": None, "remoteKey": f,
            "mimeType": "video/mp4", "durationInSeconds": d, "hasAudioTrack": False, "width": sw, "height": sh}
st = {"compositionWidth": 1920, "compositionHeight": 1080, "timebaseTicksPerSecond": tb,
      "tracks": [{"id": "music", "hidden": False, "muted": False, "items": ["m"]},
                 {"id": "video", "hidden": False, "muted": False, "items": ["a", "b"]}],
      "assets": {"a": vasset("a", "a.mp4", half + 1), "b": vasset("b", "b.mp4", half + 1),
                 "music": {"id": "music", "type": "audio", "filename": "music.mp3", "size": 1, "remoteUrl": None,
                           "remoteKey": "music.mp3", "mimeType": "audio/mpeg", "durationInSeconds": secs}},
      "items": {"a": item("a", "video", "a", 0, half * tb, vid),
                "b": item("b", "video", "b", half * tb, (secs - half) * tb, dict(vid, videoStartFromInSeconds=0.5)),
                "m": item("m", "audio", "music", 0, secs * tb, {"audioStartFromInSeconds": 0,
                          "decibelAdjustment": anim(-6), "audioFadeInDurationInSeconds": 2, "audioFadeOutDurationInSeconds": 2})},
      "transitions": {"x": {"id": "x", "trackId": "video", "fromClipId": "a", "toClipId": "b", "type": "fade",
                            "durationTicks": tb}},
      "globalBackground": {"type": "color", "color": "#000000", "gradient": None}}
json.dump(st, open(path, "w"))
PY
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
