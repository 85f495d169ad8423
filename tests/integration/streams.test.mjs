// Server-to-client streams and batches: the GET /mcp stream (notifications
// that belong to no request, keepalive comments), the legacy /message alias,
// and JSON-RPC batches, which only protocol 2025-03-26 allows.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { startHost } from './fake-extension.mjs';
import { INITIALIZE, authHeaders, mcpHeaders, openStream, raw } from './mcp-client.mjs';

// Initializes a raw session with a protocol version; returns its id.
async function session(host, version) {
	const init = await raw(host, { method: 'POST', headers: mcpHeaders(host),
	    body: { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: version } } });
	assert.equal(init.status, 200, init.text);
	assert.equal(init.json.result.protocolVersion, version);
	return init.headers['mcp-session-id'];
}

describe('streams and batches', () => {
	let host;
	before(async () => {
		host = await startHost({ args: ['--keepalive', '100'], hello: false });
	});
	after(async () => {
		await host.stop();
	});

	it('GET /mcp carries tools/list_changed when the extension connects, and keepalive comments', async () => {
		const id = await session(host, '2025-06-18');
		const stream = await openStream(host, '/mcp', {
			...authHeaders(host), 'Mcp-Session-Id': id, 'MCP-Protocol-Version': '2025-06-18',
		});
		assert.equal(stream.status, 200);
		assert.match(stream.headers['content-type'], /^text\/event-stream/);
		await stream.until(/^: keepalive$/m);
		host.sendHello({});
		await host.until(() => host.welcome, 'the welcome');
		const text = await stream.until(/resources\/list_changed/);
		const events = text.split('\n').filter(line => line.startsWith('data: '))
		    .map(line => JSON.parse(line.slice(6)).method);
		assert.deepEqual(events, ['notifications/tools/list_changed', 'notifications/resources/list_changed']);
		stream.close();
	});

	it('a batch is answered as an array under 2025-03-26', async () => {
		const id = await session(host, '2025-03-26');
		const reply = await raw(host, { method: 'POST',
		    headers: mcpHeaders(host, { 'Mcp-Session-Id': id, 'MCP-Protocol-Version': '2025-03-26' }),
		    body: [
			{ jsonrpc: '2.0', id: 'a', method: 'ping' },
			{ jsonrpc: '2.0', method: 'notifications/initialized' },
			{ jsonrpc: '2.0', id: 'b', method: 'nope' },
		    ] });
		assert.equal(reply.status, 200, reply.text);
		assert.ok(Array.isArray(reply.json), reply.text);
		assert.deepEqual(reply.json.map(r => r.id), ['a', 'b']);
		assert.deepEqual(reply.json[0].result, {});
		assert.equal(reply.json[1].error.code, -32601);
	});

	it('a batch is refused with 400 under any other version', async () => {
		const id = await session(host, '2025-06-18');
		const reply = await raw(host, { method: 'POST',
		    headers: mcpHeaders(host, { 'Mcp-Session-Id': id, 'MCP-Protocol-Version': '2025-06-18' }),
		    body: [{ jsonrpc: '2.0', id: 1, method: 'ping' }] });
		assert.equal(reply.status, 400);
		assert.equal(reply.json.error.code, -32600);
		assert.match(reply.json.error.message, /2025-03-26/);
	});

	it('legacy SSE accepts POSTs on /message as well as /messages', async () => {
		const stream = await openStream(host, '/sse', authHeaders(host));
		const text = await stream.until(/event: endpoint\ndata: .*\n\n/);
		const endpoint = /data: (\/messages\?sessionId=[0-9a-f]+)/.exec(text)[1];
		const alias = endpoint.replace('/messages', '/message');
		const posted = await raw(host, { method: 'POST', path: alias, headers: mcpHeaders(host),
		    body: { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2024-11-05' } } });
		assert.equal(posted.status, 202);
		const reply = await stream.until(/event: message\ndata: .*"protocolVersion":"2024-11-05"/);
		assert.match(reply, /"serverInfo":\{"name":"browser-bridge"/);
		stream.close();
	});
});
