// MCP clients for the integration tests, pointed at a host started by
// fake-extension.mjs: the official SDK over Streamable HTTP or legacy SSE,
// and raw clients that see the bytes on the wire (HTTP requests, event
// streams, and the stdio bridge's lines through stdio-client.mjs).

import { request as httpRequest } from 'node:http';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';

import { scaled } from './fake-extension.mjs';
import { StdioLines } from './stdio-client.mjs';

// The Authorization header for a host (none when auth is off).
export function authHeaders(host) {
	return host.token ? { Authorization: `Bearer ${host.token}` } : {};
}

// Connects an SDK client over 'http' (Streamable HTTP, default) or 'sse'.
export async function connect(host, { transport = 'http', name = 'integration-test', version = '1.0.0', capabilities, onClient } = {}) {
	const requestInit = { headers: authHeaders(host) };
	const t = transport === 'sse' ?
	    new SSEClientTransport(new URL(`${host.base}/sse`), { requestInit }) :
	    new StreamableHTTPClientTransport(new URL(host.url), { requestInit });
	const client = new Client({ name, version }, capabilities !== undefined ? { capabilities } : undefined);
	onClient?.(client);	/* request handlers go on before the client connects */
	client.bridgeTransport = t;
	client.bridgeHost = host;
	host.clients.add(client);
	await client.connect(t, { timeout: scaled(10000) });
	return client;
}

// Request options with a timeout long enough for slow runs.
export function opts(extra = {}) {
	return { timeout: scaled(20000), ...extra };
}

// Closes a client, ending its session on the host first (DELETE /mcp).
export async function close(client) {
	const t = client.bridgeTransport;
	if (t instanceof StreamableHTTPClientTransport && t.sessionId !== undefined) {
		try {
			await t.terminateSession();
		} catch {
			// the host may be gone already
		}
	}
	client.bridgeHost.clients.delete(client);
	await client.close();
}

// The single text of a tool result.
export function textOf(result) {
	if (!Array.isArray(result.content) || result.content.length !== 1 ||
	    result.content[0].type !== 'text')
		throw new Error(`expected one text item, got ${JSON.stringify(result).slice(0, 500)}`);
	return result.content[0].text;
}

// One raw HTTP request with full control of the headers (Host included),
// given up after timeoutMs (scaled) without a byte from the host.
// Resolves to { status, headers, text, json }.
export function raw(host, { method = 'GET', path = '/mcp', headers = {}, body, timeoutMs = 10000 } = {}) {
	return new Promise((resolve, reject) => {
		const data = body === undefined ? undefined :
		    Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
		const req = httpRequest({
			host: '127.0.0.1',
			port: host.port,
			method,
			path,
			headers: {
				Host: `127.0.0.1:${host.port}`,
				...(data !== undefined && headers['Transfer-Encoding'] === undefined ?
				    { 'Content-Length': data.length } : {}),
				...headers,
			},
			agent: false,
		}, res => {
			const parts = [];
			res.on('data', part => parts.push(part));
			res.on('end', () => {
				const text = Buffer.concat(parts).toString('utf8');
				let json;
				try {
					json = JSON.parse(text);
				} catch {
					json = undefined;
				}
				resolve({ status: res.statusCode, headers: res.headers, text, json });
			});
			res.on('error', reject);
		});
		req.setTimeout(scaled(timeoutMs), () => req.destroy(new Error(`${method} ${path}: no answer`)));
		req.on('error', reject);
		req.end(data);
	});
}

// The initialize request a raw client sends.
export const INITIALIZE = {
	jsonrpc: '2.0',
	id: 1,
	method: 'initialize',
	params: {
		protocolVersion: '2025-06-18',
		capabilities: {},
		clientInfo: { name: 'raw-test', version: '1.0.0' },
	},
};

// Headers of a raw MCP POST.
export function mcpHeaders(host, extra = {}) {
	return {
		'Content-Type': 'application/json',
		Accept: 'application/json, text/event-stream',
		...authHeaders(host),
		...extra,
	};
}

// Calls fn until it returns a truthy value (or throws), every 25 ms.
export async function eventually(fn, what, ms = 10000) {
	const limit = performance.now() + scaled(ms);
	let last;
	for (;;) {
		last = await fn();
		if (last)
			return last;
		if (performance.now() > limit)
			throw new Error(`timed out after ${scaled(ms)} ms waiting for ${what}`);
		await new Promise(resolve => setTimeout(resolve, 25));
	}
}

