// MCP clients for the integration tests: the official SDK over Streamable
// HTTP or legacy SSE, pointed at a host started by fake-extension.mjs.

import { request as httpRequest } from 'node:http';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';

import { scaled } from './fake-extension.mjs';

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
