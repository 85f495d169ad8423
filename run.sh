#!/bin/sh
# Builds Browser Bridge (installing missing Debian packages as root) and runs
# it: the host with its MCP endpoint on 127.0.0.1, printed with the token and
# a ready client configuration. Ctrl-C stops everything.
set -eu
cd "$(dirname "$0")"
top=$(pwd)

scripts/deps.sh build
./autogen.sh >/dev/null 2>&1 || ./autogen.sh
mkdir -p _build-main
(cd _build-main && { [ -f Makefile ] || "$top/configure" -q; } &&
	make -s -j"$(nproc 2>/dev/null || echo 2)" browser-bridge)
exec node scripts/run-fake.mjs "$top/_build-main/browser-bridge"
