#!/bin/sh
# The Windows stage (#34): builds browser-bridge.exe and the Check suites
# with mingw-w64, against libraries cross-built from Debian's own sources
# (scripts/windows-deps.sh), and runs them under wine64:
#   - each Check suite that builds for Windows (WINDOWS_SUITES), which must
#     pass with the same count of checks as the Linux build's;
#   - native messaging through the .exe's pipes and MCP over 127.0.0.1:
#     integration test files (WINDOWS_INTEGRATION_FILES) with the fake
#     extension, the host run under wine.
# Run it from the top of a built Linux build directory (its Check suites
# give the counts; its tests/node holds the integration tests' SDK):
#   tests/windows.sh
# WINDOWS_DEPS_PREFIX: where the libraries are built once and kept (default
#   ~/.cache/browser-bridge/windows-deps; cache it between CI runs).
# WINDOWS_BUILDDIR: the cross build (default ./windows).
# Needs the Debian packages scripts/windows-deps.sh installs (mingw-w64,
# wine64, cmake, libtool, dpkg-dev) and Node, as the integration tests do.

set -u

srcdir=$(cd "$(dirname "$0")/.." && pwd)
linux_builddir=$(pwd)
prefix=${WINDOWS_DEPS_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/browser-bridge/windows-deps}
builddir=${WINDOWS_BUILDDIR:-$linux_builddir/windows}
suites=${WINDOWS_SUITES:-frame framer mcp rpc schema session tools}
integration_files=${WINDOWS_INTEGRATION_FILES:-integration/calls.test.mjs integration/upload-paths.test.mjs}
failed=0
step_failed=0

# Says what failed and remembers it (step_failed: for the step at hand).
fail() {
	echo "windows.sh: FAIL: $*" >&2
	failed=1
	step_failed=1
}

# A Unix path as wine's Z: drive names it.
wine_path() {
	printf 'Z:%s' "$1" | tr / '\\'
}

"$srcdir/scripts/windows-deps.sh" "$prefix" || exit 99
prefix=$(cd "$prefix" && pwd)

mkdir -p "$builddir" || exit 99
cd "$builddir" || exit 99
if [ ! -f Makefile ]; then
	PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig" "$srcdir/configure" -q \
	    --host=x86_64-w64-mingw32 --enable-werror \
	    --disable-browser-tests >/dev/null || exit 99
fi
exes="browser-bridge.exe"
for suite in $suites; do
	exes="$exes tests/check-$suite.exe"
done
# shellcheck disable=SC2086 # a list of targets
make -s -j2 $exes >/dev/null || exit 99

# A wine of its own, quiet, finding the DLLs; one wineserver
# for the whole stage (each start of the first process costs seconds).
PATH=$PATH:/usr/lib/wine
WINEPREFIX=$builddir/wine
WINEDEBUG=-all
# libcheck.dll needs the toolchain's libwinpthread-1.dll (the host links
# winpthreads in).
toolchain_dlls=$(dirname "$(x86_64-w64-mingw32-gcc -print-file-name=libwinpthread-1.dll)")
WINEPATH="$(wine_path "$prefix/bin");$(wine_path "$prefix/lib");$(wine_path "$toolchain_dlls")"
export PATH WINEPREFIX WINEDEBUG WINEPATH
wineserver -p 600 >/dev/null 2>&1 &
wine64 cmd /c exit >/dev/null 2>&1

# The "Checks: N" count in a Check runner's summary line.
checks_of() {
	sed -n 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' | tail -n 1
}

