#!/usr/bin/env bash
# Cross-builds the C libraries of the Windows build (opus, vo-aacenc, libjpeg-turbo, libvpx)
# for windows/amd64 with Debian's mingw-w64, as static libraries, and prints the
# PKG_CONFIG_LIBDIR that finds them (one line, the prefixes' pkgconfig dirs joined by ':').
#
# Sources: packaging/windows/libs.lock, each file checked against its SHA-256 before it is
# unpacked. Each library is built once into $CUTROOM_CACHE/windows/<lib>-<key>/ (default
# ~/.cache/cutroom), where the key hashes its sources' SHA-256s, its recipe below (this
# function's text) and the compiler's version: a changed input builds again, an unchanged
# one costs nothing. Nothing is written into the repository.
#
# x264 is not here: the Windows build compiles the portable C copy bundled in the Go module
# github.com/gen2brain/x264-go (no extlib tag). rlottie is not built for Windows (lottie/
# renders in a Linux-confined child process only; see packaging/windows/README.txt).
#   DEBIAN_MIRROR   where the pool/ paths of libs.lock are fetched (http://deb.debian.org/debian)
#   CUTROOM_CACHE   the cache root (~/.cache/cutroom)
#   JOBS            make's parallelism (the number of CPUs)
set -euo pipefail
shopt -s inherit_errexit
root=$(cd "$(dirname "$0")/.." && pwd)
lock="$root/packaging/windows/libs.lock"
cache=${CUTROOM_CACHE:-$HOME/.cache/cutroom}/windows
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
jobs=${JOBS:-$(nproc)}
host=x86_64-w64-mingw32
mkdir -p "$cache/src"

command -v "$host-gcc" >/dev/null || {
	echo "cutroom: $host-gcc not found: run scripts/install-deps.sh --windows" >&2
	exit 1
}
log() { echo "cutroom: $*" >&2; }
# one build at a time per cache (two test runs would build into the same prefix)
exec 9>"$cache/.lock"
flock 9

# fetch FILE SHA256: the pool file into $cache/src, checked; prints its path.
fetch() {
	local f=$1 sum=$2 out
	out="$cache/src/$(basename "$f")"
	if [ ! -f "$out" ] || ! echo "$sum  $out" | sha256sum -c --status; then
		log "fetching $f"
		rm -f "$out.part"
		curl -fsSL --retry 2 -m 600 -o "$out.part" "$mirror/pool/main/$f" ||
			curl -fsSL --retry 2 -m 600 -o "$out.part" "https://snapshot.debian.org/archive/debian/20250520T000000Z/pool/main/$f" || {
			log "cannot fetch $f"
			exit 1
		}
		echo "$sum  $out.part" | sha256sum -c --status || {
			log "$f: SHA-256 is $(sha256sum "$out.part" | cut -c1-64), libs.lock says $sum"
			rm -f "$out.part"
			exit 1
		}
		mv "$out.part" "$out"
	fi
	echo "$out"
}

