#!/usr/bin/env bash
# Proves the README's set-up on a machine that has nothing: a minimal Debian 12 (debootstrap
# --variant=minbase, no Go, no compiler) gets only the README's prerequisites, a clone of
# this commit, and then, as an unprivileged user with sudo, runs `make build` (Debian
# packages through scripts/install-deps.sh, Go through scripts/go.sh), starts the binary
# `make run` starts, and runs examples/quickstart.sh against it; ffprobe must accept the
# video it downloads. .ci/run runs it (as root: debootstrap, chroot and mounts need it).
#
# The pristine root file system is cached for the day in
# ~/.cache/cutroom/fresh-debian/<suite>-minbase-<arch>-<date>.tar.gz (older ones are
# removed): a rerun the same day skips debootstrap. Nothing else is cached: packages, the Go
# toolchain and modules are fetched as a newcomer's machine fetches them.
# The host's Go network settings (GOPROXY, GOSUMDB, GONOSUMDB, GONOPROXY, GOPRIVATE,
# GOINSECURE) and proxy variables go into the chroot; GOFLAGS and GOTOOLCHAIN do not (they
# change what the build does, and a newcomer has neither).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
suite=${CUTROOM_FRESH_SUITE:-bookworm}
mirror=${CUTROOM_FRESH_MIRROR:-http://deb.debian.org/debian}
# The README's prerequisites, exactly: what a newcomer installs before `make run`.
prereqs=(make git ca-certificates sudo)
user=newcomer

say() { printf 'check-fresh-debian: %s\n' "$*" >&2; }
[ "$(id -u)" -eq 0 ] || { say "needs root (debootstrap, chroot and mounts)"; exit 1; }
if ! command -v debootstrap >/dev/null 2>&1; then
	say "installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi
commit=$(git -C "$repo" rev-parse HEAD)
[ -z "$(git -C "$repo" status --porcelain)" ] || say "uncommitted changes are not checked: the chroot gets a clone of $commit"

start=$(date +%s)
phase_start=$start
phase() { # name: prints how long the phase before took
	local now
	now=$(date +%s)
	say "$1 ($((now - phase_start)) s)"
	phase_start=$now
}

work=$(mktemp -d /var/tmp/cutroom-fresh.XXXXXX)
root=$work/root
mkdir "$root"
cleanup() {
	local status=$? p
	# processes still running inside the chroot (the server, a gpg-agent apt left): started
	# by this script, found by their root directory
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
	for m in "$root/dev" "$root/proc"; do
		mountpoint -q "$m" && { umount "$m" || umount -l "$m"; }
	done
	if findmnt -rno TARGET | grep -q "^$root/"; then
		say "mounts under $root remain; $work is left in place"
	else
		rm -rf --one-file-system "$work"
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. A minimal Debian: debootstrap, or the day's cached copy.
arch=$(dpkg --print-architecture)
cache="${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/cutroom/fresh-debian"
tarball="$cache/$suite-minbase-$arch-$(date +%F).tar.gz"
if [ -s "$tarball" ]; then
	tar -xzf "$tarball" -C "$root"
	phase "unpacked $(basename "$tarball")"
else
	debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
		{ tail -n 30 "$work/debootstrap.log" >&2; say "debootstrap failed"; exit 1; }
	mkdir -p "$cache"
	find "$cache" -maxdepth 1 -name "$suite-minbase-$arch-*.tar.gz" -delete
	tar -czf "$tarball.tmp" -C "$root" . && mv "$tarball.tmp" "$tarball"
	phase "debootstrap --variant=minbase $suite (cached as $tarball)"
fi
if [ -e "$root/usr/bin/go" ] || [ -e "$root/usr/bin/gcc" ]; then
	say "the new root file system already has go or gcc"
	exit 1
fi

mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
# the host's network settings, as a newcomer's machine on this network would have them: its
# DNS servers, its hosts file, and the CA certificates it added (an intercepting proxy's or a
# company's; the ca-certificates package of the prerequisites adds them to the bundle)
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
cp -L /etc/hosts "$root/etc/hosts"
mkdir -p "$root/usr/local/share/ca-certificates"
cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
goenv=()
for v in GOPROXY GOSUMDB GONOSUMDB GONOPROXY GOPRIVATE GOINSECURE http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
	[ -n "${!v:-}" ] && goenv+=("$v=${!v}")
	continue
done
# in_root USER SCRIPT: runs a bash script in the chroot as USER with a clean environment.
in_root() {
	local u=$1 home=/root
	shift
	[ "$u" = root ] || home=/home/$u
	chroot "$root" /usr/sbin/runuser -u "$u" -- /usr/bin/env -i HOME="$home" USER="$u" LANG=C.UTF-8 \
		PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin ${goenv[@]+"${goenv[@]}"} \
		/bin/bash -euo pipefail -c "$1"
}

# 2. The README's prerequisites and a user with sudo.
in_root root "export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends ${prereqs[*]} >/dev/null
useradd --create-home --shell /bin/bash $user
echo '$user ALL=(ALL) NOPASSWD:ALL' >/etc/sudoers.d/$user"
phase "installed the prerequisites: ${prereqs[*]}"

# 3. A clone of this commit, owned by the user.
dest="$root/home/$user/cutroom"
git clone -q --no-hardlinks --no-checkout "$repo" "$dest"
git -C "$dest" checkout -q --detach "$commit"
in_root root "chown -R $user:$user /home/$user/cutroom"
phase "cloned $commit"

# 4. The set-up, the server and the quick start, as the user (sudo for apt-get).
in_root "$user" '
cd ~/cutroom
t0=$(date +%s)
make build
echo "check-fresh-debian: make build ($(( $(date +%s) - t0 )) s)" >&2
command -v go >/dev/null && { echo "check-fresh-debian: go is on PATH after make build" >&2; exit 1; }
# the binary `make run` starts (./cutroom serve), on a free loopback port instead of 8787
./cutroom serve --addr 127.0.0.1:0 >~/serve.log 2>&1 &
server=$!
trap "kill $server 2>/dev/null; wait $server 2>/dev/null || true" EXIT
for _ in $(seq 1 100); do
	grep -q "listening on" ~/serve.log && break
	kill -0 $server 2>/dev/null || { cat ~/serve.log >&2; exit 1; }
	sleep 0.2
done
url=$(sed -n "s/^cutroom listening on \([^ ]*\).*/\1/p" ~/serve.log)
key=$(grep -A1 "^API key of workspace" ~/serve.log | tail -n 1)
[ -n "$url" ] && [ -n "$key" ] || { cat ~/serve.log >&2; exit 1; }
CUTROOM_URL=$url CUTROOM_API_KEY=$key examples/quickstart.sh ~/out
video=$(ls ~/out/*.mp4)
ffprobe -v error -show_entries stream=codec_type,codec_name,width,height -show_entries format=duration -of compact "$video" >&2
n=$(ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames -of csv=p=0 "$video")
[ "${n:-0}" -gt 0 ] || { echo "check-fresh-debian: ffprobe decoded no frame of $video" >&2; exit 1; }
echo "check-fresh-debian: ffprobe decoded $n frames of $video" >&2
'
phase "make build, serve and examples/quickstart.sh"
say "passed in $(($(date +%s) - start)) s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
times >&2
