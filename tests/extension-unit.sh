#!/bin/sh
# Runs the extension's unit tests (extension/test/*.test.mjs): the pure
# logic of the extension (key sequences, refs, page-state building and
# formatting, the RPC runner, chunks, queues, wording) under `node --test`,
# without a browser, and the in-page script in a jsdom document. The tests
# of the agents' tools read the catalogue the built host sends in its
# welcome (tests/welcome-catalogue.mjs writes it; BRIDGE_WELCOME_CATALOGUE
# names the file). `make check` runs it with BRIDGE_BIN, BRIDGE_SRCDIR,
# BRIDGE_BUILDDIR, NODE and NPM set.
# Exit 77 (skip) without Node 20 or later; npm missing or `npm ci` failing
# (jsdom comes from the npm registry) is an error (99), never a skip.

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
extension-unit.sh: skipped: Node.js was not found when configure ran.
Install Node 20 or later (Debian/Ubuntu: apt-get install nodejs), then run configure again.
MSG
	exit 77
fi
if ! "$NODE" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
	echo "extension-unit.sh: skipped: $NODE is Node $("$NODE" --version); the tests need Node 20 or later" >&2
	exit 77
fi
if [ ! -x "$BRIDGE_BIN" ]; then
	echo "extension-unit.sh: $BRIDGE_BIN is missing: run make first (the tests read the catalogue the host sends)" >&2
	exit 99
fi

# jsdom goes to the build tree (the source tree may be read-only under
# distcheck); the tests run in place and find it through BRIDGE_TEST_PACKAGES.
dest=$builddir/tests/extension-unit
mkdir -p "$dest" || exit 99
cp "$srcdir/extension/test/package.json" "$srcdir/extension/test/package-lock.json" "$dest/" &&
chmod u+w "$dest/package.json" "$dest/package-lock.json" || exit 99
. "$srcdir/tests/npm-ci.sh"
npm_ci_once "$dest" extension-unit.sh || exit 99
BRIDGE_TEST_PACKAGES=$dest
BRIDGE_WELCOME_CATALOGUE=$dest/welcome-catalogue.json
export BRIDGE_TEST_PACKAGES BRIDGE_WELCOME_CATALOGUE
BRIDGE_BIN=$BRIDGE_BIN "$NODE" "$srcdir/tests/welcome-catalogue.mjs" "$BRIDGE_WELCOME_CATALOGUE" || exit 99

# Each file's time goes to tests/extension-unit.sh.file-times in the build
# tree (tests/file-times.mjs).
cd "$srcdir/extension" || exit 99
exec "$NODE" --test --test-reporter=spec --test-reporter-destination=stdout \
	--test-reporter="$srcdir/tests/file-times.mjs" --test-reporter-destination="$builddir/tests/extension-unit.sh.file-times" \
	test/*.test.mjs
