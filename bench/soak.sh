#!/usr/bin/env bash
# Soak test: runs N exports in a row through a real `cutroom serve` and prints the server's
# memory, threads and open files every --every exports, then RSS@N / RSS@200 against the
# target (within 15%). Each checkpoint (every --every exports, and at 200) is read 1 s after
# the exports before it have finished and before the next ones start, so it shows what the
# server holds between exports; VmHWM is the peak of the whole run, renders included.
#
#   bench/soak.sh [-n 2000] [--size 1280x720] [--seconds 4] [--concurrency 2]
#                 [--formats mp4,webm] [--download] [--every 50] [--max-minutes 120]
#                 [--bin PATH] [--keep]
#
# The state (a moving rounded, rotated solid and a title over a colour) is --size (the
# output size, exported at scale 1; even sides from 64 up). Formats alternate in the order
# given. The server runs
# on a loopback port with a temporary data dir and --api-key, --render-workers equal to
# --concurrency (so that many renders really run at once; at most 2, the per-workspace
# limit of active tasks). Without --bin the script builds the binary of this tree
# (`go build -tags extlib,pkgconfig`). Whatever the environment holds reaches the server,
# e.g. MALLOC_ARENA_MAX=2 bench/soak.sh for comparison. The run stops after N exports or
# --max-minutes, whichever comes first; a task that fails or takes over 10 minutes stops it.
#
# Output: one line per checkpoint
#   exports  elapsed_s  VmRSS_MB  VmHWM_MB  threads  fds  go_heap_MB
# (the Go runtime does not expose its goroutine count to the outside, so OS threads are
# shown; go_heap_MB is the live Go heap after the last collection, from GODEBUG=gctrace=1,
# so RSS minus it is roughly the C side: encoders, malloc arenas, the binary's pages).
set -euo pipefail
cd "$(dirname "$0")/.."

n=2000 size=1280x720 seconds=4 conc=2 formats=mp4,webm download=0 every=50 maxmin=120 bin="" keep=0
while [ $# -gt 0 ]; do
	case "$1" in
	-n) n=$2; shift 2 ;;
	--size) size=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--concurrency) conc=$2; shift 2 ;;
	--formats) formats=$2; shift 2 ;;
	--download) download=1; shift ;;
	--every) every=$2; shift 2 ;;
	--max-minutes) maxmin=$2; shift 2 ;;
	--bin) bin=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) sed -n '2,22p' "$0"; exit 0 ;;
	*) echo "soak.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
if [ "$conc" -lt 1 ] || [ "$conc" -gt 2 ]; then
	echo "soak.sh: --concurrency must be 1 or 2 (a workspace has at most 2 active tasks)" >&2
	exit 2
fi
if [ "$n" -lt 1 ] || [ "$every" -lt 1 ] || [ "$seconds" -lt 1 ] || [ "$seconds" -gt 60 ]; then
	echo "soak.sh: -n and --every must be positive, --seconds 1..60" >&2
	exit 2
fi
IFS=, read -r -a fmts <<<"$formats"
if ! [[ "$size" =~ ^([0-9]+)x([0-9]+)$ ]] || [ "${BASH_REMATCH[1]}" -lt 64 ] || [ "${BASH_REMATCH[2]}" -lt 64 ]; then
	echo "soak.sh: --size must be WxH, each side at least 64" >&2
	exit 2
fi
w=${BASH_REMATCH[1]} h=${BASH_REMATCH[2]}

