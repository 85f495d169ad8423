#!/bin/sh
# Cross-builds the host's libraries for 64-bit Windows into PREFIX:
#   scripts/windows-deps.sh PREFIX      (or WINDOWS_DEPS_PREFIX=PREFIX)
# libevent, jansson, check and libsodium come from Debian's own source
# packages (apt-get source, through a private apt configuration under
# PREFIX/apt: the machine's /etc/apt is read, never changed) and are built
# with mingw-w64 as DLLs. A second run with everything built returns at
# once. Then configure the host with
#   PKG_CONFIG_LIBDIR=PREFIX/lib/pkgconfig ./configure --host=x86_64-w64-mingw32
set -eu

prefix=${1:-${WINDOWS_DEPS_PREFIX:-}}
if [ -z "$prefix" ]; then
	echo "usage: $0 PREFIX (where the Windows libraries go)" >&2
	exit 2
fi
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
target=x86_64-w64-mingw32
# Debian source package, the binary package whose archive entry names the
# suite to fetch it from, and the build system used.
packages="libevent:libevent-dev:cmake jansson:libjansson-dev:cmake
check:check:cmake libsodium:libsodium-dev:autotools"

# Says whether every library is already built and installed.
all_built() {
	for entry in $packages; do
		[ -e "$prefix/stamps/${entry%%:*}" ] || return 1
	done
}
if all_built; then
	exit 0
fi

# Installs the Debian packages the cross build needs, when missing.
install_tools() {
	need="gcc-mingw-w64-x86-64 cmake make pkg-config dpkg-dev autoconf automake \
	    libtool wine64"
	missing=""
	for pkg in $need; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
			grep -q "ok installed" || missing="$missing $pkg"
	done
	[ -n "$missing" ] || return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "Missing Debian packages:$missing" >&2
		echo "Install them with: sudo apt-get install -y$missing" >&2
		exit 1
	fi
	echo "Installing:$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	    --no-install-recommends $missing
}

apt_dir="$prefix/apt"
# Runs apt-get with the private configuration: its own sources list (deb-src
# lines only), package lists and cache; keys and everything else as the
# machine has them.
private_apt() {
	apt-get -q -o Dir::Etc::sourcelist="$apt_dir/sources.list" \
	    -o Dir::Etc::sourceparts=- \
	    -o Dir::State::Lists="$apt_dir/lists" \
	    -o Dir::Cache="$apt_dir/cache" \
	    -o Dir::State::status=/var/lib/dpkg/status \
	    -o APT::Sandbox::User="$(id -un)" "$@"
}

# Writes a deb-src line for every archive and suite the machine's apt takes
# the binary packages from (apt-cache madison: "pkg | version | URI
# suite/component arch Packages"), then reads their source indexes.
setup_private_apt() {
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	for entry in $packages; do
		binary=$(echo "$entry" | cut -d: -f2)
		apt-cache madison "$binary" | awk -F'|' '{ print $3 }' |
		    awk '{ split($2, s, "/"); print "deb-src", $1, s[1], s[2] }'
	done | sort -u >"$apt_dir/sources.list"
	if ! [ -s "$apt_dir/sources.list" ]; then
		echo "apt knows no archive for the libraries' packages" >&2
		exit 1
	fi
	private_apt update >/dev/null
}

# Unpacks a source package into PREFIX/src/NAME and prints that directory.
fetch_source() {
	name=$1
	rm -rf "$prefix/src/$name"
	mkdir -p "$prefix/src/$name"
	(cd "$prefix/src/$name" && private_apt source "$name" >&2)
	find "$prefix/src/$name" -mindepth 1 -maxdepth 1 -type d | head -n 1
}

# Builds and installs one CMake project for Windows.
build_cmake() {
	src=$1
	shift
	rm -rf "$src/_build-windows"
	cmake -S "$src" -B "$src/_build-windows" -DCMAKE_BUILD_TYPE=Release \
	    -DCMAKE_SYSTEM_NAME=Windows \
	    -DCMAKE_C_COMPILER="$target-gcc" \
	    -DCMAKE_RC_COMPILER="$target-windres" \
	    -DCMAKE_FIND_ROOT_PATH="$prefix" \
	    -DCMAKE_FIND_ROOT_PATH_MODE_PROGRAM=NEVER \
	    -DCMAKE_INSTALL_PREFIX="$prefix" "$@" >/dev/null
	cmake --build "$src/_build-windows" -j "$(nproc)" >/dev/null
	cmake --install "$src/_build-windows" >/dev/null
}

# Builds and installs one autotools project for Windows.
build_autotools() {
	src=$1
	# A source package cut from git (libsodium's) has no configure yet.
	[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi >/dev/null 2>&1)
	(cd "$src" && ./configure -q --host="$target" --prefix="$prefix" \
	    --disable-static --enable-shared &&
	    make -s -j "$(nproc)" >/dev/null && make -s install >/dev/null)
}

# Fetches, builds and installs one library, unless it already is.
build_library() {
	name=$1
	system=$2
	[ -e "$prefix/stamps/$name" ] && return 0
	echo "windows-deps: building $name"
	src=$(fetch_source "$name")
	case $name in
	libevent)
		build_cmake "$src" -DEVENT__LIBRARY_TYPE=SHARED \
		    -DEVENT__DISABLE_OPENSSL=ON -DEVENT__DISABLE_MBEDTLS=ON \
		    -DEVENT__DISABLE_TESTS=ON -DEVENT__DISABLE_REGRESS=ON \
		    -DEVENT__DISABLE_SAMPLES=ON -DEVENT__DISABLE_BENCHMARK=ON
		# Its .pc names ws2_32 and the rest as directories (-Lws2_32).
		sed -i 's/-L\(ws2_32\|shell32\|advapi32\|iphlpapi\|bcrypt\)\b/-l\1/g' \
		    "$prefix"/lib/pkgconfig/libevent*.pc ;;
	jansson)
		build_cmake "$src" -DJANSSON_BUILD_SHARED_LIBS=ON \
		    -DJANSSON_BUILD_DOCS=OFF -DJANSSON_WITHOUT_TESTS=ON \
		    -DJANSSON_EXAMPLES=OFF ;;
	check)
		build_cmake "$src" -DBUILD_SHARED_LIBS=ON -DCHECK_ENABLE_TESTS=OFF \
		    -DCHECK_ENABLE_TIMEOUT_TESTS=OFF
		# Its .pc asks for the -lcheck_pic its CMake build never installs.
		sed -i 's/-lcheck_pic\b/-lcheck/g' "$prefix/lib/pkgconfig/check.pc" ;;
	*)
		build_"$system" "$src" ;;
	esac
	mkdir -p "$prefix/stamps"
	basename "$src" >"$prefix/stamps/$name"
}

install_tools
setup_private_apt
for entry in $packages; do
	name=${entry%%:*}
	build_library "$name" "${entry##*:}"
done
echo "windows-deps: libraries in $prefix"
