#!/bin/sh
# Runs the end-to-end tests (tests/e2e/*.test.mjs): headless Chromium with
# the extension and a fresh profile whose NativeMessagingHosts/ points at
# the built host, the fixture site (tests/e2e/site) on two loopback ports,
# and the official MCP SDK as the client. `make check` runs it with
# BRIDGE_BIN, BRIDGE_SRCDIR, BRIDGE_BUILDDIR, NODE and NPM set.
#
# Exit 77 (skip) without Node 20+ or without Chromium; npm missing, the
# package files missing or `npm ci` failing is an error (99), never a skip,
# so make check fails. CHROMIUM names the browser binary (default:
# chromium, chromium-browser or google-chrome on PATH). The DokuWiki test
# (e2e/dokuwiki.test.mjs) also needs Debian's dokuwiki and php-cli
# (scripts/deps.sh test); without them it fails. E2E_RUNS=N runs
# the suite N times in a row (flakiness check); E2E_FILES="e2e/agents.test.mjs"
# runs only the files named; E2E_CONCURRENCY=N runs N files (browsers) at
# a time (default 2). Each file's time goes to tests/e2e.sh.file-times in
# the build tree (tests/file-times.mjs).

set -u

srcdir=${BRIDGE_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${BRIDGE_BUILDDIR:-$(pwd)}
BRIDGE_BIN=${BRIDGE_BIN:-$builddir/browser-bridge}
NODE=${NODE:-}
NPM=${NPM:-}
[ -n "$NODE" ] || NODE=$(command -v node 2>/dev/null) || NODE=
[ -n "$NPM" ] || NPM=$(command -v npm 2>/dev/null) || NPM=

if [ -z "$NODE" ]; then
	cat >&2 <<'MSG'
e2e.sh: skipped: Node.js was not found when configure ran.
Install Node 20 or later (Debian/Ubuntu: apt-get install nodejs npm), then run configure again.
MSG
	exit 77
fi
if ! "$NODE" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
	echo "e2e.sh: skipped: $NODE is Node $("$NODE" --version); the tests need Node 20 or later" >&2
	exit 77
fi
CHROMIUM=${CHROMIUM:-}
if [ -z "$CHROMIUM" ]; then
	for name in chromium chromium-browser google-chrome; do
		CHROMIUM=$(command -v "$name" 2>/dev/null) && break
		CHROMIUM=
	done
fi
if [ -z "$CHROMIUM" ] || ! [ -x "$CHROMIUM" ]; then
	cat >&2 <<'MSG'
e2e.sh: skipped: Chromium was not found.
Install it (Debian/Ubuntu: apt-get install chromium), or set CHROMIUM to the
browser's path, then run make check again.
MSG
	exit 77
fi
if [ ! -f "$srcdir/tests/package.json" ] || [ ! -f "$srcdir/tests/package-lock.json" ]; then
	echo "e2e.sh: tests/package.json or tests/package-lock.json (the MCP SDK pin) is missing from the source tree" >&2
	exit 99
fi
if [ ! -x "$BRIDGE_BIN" ]; then
	echo "e2e.sh: $BRIDGE_BIN is missing: run make first" >&2
	exit 99
fi

# Work in the build tree: the source tree may be read-only (distcheck).
dest=$builddir/tests/e2e-node
mkdir -p "$dest" || exit 99
rm -rf "$dest/e2e" "$dest/agents" "$dest/extension" "$dest/package.json" "$dest/package-lock.json" "$dest/timing.mjs"
cp "$srcdir/tests/package.json" "$srcdir/tests/package-lock.json" "$srcdir/tests/timing.mjs" "$dest/" &&
cp -R "$srcdir/tests/e2e" "$dest/e2e" &&
cp -R "$srcdir/tests/agents" "$dest/agents" &&
cp -R "$srcdir/extension" "$dest/extension" &&
chmod -R u+w "$dest/e2e" "$dest/agents" "$dest/extension" "$dest/package.json" "$dest/package-lock.json" "$dest/timing.mjs" ||
	exit 99

# Install the SDK only when it is missing or the lock changed.
. "$srcdir/tests/npm-ci.sh"
npm_ci_once "$dest" e2e.sh || exit 99

E2E_EXTENSION=$dest/extension
# Screenshots the tests save for people to look at (not compared).
E2E_ARTEFACTS=${E2E_ARTEFACTS:-$builddir/tests/e2e-artefacts}
mkdir -p "$E2E_ARTEFACTS" || exit 99
export BRIDGE_BIN CHROMIUM E2E_EXTENSION E2E_ARTEFACTS

cd "$dest" || exit 99
# E2E_CONCURRENCY browsers at a time (default 2), each test file with its
# own (--test-concurrency is Node 20.10 and later; before, the default).
concurrency=
"$NODE" --test-concurrency=1 -e 0 >/dev/null 2>&1 && concurrency=--test-concurrency=${E2E_CONCURRENCY:-2}
# E2E_SCRIPT=e2e/bench-agents.mjs runs one script (a benchmark), not the tests.
if [ -n "${E2E_SCRIPT:-}" ]; then
	"$NODE" "$E2E_SCRIPT"
	exit $?
fi
runs=${E2E_RUNS:-1}
i=1
while [ "$i" -le "$runs" ]; do
	[ "$runs" -gt 1 ] && echo "e2e.sh: run $i of $runs" >&2
	# shellcheck disable=SC2086 # E2E_FILES is a list of files (default: all)
	"$NODE" --test $concurrency --test-reporter=spec --test-reporter-destination=stdout \
		--test-reporter="$srcdir/tests/file-times.mjs" --test-reporter-destination="$builddir/tests/e2e.sh.file-times" \
		${E2E_FILES:-e2e/*.test.mjs} || exit 1
	i=$((i + 1))
done
exit 0
