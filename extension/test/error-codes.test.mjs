// The stable error codes are listed in three places: host/errors.h, the
// extension's ErrorCode (src/errors.js) and the table in docs/protocol.md
// section 6. They agree: the host and the table name the same codes, and
// the extension has exactly the codes the table says it sends.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ErrorCode } from '../src/errors.js';

const EXTENSION = join(dirname(fileURLToPath(import.meta.url)), '..');
const TOP = join(EXTENSION, '..');

// The codes host/errors.h defines (ERR_NAME "CODE").
function hostCodes() {
	const header = readFileSync(join(TOP, 'host', 'errors.h'), 'utf8');
	return [...header.matchAll(/^#define\s+ERR_\w+\s+"([A-Z_]+)"/gm)].map(match => match[1]).sort();
}

// The rows of protocol.md's error table: code and who sends it.
function protocolTable() {
	const text = readFileSync(join(TOP, 'docs', 'protocol.md'), 'utf8');
	const section = text.slice(text.indexOf('## 6. Error codes'));
	const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| Code |')));
	return [...table.matchAll(/^\| `([A-Z_]+)` \| [^\n]* \| ([^|\n]+) \|$/gm)]
	    .map(match => ({ code: match[1], senders: match[2].split(',').map(sender => sender.trim()) }));
}

// Every ErrorCode.NAME the extension's sources use.
function usedCodes() {
	const used = new Set();
	const visit = dir => {
		for (const entry of readdirSync(dir, { withFileTypes: true })) {
			const path = join(dir, entry.name);
			if (entry.isDirectory())
				visit(path);
			else if (entry.name.endsWith('.js'))
				for (const match of readFileSync(path, 'utf8').matchAll(/\bErrorCode\.([A-Za-z_]+)/g))
					used.add(match[1]);
		}
	};
	visit(join(EXTENSION, 'src'));
	visit(join(EXTENSION, 'page'));
	for (const match of readFileSync(join(EXTENSION, 'background.js'), 'utf8').matchAll(/\bErrorCode\.([A-Za-z_]+)/g))
		used.add(match[1]);
	return [...used].sort();
}

test('host/errors.h and the protocol.md table name the same codes', () => {
	const documented = protocolTable().map(row => row.code).sort();
	assert.ok(documented.length >= 15, `the table was found (${documented.length} rows)`);
	assert.deepEqual(hostCodes(), documented);
});

test('the extension has exactly the codes the table says it sends', () => {
	const sentByExtension = protocolTable().filter(row => row.senders.includes('extension')).map(row => row.code).sort();
	assert.deepEqual(Object.keys(ErrorCode).sort(), sentByExtension);
	for (const [name, value] of Object.entries(ErrorCode))
		assert.equal(value, name, `ErrorCode.${name}`);
});

test('every ErrorCode the extension uses is defined', () => {
	const used = usedCodes();
	assert.ok(used.includes('TAB_BUSY') && used.includes('STALE_REF'), 'the sources were read');
	assert.deepEqual(used.filter(name => !(name in ErrorCode)), []);
});
