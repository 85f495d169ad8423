#!/bin/sh
# Runs the extension's unit tests (extension/test/*.test.mjs): the pure
# logic of the extension (key sequences, refs, page-state building and
# formatting, the RPC runner, chunks, queues, wording) under `node --test`,
# without a browser. `make check` runs it with BRIDGE_SRCDIR and NODE set.
# Exit 77 (skip) without Node 20 or later.

set -u

srcdir=${BRIDGE_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
NODE=${NODE:-}
[ -n "$NODE" ] || NODE=$(command -v node 2>/dev/null) || NODE=

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

# The tests only read the source tree, so they run in place (also under distcheck).
cd "$srcdir/extension" || exit 99
exec "$NODE" --test --test-reporter=spec test/*.test.mjs
