#!/usr/bin/env bash
# slideshow: exports a slideshow of large photos (N PNGs of 4000x3000, generated with
# ffmpeg's testsrc2 into bench/out/slides, each shown full-frame for 1 s at 1920x1080, so
# drawn from a reduction at half size) and prints wall time and peak RSS. Memory must not
# grow with the number of photos: each photo's pictures go when its item ends.
#
#   bench/slideshow.sh [--photos N] [--runs N] [--against BINARY]
#
# --against times another cutroom binary (e.g. one built at an older revision) in the same
# rounds, interleaved.
set -euo pipefail
PHOTOS=20
RUNS=1
AGAINST=""
while [ $# -gt 0 ]; do
	case "$1" in
	--photos) PHOTOS=$2; shift 2 ;;
	--runs) RUNS=$2; shift 2 ;;
	--against) AGAINST=$(realpath "$2"); shift 2 ;;
	*) echo "usage: bench/slideshow.sh [--photos N] [--runs N] [--against BINARY]" >&2; exit 2 ;;
	esac
done
cd "$(dirname "$0")"
mkdir -p out/slides
(cd .. && go build -tags extlib,pkgconfig -o bench/out/cutroom ./cmd/cutroom)

if [ ! -f "out/slides/s$(printf %03d "$PHOTOS").png" ]; then
	ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=s=4000x3000:r=1 -frames:v "$PHOTOS" out/slides/s%03d.png
fi
python3 - "$PHOTOS" >out/slides/slides.json <<'PY'
import json, sys
n, tb = int(sys.argv[1]), 240000
an = lambda v: {"value": v, "keyframes": []}
assets, items, ids = {}, {}, []
for i in range(1, n + 1):
    a = "s%03d" % i
    assets[a] = {"id": a, "type": "image", "filename": a + ".png", "size": 1, "remoteUrl": None,
                 "remoteKey": a + ".png", "mimeType": "image/png", "width": 4000, "height": 3000}
    it = {"id": "i" + a, "type": "image", "assetId": a, "startTicks": (i - 1) * tb, "durationTicks": tb,
          "isDraggingInTimeline": False, "keepAspectRatio": False}
    for k, v in {"left": 0, "top": 0, "width": 1920, "height": 1080, "scaleX": 1, "scaleY": 1, "opacity": 1,
                 "rotation": 0, "borderRadius": 0, "cropLeft": 0, "cropTop": 0, "cropRight": 0, "cropBottom": 0}.items():
        it[k] = an(v)
    items["i" + a] = it
    ids.append("i" + a)
json.dump({"compositionWidth": 1920, "compositionHeight": 1080, "timebaseTicksPerSecond": tb,
           "tracks": [{"id": "t", "hidden": False, "muted": False, "items": ids}], "assets": assets,
           "items": items, "transitions": {},
           "globalBackground": {"type": "color", "color": "#000000", "gradient": None}}, sys.stdout)
PY

bins=("out/cutroom")
[ -n "$AGAINST" ] && bins+=("$AGAINST")
: >out/slides/times.txt
for _ in $(seq "$RUNS"); do
	for b in "${bins[@]}"; do
		/usr/bin/time -a -o out/slides/times.txt -f "$b %e %M" "$b" export out/slides/slides.json \
			-o out/slides/out.mp4 --assets out/slides --threads 2 --workers 2 --preset veryfast --crf 20 \
			--progress none >/dev/null
	done
done
echo "slideshow: $PHOTOS photos of 4000x3000, 1 s each at 1920x1080 30 fps; $RUNS run(s); medians"
python3 - <<'PY'
import statistics
rows = {}
for line in open("out/slides/times.txt"):
    b, wall, kb = line.split()
    rows.setdefault(b, []).append((float(wall), int(kb) / 1024))
for b, v in rows.items():
    print(f"{b:40} wall {statistics.median(w for w, _ in v):6.2f} s  peak RSS {statistics.median(m for _, m in v):5.0f} MB")
PY
