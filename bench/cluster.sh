#!/usr/bin/env bash
# bench/cluster.sh: what a clustered export costs on this machine, for the reference scene
# lengthened to 60 s at 1080p30 (issue 18): the per-segment render cost and the join cost
# (bench/segments: one piece and segments interleaved), the object-store transfers through an
# embedded NATS server (bench/cluster), and the projected wall time on 1, 2, 4, 8 and 16
# two-core workers: the busiest worker's renders + one asset fetch + one segment upload + the
# coordinator's download of every segment + the join.
#
# Segments are cut as the coordinator cuts them (render.Pipeline.SplitByCost: about equal
# estimated work), 16 of them by default (SEGMENT=3.75 s). They are rendered as a worker with
# its default --concurrency renders them on this two-core machine: CONCURRENCY=2 at once,
# one thread each, each timed; the projection hands each segment's render time (the median
# over rounds) to the first free of N x CONCURRENCY slots, as the workers' slots pull from the
# queue. With 16 segments, 8 workers have one segment per slot; more workers need shorter
# segments (SEGMENT=1.9 gives 32).
#
#	bench/cluster.sh [runs]   (default 1 round; results in bench/README.md, sessions 7 and 8)
#	SEGMENT=1.9 CONCURRENCY=1 bench/cluster.sh 3
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-1}"
bench/make-assets.sh >/dev/null
out=bench/out
mkdir -p "$out"
seg_log="$out/cluster-segments.txt"
segment="${SEGMENT:-3.75}"
concurrency="${CONCURRENCY:-2}"
go run -tags extlib,pkgconfig ./bench/segments -seconds 60 -segment "$segment" -runs "$runs" -threads 2 \
	-concurrency "$concurrency" -out "$out" | tee "$seg_log"
nsegs=$(sed -n 's/^reference scene.* \([0-9]*\) segments of.*/\1/p' "$seg_log")
go run -tags extlib,pkgconfig ./bench/cluster -file "$out/segments-joined.mp4" -segments "$nsegs" | tee "$out/cluster-transfer.txt"
one=$(sed -n 's/^one piece: *\([0-9.]*\) s.*/\1/p' "$seg_log")
longest=$(sed -n 's/^segments:.*longest \([0-9.]*\) s.*/\1/p' "$seg_log")
join=$(sed -n 's/^join (no re-encode): *\([0-9.]*\) s.*/\1/p' "$seg_log")
eval "$(sed -n 's/^TRANSFER //p' "$out/cluster-transfer.txt")"
makespans=$(sed -n 's/^MAKESPAN \([0-9]*\) \([0-9.]*\)$/\1=\2/p' "$seg_log" | tr '\n' ' ')
awk -v one="$one" -v longest="$longest" -v join="$join" -v ag="$asset_get" -v sp="$segment_put" -v sg="$segments_get" -v ms="$makespans" 'BEGIN {
	xfer = ag + sp + sg
	split(ms, pairs, " ")
	for (i in pairs) { split(pairs[i], kv, "="); mk[kv[1]] = kv[2] }
	printf "\none machine, one piece: %.2f s; longest segment %.2f s; join %.3f s; transfers %.3f s\n", one, longest, join, xfer
	printf "join + transfers = %.2f%% of the one-machine render (target <= 5%%)\n", 100 * (join + xfer) / one
	for (n = 1; n <= 16; n *= 2) {
		wall = mk[n] + xfer + join
		printf "projected %2d workers: %6.2f s, speed-up %.2fx (target >= %.1fx up to 8)\n", n, wall, one / wall, 0.8 * (n < 8 ? n : 8)
	}
}'
