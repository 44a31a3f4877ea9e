#!/usr/bin/env bash
# The quick start: renders the slideshow example (three photos, a title and music) on a
# running cutroom server and saves it as OUTDIR/slideshow.mp4, printing each request:
#   CUTROOM_URL=http://127.0.0.1:8787 CUTROOM_API_KEY=cutroom_sk_... examples/quickstart.sh OUTDIR
# It uploads the example's files, creates a project, validates its state, exports it, polls
# the export and downloads the video (examples/run.sh has the steps; README.md there says more).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: examples/quickstart.sh OUTDIR" >&2; exit 1; }
exec "$(dirname "$0")/run.sh" slideshow "$1"