work=$(mktemp -d /tmp/cutroom-soak.XXXXXX)
srv_pid=""
cleanup() {
	if [ -n "$srv_pid" ]; then kill "$srv_pid" 2>/dev/null || true; wait "$srv_pid" 2>/dev/null || true; fi
	if [ "$keep" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

if [ -z "$bin" ]; then
	bin=$work/cutroom
	go build -tags extlib,pkgconfig -o "$bin" ./cmd/cutroom
fi

key=cutroom_sk_soak-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
export XDG_CACHE_HOME=$work/cache
# gctrace: each collection prints the live heap, which the checkpoints show as go_heap_MB.
GODEBUG=${GODEBUG:+$GODEBUG,}gctrace=1 "$bin" serve --addr 127.0.0.1:0 --data-dir "$work/data" --api-key "$key" --log-level warn \
	--render-workers "$conc" >"$work/server.out" 2>"$work/server.err" &
srv_pid=$!
base=""
for _ in $(seq 200); do
	base=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$work/server.out")
	[ -n "$base" ] && break
	kill -0 "$srv_pid" 2>/dev/null || { cat "$work/server.err" >&2; exit 1; }
	sleep 0.1
done
[ -n "$base" ] || { echo "soak.sh: server did not start" >&2; exit 1; }

ticks=$((seconds * 240000))
state=$(cat <<EOF
{"compositionWidth":$w,"compositionHeight":$h,"timebaseTicksPerSecond":240000,
"tracks":[{"id":"t1","items":["title"],"hidden":false,"muted":false},{"id":"t2","items":["box"],"hidden":false,"muted":false}],
"assets":{},"transitions":{},"globalBackground":{"type":"color","color":"#0f172a","gradient":null},"deletedAssets":[],
"items":{"box":{"id":"box","type":"solid","shape":"rectangle","color":"#22c55e","startTicks":0,"durationTicks":$ticks,
"top":{"value":$((h * 14 / 100)),"keyframes":[]},"left":{"value":0,"keyframes":[{"timeTicks":0,"value":0},{"timeTicks":$((ticks - 1)),"value":$((w * 78 / 100))}]},
"width":{"value":$((h * 39 / 100)),"keyframes":[]},"height":{"value":$((h * 39 / 100)),"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},
"opacity":{"value":1,"keyframes":[]},"isDraggingInTimeline":false,"borderRadius":{"value":40,"keyframes":[]},"rotation":{"value":15,"keyframes":[]},"keepAspectRatio":false},
"title":{"id":"title","type":"text","text":"Soak","color":"#ffffff","align":"center","fontFamily":"Noto Sans","fontStyle":{"variant":"normal","weight":"700"},
"fontSize":$((h * 9 / 100)),"lineHeight":1.2,"letterSpacing":0,"resizeOnEdit":false,"direction":"ltr","strokeWidth":0,"strokeColor":"#000000","background":null,
"startTicks":0,"durationTicks":$ticks,"top":{"value":$((h * 69 / 100)),"keyframes":[]},"left":{"value":$((w * 19 / 100)),"keyframes":[]},"width":{"value":$((w * 62 / 100)),"keyframes":[]},
"height":{"value":$((h * 14 / 100)),"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},
"isDraggingInTimeline":false,"rotation":{"value":0,"keyframes":[]}}}}
EOF
)
for f in "${fmts[@]}"; do
	printf '{"editorState":%s,"stateSchemaVersion":"v1","fps":30,"ratio":"custom","scale":1,"format":"%s"}' \
		"$state" "$f" >"$work/body-$f.json"
done

# stat prints "VmRSS_MB VmHWM_MB threads fds go_heap_MB" of the server.
stat() {
	local rss hwm thr fds heap
	rss=$(awk '/^VmRSS:/{print $2}' "/proc/$srv_pid/status")
	hwm=$(awk '/^VmHWM:/{print $2}' "/proc/$srv_pid/status")
	thr=$(awk '/^Threads:/{print $2}' "/proc/$srv_pid/status")
	fds=$(find "/proc/$srv_pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
	heap=$(grep '^gc ' "$work/server.err" | tail -1 | sed -n 's/.*->\([0-9]*\) MB,.*/\1/p')
	echo "$((rss / 1024)) $((hwm / 1024)) $thr $fds ${heap:-0}"
}

create() { # create FORMAT -> prints the task id
	local resp
	resp=$(curl -sS -X POST -H "x-api-key: $key" -H 'content-type: application/json' \
		--data-binary "@$work/body-$1.json" -w '\n%{http_code}' "$base/v1/exports")
	if [ "${resp##*$'\n'}" != 201 ]; then
		echo "soak.sh: create failed: $resp" >&2
		return 1
	fi
	jq -r .data.taskId <<<"${resp%$'\n'*}"
}

echo "cutroom soak: $n exports, $size, $seconds s at 30 fps, formats ${fmts[*]}, $conc at once; server pid $srv_pid"
echo "binary $bin; MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-unset}"
printf '%8s %9s %9s %9s %8s %6s %10s\n' exports elapsed_s VmRSS_MB VmHWM_MB threads fds go_heap_MB
start=$(date +%s)
deadline=$((start + maxmin * 60))
read -r rss0 hwm0 thr0 fds0 heap0 <<<"$(stat)"
printf '%8d %9d %9d %9d %8d %6d %10d\n' 0 0 "$rss0" "$hwm0" "$thr0" "$fds0" "$heap0"

declare -a ids=() since=()
created=0 done=0 rss200="" rssN="" last=0
while [ "$done" -lt "$n" ]; do
	# keep $conc tasks in flight
	# ... but none past the next checkpoint, so that each checkpoint is read with no render
	# in flight: what the server keeps between exports, comparable from one to the next.
	limit=$(((done / every + 1) * every))
	[ "$done" -lt 200 ] && [ "$limit" -gt 200 ] && limit=200
	[ "$limit" -gt "$n" ] && limit=$n
	while [ "${#ids[@]}" -lt "$conc" ] && [ "$created" -lt "$limit" ] && [ "$(date +%s)" -lt "$deadline" ]; do
		id=$(create "${fmts[$((created % ${#fmts[@]}))]}")
		ids+=("$id"); since+=("$(date +%s)")
		created=$((created + 1))
	done
	[ "${#ids[@]}" -eq 0 ] && break # time is up
	sleep 0.1
	keep_ids=() keep_since=()
	for i in "${!ids[@]}"; do
		v=$(curl -sS -H "x-api-key: $key" "$base/v1/exports/${ids[$i]}")
		st=$(jq -r .data.status <<<"$v")
		case "$st" in
		COMPLETED)
			if [ "$download" = 1 ]; then
				curl -sS -o /dev/null --fail "$(jq -r .data.outputUrl <<<"$v")"
			fi
			done=$((done + 1))
			if [ $((done % every)) -eq 0 ] || [ "$done" -eq "$n" ] || [ "$done" -eq 200 ]; then
				sleep 1 # the task reads COMPLETED a moment before the server has let go of the render
				read -r rss hwm thr fds heap <<<"$(stat)"
				printf '%8d %9d %9d %9d %8d %6d %10d\n' "$done" $(($(date +%s) - start)) "$rss" "$hwm" "$thr" "$fds" "$heap"
				[ "$done" -eq 200 ] && rss200=$rss
				rssN=$rss last=$done
			fi
			;;
		FAILED|CANCELED)
			echo "soak.sh: task ${ids[$i]} ended $st: $v" >&2
			exit 1
			;;
		*)
			if [ $(($(date +%s) - since[i])) -gt 600 ]; then
				echo "soak.sh: task ${ids[$i]} still $st after 10 minutes" >&2
				exit 1
			fi
			keep_ids+=("${ids[$i]}"); keep_since+=("${since[$i]}")
			;;
		esac
	done
	ids=("${keep_ids[@]+"${keep_ids[@]}"}") since=("${keep_since[@]+"${keep_since[@]}"}")
done

read -r rss hwm thr fds heap <<<"$(stat)"
echo "end: $done exports in $(($(date +%s) - start)) s; VmRSS $rss MB, VmHWM $hwm MB, threads $thr, fds $fds (start: $rss0 MB, $thr0 threads, $fds0 fds)"
if [ -n "$rss200" ] && [ "$last" -gt 200 ]; then
	ratio=$(awk -v a="$rssN" -v b="$rss200" 'BEGIN{printf "%.3f", a/b}')
	verdict=$(awk -v r="$ratio" 'BEGIN{print (r <= 1.15) ? "within target" : "OVER target"}')
	echo "RSS@$last / RSS@200 = $rssN / $rss200 MB = $ratio ($verdict: <= 1.15)"
else
	echo "RSS@200 ratio: not enough exports (need more than 200)"
fi
