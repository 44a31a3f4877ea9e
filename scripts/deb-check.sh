#!/usr/bin/env bash
# Checks the Debian package build/cutroom_*.deb (`make deb-check`, part of `make test`):
# as root it installs the package with dpkg -i, runs /usr/bin/cutroom version, checks the
# cutroom user and /var/lib/cutroom, verifies the installed unit with systemd-analyze verify,
# starts the binary as the service would (the cutroom user, /etc/default/cutroom, the data
# dir) and probes it with `cutroom healthcheck`, then removes what it installed (a cutroom
# package installed before the check stays installed). Not as root it checks the package's
# files unpacked into a temporary directory instead.
set -euo pipefail
cd "$(dirname "$0")/.."

debs=(build/cutroom_*.deb)
[ -f "${debs[0]}" ] || { echo "deb-check: no build/cutroom_*.deb; run make deb" >&2; exit 1; }
deb=${debs[0]}
fail() { echo "deb-check: $*" >&2; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
	root=$(mktemp -d)
	trap 'rm -rf "$root"' EXIT
	dpkg-deb -x "$deb" "$root"
	"$root/usr/bin/cutroom" version | grep -q '^cutroom:' || fail "cutroom version printed no version"
	# verify wants ExecStart's binary to exist: point it at the unpacked one
	sed "s|/usr/bin/cutroom|$root/usr/bin/cutroom|" "$root/usr/lib/systemd/system/cutroom.service" >"$root/cutroom.service"
	systemd-analyze verify "$root/cutroom.service"
	echo "deb-check: $deb unpacked and checked (not root: not installed)"
	exit 0
fi

had_pkg=$(dpkg-query -W -f='${Status}' cutroom 2>/dev/null | grep -c "install ok installed" || true)
had_user=$(getent passwd cutroom >/dev/null && echo 1 || echo 0)
had_dir=$([ -e /var/lib/cutroom ] && echo 1 || echo 0)
server=""
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	if [ "$had_pkg" = 0 ]; then
		dpkg -P cutroom >/dev/null 2>&1 || true
		[ "$had_dir" = 1 ] || rm -rf /var/lib/cutroom
		if [ "$had_user" = 0 ]; then
			userdel cutroom 2>/dev/null || true
			groupdel cutroom 2>/dev/null || true
		fi
	fi
}
trap cleanup EXIT

out=$(dpkg -i "$deb" 2>&1) || { echo "$out" >&2; fail "dpkg -i $deb failed"; }
/usr/bin/cutroom version | grep -q '^cutroom:' || fail "cutroom version printed no version"
/usr/bin/cutroom version | grep -q '^webfonts: *Inter, TikTok Sans$' || fail "cutroom version: the embedded web fonts are missing"
for f in OFL.txt Symbola-LICENSE.txt Inter-LICENSE.txt TikTok-Sans-LICENSE.txt; do
	[ -f "/usr/share/doc/cutroom/fonts/$f" ] || fail "the package lacks the font licence /usr/share/doc/cutroom/fonts/$f"
done
getent passwd cutroom | grep -q ':/usr/sbin/nologin$' || fail "no cutroom system user"
[ "$(stat -c '%U:%G %a' /var/lib/cutroom)" = "cutroom:cutroom 750" ] || fail "/var/lib/cutroom: $(stat -c '%U:%G %a' /var/lib/cutroom)"
[ "$(stat -c '%U %a' /etc/default/cutroom)" = "root 600" ] || fail "/etc/default/cutroom: $(stat -c '%U %a' /etc/default/cutroom)"
unit=/usr/lib/systemd/system/cutroom.service
systemd-analyze verify "$unit"
for want in 'User=cutroom' 'ProtectSystem=strict' 'ReadWritePaths=/var/lib/cutroom' 'NoNewPrivileges=yes' \
	'EnvironmentFile=-/etc/default/cutroom' 'ExecStart=/usr/bin/cutroom serve --data-dir /var/lib/cutroom'; do
	grep -qx "$want" "$unit" || fail "$unit lacks $want"
done

# Serve as the unit would (its user, settings file and data dir), on a free port.
port=$((20000 + RANDOM % 20000))
log=$(mktemp)
(
	set -a
	# shellcheck disable=SC1091
	. /etc/default/cutroom
	set +a
	exec setpriv --reuid=cutroom --regid=cutroom --init-groups \
		/usr/bin/cutroom serve --data-dir /var/lib/cutroom --addr "127.0.0.1:$port"
) >"$log" 2>&1 &
server=$!
for _ in $(seq 100); do
	grep -q 'listening on' "$log" && break
	kill -0 "$server" 2>/dev/null || break
	sleep 0.1
done
grep -q 'listening on' "$log" || { cat "$log" >&2; fail "the installed cutroom did not start"; }
/usr/bin/cutroom healthcheck --addr "127.0.0.1:$port" >/dev/null || { cat "$log" >&2; fail "not ready"; }
[ "$(stat -c '%U' /var/lib/cutroom/cutroom.db)" = cutroom ] || fail "cutroom.db not the cutroom user's"
rm -f "$log"
echo "deb-check: $deb installed, cutroom version ran, unit verified, served as the cutroom user and ready"
