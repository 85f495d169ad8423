import { test } from 'node:test';
import assert from 'node:assert/strict';

import { RequestRunner, DEADLINE_MARGIN_MS, MAX_OUTBOUND_BYTES } from '../src/rpc.js';
import { BridgeError, ErrorCode, toProtocolError } from '../src/errors.js';

// A runner whose sent messages are collected; dispatch is the test's.
function runner(dispatch, options = {}) {
	const sent = [];
	const r = new RequestRunner({ send: m => sent.push(m), dispatch, ...options });
	return { r, sent };
}

const tick = (ms = 0) => new Promise(resolve => setTimeout(resolve, ms));

test('a request is answered once with its result', async () => {
	const { r, sent } = runner(async (method, params) => ({ content: [{ type: 'text', text: `${method} ${params.x}` }] }));
	r.handle({ type: 'request', id: 3, method: 'echo', params: { x: 1 }, timeout_ms: 1000 });
	await tick();
	assert.deepEqual(sent, [{ type: 'response', id: 3, result: { content: [{ type: 'text', text: 'echo 1' }] } }]);
	assert.equal(r.running.size, 0);
});

test('the host\'s client name and caller identity reach the dispatch; absent or empty ones do not', async () => {
	const contexts = [];
	const { r } = runner(async (method, params, context) => {
		contexts.push(context);
		return { content: [] };
	});
	r.handle({ type: 'request', id: 1, method: 'x', params: {}, timeout_ms: 1000, client: 'cli 1.0', caller: 'ab12' });
	r.handle({ type: 'request', id: 2, method: 'x', params: {}, timeout_ms: 1000, client: '', caller: '' });
	r.handle({ type: 'request', id: 3, method: 'x', params: {}, timeout_ms: 1000, caller: 7 });
	await tick();
	assert.deepEqual(contexts.map(c => [c.client, c.caller]), [['cli 1.0', 'ab12'], [undefined, undefined], [undefined, undefined]]);
});

test('a thrown BridgeError becomes an error response with its code', async () => {
	const { r, sent } = runner(async () => {
		throw new BridgeError(ErrorCode.TAB_NOT_FOUND, 'Tab 4 does not exist.');
	});
	r.handle({ type: 'request', id: 1, method: 'x', params: {}, timeout_ms: 1000 });
	await tick();
	assert.deepEqual(sent[0].error, { code: 'TAB_NOT_FOUND', message: 'Tab 4 does not exist.' });
});

test('other exceptions become INTERNAL with their text', async () => {
	const { r, sent } = runner(() => {
		throw new TypeError('boom');
	});
	r.handle({ type: 'request', id: 1, method: 'x', timeout_ms: 1000 });
	await tick();
	assert.equal(sent[0].error.code, 'INTERNAL');
	assert.match(sent[0].error.message, /boom/);
	assert.equal(toProtocolError('plain').code, 'INTERNAL');
});

test('a cancelled request aborts its signal and is never answered', async () => {
	let signal;
	let finish;
	const { r, sent } = runner((method, params, context) => {
		signal = context.signal;
		return new Promise(resolve => { finish = resolve; });
	});
	r.handle({ type: 'request', id: 9, method: 'slow', timeout_ms: 5000 });
	r.handle({ type: 'cancel', id: 9, reason: 'cancelled' });
	assert.equal(signal.aborted, true);
	assert.equal(signal.reason.code, 'CANCELLED');
	finish({ content: [] });
	await tick();
	assert.deepEqual(sent, []);
	r.handle({ type: 'cancel', id: 9 });	/* unknown now: ignored */
});

