#!/usr/bin/env bash
# Prints the version of a package built from this checkout (the .deb's and the Windows
# zip's): $1 when given, else 0.0.0~git<commit time>.<commit>, or 0.0.0~dev outside a git
# checkout.
set -euo pipefail
if [ -n "${1:-}" ]; then
	echo "$1"
elif commit=$(git -C "$(dirname "$0")" log -1 --format='%cd.%h' --date=format-local:%Y%m%d%H%M%S 2>/dev/null); then
	echo "0.0.0~git$commit"
else
	echo "0.0.0~dev"
fi
