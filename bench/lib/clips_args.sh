# Shared by the clip benchmarks (video-clips.sh, pip.sh; source it after `cd bench`).
# clips_args ARGS...: reads --seconds, --threads, --rounds, --base BINARY and, where the
# script allows it (CLIPS_SOURCE=1), --source WxH into SECS, THREADS, ROUNDS, BASE and SRC,
# which keep their defaults when not given; checks /usr/bin/time is there.
clips_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--seconds) SECS=$2; shift 2 ;;
		--threads) THREADS=$2; shift 2 ;;
		--rounds) ROUNDS=$2; shift 2 ;;
		--base) BASE=$(realpath "$2"); shift 2 ;;
		--source) [ "${CLIPS_SOURCE:-}" = 1 ] || { echo "unknown argument $1" >&2; exit 2; }; SRC=$2; shift 2 ;;
		*) echo "unknown argument $1" >&2; exit 2 ;;
		esac
	done
	[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install -y time" >&2; exit 1; }
}