test('a request that outlives its timeout is answered TIMEOUT before the host gives up', async () => {
	let signal;
	const { r, sent } = runner((method, params, context) => {
		signal = context.signal;
		assert.ok(context.deadline <= Date.now() + 400 - DEADLINE_MARGIN_MS + 5);
		return new Promise(() => {});
	});
	r.handle({ type: 'request', id: 2, method: 'wait_for', timeout_ms: 400 });
	/* Timers fire in the order they are due, however busy the machine:
	   an answer sent before this 300 ms one fired was due before the host's 400. */
	await tick(300);
	assert.equal(sent.length, 1);
	assert.equal(sent[0].error.code, 'TIMEOUT');
	assert.match(sent[0].error.message, /wait_for did not finish within 400 ms/);
	assert.equal(signal.aborted, true);
});

test('progress goes out only while running and only increasing', async () => {
	let context;
	let finish;
	const { r, sent } = runner((method, params, c) => {
		context = c;
		return new Promise(resolve => { finish = resolve; });
	});
	r.handle({ type: 'request', id: 4, method: 'nav', timeout_ms: 1000 });
	context.progress(1, 3, 'Loading');
	context.progress(1, 3, 'again');
	context.progress(2);
	finish({ content: [] });
	await tick();
	context.progress(3, 3);
	assert.deepEqual(sent, [
		{ type: 'progress', id: 4, progress: 1, total: 3, message: 'Loading' },
		{ type: 'progress', id: 4, progress: 2 },
		{ type: 'response', id: 4, result: { content: [] } },
	]);
});

test('a request without a method gets INVALID_ARGUMENT; one without an id is dropped', async () => {
	const { r, sent } = runner(async () => ({}));
	r.handle({ type: 'request', id: 5 });
	r.handle({ type: 'request', method: 'x' });
	await tick();
	assert.equal(sent.length, 1);
	assert.equal(sent[0].error.code, 'INVALID_ARGUMENT');
});

test('a duplicate request id while running is ignored', async () => {
	let calls = 0;
	const { r } = runner(() => {
		calls++;
		return new Promise(() => {});
	});
	r.handle({ type: 'request', id: 6, method: 'x', timeout_ms: 10000 });
	r.handle({ type: 'request', id: 6, method: 'x', timeout_ms: 10000 });
	assert.equal(calls, 1);
	r.close();
});

test('results too large for the host become MESSAGE_TOO_LARGE', async () => {
	const { r, sent } = runner(async (method, params) => ({ content: [{ type: 'text', text: 'é'.repeat(params.n) }] }), { maxBytes: 1000 });
	r.handle({ type: 'request', id: 8, method: 'big', params: { n: 480 }, timeout_ms: 10000 });
	r.handle({ type: 'request', id: 9, method: 'big', params: { n: 400 }, timeout_ms: 10000 });
	await tick(10);
	assert.equal(sent[0].error.code, 'MESSAGE_TOO_LARGE', 'counted in UTF-8 bytes, not characters');
	assert.match(sent[0].error.message, /1000 bytes/);
	assert.ok(sent[1].result);
	assert.equal(MAX_OUTBOUND_BYTES, 64 * 1024 * 1024);
});

test('calls to the host are matched by id', async () => {
	const { r, sent } = runner(async () => ({}));
	const status = r.call('status');
	const failing = r.call('nope');
	assert.deepEqual(sent.map(m => [m.type, m.id, m.method]), [['request', 'e1', 'status'], ['request', 'e2', 'nope']]);
	r.handle({ type: 'response', id: 'e2', error: { code: 'UNKNOWN_METHOD', message: 'no' } });
	r.handle({ type: 'response', id: 'e1', result: { version: '0.1.0' } });
	assert.deepEqual(await status, { version: '0.1.0' });
	await assert.rejects(failing, error => error.code === 'UNKNOWN_METHOD');
});

test('close aborts running work and rejects calls', async () => {
	let signal;
	const { r, sent } = runner((m, p, c) => {
		signal = c.signal;
		return new Promise(() => {});
	});
	r.handle({ type: 'request', id: 1, method: 'x', timeout_ms: 10000 });
	const call = r.call('status');
	r.close();
	assert.equal(signal.aborted, true);
	await assert.rejects(call, error => error.code === 'CANCELLED');
	await tick();
	assert.equal(sent.filter(m => m.type === 'response').length, 0);
});
