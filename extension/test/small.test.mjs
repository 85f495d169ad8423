import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ChunkAssembler } from '../src/chunks.js';
import { KeyedQueue } from '../src/tab-queue.js';
import { backoffDelay } from '../src/backoff.js';
import { clientConfig, describeDisconnect } from '../src/status.js';
import { checkUrl, httpStatusNote } from '../src/actions/navigation.js';
import { urlPolicy } from '../src/url-policy.js';
import { navigationErrorAdvice } from '../src/browser/navigation.js';
import { describeStateChange, elementLabel, modifierBits } from '../src/actions/input.js';
import { formatTabs } from '../src/actions/tabs.js';
import { describeOutcome } from '../src/browser/outcome.js';
import { isGoneError, scriptingError } from '../src/browser/page-channel.js';
import { attachFailureReason } from '../src/browser/debugger.js';

// Splits a message into chunk messages as the host does (nm-chunk.c).
function chunk(message, id, size) {
	const bytes = Buffer.from(JSON.stringify(message), 'utf8');
	const count = Math.ceil(bytes.length / size);
	const out = [];
	for (let i = 0; i < count; i++)
		out.push({ type: 'chunk', id, index: i, count, data: bytes.subarray(i * size, (i + 1) * size).toString('base64') });
	return out;
}

test('chunks are joined as bytes, even when a boundary splits a character', () => {
	const message = { type: 'request', id: 1, method: 'type_value', params: { text: 'héllo wörld 😀'.repeat(20) } };
	const a = new ChunkAssembler();
	const parts = chunk(message, 7, 5);
	let whole = null;
	for (const [i, part] of parts.entries()) {
		whole = a.add(part);
		if (i < parts.length - 1)
			assert.equal(whole, null);
	}
	assert.deepEqual(whole, message);
	assert.equal(a.pending, 0);
});

test('interleaved chunked messages are kept apart by id', () => {
	const a = new ChunkAssembler();
	const m1 = { type: 'request', id: 1, params: { s: 'one'.repeat(10) } };
	const m2 = { type: 'request', id: 2, params: { s: 'two'.repeat(10) } };
	const c1 = chunk(m1, 1, 16), c2 = chunk(m2, 2, 16);
	const done = [];
	for (let i = 0; i < Math.max(c1.length, c2.length); i++) {
		for (const c of [c1[i], c2[i]]) {
			if (c !== undefined) {
				const w = a.add(c);
				if (w !== null)
					done.push(w);
			}
		}
	}
	assert.deepEqual(done.sort((x, y) => x.id - y.id), [m1, m2]);
});

test('a chunk out of order drops the partial message', () => {
	const a = new ChunkAssembler();
	const parts = chunk({ type: 'x', v: 'y'.repeat(40) }, 3, 10);
	a.add(parts[0]);
	assert.throws(() => a.add(parts[2]), /out of order/);
	assert.equal(a.pending, 0);
	assert.throws(() => a.add({ id: 3, index: 0, count: 0, data: '' }), /malformed/);
	a.add(parts[0]);
	a.clear();
	assert.equal(a.pending, 0);
});

test('tasks on one key run one at a time, in order', async () => {
	const q = new KeyedQueue();
	const log = [];
	const task = (name, ms) => async () => {
		log.push(`start ${name}`);
		await new Promise(resolve => setTimeout(resolve, ms));
		log.push(`end ${name}`);
		return name;
	};
	const results = await Promise.all([q.run(1, task('a', 30)), q.run(1, task('b', 1)), q.run(2, task('c', 1))]);
	assert.deepEqual(results, ['a', 'b', 'c']);
	assert.ok(log.indexOf('end a') < log.indexOf('start b'));
	assert.ok(log.indexOf('end c') < log.indexOf('end a'), 'another key ran in parallel');
	assert.equal(q.size(1), 0);
});

