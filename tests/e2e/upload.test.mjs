// End-to-end: upload_file puts files from the upload roots into a file
// input, and refuses files outside them, through links too.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startBridge } from './harness.mjs';

describe('upload_file', () => {
	const dir = mkdtempSync(join(tmpdir(), 'bb-upload-'));
	const roots = join(dir, 'uploads');
	const outside = join(dir, 'private');
	let b;
	before(async () => {
		mkdirSync(roots);
		mkdirSync(outside);
		writeFileSync(join(roots, 'a.txt'), 'alpha');
		writeFileSync(join(roots, 'b.txt'), 'beta');
		writeFileSync(join(outside, 'secret.txt'), 'SECRET');
		symlinkSync(join(outside, 'secret.txt'), join(roots, 'link.txt'));
		b = await startBridge({ settings: { upload_roots: [roots] } });
	});
	after(async () => {
		await b?.close();
		rmSync(dir, { recursive: true, force: true });
	});

	test('files under the upload roots reach the page\'s file input', async () => {
		const { url } = await b.open('upload.html');
		const s = await b.state();
		const r = await b.ok('upload_file', { ref: s.ref('input', 'Attachment'), paths: [join(roots, 'a.txt'), join(roots, 'b.txt')] });
		assert.match(r.text, /^Chose "a\.txt", "b\.txt" in e\d+/);
		assert.equal(await b.evaluate(url, 'document.getElementById("chosen").textContent'), 'a.txt=alpha, b.txt=beta');
	});

	test('a file outside the roots, or a link out of them, is refused; so are two files for a single input', async () => {
		await b.open('upload.html');
		const s = await b.state();
		for (const path of [join(outside, 'secret.txt'), join(roots, 'link.txt'), join(b.config, 'browser-bridge', 'token')]) {
			const r = await b.fails('upload_file', { ref: s.ref('input', 'Attachment'), paths: [path] });
			assert.equal(r.code, 'INVALID_ARGUMENT', path);
			assert.match(r.message, /outside the directories uploads may come from \("upload_roots" in config\.json/);
		}
		const missing = await b.fails('upload_file', { ref: s.ref('input', 'Attachment'), paths: [join(roots, 'nope.txt')] });
		assert.match(missing.message, /No such file or directory/);
		const single = await b.fails('upload_file', { ref: s.ref('input', 'Avatar'), paths: [join(roots, 'a.txt'), join(roots, 'b.txt')] });
		assert.match(single.message, /takes one file, not 2/);
		const notFile = await b.fails('upload_file', { ref: s.ref('button', 'Send'), paths: [join(roots, 'a.txt')] });
		assert.equal(notFile.code, 'NOT_EDITABLE');
		assert.match(notFile.message, /it is not a file input/);
	});
});
