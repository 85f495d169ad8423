// End-to-end: get_console_logs (every level, uncaught errors with their
// source, filters, max, since_last_call, across navigations), and a page
// that tries to forge entries.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { startBridge, until } from './harness.mjs';

describe('get_console_logs', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('every level and the uncaught error, with time and source, filtered and since the last call', async () => {
		const { tabId, url } = await b.open('console.html');
		const all = await until(async () => {
			const r = await b.ok('get_console_logs', {});
			return r.data.messages.some(m => /uncaught boom/.test(m.text)) && r;
		}, { what: 'the uncaught error in the console logs' });
		const texts = all.data.messages.map(m => `${m.level} ${m.text}`);
		for (const expected of ['debug debug message 1', 'log log message {"a":1}', 'info info message', 'warn warn message', 'error error message'])
			assert.ok(texts.includes(expected), `${expected} in ${JSON.stringify(texts)}`);
		const uncaught = all.data.messages.find(m => /uncaught boom/.test(m.text));
		assert.equal(uncaught.level, 'error');
		assert.equal(uncaught.text, 'Uncaught Error: uncaught boom');
		assert.ok(uncaught.url.startsWith(url.split('?')[0]), `source ${uncaught.url}`);
		assert.ok(Number.isInteger(uncaught.line) && uncaught.line > 0);
		const warned = all.data.messages.find(m => m.text === 'warn message');
		assert.equal(warned.line, 10, 'the console call\'s own line, not the wrapper\'s');
		assert.ok(!Number.isNaN(Date.parse(warned.time)));
		assert.match(all.text, new RegExp(`console messages kept for tab ${tabId}, oldest first:`));
		assert.match(all.text, /\d\d:\d\d:\d\d\.\d{3} \[warn\] warn message \(http/);

		const errors = await b.ok('get_console_logs', { level: ['error'] });
		assert.deepEqual(errors.data.messages.map(m => m.text), ['error message', 'Uncaught Error: uncaught boom']);
		const newest = await b.ok('get_console_logs', { max: 2 });
		assert.equal(newest.data.messages.length, 2);
		assert.equal(newest.data.messages[1].text, 'Uncaught Error: uncaught boom');
		assert.match(newest.text, /the newest 2 of \d+; raise max for more/);

		const none = await b.ok('get_console_logs', { since_last_call: true });
		assert.equal(none.data.messages.length, 0, 'nothing new since the last call');
		assert.match(none.text, /No console messages new since the last call/);
		await b.evaluate(url, 'document.querySelector("button").click()');
		const fresh = await until(async () => {
			const r = await b.ok('get_console_logs', { since_last_call: true });
			return r.data.messages.length > 0 && r;
		}, { what: 'the click\'s message' });
		assert.deepEqual(fresh.data.messages.map(m => m.text), ['clicked 1']);
	});

	test('messages survive a navigation and the next page adds its own', async () => {
		const { tabId } = await b.open('console.html');
		await until(async () => (await b.ok('get_console_logs', { tab_id: tabId })).data.messages.some(m => /uncaught boom/.test(m.text)),
		    { what: 'the first page\'s messages' });
		const first = (await b.ok('get_console_logs', { tab_id: tabId, max: 1000 })).data.messages.map(m => m.text);
		await b.open('console.html');
		// The second page logs what the first did; wait for all of it (a
		// slow run may deliver its uncaught error before its last logs).
		const after = await until(async () => {
			const r = await b.ok('get_console_logs', { tab_id: tabId, max: 1000 });
			return r.data.messages.filter(m => /uncaught boom/.test(m.text)).length >= 2 &&
			    r.data.messages.length >= first.length + 6 && r;
		}, { what: 'the second page\'s messages after the first page\'s' });
		assert.deepEqual(after.data.messages.slice(0, first.length).map(m => m.text), first,
		    'the first page\'s messages are still there, first');
	});

	test('a page cannot forge entries: no fake events, no stolen channel, no page-written source', async () => {
		await b.ok('get_console_logs', {});	// what the earlier pages logged counts as read
		const { tabId } = await b.open('console-forge.html');
		const logs = await until(async () => {
			const r = await b.ok('get_console_logs', { tab_id: tabId, since_last_call: true });
			return r.data.messages.some(m => m.text.startsWith('done')) && r;
		}, { what: 'the forgery page\'s last message' });
		const texts = logs.data.messages.map(m => m.text);
		assert.deepEqual(texts, ['honest message', 'message with a page-written stack', 'done without the channel']);
		const honest = logs.data.messages[0];
		assert.match(honest.url, /\/console-forge\.html(\?|$)/);
		assert.equal(logs.data.messages[1].url, undefined, 'a page-written stack names no source');
		assert.doesNotMatch(logs.text, /bank\.example/);
	});
});
