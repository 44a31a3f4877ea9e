#!/usr/bin/env bash
# Renders the reference scene (bench/reference-scene.json) with cutroom and with the
# equivalent ffmpeg filtergraph, and encodes the scene's precomputed frames with the encoder
# alone (ffmpeg reading raw yuv420p from a file in the page cache: x264 or libvpx-vp9 by
# itself). All three use the same codec settings and thread count. Runs are interleaved
# (cutroom, ffmpeg, encoder, cutroom, ...) because the machine is shared and noisy; the
# script prints the median wall time, CPU time (user+sys) and peak RSS of each
# (/usr/bin/time) and the ratios.
#
# usage: bench/compare.sh [--fps 30|60] [--scale 1|2] [--format mp4|webm] [--runs N]
#                         [--threads N] [--hyperfine]
#   --hyperfine also times the three commands with hyperfine (wall only, not interleaved).
set -euo pipefail
cd "$(dirname "$0")"

FPS=30 SCALE=1 FORMAT=mp4 RUNS=3 THREADS=2 HYPERFINE=0
while [ $# -gt 0 ]; do
	case "$1" in
	--fps) FPS=$2; shift 2 ;;
	--scale) SCALE=$2; shift 2 ;;
	--format) FORMAT=$2; shift 2 ;;
	--runs) RUNS=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--hyperfine) HYPERFINE=1; shift ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done
case "$SCALE" in 1 | 2) ;; *) echo "--scale must be 1 or 2 (the ffmpeg graph uses integer coordinates)" >&2; exit 2 ;; esac
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install -y time" >&2; exit 1; }

./make-assets.sh >/dev/null
mkdir -p out
(cd .. && go build -tags extlib,pkgconfig -o bench/out/cutroom ./cmd/cutroom)

S=$SCALE F=$FPS
W=$((1920 * S)) H=$((1080 * S))
N=$((10 * F))        # frames of the 10 s scene
B=$((F * 11 / 2))    # frames of each background clip in the crossfade (5.5 s)
KEY=$((5 * F))       # cutroom's keyframe interval (encode.KeyframeSeconds)
# T: the motion's progress, 0 at frame 0 and 1 at the last 30 fps frame (tick 2392000).
T='min(t*30/299\,1)'
HS="(0.5+0.5*$T)"   # hero scale 0.5 -> 1
GRAPH="\
[0:v]scale=$W:$H,format=yuv420p,loop=loop=$((B - 1)):size=1:start=0,setpts=N/$F/TB[b1];\
[1:v]scale=$W:$H,format=yuv420p,loop=loop=$((B - 1)):size=1:start=0,setpts=N/$F/TB[b2];\
[b1][b2]xfade=transition=fade:duration=1:offset=4.5[bg];\
[3:v]scale=$((640 * S)):$((360 * S)),format=rgba,colorchannelmixer=aa=0.5,loop=loop=$((N - 1)):size=1:start=0,setpts=N/$F/TB,fade=t=in:st=0:d=2:alpha=1[ov];\
[2:v]scale=$((640 * S)):$((360 * S)),format=yuva420p,loop=loop=$((N - 1)):size=1:start=0,setpts=N/$F/TB,\
scale=w='2*trunc($((320 * S))*$HS)':h='2*trunc($((180 * S))*$HS)':eval=frame[hero];\
[bg][ov]overlay=x=$((1200 * S)):y=$((80 * S))[l1];\
[l1][hero]overlay=x='$S*(420+1080*$T)-overlay_w/2':y='$S*(280+520*$T)-overlay_h/2':eval=frame[l2];\
[l2]drawtext=fontfile=/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf:text='cutroom reference scene':\
fontsize=$((64 * S)):fontcolor=white:x=(w-text_w)/2:y=$((920 * S))+($((100 * S))-text_h)/2:\
box=1:boxcolor=black@0.5:boxborderw=$((24 * S)),format=yuv420p[out]"

COLOR=(-colorspace bt709 -color_primaries bt709 -color_trc bt709 -color_range tv)
case "$FORMAT" in
mp4)
	ENC=(-c:v libx264 -preset veryfast -crf 20 -g $KEY -threads "$THREADS")
	OURS=(--preset veryfast --crf 20) ;;
webm)
	# cutroom's veryfast for VP9: realtime deadline, cpu-used 7, end-usage Q cq-level 31, no
	# lag, row-mt, tile columns as encode.newVPXEncoder picks them (log2, 256+ px each, up to
	# 2 per thread).
	tiles=0
	while [ $tiles -lt 6 ] && [ $((W >> (tiles + 1))) -ge 256 ] && [ $((1 << (tiles + 1))) -le $((THREADS * 2)) ]; do tiles=$((tiles + 1)); done
	ENC=(-c:v libvpx-vp9 -deadline realtime -cpu-used 7 -crf 31 -b:v 0 -row-mt 1 -tile-columns $tiles -lag-in-frames 0 -g $KEY -threads "$THREADS")
	OURS=(--preset veryfast --crf 31) ;;
