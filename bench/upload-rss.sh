#!/usr/bin/env bash
# upload-rss: starts cutroom, uploads a large WAV (header + zeros, generated on the fly and
# streamed through a pipe with chunked transfer encoding, never held in memory by the
# client), and prints how much the server's resident memory grew.
#
#   bench/upload-rss.sh [MB]     (default 500)
#
# Target: peak RSS growth (VmHWM after - VmRSS before) under 64 MB.
set -euo pipefail
MB=${1:-500}
cd "$(dirname "$0")/.."
bytes=$(( MB * 1000 * 1000 ))
. bench/lib/serve.sh
serve_cutroom --max-audio-bytes $(( bytes + 1024 )) --log-level warn

kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$pid/status"; }
rss_before=$(kb VmRSS)
hwm_before=$(kb VmHWM)

# A 16-bit mono 48 kHz WAV header announcing $bytes bytes of samples, then the zeros.
header() {
	python3 - "$bytes" <<'PY'
import struct, sys
n = int(sys.argv[1])
sys.stdout.buffer.write(b"RIFF" + struct.pack("<I", 36 + n) + b"WAVEfmt " +
    struct.pack("<IHHIIHH", 16, 1, 1, 48000, 96000, 2, 16) + b"data" + struct.pack("<I", n))
PY
}
start=$(date +%s.%N)
resp=$({ header; head -c "$bytes" /dev/zero; } | curl -sS -X POST -T - \
	-H "x-api-key: $key" -H "x-file-name: big.wav" -H "Content-Type: audio/wav" \
	"$base/v1/uploads")
end=$(date +%s.%N)
rss_after=$(kb VmRSS)
hwm_after=$(kb VmHWM)

echo "$resp" | python3 -c '
import json, sys
d = json.load(sys.stdin)["data"]
print("asset: type=%s size=%d duration=%.1fs" % (d["type"], d["size"], d["duration"]))'
awk -v mb="$MB" -v s="$start" -v e="$end" -v rb="$rss_before" -v hb="$hwm_before" -v ra="$rss_after" -v ha="$hwm_after" 'BEGIN {
	printf "upload: %d MB in %.1f s (%.0f MB/s)\n", mb, e - s, mb / (e - s)
	printf "server VmRSS before %.1f MB, after %.1f MB; VmHWM before %.1f MB, after %.1f MB\n", rb/1024, ra/1024, hb/1024, ha/1024
	printf "peak RSS growth (VmHWM after - VmRSS before): %.1f MB (target < 64 MB)\n", (ha - rb)/1024
	exit (ha - rb)/1024 < 64 ? 0 : 1
}'
