# Shared by the bench scripts that time interleaved rounds (source it after `cd bench`).
# timed NAME FILE CMD...: runs CMD under /usr/bin/time and prints "NAME wall user sys
# maxrss-KiB load-before load-after" (the 1-minute load averages; its output and errors go
# to out/FILE-NAME.log), one line a run, for lib/medians.py.
timed() {
	local name=$1 file=$2 load; shift 2
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -f "$name %e %U %S %M" -o "out/$file-time.txt" "$@" >/dev/null 2>"out/$file-$name.log"
	echo "$(cat "out/$file-time.txt") $load $(cut -d' ' -f1 /proc/loadavg)"
}