test('a failing task does not stop the queue; an aborted one never starts', async () => {
	const q = new KeyedQueue();
	const controller = new AbortController();
	let ran = false;
	const first = q.run('t', async () => {
		await new Promise(resolve => setTimeout(resolve, 10));
		throw new Error('first failed');
	});
	const skipped = q.run('t', async () => { ran = true; }, controller.signal);
	controller.abort(new Error('cancelled'));
	const third = q.run('t', async () => 'third');
	await assert.rejects(first, /first failed/);
	await assert.rejects(skipped, /cancelled/);
	assert.equal(await third, 'third');
	assert.equal(ran, false);
});

test('a queue counts what waits or runs under each key and forgets a key once it is empty', async () => {
	const q = new KeyedQueue();
	const gates = [];
	const gated = () => new Promise(resolve => gates.push(resolve));
	const flush = () => new Promise(resolve => setImmediate(resolve));
	const first = q.run('k', gated);
	const second = q.run('k', gated);
	const failing = q.run('k', async () => { throw new Error('third failed'); });
	assert.equal(q.size('k'), 3);
	assert.equal(q.size('other'), 0);
	await flush();
	gates[0]('first');
	assert.equal(await first, 'first');
	await flush();
	assert.equal(q.size('k'), 2, 'the second waits or runs, the third waits');
	let fourthStarted = false;
	const fourth = q.run('k', async () => { fourthStarted = true; return 'fourth'; });
	await flush();
	assert.equal(fourthStarted, false, 'a task queued later still waits for the running one');
	gates[1]('second');
	assert.equal(await second, 'second');
	await assert.rejects(failing, /third failed/);
	assert.equal(await fourth, 'fourth');
	await flush();
	assert.equal(q.size('k'), 0);
	assert.equal(q.tails.size + q.counts.size, 0, 'no state kept for a key with nothing queued');
});

// The delays docs/extension.md promises, written out (not the module's constants).
test('backoff doubles from one second up to a minute, with jitter below the base', () => {
	assert.equal(backoffDelay(0, 0), 1000);
	assert.equal(backoffDelay(1, 0), 2000);
	assert.equal(backoffDelay(3, 0), 8000);
	assert.equal(backoffDelay(5, 0), 32000);
	assert.equal(backoffDelay(6, 0), 60000);
	assert.equal(backoffDelay(50, 0), 60000);
	assert.equal(backoffDelay(0, 0.5), 900);
	for (let i = 0; i < 100; i++) {
		const d = backoffDelay(2);
		assert.ok(d > 3200 - 1 && d <= 4000);
	}
});