for suite in $suites; do
	linux=$(cd "$linux_builddir" && BRIDGE_SRCDIR=$srcdir \
	    "./tests/check-$suite" 2>&1 | checks_of)
	windows=$(BRIDGE_SRCDIR=$srcdir wine64 "tests/check-$suite.exe" 2>&1 |
	    checks_of)
	# shellcheck disable=SC2086 # three numbers
	set -- $windows
	if [ $# -ne 3 ]; then
		fail "check-$suite.exe printed no summary"
	elif [ "$2" != 0 ] || [ "$3" != 0 ]; then
		fail "check-$suite.exe: $2 failures, $3 errors"
	elif [ "$1" != "${linux%% *}" ]; then
		fail "check-$suite.exe ran $1 checks, Linux's ${linux%% *}"
	else
		echo "PASS: check-$suite.exe ($1 checks, as on Linux)"
	fi
done

# install, doctor and uninstall with wine's registry (HKCU): each browser's
# key must name the one manifest install writes, which names this .exe and
# the extension IDs; doctor must report each key; uninstall must remove our
# keys, keep a key naming another host's manifest, then remove the file.
# Vivaldi reads Chrome's key.
registry_keys="Google\\Chrome Chromium Microsoft\\Edge BraveSoftware\\Brave-Browser"
host_key() {
	printf 'HKCU\\Software\\%s\\NativeMessagingHosts\\org.browserbridge.host' "$1"
}
# The default value of a key, or nothing (and status 1) when it is not there.
key_value() {
	wine64 reg query "$(host_key "$1")" /ve 2>/dev/null | tr -d '\r' |
	    sed -n 's/^ *(Default) *REG_SZ *//p' | grep .
}
for browser in $registry_keys; do
	wine64 reg delete "$(host_key "$browser")" /f >/dev/null 2>&1
done
step_failed=0
# Without --browser, only the browsers found: those whose User Data folder
# under %LOCALAPPDATA% holds a Local State (wine's profile has none).
local_appdata="$WINEPREFIX/drive_c/users/$(id -un)/AppData/Local"
if out=$(wine64 browser-bridge.exe install 2>&1) ||
    ! printf '%s\n' "$out" | grep -q "no Chrome-family browser found"; then
	fail "install with no browser found did not say so: $out"
fi
mkdir -p "$local_appdata/Chromium/User Data"
: >"$local_appdata/Chromium/User Data/Local State"
if ! out=$(wine64 browser-bridge.exe install 2>&1); then
	fail "install with Chromium found failed: $out"
elif ! key_value Chromium >/dev/null || key_value 'Google\Chrome' >/dev/null ||
    ! printf '%s\n' "$out" | grep -q "^Google Chrome: skipped, not found"; then
	fail "install with Chromium found did not register Chromium alone: $out"
fi
rm -rf "$local_appdata/Chromium"
# Every user's registration (HKLM) and a profile's folder are refused,
# with the reason.
if out=$(wine64 browser-bridge.exe install --system --browser all 2>&1) ||
    ! printf '%s\n' "$out" | grep -q "(HKCU) only; --system (HKLM"; then
	fail "install --system on Windows was not refused with the reason: $out"
fi
if out=$(wine64 browser-bridge.exe install --user-data-dir "$local_appdata" 2>&1) ||
    ! printf '%s\n' "$out" | grep -q "through the registry only"; then
	fail "install --user-data-dir on Windows was not refused with the reason: $out"
fi
extra_id=abcdefghijklmnopabcdefghijklmnop
if ! out=$(wine64 browser-bridge.exe install --browser all \
    --extension-id "$extra_id" 2>&1); then
	fail "install on Windows failed: $out"
fi
manifest=$(key_value 'Google\Chrome')
manifest_file=$(wine64 winepath -u "$manifest" 2>/dev/null | tr -d '\r')
case $manifest in
*'\BrowserBridge\org.browserbridge.host.json') ;;
*) fail "install set $(host_key 'Google\Chrome') to '$manifest', not %LOCALAPPDATA%\\BrowserBridge\\org.browserbridge.host.json" ;;
esac
for browser in $registry_keys; do
	value=$(key_value "$browser")
	[ "$value" = "$manifest" ] ||
	    fail "install set $(host_key "$browser") to '$value', not '$manifest'"
done
if [ ! -f "$manifest_file" ]; then
	fail "install wrote no manifest at $manifest ($manifest_file)"
