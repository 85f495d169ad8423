// MCP 2026-07-28 (stateless) beside the legacy protocol on one endpoint:
// the v2 SDK client pinned to 2026-07-28 lists tools, calls one, sees
// progress and cancels; raw requests check server/discover, resultType and
// the cache hints, the routing headers, an unsupported version and an
// unknown method; a 1.x client keeps its session meanwhile.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';

import { never, scaled, startHost } from './fake-extension.mjs';
import { authHeaders, close, connect, opts, raw, textOf } from './mcp-client.mjs';

const MODERN = '2026-07-28';

// A v2 SDK client pinned to the modern revision.
async function modernClient(host) {
	const client = new ModernClient({ name: 'modern-test', version: '2.0.0' },
	    { versionNegotiation: { mode: { pin: MODERN } } });
	await client.connect(new ModernTransport(new URL(host.url), { requestInit: { headers: authHeaders(host) } }));
	return client;
}

// The _meta every modern request carries.
function meta(extra = {}) {
	return {
		'io.modelcontextprotocol/protocolVersion': MODERN,
		'io.modelcontextprotocol/clientCapabilities': {},
		'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1.0.0' },
		...extra,
	};
}

// One raw modern request with matching routing headers unless overridden
// (a header overridden with undefined is left out).
function modern(host, method, params = {}, headers = {}) {
	const name = params.name ?? params.uri;
	const all = {
		'Content-Type': 'application/json',
		Accept: 'application/json, text/event-stream',
		'MCP-Protocol-Version': MODERN,
		'Mcp-Method': method,
		...(name !== undefined ? { 'Mcp-Name': name } : {}),
		...authHeaders(host),
		...headers,
	};
	return raw(host, {
		method: 'POST',
		headers: Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined)),
		body: { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta(params._meta) } },
	});
}