test('disconnect reasons become advice a user can follow', () => {
	const ctx = { extensionId: 'lbgfejnjcgkdeceohflfkdiejmokjlpk', wasConnected: false };
	assert.match(describeDisconnect('Specified native messaging host not found.', ctx).detail, /browser-bridge install/);
	assert.match(describeDisconnect('Access to the specified native messaging host is forbidden.', ctx).detail,
	    /chrome-extension:\/\/lbgfejnjcgkdeceohflfkdiejmokjlpk\//);
	assert.match(describeDisconnect('Native host has exited.', { ...ctx, wasConnected: true }).summary, /stopped/);
	assert.match(describeDisconnect('Native host has exited.', ctx).detail, /log/);
	assert.match(describeDisconnect('Failed to start native messaging host.', ctx).detail, /path/);
});

test('the client configuration names the URL and the bearer token', () => {
	const withToken = JSON.parse(clientConfig({ mcpUrl: 'http://127.0.0.1:9333/mcp', auth: true, token: 'abc' }));
	assert.deepEqual(withToken, { mcpServers: { 'browser-bridge': {
		type: 'http', url: 'http://127.0.0.1:9333/mcp', headers: { Authorization: 'Bearer abc' } } } });
	const noToken = JSON.parse(clientConfig({ mcpUrl: 'u', auth: true }));
	assert.match(noToken.mcpServers['browser-bridge'].headers.Authorization, /browser-bridge token/);
	assert.equal(JSON.parse(clientConfig({ mcpUrl: 'u', auth: false })).mcpServers['browser-bridge'].headers, undefined);
	assert.deepEqual(JSON.parse(clientConfig({ mcpUrl: 'u', auth: true, token: 'abc', oauth: true })),
	    { mcpServers: { 'browser-bridge': { type: 'http', url: 'u' } } }, 'with OAuth on the client gets no key: it asks for its own');
});

test('navigate_to URLs must be absolute and not javascript:', () => {
	assert.equal(checkUrl('https://example.com', urlPolicy(undefined)).href, 'https://example.com/');
	assert.throws(() => checkUrl('example.com', urlPolicy(undefined)), error => error.code === 'INVALID_ARGUMENT' && /scheme/.test(error.message));
	assert.throws(() => checkUrl('javascript:alert(1)', urlPolicy(undefined)), error => error.code === 'INVALID_ARGUMENT');
	assert.equal(httpStatusNote(200), '');
	assert.match(httpStatusNote(404), /404 Not Found/);
	assert.match(httpStatusNote(503), /server error/);
	assert.match(navigationErrorAdvice('net::ERR_CONNECTION_REFUSED'), /server is running/);
	assert.match(navigationErrorAdvice('net::ERR_NAME_NOT_RESOLVED'), /typos/);
});

test('action wording: labels, state changes, outcomes, tabs', () => {
	assert.equal(elementLabel('e5', { role: 'button', name: 'Pay' }), 'e5 (button "Pay")');
	assert.equal(elementLabel('e5', { role: 'button', name: '' }), 'e5 (button)');
	assert.equal(elementLabel('e5', undefined), 'e5');
	assert.equal(describeStateChange('e3', { checked: false }, { checked: true }), 'e3 is now checked.');
	assert.equal(describeStateChange('e3', { expanded: false }, { expanded: true }), 'e3 is now expanded.');
	assert.equal(describeStateChange('e3', { checked: true }, { checked: true }), '');
	assert.equal(modifierBits(['Control', 'Shift']), 10);
	assert.equal(describeOutcome({ url: 'u', url_changed: false, navigated: false, new_tabs: [], dom_changed: false }),
	    'Nothing on the page changed.');
	assert.equal(describeOutcome({ url: 'u', url_changed: false, navigated: false, new_tabs: [], dom_changed: false }, { quiet: true }), '');
	assert.equal(describeOutcome({ url: 'http://x/', url_changed: true, navigated: true, new_tabs: [{ id: 4, url: 'http://y/' }], dom_changed: true }),
	    'The page navigated to http://x/. It opened tab 4 (http://y/).');
	assert.equal(describeOutcome({ url: 'http://x/#a', url_changed: true, navigated: false, new_tabs: [], dom_changed: true }),
	    'The URL changed to http://x/#a (same page).');
	assert.equal(formatTabs([{ id: 1, title: 'A', url: 'http://a/', active: true }, { id: 2, title: 'B', url: 'http://b/', active: false }]),
	    '1* "A" http://a/\n2 "B" http://b/');
	assert.equal(formatTabs([]), 'No tabs are open.');
});

test('scripting and debugger failures are named for the agent', () => {
	assert.equal(scriptingError(new Error('No tab with id: 5.'), { id: 5 }).code, 'TAB_NOT_FOUND');
	const blocked = scriptingError(new Error('Cannot access a chrome:// URL'), { id: 5, url: 'chrome://settings/' });
	assert.equal(blocked.code, 'NOT_INTERACTABLE');
	assert.match(blocked.message, /navigate_to/);
	assert.ok(isGoneError('No document with id 1234.'));
	assert.ok(!isGoneError('Something else'));
	assert.match(attachFailureReason('Another debugger is already attached to the tab with id: 3.'), /DevTools/);
});
