// Tool calls through the host: arguments and results pass unchanged, bad
// arguments stop at the host, errors, progress, cancellation and messages
// larger than Chrome's 1 MB frame limit.

import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';

import { ExtensionError, OUTBOUND_MAX, never, scaled, startHost } from './fake-extension.mjs';
import { INITIALIZE, rawCall, close, connect, eventually, mcpHeaders, opts, raw, textOf, wireEvent } from './mcp-client.mjs';

// Text that exercises JSON escaping and multi-byte UTF-8.
const AWKWARD = 'quote " backslash \\ slash / tab \t newline \n é ü 中文 😀 \u2028 <script>&amp;';

describe('tool calls', () => {
	let host;
	let client;

	before(async () => {
		host = await startHost();
		client = await connect(host);
	});

	after(async () => {
		await close(client);
		await host.stop();
	});

	it('a call\'s exact arguments reach the extension and its result comes back unchanged', async () => {
		const args = {
			ref: 'e12',
			text: AWKWARD,
			append: true,
			submit: false,
			tab_id: 2147483647,
		};
		const result = {
			content: [
				{ type: 'text', text: `Typed ${AWKWARD}` },
				{ type: 'image', data: Buffer.from('not really a png').toString('base64'), mimeType: 'image/png' },
			],
			structuredContent: {
				typed: AWKWARD,
				nested: { list: [1, 2.5, -3, null, true, 'x'], empty: {}, none: [] },
				big: 9007199254740991,
				fraction: 0.1,
			},
		};
		host.handle('type_value', (params, ctx) => {
			assert.equal(ctx.method, 'type_value');
			return result;
		});
		const before = host.requests.length;
		const got = await client.callTool({ name: 'type_value', arguments: args, _meta: { 'browser-bridge/structured': true } }, undefined, opts());
		assert.deepEqual(got, result);
		assert.equal(host.requests.length, before + 1);
		const request = host.requests.at(-1);
		assert.equal(request.method, 'type_value');
		assert.deepEqual(request.params, args);
		assert.equal(request.timeout_ms, 30000);
		assert.ok(Number.isInteger(request.id) && request.id > 0);
		assert.equal(request.client, 'integration-test 1.0.0', 'who asked, from initialize\'s clientInfo');
	});

	it('each call names its caller: the same for one session, another for another session of the same name', async () => {
		host.handle('scroll_page', () => ({ content: [{ type: 'text', text: 'Scrolled' }] }));
		const scroll = { name: 'scroll_page', arguments: { direction: 'down' } };
		const before = host.requests.length;
		await client.callTool(scroll, undefined, opts());
		assert.equal(host.requests.length, before + 1);
		const first = host.requests.at(-1).caller;
		assert.match(first, /^[0-9a-f]{32}$/);
		await client.callTool(scroll, undefined, opts());
		assert.equal(host.requests.at(-1).caller, first);
		const other = await connect(host);
		try {
			await other.callTool(scroll, undefined, opts());
			assert.equal(host.requests.length, before + 3);
			const second = host.requests.at(-1);
			assert.equal(second.client, 'integration-test 1.0.0', 'the same name');
			assert.match(second.caller, /^[0-9a-f]{32}$/);
			assert.notEqual(second.caller, first, 'another session is another caller');
		} finally {
			await close(other);
		}
	});

	it('the model gets only the text: structuredContent stays out unless the tool has an output schema or the caller asks', async () => {
		host.handle('scroll_page', () => ({
			content: [{ type: 'text', text: 'Scrolled 600px down' }],
			structuredContent: { scroll: { y: 600 }, elements: [{ ref: 'e1' }] },
		}));
		host.handle('get_task', params => ({
			content: [{ type: 'text', text: `Task ${params.task_id} is running.` }],
			structuredContent: { task_id: params.task_id, status: 'running' },
		}));
		const plain = await client.callTool({ name: 'scroll_page', arguments: { direction: 'down' } }, undefined, opts());
		assert.deepEqual(plain, { content: [{ type: 'text', text: 'Scrolled 600px down' }] });
		const asked = await client.callTool({ name: 'scroll_page', arguments: { direction: 'down' },
		    _meta: { 'browser-bridge/structured': true } }, undefined, opts());
		assert.deepEqual(asked.structuredContent, { scroll: { y: 600 }, elements: [{ ref: 'e1' }] });
		const declared = await client.callTool({ name: 'get_task', arguments: { task_id: 'abc' } }, undefined, opts());
		assert.deepEqual(declared.structuredContent, { task_id: 'abc', status: 'running' }, 'an output schema promises it');
		const status = await client.callTool({ name: 'host_status', arguments: {} }, undefined, opts());
		assert.equal(typeof status.structuredContent.version, 'string');
	});

	it('request ids increase and each call gets its own', async () => {
		host.handle('hover_element', params => ({ content: [{ type: 'text', text: params.ref }] }));
		const first = await client.callTool({ name: 'hover_element', arguments: { ref: 'a' } }, undefined, opts());
		const second = await client.callTool({ name: 'hover_element', arguments: { ref: 'b' } }, undefined, opts());
		assert.equal(textOf(first), 'a');
		assert.equal(textOf(second), 'b');
		const [a, b] = host.requests.slice(-2);
		assert.ok(b.id > a.id, `ids ${a.id} then ${b.id}`);
	});

	it('navigate_to and wait_for get timeout_ms + 5000 ms; other tools 30 s', async () => {
		await client.callTool({ name: 'navigate_to', arguments: { url: 'https://example.com/', timeout_ms: 1234 } }, undefined, opts());
		assert.equal(host.requests.at(-1).method, 'navigate_to');
		assert.equal(host.requests.at(-1).timeout_ms, 6234);
		await client.callTool({ name: 'wait_for', arguments: { text: 'Done', timeout_ms: 0 } }, undefined, opts());
		assert.equal(host.requests.at(-1).timeout_ms, 5000);
		await client.callTool({ name: 'navigate_to', arguments: { url: 'https://example.com/' } }, undefined, opts());
		assert.equal(host.requests.at(-1).timeout_ms, 35000, 'the schema default of 30000 plus the margin');
		await client.callTool({ name: 'scroll_page', arguments: { direction: 'down' } }, undefined, opts());
		assert.equal(host.requests.at(-1).timeout_ms, 30000);
	});

	it('bad arguments give isError INVALID_ARGUMENT naming the field and never reach the extension', async () => {
		const before = host.requests.length;
		const cases = [
			[{ name: 'type_value', arguments: { ref: 'e1' } }, 'text'],
			[{ name: 'type_value', arguments: { ref: 'e1', text: 42 } }, 'text'],
			[{ name: 'click_element', arguments: { ref: 'e1', click_count: 7 } }, 'click_count'],
			[{ name: 'navigate_history', arguments: { action: 'sideways' } }, 'action'],
			[{ name: 'scroll_page', arguments: { direction: 'down', bogus_field: 1 } }, 'bogus_field'],
			[{ name: 'select_option', arguments: { ref: 'e1', values: [] } }, 'values'],
		];
		for (const [call, field] of cases) {
			const result = await client.callTool(call, undefined, opts());
			assert.equal(result.isError, true, JSON.stringify(call));
			const text = textOf(result);
			assert.match(text, /^INVALID_ARGUMENT: /, JSON.stringify(call));
			assert.ok(text.includes(field), `${JSON.stringify(call)}: "${text}" should name ${field}`);
		}
		// A good call after them is the only one the extension sees.
		await client.callTool({ name: 'hover_element', arguments: { ref: 'ok' } }, undefined, opts());
		assert.equal(host.requests.length, before + 1);
		assert.deepEqual(host.requests.at(-1).params, { ref: 'ok' });
	});

	it('an unknown tool is JSON-RPC error -32602 naming it', async () => {
		const before = host.requests.length;
		await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }, undefined, opts()), error => {
			assert.equal(error.code, -32602);
			assert.match(error.message, /no_such_tool/);
			return true;
		});
		assert.equal(host.requests.length, before);
	});

	it('an extension error comes back as isError "CODE: message"', async () => {
		const message = 'Element e12 is no longer on the page. Call get_browser_state to get fresh refs.';
		host.handle('click_element', () => {
			throw new ExtensionError('ELEMENT_NOT_FOUND', message);
		});
		const result = await client.callTool({ name: 'click_element', arguments: { ref: 'e12' } }, undefined, opts());
		assert.deepEqual(result, {
			content: [{ type: 'text', text: `ELEMENT_NOT_FOUND: ${message}` }],
			isError: true,
		});
	});

	// Progress is counted on the wire, not in an SDK client: SDK 1.x
	// handles a notification a moment after a response read in the same
	// chunk, and drops it (typescript-sdk#2580; docs/clients.md).
	for (const [transport, label] of [['http', 'Streamable HTTP'], ['sse', 'legacy SSE']]) {
		it(`progress from the extension goes out in order, then the result, on the wire (${label})`, async () => {
			host.handle('run_task', async (params, ctx) => {
				ctx.progress(1, 3, `step 1 of ${params.task}`);
				await new Promise(resolve => setTimeout(resolve, 10));
				// The rest back to back with the result: one read for the host.
				ctx.progress(2, 3, `step 2 of ${params.task}`);
				ctx.progress(3, 3, `step 3 of ${params.task}`);
				return { content: [{ type: 'text', text: `done: ${params.task}` }] };
			});
			const messages = await rawCall(host, transport, 'run_task', { task: 'book a table', max_steps: 5 });
			assert.deepEqual(messages.map(wireEvent), [
				{ progress: 1, total: 3, message: 'step 1 of book a table' },
				{ progress: 2, total: 3, message: 'step 2 of book a table' },
				{ progress: 3, total: 3, message: 'step 3 of book a table' },
				{ result: 'done: book a table' },
			]);
			assert.equal(host.requests.at(-1).timeout_ms, 600000);
		});

		it(`progress that does not increase is dropped (${label})`, async () => {
			host.handle('run_task', (params, ctx) => {
				ctx.progress(1);
				ctx.progress(2, 4);
				ctx.progress(2, 4, 'again');
				ctx.progress(1.5);
				ctx.progress(4, 4, 'last');
				return { content: [{ type: 'text', text: 'ok' }] };
			});
			const messages = await rawCall(host, transport, 'run_task', { task: 't' });
			assert.deepEqual(messages.map(wireEvent), [
				{ progress: 1 },
				{ progress: 2, total: 4 },
				{ progress: 4, total: 4, message: 'last' },
				{ result: 'ok' },
			]);
		});
	}

	it('a caller that aborts the call makes the host send cancel "cancelled" with the same id', async () => {
		let handlerSignal;
		host.handle('run_task', (params, ctx) => {
			handlerSignal = ctx.signal;
			return never();
		});
		const controller = new AbortController();
		const call = client.callTool({ name: 'run_task', arguments: { task: 'forever' } }, undefined,
		    opts({ signal: controller.signal }));
		const request = await host.waitForRequest(r => r.method === 'run_task' && r.params.task === 'forever',
		    'the run_task request');
		controller.abort('the user changed their mind');
		await assert.rejects(call);
		const cancel = await host.waitForCancel(request.id);
		assert.deepEqual(cancel, { type: 'cancel', id: request.id, reason: 'cancelled' });
		assert.equal(handlerSignal.aborted, true);
		const status = await host.request('status');
		assert.equal(status.result.pending_calls, 0);
		// The session still works afterwards.
		const after = await client.callTool({ name: 'hover_element', arguments: { ref: 'still-here' } }, undefined, opts());
		assert.equal(after.isError, undefined);
	});

	it('a message over 1 MB reaches the extension as chunks that reassemble to the exact arguments', async () => {
		// 3 MB with multi-byte characters, so chunk boundaries fall inside them.
		const unit = 'a\u00e9\u20ac\ud83d\ude00"\\\n';
		const expression = unit.repeat(Math.ceil(3 * 1024 * 1024 / Buffer.byteLength(unit)));
		const args = { expression, args: [1, 'two', { three: 3 }], tab_id: 5 };
		host.handle('evaluate_script', params => ({
			content: [{ type: 'text', text: `length ${params.expression.length}` }],
			structuredContent: { length: params.expression.length, args: params.args },
		}));
		const chunkedBefore = host.chunkedMessages.length;
		const result = await client.callTool({ name: 'evaluate_script', arguments: args, _meta: { 'browser-bridge/structured': true } }, undefined, opts());
		assert.deepEqual(result.structuredContent, { length: expression.length, args: args.args });
		const request = host.requests.at(-1);
		assert.equal(request.method, 'evaluate_script');
		assert.ok(request.params.expression === expression, 'the expression arrived byte for byte');
		assert.deepEqual(request.params, args);
		const chunked = host.chunkedMessages.slice(chunkedBefore);
		assert.equal(chunked.length, 1);
		assert.equal(chunked[0].message, request);
		assert.ok(chunked[0].count >= 4, `${chunked[0].count} chunks for over 3 MB of JSON`);
		assert.ok(Buffer.byteLength(JSON.stringify(request)) > 3 * OUTBOUND_MAX);
	});

	it('a result over 1 MB from the extension comes back to the caller unchanged', async () => {
		const text = 'x\u00e9'.repeat(1024 * 1024);
		host.handle('get_page_content', () => ({ content: [{ type: 'text', text }] }));
		const result = await client.callTool({ name: 'get_page_content', arguments: { format: 'text' } }, undefined, opts());
		assert.ok(textOf(result) === text, 'the 3 MB text came back byte for byte');
	});
});

