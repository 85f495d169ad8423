#!/usr/bin/env node
// Writes the tool catalogue exactly as the host sends it in its welcome
// (docs/protocol.md, section 2) to the file named on the command line: the
// built host (BRIDGE_BIN) is started the way Chrome starts it, through the
// integration tests' fake extension, and its welcome's catalogue is kept
// as it came. The extension's unit tests of the agents' tools read that
// file (extension/test/host-catalogue.mjs), never a catalogue of their own,
// so a field the host drops or adds reaches them as it reaches the agents.
// tests/extension-unit.sh and tests/mutation.sh run it.
//
// Usage: BRIDGE_BIN=path/to/browser-bridge node tests/welcome-catalogue.mjs OUT

import { writeFileSync } from 'node:fs';

import { startHost } from './integration/fake-extension.mjs';

const out = process.argv[2];
if (out === undefined || process.argv.length > 3) {
	console.error('usage: BRIDGE_BIN=path/to/browser-bridge node tests/welcome-catalogue.mjs OUT');
	process.exit(2);
}
const host = await startHost();
try {
	if (!Array.isArray(host.welcome?.catalogue))
		throw new Error(`the host's welcome holds no catalogue: ${JSON.stringify(host.welcome).slice(0, 200)}`);
	writeFileSync(out, `${JSON.stringify(host.welcome.catalogue, null, 1)}\n`);
} finally {
	await host.stop();
}
