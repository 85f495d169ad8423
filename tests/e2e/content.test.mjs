// End-to-end: take_screenshot (viewport, full page, element, formats,
// max_width) and evaluate_script (off by default, then on through the
// extension's options page).

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { EXTENSION_ID, startBridge } from './harness.mjs';

// The width and height in a PNG's IHDR chunk.
function pngSize(base64) {
	const bytes = Buffer.from(base64, 'base64');
	assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG', 'the image is a PNG');
	return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

// The image content of a result.
function imageOf(result) {
	const image = result.content.find(c => c.type === 'image');
	assert.ok(image, `an image in ${JSON.stringify(result.content.map(c => c.type))}`);
	return image;
}

describe('content tools', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('save_pdf prints the tab to a PDF returned as an embedded resource', async () => {
		const { tabId } = await b.open('tall.html');
		const r = await b.call('save_pdf', { print_background: true });
		assert.equal(r.isError, undefined, JSON.stringify(r).slice(0, 300));
		const [text, pdf] = r.content;
		assert.match(text.text, new RegExp(`^Printed tab ${tabId} ".*" to a (\\d+)-page PDF \\(\\d+ KB\\)\\.$`));
		assert.equal(pdf.type, 'resource');
		assert.equal(pdf.resource.mimeType, 'application/pdf');
		const bytes = Buffer.from(pdf.resource.blob, 'base64');
		assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
		assert.ok(r.structuredContent.pages >= 2, 'the tall page takes several pages');
		assert.equal(Number(/(\d+)-page/.exec(text.text)[1]), r.structuredContent.pages);
	});

	test('take_screenshot captures the viewport, the whole tall page and max_width', async () => {
		const { url } = await b.open('tall.html');
		const page = await b.evaluate(url, '({ h: document.documentElement.scrollHeight, w: document.documentElement.scrollWidth, ' +
		    'vh: innerHeight, vw: innerWidth, dpr: devicePixelRatio })');
		assert.ok(page.h > page.vh, 'the fixture is taller than the viewport');
		const viewport = await b.ok('take_screenshot', {});
		const vsize = pngSize(imageOf(viewport.result).data);
		assert.equal(imageOf(viewport.result).mimeType, 'image/png');
		assert.equal(vsize.height, Math.round(page.vh * page.dpr));
		const full = await b.ok('take_screenshot', { full_page: true });
		const fsize = pngSize(imageOf(full.result).data);
		assert.equal(fsize.height, Math.round(page.h * page.dpr), 'the full page, not the viewport');
		assert.equal(fsize.width, Math.round(page.w * page.dpr));
		assert.deepEqual({ width: full.data.width, height: full.data.height }, fsize);
		assert.match(full.text, /Screenshot of the full page of tab \d+/);
		const small = await b.ok('take_screenshot', { full_page: true, max_width: 320 });
		const ssize = pngSize(imageOf(small.result).data);
		assert.ok(ssize.width <= 320 && ssize.width >= 318, `width ${ssize.width} fits 320`);
		/* Chromium rounds the scaled capture a little differently from the unscaled one. */
		assert.ok(Math.abs(ssize.height - fsize.height * ssize.width / fsize.width) <= fsize.height * 0.02, `the aspect ratio is kept: ${JSON.stringify({ ssize, fsize })}`);
		assert.match(small.text, /scaled to \d+% to fit max_width 320/);
	});

	test('take_screenshot of one element matches its box; jpeg and webp', async () => {
		const { url } = await b.open('tall.html');
		const s = await b.state({ full_page: true });
		const ref = s.ref('button', 'Red box');
		const dpr = await b.evaluate(url, 'devicePixelRatio');
		const shot = await b.ok('take_screenshot', { ref });
		const size = pngSize(imageOf(shot.result).data);
		assert.deepEqual(size, { width: Math.round(200 * dpr), height: Math.round(120 * dpr) });
		const jpeg = imageOf((await b.ok('take_screenshot', { format: 'jpeg', quality: 50 })).result);
		assert.equal(jpeg.mimeType, 'image/jpeg');
		assert.equal(Buffer.from(jpeg.data, 'base64').readUInt16BE(0), 0xffd8, 'a JPEG');
		const webp = imageOf((await b.ok('take_screenshot', { format: 'webp', max_width: 100 })).result);
		assert.equal(webp.mimeType, 'image/webp');
		assert.equal(Buffer.from(webp.data, 'base64').subarray(8, 12).toString('latin1'), 'WEBP');
	});

	test('evaluate_script is off by default and says how to enable it', async () => {
		await b.open('tall.html');
		const error = await b.fails('evaluate_script', { expression: '1 + 1' });
		assert.match(error.message, /evaluate_script is off/);
		assert.match(error.message, /"evaluate_script": true.*config\.json.*~\/\.config\/browser-bridge\//);
		assert.match(error.message, /options page/);
	});

	test('evaluate_script, enabled on the options page: values, functions with args, promises, errors', async () => {
		const options = `chrome-extension://${EXTENSION_ID}/options/options.html`;
		await b.openDirectly(options);
		await b.evaluate(options, `new Promise(r => { const box = document.getElementById('evaluate_script');
		    box.click(); setTimeout(() => r(box.checked), 200); })`);
		assert.equal(await b.evaluate(options, 'chrome.storage.local.get("evaluate_script").then(s => s.evaluate_script)'), true);
		const { url } = await b.open('tall.html');
		await b.evaluate(url, 'window.answer = 41');
		const value = await b.ok('evaluate_script', { expression: 'window.answer + 1' });
		assert.equal(value.data.result, 42, 'runs in the main world, seeing page globals');
		assert.equal(value.text, 'Result: 42');
		const fn = await b.ok('evaluate_script', { expression: 'function (a, b) { return { sum: a + b, title: document.title }; }', args: [2, 3] });
		assert.deepEqual(fn.data.result, { sum: 5, title: 'Tall fixture' });
		const arrow = await b.ok('evaluate_script', { expression: '(s) => s.toUpperCase()', args: ['hi'] });
		assert.equal(arrow.data.result, 'HI');
		const promise = await b.ok('evaluate_script', { expression: 'new Promise(r => setTimeout(() => r([1, "two"]), 50))' });
		assert.deepEqual(promise.data.result, [1, 'two']);
		const thrown = await b.call('evaluate_script', { expression: 'function boom() { throw new Error("kaboom"); }' });
		assert.equal(thrown.isError, true);
		assert.match(thrown.content[0].text, /The script threw: Error: kaboom\n.*at boom/s);
		const statement = await b.call('evaluate_script', { expression: 'nosuchname.x' });
		assert.equal(statement.isError, true);
		assert.match(statement.content[0].text, /ReferenceError: nosuchname is not defined/);
	});
});
