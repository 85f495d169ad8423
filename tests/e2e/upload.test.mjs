// End-to-end: upload_file puts private copies of files from the upload
// roots into a file input, and refuses files outside them, links (hard or
// symbolic) too; a file swapped after the check cannot reach the page.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { linkSync, mkdtempSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
		writeFileSync(join(outside, 'id_rsa'), 'PRIVATE KEY');
		linkSync(join(outside, 'id_rsa'), join(roots, 'hard.txt'));
		writeFileSync(join(roots, 'c.txt'), 'gamma');
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
		/* The page got the host's private copies, not the user's paths. */
		const copies = join(b.runtime, 'browser-bridge', 'uploads', String(b.hostPid));
		for (const file of r.data.files)
			assert.ok(file.startsWith(`${copies}/`), file);
	});

	test('a file outside the roots, or a link out of them, is refused; so are two files for a single input', async () => {
		await b.open('upload.html');
		const s = await b.state();
		for (const path of [join(outside, 'secret.txt'), join(b.config, 'browser-bridge', 'token')]) {
			const r = await b.fails('upload_file', { ref: s.ref('input', 'Attachment'), paths: [path] });
			assert.equal(r.code, 'INVALID_ARGUMENT', path);
			assert.match(r.message, /outside the directories uploads may come from \("upload_roots" in config\.json/);
		}
		const link = await b.fails('upload_file', { ref: s.ref('input', 'Attachment'), paths: [join(roots, 'link.txt')] });
		assert.match(link.message, /link\.txt is a symbolic link; upload_file takes a file by its own path/);
		const hard = await b.fails('upload_file', { ref: s.ref('input', 'Attachment'), paths: [join(roots, 'hard.txt')] });
		assert.match(hard.message, /hard\.txt has 2 hard links, and upload_file takes only a file with one/);
		const missing = await b.fails('upload_file', { ref: s.ref('input', 'Attachment'), paths: [join(roots, 'nope.txt')] });
		assert.match(missing.message, /No such file or directory/);
		const single = await b.fails('upload_file', { ref: s.ref('input', 'Avatar'), paths: [join(roots, 'a.txt'), join(roots, 'b.txt')] });
		assert.match(single.message, /takes one file, not 2/);
		const notFile = await b.fails('upload_file', { ref: s.ref('button', 'Send'), paths: [join(roots, 'a.txt')] });
		assert.equal(notFile.code, 'NOT_EDITABLE');
		assert.match(notFile.message, /it is not a file input/);
	});

	test('a file swapped for a link after the check: the page reads what was checked', async () => {
		const { url } = await b.open('upload.html');
		const s = await b.state();
		await b.ok('upload_file', { ref: s.ref('input', 'Avatar'), paths: [join(roots, 'c.txt')] });
		/* Chrome reads a chosen file only when the page does. */
		renameSync(join(roots, 'c.txt'), join(roots, 'c.old'));
		symlinkSync(join(outside, 'secret.txt'), join(roots, 'c.txt'));
		assert.equal(await b.evaluate(url, 'document.getElementById("avatar").files[0].text()'), 'gamma');
	});
});
