#!/usr/bin/env bash
# A full-frame Lottie export through `cutroom export`, this tree against another commit
# (default main), interleaved: 10 s at 30 fps of 1920 x 1080 with one lottie item filling
# the frame (a corpus file of lottie/testdata/corpus, inline resourceJson). Prints each
# run's wall, CPU (user+sys, renderer processes included) and peak RSS (the largest single
# process), then the medians and ratios, and whether the two outputs decode to the same
# frames (ffmpeg framemd5). Usage: bench/lottie-export.sh [-r ROUNDS] [-b REF]
# [-f CORPUS_FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=5 ref=main file=precomp
while getopts r:b:f: o; do
	case $o in
	r) rounds=$OPTARG ;; b) ref=$OPTARG ;; f) file=$OPTARG ;;
	*) exit 2 ;;
	esac
done
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" 2>/dev/null || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/base" "$ref"
cmd() { if [ -d cmd/cutroom ]; then echo ./cmd/cutroom; else echo .; fi; } # the command's package
(cd "$work/base" && go build -tags extlib,pkgconfig -o "$work/cutroom-base" "$(cmd)")
go build -tags extlib,pkgconfig -o "$work/cutroom-new" "$(cmd)"
doc=$(cat "lottie/testdata/corpus/$file.json")
cat >"$work/state.json" <<EOF
{"compositionWidth":1920,"compositionHeight":1080,"timebaseTicksPerSecond":240000,
"tracks":[{"id":"t1","items":["l1"],"hidden":false,"muted":false}],
"assets":{"lot":{"id":"lot","type":"lottie","filename":"lot.json","size":1,"remoteUrl":null,"remoteKey":null,
"mimeType":"application/json","durationInSeconds":2,"width":100,"height":100,"resourceType":"lottie","resourceJson":$doc}},
"items":{"l1":{"id":"l1","type":"lottie","assetId":"lot","startTicks":0,"durationTicks":2400000,
"left":{"value":0,"keyframes":[]},"top":{"value":0,"keyframes":[]},"width":{"value":1920,"keyframes":[]},
"height":{"value":1080,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},
"opacity":{"value":1,"keyframes":[]},"rotation":{"value":0,"keyframes":[]},"lottieStartFromInSeconds":0,
"playbackRate":1,"isDraggingInTimeline":false,"keepAspectRatio":false}},
"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}
EOF
run() { # build round
	/usr/bin/time -f "%e %U %S %M" -o "$work/time" "$work/cutroom-$1" export "$work/state.json" -o "$work/out-$1.mp4" \
		--fps 30 --workers 2 --threads 2 --preset veryfast --progress none
	read -r wall user sys rss <"$work/time"
	echo "$1 $2 $wall $(echo "$user + $sys" | bc) $rss $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$work/runs"
}
echo "build round wall_s cpu_s peak_rss_kb load1"
for i in $(seq "$rounds"); do
	if ((i % 2)); then run base "$i"; run new "$i"; else run new "$i"; run base "$i"; fi
done
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
for col in 3 4 5; do
	b=$(awk -v c=$col '$1=="base" {print $c}' "$work/runs" | median)
	n=$(awk -v c=$col '$1=="new" {print $c}' "$work/runs" | median)
	echo "$(sed -n "$((col - 2))p" <<<$'wall_s\ncpu_s\npeak_rss_kb') median: base $b new $n ratio $(echo "scale=3; $n / $b" | bc)"
done
if command -v ffmpeg >/dev/null; then
	for b in base new; do ffmpeg -v error -i "$work/out-$b.mp4" -f framemd5 - | grep -v '^#' >"$work/md5-$b"; done
	if cmp -s "$work/md5-base" "$work/md5-new"; then echo "outputs: the same frames"; else echo "outputs: frames differ"; fi
fi