*) echo "--format must be mp4 or webm" >&2; exit 2 ;;
esac

CUTROOM=(out/cutroom export reference-scene.json -o "out/cutroom.$FORMAT" --assets assets --fps "$F" --scale "$S"
	--threads "$THREADS" --workers "$THREADS" "${OURS[@]}" --progress none)
FFMPEG=(ffmpeg -nostdin -y -v error -i assets/bg1.png -i assets/bg2.png -i assets/hero.png -i assets/overlay.png
	-filter_complex_threads "$THREADS" -filter_complex "$GRAPH" -map '[out]' -frames:v "$N" -r "$F"
	"${ENC[@]}" "${COLOR[@]}" "out/ffmpeg.$FORMAT")
YUV="out/frames-${W}x${H}-$F.yuv"
ENCODER=(ffmpeg -nostdin -y -v error -f rawvideo -pix_fmt yuv420p -s "${W}x$H" -r "$F" -i "$YUV"
	"${ENC[@]}" "${COLOR[@]}" "out/encoder.$FORMAT")

# Warm up (and check) once; the encoder-alone input is cutroom's own frames, decoded.
"${CUTROOM[@]}"
"${FFMPEG[@]}"
[ -s "$YUV" ] || ffmpeg -nostdin -y -v error -i "out/cutroom.$FORMAT" -f rawvideo -pix_fmt yuv420p "$YUV"
for f in "out/cutroom.$FORMAT" "out/ffmpeg.$FORMAT"; do
	got=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames,width,height -of csv=p=0 "$f")
	[ "$got" = "$W,$H,$N" ] || { echo "$f: got $got, want $W,$H,$N" >&2; exit 1; }
done

RES=out/results.txt
: >"$RES"
for r in $(seq "$RUNS"); do
	for tool in cutroom ffmpeg encoder; do
		case $tool in
		cutroom) cmd=("${CUTROOM[@]}") ;;
		ffmpeg) cmd=("${FFMPEG[@]}") ;;
		encoder) cmd=("${ENCODER[@]}") ;;
		esac
		/usr/bin/time -f "$tool $r %e %U %S %M" -o out/time.txt "${cmd[@]}"
		cat out/time.txt >>"$RES"
	done
done

echo "reference scene ${W}x$H, $F fps, $N frames, $FORMAT, preset veryfast, $THREADS threads, $RUNS interleaved runs; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$RES" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    tool, _, wall, user, sys_, rss = line.split()
    rows.setdefault(tool, []).append((float(wall), float(user) + float(sys_), int(rss) / 1024))
med = {t: [statistics.median(v[i] for v in rs) for i in range(3)] for t, rs in rows.items()}
names = {"cutroom": "cutroom export", "ffmpeg": "ffmpeg filtergraph", "encoder": "encoder alone (raw frames)"}
print(f"{'':28}{'wall s':>9}{'cpu s':>9}{'peak RSS MB':>13}")
for t in ("cutroom", "ffmpeg", "encoder"):
    w, c, m = med[t]
    print(f"{names[t]:28}{w:9.2f}{c:9.2f}{m:13.0f}")
c, f, e = med["cutroom"], med["ffmpeg"], med["encoder"]
print(f"cutroom / ffmpeg:        wall {c[0]/f[0]:.2f}x  cpu {c[1]/f[1]:.2f}x  rss {c[2]/f[2]:.2f}x")
print(f"cutroom / encoder alone: wall {c[0]/e[0]:.2f}x  cpu {c[1]/e[1]:.2f}x")
# The machine's speed drifts between rounds: the ratios within each round (the three
# commands ran back to back) are steadier than ratios of medians.
def paired(a, b, i):
    return statistics.median(x[i] / y[i] for x, y in zip(rows[a], rows[b]))
print(f"median of per-round ratios: cutroom/ffmpeg wall {paired('cutroom', 'ffmpeg', 0):.2f}x, "
      f"cutroom/encoder wall {paired('cutroom', 'encoder', 0):.2f}x cpu {paired('cutroom', 'encoder', 1):.2f}x")
PY

if [ "$HYPERFINE" = 1 ]; then
	q() { printf '%q ' "$@"; }
	hyperfine --runs "$RUNS" -N --export-markdown out/hyperfine.md \
		-n cutroom "$(q "${CUTROOM[@]}")" -n ffmpeg "$(q "${FFMPEG[@]}")" -n encoder "$(q "${ENCODER[@]}")"
fi
