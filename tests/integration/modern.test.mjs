// MCP 2026-07-28 (stateless) beside the legacy protocol on one endpoint:
// the scenarios of modern-scenarios.mjs over HTTP (a pinned v2 SDK client
// lists tools, calls one, sees progress and cancels; raw requests check
// server/discover, resultType and the cache hints, an unsupported version,
// unknown methods and listen streams), then what is HTTP's own: the
// routing headers, GET and DELETE, and a 1.x client keeping its session
// meanwhile.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';

import { startHost } from './fake-extension.mjs';
import { authHeaders, close, connect, opts, raw, textOf } from './mcp-client.mjs';
import { describeModernScenarios, modernBody } from './modern-scenarios.mjs';
import { MODERN, recordWire } from './stdio-client.mjs';

// A v2 SDK client pinned to the modern revision.
async function modernClient(host) {
	const client = new ModernClient({ name: 'modern-test', version: '2.0.0' },
	    { versionNegotiation: { mode: { pin: MODERN } } });
	await client.connect(new ModernTransport(new URL(host.url), { requestInit: { headers: authHeaders(host) } }));
	return recordWire(client);
}

// One raw modern request with matching routing headers unless overridden
// (a header overridden with undefined is left out).
function modern(host, method, params = {}, headers = {}) {
	const name = params.name ?? params.uri;
	const body = modernBody(method, params);
	const all = {
		'Content-Type': 'application/json',
		Accept: 'application/json, text/event-stream',
		'MCP-Protocol-Version': body.params._meta['io.modelcontextprotocol/protocolVersion'],
		'Mcp-Method': method,
		...(name !== undefined ? { 'Mcp-Name': name } : {}),
		...authHeaders(host),
		...headers,
	};
	return raw(host, {
		method: 'POST',
		headers: Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined)),
		body,
	});
}

describeModernScenarios({
	name: 'HTTP',
	statuses: true,
	open: async host => ({
		client: () => modernClient(host),
		request: (method, params) => modern(host, method, params),
		close: async () => {},
	}),
});

describe('MCP 2026-07-28 over HTTP: what is HTTP\'s own', () => {
	let host;
	before(async () => {
		host = await startHost();
	});
	after(async () => {
		await host.stop();
	});

	it('routing headers must agree with the body (400, -32020); a modern header needs a modern body (400, -32602)', async () => {
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
