// The MCP 2026-07-28 scenarios, defined once and run over each transport
// that serves the revision: modern.test.mjs runs them over HTTP,
// stdio-modern.test.mjs over `browser-bridge stdio`. A binding opens a
// connection to a host with
//   client()                 a v2 SDK client pinned to 2026-07-28, with
//                            .wire (recordWire in stdio-client.mjs)
//   request(method, params)  one raw modern request; resolves to
//                            { status (HTTP only), json }
//   close()
// and says whether answers carry an HTTP status (statuses).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { never, scaled, startHost } from './fake-extension.mjs';
import { textOf } from './mcp-client.mjs';
import { MODERN } from './stdio-client.mjs';

export const SUPPORTED = [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

// The _meta every modern request carries.
export function meta(extra = {}) {
	return {
		'io.modelcontextprotocol/protocolVersion': MODERN,
		'io.modelcontextprotocol/clientCapabilities': {},
		'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1.0.0' },
		...extra,
	};
}

// A raw modern request: params with their _meta (entries of params._meta
// set to undefined are left out).
export function modernBody(method, params = {}, id = 1) {
	return { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta(params._meta) } };
}

// The messages of one call on the wire, in order: its progress (by token),
// then its response.
function callOnWire(wire, id) {
	return wire.filter(m => m.id === id && m.method === undefined ||
	    m.method === 'notifications/progress' && m.params.progressToken === id)
	    .map(m => m.method === undefined ? 'result' : [m.params.progress, m.params.total, m.params.message]);
}

