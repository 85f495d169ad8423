#!/bin/sh
# Installs the Debian packages Browser Bridge needs to build and test, if
# any are missing. Usage: scripts/deps.sh [build|test|run]
set -eu

need="gcc make autoconf automake pkg-config libevent-dev libjansson-dev libsodium-dev check"
case "${1:-build}" in
# php-cgi comes before dokuwiki: dokuwiki needs php, whose first choice of
# PHP runtime, Apache's module, would pull in apache2-bin; the CGI binary
# fulfils it without a web server. The e2e test serves the wiki with
# php-cli's built-in server (tests/e2e/dokuwiki.mjs).
test) need="$need valgrind chromium clang php-cli php-cgi dokuwiki" ;;
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
# DokuWiki's package offers to configure Apache (its default): configure none.
echo "dokuwiki dokuwiki/system/configure-webserver multiselect" | debconf-set-selections
apt-get update -q
apt-get install -y -q --no-install-recommends $missing
