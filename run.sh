#!/bin/sh
# Builds Browser Bridge (installing missing Debian packages as root) and runs
# it: Chromium with a private profile in which the extension is loaded and
# the host registered, then prints the MCP endpoint, the token and client
# configurations that work as pasted, as README's client table has them:
# the URL alone for clients with OAuth first, then the owner key's forms
# and stdio (commands name the binary by its full path: run.sh installs
# nothing on PATH). HEADLESS=1 runs the browser
# headless (servers, CI); without a display it is headless anyway. Ctrl-C
# stops everything.
set -eu
cd "$(dirname "$0")"
top=$(pwd)

# BRIDGE_BIN names an already built host (the tests use that).
bridge="${BRIDGE_BIN:-$top/_build-main/browser-bridge}"
if [ -z "${BRIDGE_BIN:-}" ]; then
	scripts/deps.sh run
	echo "Building Browser Bridge (log: _build-main/build.log)..."
	./autogen.sh >/dev/null 2>&1 || ./autogen.sh
	mkdir -p _build-main
	(cd _build-main && { [ -f Makefile ] || "$top/configure" -q; } &&
		make -j"$(nproc 2>/dev/null || echo 2)" browser-bridge) \
		>_build-main/build.log 2>&1 ||
		{ tail -n 30 _build-main/build.log >&2; exit 1; }
fi

profile="${BROWSER_BRIDGE_PROFILE:-${XDG_CACHE_HOME:-$HOME/.cache}/browser-bridge/profile}"
mkdir -p "$profile"
# The private profile run.sh starts, and every browser of the user's own, so
# the extension works there too once loaded (and doctor finds all in order).
"$bridge" install --user-data-dir "$profile" >/dev/null
"$bridge" install >/dev/null 2>&1 || true

set -- --no-first-run --no-default-browser-check --disable-background-networking \
	--disable-component-update --disable-sync --disable-quic \
	--user-data-dir="$profile" --load-extension="$top/extension" about:blank
if [ "${HEADLESS:-0}" = 1 ] || [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
	set -- --headless=new --disable-gpu --window-size=1280,800 "$@"
fi
[ "$(id -u)" -ne 0 ] || set -- --no-sandbox "$@"
log="$profile/chromium.log"
setsid chromium "$@" >"$log" 2>&1 &
browser=$!

# Ends the browser's whole process group; its host exits when the port closes.
stop() {
	trap - INT TERM EXIT
	kill -TERM -"$browser" 2>/dev/null || true
	wait "$browser" 2>/dev/null || true
	exit "${1:-0}"
}
trap 'stop 0' INT TERM
trap 'stop $?' EXIT

echo "Starting Chromium with the Browser Bridge extension (profile: $profile)..."
# Other browsers may run hosts too: this run's host is the one of its profile.
tries=0
until "$bridge" status --instance "$profile" 2>/dev/null |
    grep -q "extension:  connected"; do
	tries=$((tries + 1))
	if [ "$tries" -gt 300 ] || ! kill -0 "$browser" 2>/dev/null; then
		echo "The extension did not connect to the host within 30 s." >&2
		echo "Run '$bridge doctor' to see why; Chromium's log: $log" >&2
		stop 1
	fi
	sleep 0.1
done
status=$("$bridge" status --instance "$profile")
url=$(printf '%s\n' "$status" | sed -n 's/^  MCP URL: *//p')
instance=$(printf '%s\n' "$status" | sed -n 's/^  instance: *\([^ ]*\).*/\1/p')
token=$("$bridge" token)
cat <<MSG
Browser Bridge is running (instance $instance).
MCP endpoint: $url
Token:        $token

With OAuth, the URL alone (approve the client in the Browser Bridge popup when it asks):
Claude Code:
  claude mcp add --transport http browser-bridge $url
Cursor, VS Code and other clients that read JSON (HTTP):
{ "mcpServers": { "browser-bridge": { "type": "http", "url": "$url" } } }

Without OAuth, the owner key (the token above):
Claude Code:
  claude mcp add --transport http browser-bridge $url --header "Authorization: Bearer $token"
Cursor, VS Code and other clients that read JSON (HTTP):
{ "mcpServers": { "browser-bridge": {
    "type": "http", "url": "$url",
    "headers": { "Authorization": "Bearer $token" } } } }

Claude Desktop and other clients that only start stdio servers:
{ "mcpServers": { "browser-bridge": {
    "command": "$bridge", "args": ["stdio", "--instance", "$instance"] } } }

VS Code's .vscode/mcp.json holds these under "servers", not "mcpServers".
Check the setup: $bridge doctor
Press Ctrl-C to stop.
MSG
wait "$browser" || true