describe('sessions ending with calls in flight', () => {
	let host;

	before(async () => {
		host = await startHost({ handlers: { run_task: () => never() } });
	});

	after(async () => {
		await host.stop();
	});

	it('DELETE of a Streamable HTTP session cancels its pending call', async () => {
		const init = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: INITIALIZE });
		const id = init.headers['mcp-session-id'];
		const headers = mcpHeaders(host, { 'Mcp-Session-Id': id });
		const call = raw(host, {
			method: 'POST',
			headers,
			body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'run_task', arguments: { task: 'delete me' } } },
		});
		const request = await host.waitForRequest(r => r.params.task === 'delete me', 'the run_task request');
		const deleted = await raw(host, { method: 'DELETE', headers });
		assert.equal(deleted.status, 200);
		const cancel = await host.waitForCancel(request.id);
		assert.equal(cancel.reason, 'cancelled');
		const answered = await call;
		assert.equal(answered.json?.result, undefined, 'a cancelled call has no result');
		assert.equal((await host.request('status')).result.pending_calls, 0);
	});

	it('a client that closes its connection while a JSON-mode call is pending gets its call cancelled at once', async () => {
		const init = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: INITIALIZE });
		const headers = mcpHeaders(host, { 'Mcp-Session-Id': init.headers['mcp-session-id'], Accept: 'application/json, text/event-stream' });
		const body = JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'run_task', arguments: { task: 'hang up' } } });
		const req = httpRequest({
			host: '127.0.0.1', port: host.port, method: 'POST', path: '/mcp', agent: false,
			headers: { Host: `127.0.0.1:${host.port}`, 'Content-Length': Buffer.byteLength(body), ...headers },
		});
		req.on('error', () => {});
		req.end(body);
		const request = await host.waitForRequest(r => r.params.task === 'hang up', 'the run_task request');
		req.destroy();
		const cancel = await host.waitForCancel(request.id, scaled(2000));
		assert.deepEqual(cancel, { type: 'cancel', id: request.id, reason: 'cancelled' });
		await eventually(async () => (await host.request('status')).result.pending_calls === 0, 'the call\'s slot freed');
	});

	it('closing a legacy SSE stream cancels its pending call', async () => {
		const client = await connect(host, { transport: 'sse' });
		const call = client.callTool({ name: 'run_task', arguments: { task: 'close me' } }, undefined, opts());
		call.catch(() => {});
		const request = await host.waitForRequest(r => r.params.task === 'close me', 'the run_task request');
		await close(client);
		const cancel = await host.waitForCancel(request.id);
		assert.equal(cancel.reason, 'cancelled');
		await assert.rejects(call);
	});

	it('an aborted call over legacy SSE is cancelled too', async () => {
		const client = await connect(host, { transport: 'sse' });
		try {
			const controller = new AbortController();
			const call = client.callTool({ name: 'run_task', arguments: { task: 'abort me' } }, undefined,
			    opts({ signal: controller.signal }));
			const request = await host.waitForRequest(r => r.params.task === 'abort me', 'the run_task request');
			controller.abort();
			await assert.rejects(call);
			const cancel = await host.waitForCancel(request.id);
			assert.deepEqual(cancel, { type: 'cancel', id: request.id, reason: 'cancelled' });
		} finally {
			await close(client);
		}
	});
});
