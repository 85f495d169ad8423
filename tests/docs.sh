#!/bin/sh
# Fails when a generated document differs from what `make docs` writes:
# docs/commands.md from the command table (browser-bridge help --markdown),
# docs/tools.md from the tool catalogue (catalogue/*.json); and when
# README.md's documentation list misses a page of docs/. `make check`
# runs it with BRIDGE_BIN, BRIDGE_SRCDIR, NODE and CATALOGUE (the
# Makefile's ordered list) set. Exit 77 (skip) only when Node.js is missing,
# after the commands were checked.

set -u

srcdir=${BRIDGE_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
BRIDGE_BIN=${BRIDGE_BIN:-./browser-bridge}
expected=$(mktemp) || exit 99
trap 'rm -f "$expected"' EXIT

"$BRIDGE_BIN" help --markdown >"$expected" || exit 1
if ! diff -u "$srcdir/docs/commands.md" "$expected"; then
	echo "docs.sh: docs/commands.md is out of date with host/cli.c: run make docs, then commit docs/commands.md" >&2
	exit 1
fi
echo "docs.sh: docs/commands.md matches the command table"

unlinked=
for doc in "$srcdir"/docs/*.md; do
	name=docs/$(basename "$doc")
	grep -qF "]($name)" "$srcdir/README.md" || unlinked="$unlinked $name"
done
if [ -n "$unlinked" ]; then
	echo "docs.sh: README.md's documentation list does not link:$unlinked; add a line for each" >&2
	exit 1
fi
echo "docs.sh: README.md links every page of docs/"

NODE=${NODE:-}
[ -n "$NODE" ] || NODE=$(command -v node 2>/dev/null) || NODE=
if [ -z "$NODE" ]; then
	echo "docs.sh: SKIPPED: Node.js was not found when configure ran, so docs/tools.md was not checked against the catalogue; install Node 20 or later and run configure again" >&2
	exit 77
fi
if [ -z "${CATALOGUE:-}" ]; then
	echo "docs.sh: CATALOGUE is not set: run it through make check" >&2
	exit 99
fi

cd "$srcdir" || exit 99
# shellcheck disable=SC2086 # CATALOGUE is a list of file names
"$NODE" scripts/tools-doc.mjs $CATALOGUE >"$expected" || exit 1
if ! diff -u docs/tools.md "$expected"; then
	echo "docs.sh: docs/tools.md is out of date with catalogue/*.json: run make docs, then commit docs/tools.md" >&2
	exit 1
fi
echo "docs.sh: docs/tools.md matches the catalogue ($(echo $CATALOGUE | wc -w) tools)"
