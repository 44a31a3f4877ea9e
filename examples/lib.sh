# shellcheck shell=bash
# The curl helpers the example scripts share (sourced, not run). Each request is printed to
# standard error as it goes ("> METHOD URL  what is sent") with its answer ("< STATUS the
# answer's key fields"); the answer's body goes to standard output. An answer of 400 or more
# prints its problem-details body and ends the script with status 1.
# Needs curl and jq (`make run` installs jq with the other packages: JSON is parsed, and the
# editor state rewritten, with a JSON parser, never with sed).
CUTROOM_URL=${CUTROOM_URL:-http://127.0.0.1:8787}
CUTROOM_URL=${CUTROOM_URL%/}

cr_die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# cr_need TOOL...: stops when a tool is missing.
cr_need() {
	local tool
	for tool; do
		command -v "$tool" >/dev/null 2>&1 || cr_die "$tool is missing: apt-get install $tool (make run installs it)"
	done
	[ -n "${CUTROOM_API_KEY:-}" ] || cr_die "CUTROOM_API_KEY is not set: the server prints a key on its first start (see examples/README.md)"
}

# cr_call METHOD PATH WHAT SHOW [CURL-ARGUMENTS...]: sends a request with the API key and
# prints the answer's body. WHAT describes the request's body; SHOW is a jq filter whose
# text describes the answer. PATH is under CUTROOM_URL.
cr_call() {
	local method=$1 url=$CUTROOM_URL$2 what=$3 show=$4 out status
	shift 4
	printf '> %s %s  %s\n' "$method" "$url" "$what" >&2
	out=$(mktemp)
	if ! status=$(curl -sS -X "$method" -o "$out" -w '%{http_code}' -H "x-api-key: $CUTROOM_API_KEY" "$@" "$url"); then
		rm -f "$out"
		cr_die "no answer from $url (is the server running? CUTROOM_URL=$CUTROOM_URL)"
	fi
	if [ "$status" -ge 400 ]; then
		printf '< %s\n' "$status" >&2
		jq . "$out" >&2 2>/dev/null || cat "$out" >&2
		rm -f "$out"
		exit 1
	fi
	printf '< %s %s\n' "$status" "$(jq -r "$show" "$out")" >&2
	cat "$out"
	rm -f "$out"
}

# cr_json METHOD PATH WHAT SHOW JSON: cr_call with a JSON body.
cr_json() {
	cr_call "$1" "$2" "$3" "$4" -H 'Content-Type: application/json' --data-binary @- <<<"$5"
}

# cr_upload FILE MIME-TYPE [PROJECT-ID]: uploads a file as the raw request body (the
# interface takes raw bytes with x-file-name, not a multipart form) and prints its asset
# record.
cr_upload() {
	local file=$1 bytes
	bytes=$(wc -c <"$file")
	cr_call POST /v1/uploads "$(basename "$file"), $bytes bytes" \
		'"assetId=\(.data.assetId) type=\(.data.type) \(.data.width // "-")x\(.data.height // "-") duration=\(.data.duration // "-")"' \
		-H "x-file-name: $(basename "$file")" -H "Content-Type: $2" ${3:+-H "x-project-id: $3"} --data-binary "@$file"
}

# cr_wait TASK-ID: polls the export task every second until it ends and prints its last
# snapshot; a task that ends FAILED or CANCELED stops the script. CUTROOM_WAIT (seconds,
# default 600) bounds the wait; the task goes on when the script gives up.
cr_wait() {
	local task snapshot status deadline=$((SECONDS + ${CUTROOM_WAIT:-600}))
	task=$1
	while :; do
		snapshot=$(cr_call GET "/v1/exports/$task" "" '"\(.data.status) \(.data.progress)% \(.data.exportPhase // "")"')
		status=$(jq -r .data.status <<<"$snapshot")
		case $status in
		COMPLETED)
			printf '%s\n' "$snapshot"
			return 0
			;;
		FAILED | CANCELED)
			jq . <<<"$snapshot" >&2
			cr_die "export $task ended $status"
			;;
		esac
		[ "$SECONDS" -lt "$deadline" ] || cr_die "export $task still $status after ${CUTROOM_WAIT:-600} s"
		sleep 1
	done
}

# cr_download URL FILE: saves a signed output link (no API key needed) to FILE.
cr_download() {
	printf '> GET %s\n' "$1" >&2
	curl -fsS -o "$2" "$1" || cr_die "download of $1 failed"
	printf '< 200 %s (%s bytes)\n' "$2" "$(wc -c <"$2")" >&2
}