// Opens a raw event stream; resolves with { status, headers, text(),
// until(pattern), close() }. until waits for the text so far to match a
// RegExp, or a function of the text to return true.
export function openStream(host, path, headers) {
	return new Promise((resolve, reject) => {
		const req = httpRequest({
			host: '127.0.0.1', port: host.port, method: 'GET', path, agent: false,
			headers: { Host: `127.0.0.1:${host.port}`, Accept: 'text/event-stream', ...headers },
		}, res => {
			let text = '';
			let waiters = [];
			res.setEncoding('utf8');
			res.on('data', part => {
				text += part;
				const matched = waiters.filter(w => w.test(text));
				waiters = waiters.filter(w => !matched.includes(w));
				matched.forEach(w => w.resolve(text));
			});
			resolve({
				status: res.statusCode,
				headers: res.headers,
				text: () => text,
				until(pattern, ms = 5000) {
					const test = typeof pattern === 'function' ? pattern : t => pattern.test(t);
					if (test(text))
						return Promise.resolve(text);
					return new Promise((ok, fail) => {
						const timer = setTimeout(() => fail(new Error(`stream never matched ${pattern}: ${JSON.stringify(text)}`)), scaled(ms));
						waiters.push({ test, resolve: value => { clearTimeout(timer); ok(value); } });
					});
				},
				close: () => req.destroy(),
			});
		});
		req.on('error', error => { if (error.code !== 'ECONNRESET') reject(error); });
		req.end();
	});
}

// The JSON-RPC messages of the whole events of an event stream's text, in
// the order they came (events named "message", or unnamed).
export function sseMessages(text) {
	const events = text.replace(/\r\n?/g, '\n').split('\n\n').slice(0, -1);
	return events.map(event => {
		const lines = event.split('\n');
		const name = lines.find(line => line.startsWith('event:'))?.slice(6).trim() ?? 'message';
		const data = lines.filter(line => line.startsWith('data:')).map(line => line.slice(5).replace(/^ /, '')).join('\n');
		return name === 'message' && data !== '' ? JSON.parse(data) : undefined;
	}).filter(message => message !== undefined);
}

// Calls a tool with a progress token over 'http' (Streamable HTTP), 'sse'
// (legacy SSE) or 'stdio' (the stdio bridge), as a client that reads the
// bytes on the wire: no client library between the host and the test.
// Resolves to the messages about the call in the order they came: its
// progress notifications and its response.
export async function rawCall(host, transport, name, args) {
	const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args, _meta: { progressToken: 'wire' } } };
	const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
	const aboutCall = messages => messages.filter(m => m.id === call.id || m.params?.progressToken === 'wire');
	const answered = messages => messages.some(m => m.id === call.id && m.method === undefined);
	if (transport === 'http') {
		const init = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: INITIALIZE });
		const headers = mcpHeaders(host, { 'Mcp-Session-Id': init.headers['mcp-session-id'], 'MCP-Protocol-Version': INITIALIZE.params.protocolVersion });
		await raw(host, { method: 'POST', headers, body: initialized });
		const answer = await raw(host, { method: 'POST', headers, body: call });
		await raw(host, { method: 'DELETE', headers });
		return aboutCall(sseMessages(answer.text));
	}
	if (transport === 'sse') {
		const stream = await openStream(host, '/sse', authHeaders(host));
		try {
			const endpoint = /event: endpoint\ndata: (\S+)\n/.exec(await stream.until(/event: endpoint\ndata: \S+\n/))[1];
			const post = body => raw(host, { method: 'POST', path: endpoint, headers: mcpHeaders(host), body });
			await post(INITIALIZE);
			await stream.until(text => sseMessages(text).some(m => m.id === INITIALIZE.id), 10000);
			await post(initialized);
			await post(call);
			return aboutCall(sseMessages(await stream.until(text => answered(sseMessages(text)), 20000)));
		} finally {
			stream.close();
		}
	}
	const bridge = new StdioLines(host.env);
	await bridge.answer(INITIALIZE);
	bridge.send(initialized);
	await bridge.answer(call);
	await bridge.close();
	return aboutCall(bridge.messages);
}

// What a test compares of a message rawCall returns: a progress
// notification's params without the token, a result's single text, or
// else the whole message.
export function wireEvent(message) {
	if (message.method === 'notifications/progress') {
		const { progressToken, ...rest } = message.params;
		return rest;
	}
	return message.method === undefined && message.result !== undefined ? { result: textOf(message.result) } : message;
}