// Runs every scenario over one binding.
export function describeModernScenarios(binding) {
	describe(`MCP 2026-07-28 over ${binding.name}`, () => {
		let host;
		let conn;
		before(async () => {
			host = await startHost({
				handlers: {
					wait_for: () => never(),
					navigate_to: async (params, ctx) => {
						ctx.progress(1, 2, 'loading');
						ctx.progress(2, 2, 'loaded');
						return { content: [{ type: 'text', text: `at ${params.url}` }] };
					},
				},
			});
			conn = await binding.open(host);
		});
		after(async () => {
			await conn.close();
			await host.stop();
		});

		it('a pinned v2 client lists the tools and calls one, without a session', async () => {
			const client = await conn.client();
			try {
				const { tools } = await client.listTools();
				assert.ok(tools.some(t => t.name === 'navigate_to'));
				const result = await client.callTool({ name: 'hover_element', arguments: { ref: 'e7' } });
				assert.deepEqual(JSON.parse(textOf(result)), { method: 'hover_element', params: { ref: 'e7' } });
				assert.equal((await host.request('status')).result.sessions, 0, 'no session was made');
			} finally {
				await client.close();
			}
		});

		it('progress reaches a v2 client before the result, in order on the wire', async () => {
			const client = await conn.client();
			try {
				const result = await client.callTool({ name: 'navigate_to', arguments: { url: 'https://example.com/' } },
				    { onprogress: () => {} });
				assert.equal(textOf(result), 'at https://example.com/');
				const response = client.wire.find(m => m.result?.content?.[0]?.text === 'at https://example.com/');
				assert.deepEqual(callOnWire(client.wire, response.id), [[1, 2, 'loading'], [2, 2, 'loaded'], 'result']);
			} finally {
				await client.close();
			}
		});

		it('a v2 client that aborts a call has it cancelled in the extension', async () => {
			const client = await conn.client();
			try {
				const before = host.requests.length;
				const controller = new AbortController();
				const call = client.callTool({ name: 'wait_for', arguments: { text: 'never' } }, { signal: controller.signal });
				const request = await host.waitForRequest(r => r.method === 'wait_for' && host.requests.indexOf(r) >= before,
				    'the wait_for request');
				controller.abort();
				await assert.rejects(call);
				const cancel = await host.waitForCancel(request.id);
				assert.equal(cancel.reason, 'cancelled');
			} finally {
				await client.close();
			}
		});

		it('server/discover names the versions and capabilities, with resultType and cache hints', async () => {
			const answer = await conn.request('server/discover');
			assert.equal(answer.status, binding.statuses ? 200 : undefined);
			const result = answer.json.result;
			assert.deepEqual(result.supportedVersions, SUPPORTED);
			assert.deepEqual(result.capabilities, {
				tools: { listChanged: true }, resources: { listChanged: true, subscribe: true },
				extensions: { 'io.modelcontextprotocol/tasks': {} },
			});
			assert.equal(result.resultType, 'complete');
			assert.equal(result.ttlMs, 0);
			assert.equal(result.cacheScope, 'private');
			assert.equal(result._meta['io.modelcontextprotocol/serverInfo'].name, 'browser-bridge');
			assert.match(result.instructions, /get_browser_state/);
		});

		it('a tool result carries resultType; tools/list carries the cache hints', async () => {
			const call = await conn.request('tools/call', { name: 'hover_element', arguments: { ref: 'e1' } });
			assert.equal(call.json.result.resultType, 'complete');
			assert.equal(host.requests.at(-1).client, 'raw-modern 1.0.0', 'the extension hears who asked, from _meta clientInfo');
			const caller = host.requests.at(-1).caller;
			assert.match(caller, /^[0-9a-f]{32}$/);
			const count = host.requests.length;
			await conn.request('tools/call', { name: 'hover_element', arguments: { ref: 'e1' },
				_meta: { 'io.modelcontextprotocol/clientInfo': { name: 'another', version: '2' } } });
			assert.equal(host.requests.length, count + 1);
			assert.equal(host.requests.at(-1).client, 'another 2');
			assert.equal(host.requests.at(-1).caller, caller, 'stateless requests of one token are one caller, whatever name they give');
			assert.equal(call.json.result.ttlMs, undefined, 'a tool result is not cacheable');
			const list = await conn.request('tools/list');
			assert.equal(list.json.result.resultType, 'complete');
			assert.equal(list.json.result.cacheScope, 'private');
		});

		it('_meta without the client capabilities is refused (-32602)', async () => {
			const answer = await conn.request('tools/list', { _meta: { 'io.modelcontextprotocol/clientCapabilities': undefined } });
			assert.equal(answer.status, binding.statuses ? 400 : undefined);
			assert.equal(answer.json.error.code, -32602);
			assert.match(answer.json.error.message, /clientCapabilities/);
		});

		it('an unsupported version gets -32022 with the supported list; an unknown method -32601', async () => {
			const old = await conn.request('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } });
			assert.equal(old.status, binding.statuses ? 400 : undefined);
			assert.equal(old.json.error.code, -32022);
			assert.deepEqual(old.json.error.data, { supported: SUPPORTED, requested: '1900-01-01' });
			for (const method of ['initialize', 'ping', 'logging/setLevel', 'no/such']) {
				const answer = await conn.request(method);
				assert.equal(answer.status, binding.statuses ? 404 : undefined, method);
				assert.equal(answer.json.error.code, -32601, method);
			}
		});

		it('subscriptions/listen carries the change notifications a v2 client asked for, and only those', async () => {
			const quiet = await startHost({ hello: false });
			const quietConn = await binding.open(quiet);
			const client = await quietConn.client();
			try {
				const seen = [];
				client.setNotificationHandler('notifications/tools/list_changed', note => seen.push(['tools', note]));
				client.setNotificationHandler('notifications/resources/list_changed', note => seen.push(['resources', note]));
				client.setNotificationHandler('notifications/resources/updated', note => seen.push([note.params.uri, note]));
				const subscription = await client.listen({
					toolsListChanged: true, promptsListChanged: true,
					resourceSubscriptions: ['browser://tabs', 'browser://nowhere'],
				});
				assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true, resourceSubscriptions: ['browser://tabs'] },
				    'prompts and unknown resources are not honoured');

				quiet.sendHello();
				quiet.send({ type: 'event', event: 'resource_updated', uri: 'browser://current/state' });
				quiet.send({ type: 'event', event: 'resource_updated', uri: 'browser://tabs' });
				const deadline = Date.now() + scaled(5000);
				while (seen.length < 2 && Date.now() < deadline)
					await new Promise(resolve => setTimeout(resolve, 20));
				await new Promise(resolve => setTimeout(resolve, 200));
				assert.deepEqual(seen.map(([what]) => what), ['tools', 'browser://tabs'],
				    'resources/list_changed and the unsubscribed resource stay out');
				for (const [, note] of seen)
					assert.equal(note.params._meta['io.modelcontextprotocol/subscriptionId'], seen[0][1].params._meta['io.modelcontextprotocol/subscriptionId'],
					    'each names the listen request that opened its stream');
				assert.notEqual(seen[0][1].params._meta['io.modelcontextprotocol/subscriptionId'], undefined);
				await subscription.close();
				assert.equal(await subscription.closed, 'local');
			} finally {
				await client.close();
				await quietConn.close();
				await quiet.stop();
			}
		});

		it('subscriptions/listen refuses a malformed filter (-32602) and task ids without the tasks extension (-32021)', async () => {
			const refused = await conn.request('subscriptions/listen', { notifications: { taskIds: ['x'] } });
			assert.equal(refused.json.error.code, -32021);
			const malformed = await conn.request('subscriptions/listen', { notifications: { resourceSubscriptions: 'browser://tabs' } });
			assert.equal(malformed.json.error.code, -32602);
			const missing = await conn.request('subscriptions/listen', {});
			assert.equal(missing.json.error.code, -32602);
		});
	});
}