describe('MCP 2026-07-28 beside the legacy protocol', () => {
	let host;
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
	});
	after(async () => {
		await host.stop();
	});

	it('a pinned v2 client lists the tools and calls one, without a session', async () => {
		const client = await modernClient(host);
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

	it('progress reaches a v2 client, then the result', async () => {
		const client = await modernClient(host);
		try {
			const seen = [];
			const result = await client.callTool({ name: 'navigate_to', arguments: { url: 'https://example.com/' } },
			    { onprogress: p => seen.push([p.progress, p.total, p.message]) });
			assert.equal(textOf(result), 'at https://example.com/');
			assert.deepEqual(seen, [[1, 2, 'loading'], [2, 2, 'loaded']]);
		} finally {
			await client.close();
		}
	});

	it('a v2 client that aborts a call has it cancelled in the extension', async () => {
		const client = await modernClient(host);
		try {
			const controller = new AbortController();
			const call = client.callTool({ name: 'wait_for', arguments: { text: 'never' } }, { signal: controller.signal });
			const request = await host.waitForRequest(r => r.method === 'wait_for', 'the wait_for request');
			controller.abort();
			await assert.rejects(call);
			const cancel = await host.waitForCancel(request.id);
			assert.equal(cancel.reason, 'cancelled');
		} finally {
			await client.close();
		}
	});

	it('server/discover names the versions and capabilities, with resultType and cache hints', async () => {
		const answer = await modern(host, 'server/discover');
		assert.equal(answer.status, 200);
		const result = answer.json.result;
		assert.deepEqual(result.supportedVersions, [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
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
		const call = await modern(host, 'tools/call', { name: 'hover_element', arguments: { ref: 'e1' } });
		assert.equal(call.json.result.resultType, 'complete');
		assert.equal(host.requests.at(-1).client, 'raw-modern 1.0.0', 'the extension hears who asked, from _meta clientInfo');
		const caller = host.requests.at(-1).caller;
		assert.match(caller, /^[0-9a-f]{32}$/);
		const count = host.requests.length;
		await modern(host, 'tools/call', { name: 'hover_element', arguments: { ref: 'e1' },
			_meta: { 'io.modelcontextprotocol/clientInfo': { name: 'another', version: '2' } } });
		assert.equal(host.requests.length, count + 1);
		assert.equal(host.requests.at(-1).client, 'another 2');
		assert.equal(host.requests.at(-1).caller, caller, 'stateless requests of one token are one caller, whatever name they give');
		assert.equal(call.json.result.ttlMs, undefined, 'a tool result is not cacheable');
		const list = await modern(host, 'tools/list');
		assert.equal(list.json.result.resultType, 'complete');
		assert.equal(list.json.result.cacheScope, 'private');
	});

	it('routing headers must agree with the body (400, -32020) and _meta must be whole (400, -32602)', async () => {
		const wrongName = await modern(host, 'tools/call', { name: 'hover_element', arguments: { ref: 'e1' } },
		    { 'Mcp-Name': 'click_element' });
		assert.equal(wrongName.status, 400);
		assert.equal(wrongName.json.error.code, -32020);
		assert.match(wrongName.json.error.message, /Mcp-Name header value 'click_element' does not match the body value 'hover_element'/);
		const noMethod = await modern(host, 'tools/list', {}, { 'Mcp-Method': undefined });
		assert.equal(noMethod.status, 400);
		assert.match(noMethod.json.error.message, /Mcp-Method header is required/);
		const wrongVersion = await modern(host, 'tools/list', {}, { 'MCP-Protocol-Version': '2025-11-25' });
		assert.equal(wrongVersion.status, 400);
		assert.equal(wrongVersion.json.error.code, -32020);
		const encoded = await modern(host, 'tools/call', { name: 'hover_element', arguments: { ref: 'e1' } },
		    { 'Mcp-Name': `=?base64?${Buffer.from('hover_element').toString('base64')}?=` });
		assert.equal(encoded.status, 200, 'a Base64 sentinel Mcp-Name is decoded before comparing');
		const headerOnly = await raw(host, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'MCP-Protocol-Version': MODERN, ...authHeaders(host) },
			body: { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} },
		});
		assert.equal(headerOnly.status, 400, 'a modern header on a body without _meta');
		assert.equal(headerOnly.json.error.code, -32602);
		const noCapabilities = await modern(host, 'tools/list',
		    { _meta: { 'io.modelcontextprotocol/clientCapabilities': undefined } });
		assert.equal(noCapabilities.status, 400);
		assert.equal(noCapabilities.json.error.code, -32602);
		assert.match(noCapabilities.json.error.message, /clientCapabilities/);
	});

	it('an unsupported version is 400 with -32022 and the supported list; an unknown method is 404 with -32601', async () => {
		const old = await modern(host, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } },
		    { 'MCP-Protocol-Version': '1900-01-01' });
		assert.equal(old.status, 400);
		assert.equal(old.json.error.code, -32022);
		assert.deepEqual(old.json.error.data, {
			supported: [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'], requested: '1900-01-01',
		});
		for (const method of ['initialize', 'ping', 'logging/setLevel', 'no/such']) {
			const answer = await modern(host, method);
			assert.equal(answer.status, 404, method);
			assert.equal(answer.json.error.code, -32601, method);
		}
	});

	it('GET and DELETE naming 2026-07-28 are 405: the revision has no GET stream and no sessions', async () => {
		for (const method of ['GET', 'DELETE']) {
			const answer = await raw(host, {
				method, headers: { Accept: 'text/event-stream', 'MCP-Protocol-Version': MODERN, ...authHeaders(host) },
			});
			assert.equal(answer.status, 405, method);
			assert.equal(answer.headers.allow, 'POST');
		}
	});

	it('subscriptions/listen carries the change notifications a v2 client asked for, and only those', async () => {
		const quiet = await startHost({ hello: false });
		const client = await modernClient(quiet);
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
			await quiet.stop();
		}
	});

	it('subscriptions/listen refuses a malformed filter (-32602) and task ids without the tasks extension (-32021)', async () => {
		const refused = await modern(host, 'subscriptions/listen', { notifications: { taskIds: ['x'] } });
		assert.equal(refused.json.error.code, -32021);
		const malformed = await modern(host, 'subscriptions/listen', { notifications: { resourceSubscriptions: 'browser://tabs' } });
		assert.equal(malformed.json.error.code, -32602);
		const missing = await modern(host, 'subscriptions/listen', {});
		assert.equal(missing.json.error.code, -32602);
	});

	it('a 1.x client keeps its session beside modern requests', async () => {
		const legacy = await connect(host);
		try {
			const modernAnswer = await modern(host, 'tools/call', { name: 'hover_element', arguments: { ref: 'e2' } });
			assert.equal(modernAnswer.status, 200);
			const result = await legacy.callTool({ name: 'hover_element', arguments: { ref: 'e3' } }, undefined, opts());
			assert.equal(JSON.parse(textOf(result)).params.ref, 'e3');
			assert.equal(result.resultType, undefined, 'legacy results are as before');
			assert.equal((await host.request('status')).result.sessions, 1);
		} finally {
			await close(legacy);
		}
	});
});
