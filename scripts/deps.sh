#!/bin/sh
# Installs the Debian packages Browser Bridge needs to build and test, if
# any are missing. Usage: scripts/deps.sh [build|test|run]
set -eu

need="gcc make autoconf automake pkg-config libevent-dev libjansson-dev libsodium-dev check"
case "${1:-build}" in
test) need="$need valgrind chromium clang" ;;
run) need="$need chromium" ;;
esac

missing=""
for pkg in $need; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $pkg"
done
command -v node >/dev/null 2>&1 || missing="$missing nodejs npm"
command -v npm >/dev/null 2>&1 || missing="$missing npm"

[ -n "$missing" ] || exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "Missing Debian packages:$missing" >&2
	echo "Install them with: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "Installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends $missing
