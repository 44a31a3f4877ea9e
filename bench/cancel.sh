#!/usr/bin/env bash
# cancel: how fast a render stops. Starts cutroom, uploads an SVG of N full-frame translucent
# circles (seconds of rasterising per frame at 1080p), exports it at 1920x1080 and, once the
# render is busy drawing, (1) cancels the task through the API and times until the server
# logs that the render ended, then (2) starts another such export and times a SIGTERM until
# the process exits.
#
#   bench/cancel.sh [CIRCLES]     (default 100)
#
# Target: both under 1 s.
set -euo pipefail
N=${1:-100}
cd "$(dirname "$0")/.."
. bench/lib/serve.sh
serve_cutroom --render-workers 1

python3 - "$N" >"$work/heavy.svg" <<'PY'
import sys
n = int(sys.argv[1])
print('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1920 1080" width="1920" height="1080">')
for i in range(n):
    print('<circle cx="%d" cy="540" r="900" fill="#%06x" fill-opacity="0.5"/>' % (960 + i % 7, i * 2654435 % 0xffffff))
print('</svg>')
PY
upload=$(curl -sS -X POST --data-binary @"$work/heavy.svg" -H "x-api-key: $key" \
	-H "x-file-name: heavy.svg" -H "Content-Type: image/svg+xml" "$base/v1/uploads")

# export BODY: creates a 10 s 1080p export of the SVG and prints the task id.
export_svg() {
	python3 - "$upload" <<'PY' | curl -sS -X POST -H "x-api-key: $key" -H "Content-Type: application/json" \
		--data-binary @- "$base/v1/exports" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["taskId"])'
import json, sys
d = json.loads(sys.argv[1])["data"]
ticks = 10 * 240000
a = lambda v: {"value": v, "keyframes": []}
item = {"id": "svg", "type": "image", "assetId": d["assetId"], "startTicks": 0, "durationTicks": ticks,
        "left": a(0), "top": a(0), "width": a(1920), "height": a(1080), "scaleX": a(1), "scaleY": a(1),
        "opacity": a(1), "rotation": a(0), "borderRadius": a(0), "cropLeft": a(0), "cropTop": a(0),
        "cropRight": a(0), "cropBottom": a(0), "isDraggingInTimeline": False, "keepAspectRatio": False}
state = {"compositionWidth": 1920, "compositionHeight": 1080, "timebaseTicksPerSecond": 240000,
         "tracks": [{"id": "t", "items": ["svg"], "hidden": False, "muted": False}],
         "assets": {d["assetId"]: {"id": d["assetId"], "type": "image", "filename": "heavy.svg", "size": d["size"],
                                   "remoteUrl": None, "remoteKey": d["fileKey"], "mimeType": "image/svg+xml",
                                   "width": 1920, "height": 1080}},
         "items": {"svg": item}, "transitions": {}, "globalBackground": {"type": "none"}}
print(json.dumps({"editorState": state, "stateSchemaVersion": "v1", "fps": 30, "ratio": "16:9", "scale": 1, "format": "mp4"}))
PY
}
wait_processing() {
	for _ in $(seq 1 300); do
		curl -sS -H "x-api-key: $key" "$base/v1/exports/$1" | grep -q '"status":"PROCESSING"' && return 0
		sleep 0.1
	done
	echo "task $1 never started" >&2
	exit 1
}
now() { date +%s.%N; }

id=$(export_svg)
wait_processing "$id"
sleep 1.5 # inside the SVG raster of the first frames
t0=$(now)
curl -sS -o /dev/null -X DELETE -H "x-api-key: $key" "$base/v1/exports/$id"
until grep -q 'export canceled' "$work/serve.log"; do sleep 0.01; done
t1=$(now)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "cancel: the render ended %.3f s after DELETE\n", b - a }'

id=$(export_svg)
wait_processing "$id"
sleep 1.5
t0=$(now)
kill -TERM "$pid"
wait "$pid" || true
t1=$(now)
pid=""
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "SIGTERM: the server exited %.3f s after the signal\n", b - a }'
grep -q 'export paused for shutdown' "$work/serve.log" && echo "the render was paused (resumed at the next start)"
