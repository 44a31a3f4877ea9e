#!/usr/bin/env bash
# Validating a 5 MB editor state with 5,000 items (issue 3: under 100 ms), optionally
# interleaved with the same benchmark at another git revision:
#
#   bench/editor-validate.sh [--rounds N] [--against REV]
#   bench/editor-validate.sh --paths [--rounds N]
#
# Each round runs BenchmarkValidate5000Items (10 operations) once per build and the script
# prints, per build, the minimum and median over the rounds of ms/op (wall) and cpu-ms/op
# (process CPU time per operation, all goroutines). On a shared machine cpu-ms/op is the
# steadier number; wall time includes waiting for a core. The stage benchmarks
# (BenchmarkDecode5000Items, ...FastSchema..., ...Build..., ...Semantic...) time the parts.
#
# --paths compares, on states of 10 KB to 5.4 MB, Check (tape + fast path) with the library
# path (encoding/json + the schema library + the reference reader; BenchmarkValidatePaths):
# each round runs every size once per path, the two paths in alternating order, so that
# the machine's load falls on both alike. It prints the load average before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=8
against=""
paths=""
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds="$2"; shift 2 ;;
	--against) against="$2"; shift 2 ;;
	--paths) paths=1; shift ;;
	*) echo "usage: $0 [--rounds N] [--against REV] | --paths [--rounds N]" >&2; exit 2 ;;
	esac
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/this.test" ./editor/
stat() { sort -n | awk '{ a[NR] = $1 } END { printf "min %7.2f  median %7.2f", a[1], a[int((NR + 1) / 2)] }'; }
if [ -n "$paths" ]; then
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	for ((r = 0; r < rounds; r++)); do
		order=(Tape Library)
		((r % 2)) && order=(Library Tape)
		for size in 10KB 50KB 100KB 5.4MB; do
			n=200x
			[ "$size" = 5.4MB ] && n=5x
			for p in "${order[@]}"; do
				(cd editor && "$tmp/this.test" -test.run '^$' -test.bench "^BenchmarkValidatePaths\$/^$p\$/^$size\$" \
					-test.benchtime "$n" -test.count 1) |
					awk -v p="$p" -v s="$size" '/^Benchmark/ { for (i = 1; i <= NF; i++) if ($i == "cpu-ms/op") c = $(i-1); print p, s, $3 / 1e6, c }'
			done
		done
	done >"$tmp/runs"
	echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
	for size in 10KB 50KB 100KB 5.4MB; do
		for p in Tape Library; do
			printf '%-8s %-6s ms/op: %s   cpu-ms/op: %s\n' "$p" "$size" \
				"$(awk -v p="$p" -v s="$size" '$1 == p && $2 == s { print $3 }' "$tmp/runs" | stat)" \
				"$(awk -v p="$p" -v s="$size" '$1 == p && $2 == s { print $4 }' "$tmp/runs" | stat)"
		done
	done
	exit 0
fi
builds=(this)
if [ -n "$against" ]; then
	mkdir "$tmp/src"
	git archive "$against" | tar -x -C "$tmp/src"
	(cd "$tmp/src" && go test -c -o "$tmp/that.test" ./editor/)
	builds+=(that)
fi
for ((r = 0; r < rounds; r++)); do
	for b in "${builds[@]}"; do
		(cd editor && "$tmp/$b.test" -test.run '^$' -test.bench '^BenchmarkValidate5000Items$' \
			-test.benchtime 10x -test.count 1 -test.benchmem) |
			awk -v b="$b" '/^Benchmark/ { for (i = 1; i <= NF; i++) if ($i == "cpu-ms/op") c = $(i-1); print b, $3 / 1e6, c }'
	done
done >"$tmp/runs"
for b in "${builds[@]}"; do
	name="working tree"
	[ "$b" = that ] && name="$against"
	printf '%-14s ms/op: %s   cpu-ms/op: %s\n' "$name" \
		"$(awk -v b="$b" '$1 == b { print $2 }' "$tmp/runs" | stat)" \
		"$(awk -v b="$b" '$1 == b { print $3 }' "$tmp/runs" | stat)"
done
