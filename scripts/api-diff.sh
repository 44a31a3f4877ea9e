#!/usr/bin/env bash
# Sends the same requests (errors of every kind the routes answer, an idempotent create, its
# replay and reuse) to two cutroom binaries, each serving a fresh data dir on loopback, and
# diffs the answers (status, headers, body) with ids, timestamps and signatures masked. A
# refactoring that must keep the API byte for byte is checked with it against the previous
# commit's binary:
#
#   go build -tags extlib,pkgconfig -o /tmp/new ./cmd/cutroom && git stash && go build ... -o /tmp/old ./cmd/cutroom ...
#   scripts/api-diff.sh /tmp/old /tmp/new
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: scripts/api-diff.sh OLD_BINARY NEW_BINARY" >&2; exit 2; }
STATE=$(cat bench/reference-scene.json)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# answers BINARY PORT: the transcript of one binary.
answers() {
set +e
BIN=$1 PORT=$2
D=$(mktemp -d)
K=test-key-0123456789abcdef
"$BIN" serve --data-dir "$D" --addr 127.0.0.1:$PORT --api-key $K >/dev/null 2>&1 &
PID=$!
for i in $(seq 100); do curl -s -o /dev/null 127.0.0.1:$PORT/ && break; sleep 0.1; done
B=http://127.0.0.1:$PORT
req() { # name method path [curl args...]
  local name=$1 m=$2 p=$3; shift 3
  echo "== $name"
  curl -s -i -X $m "$B$p" "$@" | tr -d '\r' | grep -viE "^(date|content-length|x-request-id):" \
    | sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/UUID/g; s/20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/TS/g; s/(exp|expires)=[0-9]+/\1=N/g; s/sig=[A-Za-z0-9_-]+/sig=S/g'
  echo
}
H=(-H "x-api-key: $K")
J=(-H "Content-Type: application/json")
req nokey GET /v1/projects
req badkey GET /v1/projects -H "x-api-key: nope-nope-nope-nope"
req route GET /v1/nothing "${H[@]}"
req method PUT /v1/projects "${H[@]}"
req badjson POST /v1/projects "${H[@]}" "${J[@]}" -d '{'
req nobody POST /v1/projects "${H[@]}" "${J[@]}"
req nostate POST /v1/projects "${H[@]}" "${J[@]}" -d '{"title":"x"}'
req badtype POST /v1/projects "${H[@]}" "${J[@]}" -d '{"editorState":{},"title":5}'
req schema POST /v1/projects "${H[@]}" "${J[@]}" -d '{"editorState":{"tracks":5}}'
req longtitle POST /v1/projects "${H[@]}" "${J[@]}" -d "{\"editorState\":$STATE,\"title\":\"$(printf 'x%.0s' $(seq 130))\"}"
req badid GET /v1/projects/nope "${H[@]}"
req noproj GET /v1/projects/4f0c1a3e-0000-4000-8000-000000000001 "${H[@]}"
req cursor GET "/v1/projects?pageCursor=zzzz" "${H[@]}"
req pagesize GET "/v1/projects?pageSize=0" "${H[@]}"
req idemlong POST /v1/projects "${H[@]}" "${J[@]}" -H "Idempotency-Key: $(printf 'k%.0s' $(seq 300))" -d "{\"editorState\":$STATE}"
req create POST /v1/projects "${H[@]}" "${J[@]}" -H "Idempotency-Key: k1" -d "{\"editorState\":$STATE,\"title\":\"a\"}"
req replay POST /v1/projects "${H[@]}" "${J[@]}" -H "Idempotency-Key: k1" -d "{\"editorState\":$STATE,\"title\":\"a\"}"
req reuse POST /v1/projects "${H[@]}" "${J[@]}" -H "Idempotency-Key: k1" -d "{\"editorState\":$STATE,\"title\":\"b\"}"
req patchstate PATCH /v1/projects/4f0c1a3e-0000-4000-8000-000000000001 "${H[@]}" "${J[@]}" -d '{"editorState":{}}'
req validate POST /v1/editor/validate "${H[@]}" "${J[@]}" -d '{"editorState":{"compositionWidth":100}}'
req validjson POST /v1/editor/validate "${H[@]}" "${J[@]}" -d '[1]'
req fps POST /v1/exports "${H[@]}" "${J[@]}" -d "{\"editorState\":$STATE,\"stateSchemaVersion\":\"v1\",\"fps\":31,\"ratio\":\"16:9\",\"scale\":1,\"format\":\"mp4\"}"
req frac POST /v1/exports "${H[@]}" "${J[@]}" -d "{\"editorState\":$STATE,\"stateSchemaVersion\":\"v1\",\"fps\":30.5,\"ratio\":\"16:9\",\"scale\":1,\"format\":\"mp4\"}"
req schemaver POST /v1/exports "${H[@]}" "${J[@]}" -d "{\"editorState\":$STATE,\"stateSchemaVersion\":\"v9\",\"fps\":30,\"ratio\":\"16:9\",\"scale\":1,\"format\":\"mp4\"}"
req fname POST /v1/exports "${H[@]}" "${J[@]}" -d "{\"editorState\":$STATE,\"stateSchemaVersion\":\"v1\",\"fps\":30,\"ratio\":\"16:9\",\"scale\":1,\"format\":\"mp4\",\"filename\":\"a/b.mp4\"}"
req cb POST /v1/exports "${H[@]}" "${J[@]}" -d "{\"editorState\":$STATE,\"stateSchemaVersion\":\"v1\",\"fps\":30,\"ratio\":\"16:9\",\"scale\":1,\"format\":\"mp4\",\"callbackUrl\":\"http://127.0.0.1/x\"}"
req invalidstate POST /v1/exports "${H[@]}" "${J[@]}" -d '{"editorState":{"compositionWidth":100},"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":1,"format":"mp4"}'
req notask GET /v1/exports/4f0c1a3e-0000-4000-8000-000000000001 "${H[@]}"
req badoutput GET /outputs/4f0c1a3e-0000-4000-8000-000000000001/x.mp4?exp=1\&sig=abc
req uploadunk POST /v1/uploads "${H[@]}" -H "x-file-name: a.bin" --data-binary 'hello world, not media'
req uploadpng POST /v1/uploads "${H[@]}" -H "x-file-name: a.png" -H "Content-Type: image/png" --data-binary $'\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR'
req noasset GET /v1/assets/4f0c1a3e-0000-4000-8000-000000000001 "${H[@]}"
req badfile GET "/files/assets/x?exp=1&sig=abc"
req big POST /v1/projects "${H[@]}" "${J[@]}" -H "Content-Length: 999999999999" -d '{}'
kill $PID; wait $PID 2>/dev/null; rm -rf "$D"
set -e
}

answers "$1" 18871 >"$OUT/old"
answers "$2" 18872 >"$OUT/new"
for v in old new; do
	if [ "$(grep -c '^HTTP/1.1 ' "$OUT/$v")" -ne "$(grep -c '^== ' "$OUT/$v")" ]; then
		echo "api-diff: the $v binary did not answer every request (did it start?)" >&2
		exit 1
	fi
done
if diff -u "$OUT/old" "$OUT/new"; then
	echo "api-diff: $(grep -c '^== ' "$OUT/new") requests, identical answers"
else
	exit 1
fi
