#!/bin/sh
# Runs the host's integration tests (tests/integration/*.test.mjs) with Node
# and the official MCP SDK against the built browser-bridge. `make check`
# runs it with BRIDGE_BIN, BRIDGE_SRCDIR, BRIDGE_BUILDDIR, NODE, NPM and
# VALGRIND set. Exit 77 (skip) without Node; npm missing or `npm ci`
# failing is an error (99), never a skip, so make check fails.
# INTEGRATION_VALGRIND=1 runs every host under valgrind;
# INTEGRATION_FILES="integration/calls.test.mjs" runs only the files named;
# INTEGRATION_CONCURRENCY=N runs N files at a time (default: Node's, one
# less than the CPUs).

set -u

srcdir=${BRIDGE_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${BRIDGE_BUILDDIR:-$(pwd)}
BRIDGE_BIN=${BRIDGE_BIN:-$builddir/browser-bridge}
NODE=${NODE:-}
NPM=${NPM:-}
VALGRIND=${VALGRIND:-}

if [ -z "$NODE" ]; then
	cat >&2 <<'EOF'
integration.sh: skipped: Node.js was not found when configure ran.
Install Node 20 or later (Debian/Ubuntu: apt-get install nodejs npm;
or see https://nodejs.org/en/download), then run configure again.
EOF
	exit 77
fi
if ! "$NODE" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
	echo "integration.sh: skipped: $NODE is Node $("$NODE" --version); the tests need Node 20 or later" >&2
	exit 77
fi
if [ ! -x "$BRIDGE_BIN" ]; then
	echo "integration.sh: $BRIDGE_BIN is missing: run make first" >&2
	exit 99
fi

# Work in the build tree: the source tree may be read-only (distcheck).
dest=$builddir/tests/node
mkdir -p "$dest" || exit 99
rm -rf "$dest/integration" "$dest/package.json" "$dest/package-lock.json" "$dest/timing.mjs"
mkdir "$dest/integration" &&
cp "$srcdir/tests/package.json" "$srcdir/tests/package-lock.json" "$srcdir/tests/timing.mjs" "$dest/" &&
cp "$srcdir"/tests/integration/*.mjs "$srcdir"/tests/integration/*.sh "$dest/integration/" &&
chmod -R u+w "$dest/integration" "$dest/package.json" "$dest/package-lock.json" "$dest/timing.mjs" ||
	exit 99

# Install the SDK only when it is missing or the lock changed.
. "$srcdir/tests/npm-ci.sh"
npm_ci_once "$dest" integration.sh || exit 99

BRIDGE_WRAPPER=${BRIDGE_WRAPPER:-}
BRIDGE_SLOW=${BRIDGE_SLOW:-}
if [ "${INTEGRATION_VALGRIND:-}" = 1 ]; then
	if [ -z "$VALGRIND" ]; then
		VALGRIND=$(command -v valgrind) || {
			echo "integration.sh: skipped: INTEGRATION_VALGRIND=1 but valgrind is not installed" >&2
			exit 77
		}
	fi
	BRIDGE_WRAPPER="$VALGRIND --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --quiet"
	BRIDGE_SLOW=1
fi
BRIDGE_SRCDIR=$srcdir
export BRIDGE_BIN BRIDGE_WRAPPER BRIDGE_SLOW BRIDGE_SRCDIR

cd "$dest" || exit 99
# INTEGRATION_SCRIPT=integration/soak.mjs runs one script (`make soak`), not the tests.
if [ -n "${INTEGRATION_SCRIPT:-}" ]; then
	"$NODE" "$INTEGRATION_SCRIPT"
	exit $?
fi
concurrency=
[ -z "${INTEGRATION_CONCURRENCY:-}" ] || concurrency=--test-concurrency=$INTEGRATION_CONCURRENCY
# Each file's time goes to tests/integration.sh.file-times (tests/file-times.mjs).
# shellcheck disable=SC2086 # INTEGRATION_FILES is a list of files (default: all)
"$NODE" --test $concurrency --test-reporter=spec --test-reporter-destination=stdout \
	--test-reporter="$srcdir/tests/file-times.mjs" --test-reporter-destination="$builddir/tests/integration.sh.file-times" \
	${INTEGRATION_FILES:-integration/*.test.mjs}
exit $?
