# Shared by the bench scripts that drive a real `cutroom serve` (source it from the
# repository's root).
# serve_cutroom ARGS...: builds cutroom (tags $TAGS, default extlib,pkgconfig) into a new
# temporary directory $work, starts `cutroom serve` on a random loopback port with a new API
# key and ARGS, and returns once it listens. Sets work, pid, port, key and base; the server's
# log is $work/serve.log. On exit the server is killed and $work removed.
serve_cutroom() {
	work=$(mktemp -d)
	pid=""
	trap 'if [ -n "$pid" ]; then kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
	go build -tags "${TAGS:-extlib,pkgconfig}" -o "$work/cutroom" ./cmd/cutroom
	port=$((20000 + RANDOM % 20000))
	key="bench-key-$(date +%s)-0123456789abcdef"
	base="http://127.0.0.1:$port"
	"$work/cutroom" serve --data-dir "$work/data" --addr "127.0.0.1:$port" --api-key "$key" "$@" >"$work/serve.log" 2>&1 &
	pid=$!
	for _ in $(seq 1 100); do
		grep -q "cutroom listening" "$work/serve.log" 2>/dev/null && break
		sleep 0.1
	done
	grep -q "cutroom listening" "$work/serve.log" || { cat "$work/serve.log"; exit 1; }
}
