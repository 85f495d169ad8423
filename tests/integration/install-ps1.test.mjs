// The Windows installer (manifests/windows/install.ps1) cannot run here, so
// its syntax is checked with a real PowerShell parser: the tree-sitter
// PowerShell grammar (npm, pinned in tests/package.json), run through
// web-tree-sitter. A script that does not parse fails; so does a copy
// broken on purpose, so the check itself is shown to work.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';

import { Language, Parser } from 'web-tree-sitter';

// V8's baseline WebAssembly compiler only: the optimizing one compiles the
// grammar's module in the background, which held the process for 9 s of
// CPU (60 s and more on a loaded machine) after its tests were done, and
// parses no differently.
setFlagsFromString('--liftoff-only');

const require = createRequire(import.meta.url);
const SCRIPT = join(process.env.BRIDGE_SRCDIR, 'manifests', 'windows', 'install.ps1');

// Where the parse went wrong: each ERROR or MISSING node, as row:column.
function syntaxErrors(tree) {
	const errors = [];
	const visit = node => {
		if (node.type === 'ERROR' || node.isMissing)
			errors.push(`${node.isMissing ? 'missing' : 'error'} at ${node.startPosition.row + 1}:${node.startPosition.column + 1}`);
		for (const child of node.children)
			visit(child);
	};
	visit(tree.rootNode);
	return errors;
}

describe('install.ps1 parses as PowerShell', () => {
	let parser;
	before(async () => {
		await Parser.init();
		parser = new Parser();
		parser.setLanguage(await Language.load(require.resolve('tree-sitter-powershell/tree-sitter-powershell.wasm')));
	});

	it('the installer has no syntax error', () => {
		const text = readFileSync(SCRIPT, 'utf8');
		assert.ok(text.length > 500, 'the script is there');
		assert.deepEqual(syntaxErrors(parser.parse(text)), []);
	});

	it('a copy with an unclosed block or hashtable does not parse', () => {
		const text = readFileSync(SCRIPT, 'utf8');
		const lastBrace = text.lastIndexOf('}');
		assert.notDeepEqual(syntaxErrors(parser.parse(text.slice(0, lastBrace) + text.slice(lastBrace + 1))), []);
		assert.notDeepEqual(syntaxErrors(parser.parse(`${text}\n$Broken = @{ name = 'x'\n`)), []);
	});
});
