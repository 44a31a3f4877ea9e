#!/usr/bin/env bash
# Runs one example against a cutroom server and saves the video it renders:
#   CUTROOM_URL=http://127.0.0.1:8787 CUTROOM_API_KEY=cutroom_sk_... examples/run.sh NAME OUTDIR
# NAME is a directory of examples/ (slideshow, captions, lower-third, lottie-sticker) holding
# state.json (an editor state) and export.json (the export's options). The steps, each
# request printed as it goes:
#   1. create a project with the example's state       POST /v1/projects
#   2. upload each file the state's assets name,        POST /v1/uploads (x-project-id)
#      and point the asset at it (remoteKey = fileKey)
#   3. validate the state                               POST /v1/editor/validate
#   4. save it to the project                           POST /v1/projects/{id}/sync
#   5. export the project                               POST /v1/projects/{id}/exports
#   6. poll until the export ends                       GET  /v1/exports/{taskId}
#   7. download the video to OUTDIR/NAME.mp4 (or .webm) GET  outputUrl
# An error answer prints its problem details and ends the script with status 1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
[ $# -eq 2 ] || cr_die "usage: examples/run.sh NAME OUTDIR (NAME: $(cd "$here" && ls -d */ | grep -v assets/ | tr -d / | xargs))"
name=$1 outdir=$2
dir=$here/$name
[ -f "$dir/state.json" ] && [ -f "$dir/export.json" ] || cr_die "no example $name in $here"
cr_need curl jq
"$here/make-assets.sh" >/dev/null
mkdir -p "$outdir"
state=$(<"$dir/state.json")

# 1. The project, with the state as it is in the example.
body=$(jq -n --arg title "cutroom example: $name" --argjson state "$state" '{title: $title, editorState: $state}')
project=$(cr_json POST /v1/projects "title and editorState ($name/state.json)" '"projectId=\(.data.projectId)"' "$body")
pid=$(jq -r .data.projectId <<<"$project")

# 2. Each asset whose file the example has (next to state.json, else in assets/) is
# uploaded to the project; the state then names the upload by its fileKey. Captions are in
# the state itself and need no file.
mapfile -t keys < <(jq -r '.assets | to_entries[] | select(.value.type != "caption") | .key' <<<"$state")
for key in "${keys[@]}"; do
	file=$(jq -r --arg k "$key" '.assets[$k].filename' <<<"$state")
	[ -f "$dir/$file" ] && path=$dir/$file || path=$here/assets/$file
	[ -f "$path" ] || cr_die "asset $key of $name names $file, which is neither in $dir nor in $here/assets"
	record=$(cr_upload "$path" "$(jq -r --arg k "$key" '.assets[$k].mimeType' <<<"$state")" "$pid")
	state=$(jq --arg k "$key" --argjson r "$(jq .data <<<"$record")" '.assets[$k] |= (
		.remoteKey = $r.fileKey | .size = $r.size
		| if $r.width != null then .width = $r.width | .height = $r.height else . end
		| if $r.duration != null then .durationInSeconds = $r.duration else . end)' <<<"$state")
done

# 3. Validation: errors stop here; warnings (an asset the render cannot read, an unknown
# illustration) are printed.
result=$(cr_json POST /v1/editor/validate "editorState" \
	'"valid=\(.data.valid) errors=\(.data.errors | length) warnings=\(.meta.warnings // [] | length)"' \
	"$(jq -n --argjson state "$state" '{editorState: $state}')")
jq -r '(.data.errors[], .meta.warnings // [] | .[]) | "  \(.code) \(.path): \(.message)"' <<<"$result" >&2
[ "$(jq -r .data.valid <<<"$result")" = true ] || cr_die "the state of $name is not valid"

# 4. The state with its uploads, saved to the project (what an editor's autosave does).
cr_json POST "/v1/projects/$pid/sync" "editorState" '"stateVersion=\(.data.stateVersion)"' \
	"$(jq -n --argjson state "$state" '{editorState: $state}')" >/dev/null

# 5. The export of the project's saved state.
options=$(<"$dir/export.json")
created=$(cr_json POST "/v1/projects/$pid/exports" "$(jq -c . <<<"$options")" \
	'"taskId=\(.data.taskId) durationSeconds=\(.data.durationSeconds) billedStandardSeconds=\(.data.billedStandardSeconds) chargedCredits=\(.data.chargedCredits)"' "$options")
task=$(jq -r .data.taskId <<<"$created")

# 6. and 7. Wait for it, then download the video.
done_task=$(cr_wait "$task")
out="$outdir/$name.$(jq -r .format <<<"$options")"
cr_download "$(jq -r .data.outputUrl <<<"$done_task")" "$out"
echo "$out"
