// End-to-end: a navigation that never commits (a server that never
// answers) ends at the caller's timeout, and leaves the tab usable: the
// next navigations in the same tab load normally. view-source:, which once
// wedged a tab this way, is now refused before it starts.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { startBridge } from './harness.mjs';
import { scaled } from '../timing.mjs';

describe('a navigation that never commits', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('times out when the caller said, and the tab stays usable', async () => {
		const { tabId } = await b.open('index.html');
		for (let i = 0; i < 2; i++) {
			const started = Date.now();
			const error = await b.fails('navigate_to', { url: b.page('hang'), tab_id: tabId, timeout_ms: 1500 });
			const took = Date.now() - started;
			assert.equal(error.code, 'TIMEOUT');
			// The caller's timeout, not the host's longer one (timeout_ms + 5000), ended the wait.
			assert.doesNotMatch(error.message, /The extension did not answer/);
			assert.ok(took < scaled(6000), `navigate_to with timeout_ms 1500 answered after ${took} ms`);
			const ok = await b.ok('navigate_to', { url: b.page('form.html'), tab_id: tabId, timeout_ms: 10000 });
			assert.equal(ok.data.tab_id, tabId);
			const state = await b.state({ tab_id: tabId });
			assert.match(state.text, /Every input type|Text/);
		}
	});

	test('view-source:, which used to wedge the tab, is refused at once and the tab stays usable', async () => {
		const { tabId } = await b.open('index.html');
		const started = Date.now();
		const error = await b.fails('navigate_to', { url: `view-source:${b.page('index.html')}`, tab_id: tabId, timeout_ms: 60000 });
		assert.equal(error.code, 'URL_NOT_ALLOWED');
		assert.ok(Date.now() - started < scaled(5000), 'refused before any wait');
		await b.ok('navigate_to', { url: b.page('form.html'), tab_id: tabId });
	});
});