# The recipes: each runs in an empty build dir with the sources unpacked in ./src and
# installs into $prefix (its output goes to a log). Minimal features: the encoders and what
# cutroom calls, static only. (The key hashes `declare -f`: comments do not count.)
build_opus() {
	cd src
	./configure --host=$host --prefix="$prefix" --enable-static --disable-shared \
		--disable-doc --disable-extra-programs --disable-dependency-tracking
	make -j"$jobs"
	make install
	# encode includes <opus/opus.h>, as Debian's /usr/include finds it; opus builds with
	# _FORTIFY_SOURCE, whose checked memcpy is libssp's on mingw (cgo asks pkg-config for
	# --libs, never --static: what a static library needs goes into Libs)
	sed -i -e 's|^Cflags: .*|& -I${includedir}|' -e 's|^Libs: .*|& -lssp|' "$prefix/lib/pkgconfig/opus.pc"
}
build_vo-aacenc() {
	cd src
	./configure --host=$host --prefix="$prefix" --enable-static --disable-shared \
		--disable-dependency-tracking
	make -j"$jobs"
	make install
}
build_libjpeg-turbo() {
	# SIMD through nasm; the TurboJPEG API and the tools are not used.
	cmake -S src -B b -G 'Unix Makefiles' -DCMAKE_SYSTEM_NAME=Windows -DCMAKE_SYSTEM_PROCESSOR=AMD64 \
		-DCMAKE_C_COMPILER=$host-gcc -DCMAKE_RC_COMPILER=$host-windres -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_INSTALL_PREFIX="$prefix" -DENABLE_SHARED=OFF -DWITH_TURBOJPEG=OFF -DWITH_JPEG8=OFF \
		-DCMAKE_ASM_NASM_COMPILER=nasm
	make -C b -j"$jobs" jpeg-static
	mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
	cp b/libjpeg.a "$prefix/lib/"
	cp src/jpeglib.h src/jmorecfg.h src/jerror.h b/jconfig.h "$prefix/include/"
	printf 'prefix=%s\nName: libjpeg\nDescription: libjpeg-turbo (static, windows/amd64)\nVersion: 2.1.5\nLibs: -L${prefix}/lib -ljpeg\nCflags: -I${prefix}/include\n' \
		"$prefix" >"$prefix/lib/pkgconfig/libjpeg.pc"
}
build_libvpx() {
	# Debian's patches (its security fixes) first; the VP8 and VP9 encoders only, with
	# their x86 assembly through nasm; threads are winpthreads'.
	(cd src && while read -r p; do
		case "$p" in '' | '#'*) continue ;; esac
		patch -p1 -s <"../debian/patches/$p"
	done <../debian/patches/series)
	mkdir b && cd b
	CROSS=$host- ../src/configure --target=x86_64-win64-gcc --prefix="$prefix" --as=nasm \
		--enable-static --disable-shared --disable-vp8-decoder --disable-vp9-decoder --disable-examples --disable-tools \
		--disable-docs --disable-unit-tests --disable-install-bins --disable-install-srcs \
		--enable-vp8 --enable-vp9 --disable-vp9-highbitdepth
	make -j"$jobs"
	make install
	# its threads are winpthreads' (static: Libs, see build_opus)
	sed -i 's|^Libs: .*|& -lpthread|' "$prefix/lib/pkgconfig/vpx.pc"
}

# build LIB: unpack its files of libs.lock, run build_LIB unless its key's prefix exists;
# prints the prefix.
build() {
	local lib=$1 key files=() sums="" f sum dir
	while read -r name _ file sum; do
		[ "$name" = "$lib" ] || continue
		files+=("$(fetch "$file" "$sum")")
		sums+="$sum "
	done < <(grep -v '^#' "$lock")
	[ ${#files[@]} -gt 0 ] || { log "$lib: not in $lock"; exit 1; }
	key=$( { echo "$sums"; declare -f "build_$lib"; $host-gcc --version | head -1; } | sha256sum | cut -c1-16)
	prefix="$cache/$lib-$key"
	if [ ! -f "$prefix/.done" ]; then
		log "building $lib for windows/amd64 into $prefix"
		rm -rf "$prefix" "$prefix.build"
		dir="$prefix.build"
		mkdir -p "$dir/src"
		for f in "${files[@]}"; do
			case "$f" in
			*.orig.tar.*) tar xf "$f" -C "$dir/src" --strip-components=1 ;;
			*) tar xf "$f" -C "$dir" ;;
			esac
		done
		local start=$SECONDS
		# the recipe's output goes to its log, shown (its end) only when the build fails
		trap 'log "building $lib failed (its tree: $dir); the end of $dir/build.log:"; tail -n 40 "$dir/build.log" >&2' ERR
		(cd "$dir" && "build_$lib") >"$dir/build.log" 2>&1
		trap - ERR
		rm -rf "$dir"
		touch "$prefix/.done"
		log "built $lib in $((SECONDS - start)) s"
	fi
	echo "$prefix"
}

libdir=""
for lib in opus vo-aacenc libjpeg-turbo libvpx; do
	p=$(build "$lib")
	libdir+="${libdir:+:}$p/lib/pkgconfig"
done
echo "$libdir"