elif ! BRIDGE_EXE="$(wine_path "$builddir/browser-bridge.exe")" \
    BRIDGE_ORIGIN="chrome-extension://$extra_id/" \
    "${NODE:-node}" -e '
	const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	const ok = m.name === "org.browserbridge.host" && m.type === "stdio" &&
	    m.path === process.env.BRIDGE_EXE &&
	    m.allowed_origins.includes(process.env.BRIDGE_ORIGIN);
	if (!ok) { console.error(JSON.stringify(m)); process.exit(1); }' \
    "$manifest_file"; then
	fail "the manifest at $manifest does not name $(wine_path "$builddir/browser-bridge.exe") and $extra_id"
fi
doctor=$(wine64 browser-bridge.exe doctor 2>&1 | tr -d '\r')
for title in 'Google Chrome' Chromium 'Microsoft Edge' Brave Vivaldi; do
	printf "%s\n" "$doctor" | grep -qF "ok    $title: HKCU\\Software\\" ||
	    fail "doctor does not report $title's registry key: $doctor"
done
printf "%s\n" "$doctor" | grep -qF "ok    Brave: runs $(wine_path "$builddir/browser-bridge.exe")" ||
    fail "doctor did not run the manifest's program: $doctor"
# Registered ahead of their first start, the browsers count as found.
! printf "%s\n" "$doctor" | grep -q "no Chrome-family browser found" ||
    fail "doctor found no browser though each has its key: $doctor"
# A key naming another host's manifest is not ours to remove.
other='C:\other-host\com.example.other.json'
wine64 reg add "$(host_key 'Microsoft\Edge')" /ve /d "$other" /f >/dev/null 2>&1
if ! out=$(wine64 browser-bridge.exe uninstall 2>&1); then
	fail "uninstall on Windows failed: $out"
fi
for browser in 'Google\Chrome' Chromium 'BraveSoftware\Brave-Browser'; do
	if value=$(key_value "$browser"); then
		fail "uninstall left $(host_key "$browser") naming '$value'"
	fi
done
[ "$(key_value 'Microsoft\Edge')" = "$other" ] ||
    fail "uninstall removed or changed a key naming another host's manifest"
printf "%s\n" "$out" | grep -qF "kept $(host_key 'Microsoft\Edge')" ||
    fail "uninstall did not say it kept Edge's key: $out"
[ ! -e "$manifest_file" ] ||
    fail "uninstall left the manifest $manifest once no key named it"
wine64 reg delete "$(host_key 'Microsoft\Edge')" /f >/dev/null 2>&1
if [ "$step_failed" = 0 ]; then
	echo "PASS: install, doctor and uninstall with the registry under wine"
fi

# The integration tests, the host under wine: its files are where wine's
# profile puts %APPDATA% and %LOCALAPPDATA% (wine sets both itself). Run
# as make check would, but naming the .exe (make's environment names the
# Linux program).
profile="$WINEPREFIX/drive_c/users/$(id -un)/AppData"
rm -rf "$profile/Roaming/browser-bridge" "$profile/Local/browser-bridge"
if (cd "$linux_builddir" &&
    BRIDGE_SRCDIR=$srcdir BRIDGE_BUILDDIR=$linux_builddir \
    NODE=${NODE:-$(command -v node)} NPM=${NPM:-$(command -v npm)} \
    BRIDGE_WINDOWS_APPDATA="$profile/Roaming" \
    BRIDGE_WINDOWS_LOCALAPPDATA="$profile/Local" \
    BRIDGE_WRAPPER="$(command -v wine64)" \
    BRIDGE_BIN="$builddir/browser-bridge.exe" \
    INTEGRATION_CONCURRENCY=1 INTEGRATION_FILES="$integration_files" \
    "$srcdir/tests/integration.sh" >"$builddir/integration.log" 2>&1); then
	echo "PASS: integration under wine ($integration_files)"
else
	fail "integration under wine ($integration_files): see $builddir/integration.log"
fi

wineserver -k >/dev/null 2>&1
exit "$failed"
