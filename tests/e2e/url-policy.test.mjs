// End-to-end: the tools open and read web pages only. Local files (the
// host's token among them), browser pages and extension pages are refused
// with URL_NOT_ALLOWED; allow_file_urls lets files through, except the
// host's own directories.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { EXTENSION_ID, startBridge, until } from './harness.mjs';

// A local HTML file with a secret in it.
const dir = mkdtempSync(join(tmpdir(), 'bb-files-'));
const secretFile = join(dir, 'secret.html');
writeFileSync(secretFile, '<!doctype html><title>Secret</title><p>SECRET-42</p><button>Local button</button>');

// Opens a URL behind the tools' back; resolves to its tab id, as the tools know it.
async function openDirectly(b, url) {
	const before = new Set((await b.ok('manage_tabs', { action: 'list' })).data.tabs.map(t => t.id));
	await b.openDirectly(url);
	return until(async () => (await b.ok('manage_tabs', { action: 'list' })).data.tabs.find(t => !before.has(t.id))?.id,
	    { what: `the tab of ${url}` });
}

describe('pages the tools may use, by default', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('navigate_to a local file, the token above all, is refused and says how to allow files', async () => {
		const token = await b.fails('navigate_to', { url: `file://${join(b.config, 'browser-bridge', 'token')}` });
		assert.equal(token.code, 'URL_NOT_ALLOWED');
		assert.match(token.message, /local files are off/);
		assert.match(token.message, /"allow_file_urls": true/);
		const opened = await b.fails('manage_tabs', { action: 'open', url: `file://${secretFile}` });
		assert.equal(opened.code, 'URL_NOT_ALLOWED');
	});

	test('browser and extension pages are refused, the extension\'s own options page too', async () => {
		for (const url of ['chrome://settings/', `chrome-extension://${EXTENSION_ID}/options/options.html`, 'view-source:https://example.com/']) {
			const r = await b.fails('navigate_to', { url });
			assert.equal(r.code, 'URL_NOT_ALLOWED', url);
		}
	});

	test('take_screenshot of the browser\'s own page names the real cause, not DevTools', async () => {
		const tabId = await openDirectly(b, 'chrome://version/');
		const r = await b.fails('take_screenshot', { tab_id: tabId });
		assert.equal(r.code, 'URL_NOT_ALLOWED');
		assert.match(r.message, /chrome: pages .* are browser or extension pages, which the tools never open or read/);
		assert.doesNotMatch(r.message, /DevTools/);
		await b.ok('manage_tabs', { action: 'close', tab_id: tabId });
	});

	test('a tab that shows a local file cannot be read, but can be navigated away', async () => {
		const tabId = await openDirectly(b, `file://${secretFile}`);
		for (const [tool, args] of [['get_browser_state', {}], ['get_page_content', {}], ['take_screenshot', {}], ['get_console_logs', {}]]) {
			const r = await b.fails(tool, { ...args, tab_id: tabId });
			assert.equal(r.code, 'URL_NOT_ALLOWED', tool);
			assert.ok(!r.text.includes('SECRET-42'));
			assert.match(r.message, new RegExp(`^Tab ${tabId} cannot be used: file://`));
		}
		await b.ok('navigate_to', { url: b.page('index.html'), tab_id: tabId });
		await b.ok('get_browser_state', { tab_id: tabId });
	});
});

describe('pages the tools may use, with allow_file_urls', () => {
	let b;
	before(async () => {
		b = await startBridge({ settings: { allow_file_urls: true } });
	});
	after(async () => {
		await b?.close();
	});

	test('local files open, but never the host\'s own directories', async () => {
		await b.ok('navigate_to', { url: `file://${secretFile}` });
		const { text } = await b.ok('get_page_content', { format: 'text' });
		assert.match(text, /SECRET-42/);
		const token = await b.fails('navigate_to', { url: `file://${join(b.config, 'browser-bridge', 'token')}` });
		assert.equal(token.code, 'URL_NOT_ALLOWED');
		assert.match(token.message, /the Browser Bridge host's own directory/);
		const runtime = await b.fails('navigate_to', { url: `file://${join(b.runtime, 'browser-bridge', 'hosts', `${b.hostPid}.json`)}` });
		assert.equal(runtime.code, 'URL_NOT_ALLOWED');
	});

	test('a missing file says so; a directory opens as its listing', async () => {
		const missing = await b.fails('navigate_to', { url: `file://${join(dirname(secretFile), 'no-such-file.txt')}` });
		assert.equal(missing.code, 'NAVIGATION_FAILED');
		assert.match(missing.message, /no such file or directory on this computer; check the path/);
		assert.doesNotMatch(missing.message, /HTTP -1/);
		const listing = await b.ok('navigate_to', { url: `file://${dirname(secretFile)}/` });
		assert.doesNotMatch(listing.text, /HTTP|server answered/);
		const { text } = await b.ok('get_page_content', { format: 'text' });
		assert.match(text, /secret/i);
	});
});
