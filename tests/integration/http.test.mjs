// The HTTP gate and transport errors, checked with raw requests: bearer
// token, Host and Origin checks, session and protocol-version errors, body
// limits, content types, methods and /health.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { EXTENSION_ORIGIN, startHost } from './fake-extension.mjs';
import { INITIALIZE, authHeaders, mcpHeaders, raw } from './mcp-client.mjs';

const MAX_BODY = 65536;
const TOOLS_LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

describe('HTTP gate', () => {
	let host;

	// Initializes a raw session; returns its id.
	async function initialize() {
		const response = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: INITIALIZE });
		assert.equal(response.status, 200, response.text);
		const id = response.headers['mcp-session-id'];
		assert.equal(typeof id, 'string');
		return id;
	}

	// POSTs tools/list in a session with extra headers.
	function toolsList(sessionId, extra = {}) {
		return raw(host, {
			method: 'POST',
			headers: mcpHeaders(host, { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-06-18', ...extra }),
			body: TOOLS_LIST,
		});
	}

	before(async () => {
		host = await startHost({ args: ['--max-body', String(MAX_BODY)] });
	});

	after(async () => {
		await host.stop();
	});

	it('a raw initialize and tools/list work with the token', async () => {
		const id = await initialize();
		const response = await toolsList(id);
		assert.equal(response.status, 200, response.text);
		assert.match(response.headers['content-type'], /^application\/json/);
		assert.equal(response.json.id, 2);
		assert.ok(response.json.result.tools.length > 0);
	});

	it('401 with WWW-Authenticate: Bearer without a token', async () => {
		const response = await raw(host, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
			body: INITIALIZE,
		});
		assert.equal(response.status, 401);
		assert.match(response.headers['www-authenticate'], /^Bearer\b/);
		assert.equal(response.headers['mcp-session-id'], undefined);
		assert.ok(!response.text.includes(host.token));
	});

	it('401 with a wrong token, another scheme or a token prefix', async () => {
		const wrong = host.token.slice(0, -1) + (host.token.endsWith('0') ? '1' : '0');
		for (const authorization of [`Bearer ${wrong}`, `Basic ${host.token}`, `Bearer ${host.token.slice(0, 16)}`,
		    `Bearer ${host.token}x`, 'Bearer ']) {
			const response = await raw(host, {
				method: 'POST',
				headers: mcpHeaders(host, { Authorization: authorization }),
				body: INITIALIZE,
			});
			assert.equal(response.status, 401, authorization);
			assert.match(response.headers['www-authenticate'], /^Bearer\b/, authorization);
		}
		for (const path of ['/sse', '/messages?sessionId=x']) {
			const response = await raw(host, { method: path === '/sse' ? 'GET' : 'POST', path,
			    headers: { 'Content-Type': 'application/json' }, body: path === '/sse' ? undefined : INITIALIZE });
			assert.equal(response.status, 401, path);
		}
	});

	it('403 for a Host other than loopback, even with the token', async () => {
		for (const hostHeader of ['evil.example', `evil.example:${host.port}`, `127.0.0.1.evil.example:${host.port}`,
		    `localhost:${host.port}@evil.example`]) {
			const response = await raw(host, {
				method: 'POST',
				headers: mcpHeaders(host, { Host: hostHeader }),
				body: INITIALIZE,
			});
			assert.equal(response.status, 403, hostHeader);
		}
		const health = await raw(host, { path: '/health', headers: { Host: 'evil.example' } });
		assert.equal(health.status, 403, '/health is behind the Host check too');
		for (const hostHeader of [`localhost:${host.port}`, `127.0.0.1:${host.port}`, `[::1]:${host.port}`, 'localhost']) {
			const response = await raw(host, { path: '/health', headers: { Host: hostHeader } });
			assert.equal(response.status, 200, hostHeader);
		}
	});

	it('403 for a web Origin, with or without the token; loopback and the extension origin pass', async () => {
		for (const origin of ['https://evil.example', 'http://evil.example', 'null',
		    'chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba', `http://localhost.evil.example:${host.port}`]) {
			const response = await raw(host, {
				method: 'POST',
				headers: mcpHeaders(host, { Origin: origin }),
				body: INITIALIZE,
			});
			assert.equal(response.status, 403, origin);
		}
		for (const origin of [EXTENSION_ORIGIN.replace(/\/$/, ''), `http://localhost:${host.port}`, 'http://127.0.0.1:3000']) {
			const response = await raw(host, {
				method: 'POST',
				headers: mcpHeaders(host, { Origin: origin }),
				body: INITIALIZE,
			});
			assert.equal(response.status, 200, origin);
		}
	});

	it('a refused initialize makes no session', async () => {
		const before = (await host.request('status')).result.sessions;
		const refused = await raw(host, { method: 'POST', headers: mcpHeaders(host),
		    body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: {} } } });
		assert.equal(refused.json.error.code, -32602);
		assert.match(refused.json.error.message, /protocolVersion/);
		assert.equal(refused.headers['mcp-session-id'], undefined);
		assert.equal((await host.request('status')).result.sessions, before);
	});

	it('prompts and log messages are neither advertised nor answered', async () => {
		const init = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: INITIALIZE });
		assert.deepEqual(Object.keys(init.json.result.capabilities).sort(), ['resources', 'tools']);
		for (const method of ['prompts/list', 'logging/setLevel']) {
			const answer = await raw(host, { method: 'POST',
			    headers: mcpHeaders(host, { 'Mcp-Session-Id': init.headers['mcp-session-id'] }),
			    body: { jsonrpc: '2.0', id: 2, method, params: { level: 'debug' } } });
			assert.equal(answer.json.error.code, -32601, method);
		}
	});

	it('400 without Mcp-Session-Id on a request other than initialize', async () => {
		const response = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: TOOLS_LIST });
		assert.equal(response.status, 400);
		assert.equal(response.json.error.code, -32600);
		assert.match(response.json.error.message, /Mcp-Session-Id/);
	});

	it('400 with an unsupported MCP-Protocol-Version', async () => {
		const id = await initialize();
		const response = await toolsList(id, { 'MCP-Protocol-Version': '1999-01-01' });
		assert.equal(response.status, 400);
		assert.match(response.json.error.message, /1999-01-01/);
		const ok = await toolsList(id, { 'MCP-Protocol-Version': '2025-03-26' });
		assert.equal(ok.status, 200);
		const deleted = await raw(host, { method: 'DELETE',
		    headers: mcpHeaders(host, { 'Mcp-Session-Id': id, 'MCP-Protocol-Version': '1999-01-01' }) });
		assert.equal(deleted.status, 400, 'DELETE checks the version as POST does');
		assert.match(deleted.json.error.message, /1999-01-01/);
		assert.equal((await toolsList(id)).status, 200, 'and the session stays');
	});

	it('404 for an unknown session and for a session after DELETE', async () => {
		const unknown = await toolsList('0123456789abcdef0123456789abcdef');
		assert.equal(unknown.status, 404);

		const id = await initialize();
		assert.equal((await toolsList(id)).status, 200);
		const deleted = await raw(host, { method: 'DELETE', headers: mcpHeaders(host, { 'Mcp-Session-Id': id }) });
		assert.ok(deleted.status === 200 || deleted.status === 204, `DELETE answered ${deleted.status}`);
		assert.equal((await toolsList(id)).status, 404);
		const again = await raw(host, { method: 'DELETE', headers: mcpHeaders(host, { 'Mcp-Session-Id': id }) });
		assert.equal(again.status, 404);
	});

	it('errors found before the body is dispatched still answer the request\'s id', async () => {
		const noSession = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: { ...TOOLS_LIST, id: 7 } });
		assert.equal(noSession.status, 400);
		assert.equal(noSession.json.id, 7);
		const unknown = await raw(host, { method: 'POST', headers: mcpHeaders(host, { 'Mcp-Session-Id': 'nope' }), body: { ...TOOLS_LIST, id: 'seven' } });
		assert.equal(unknown.status, 404);
		assert.equal(unknown.json.id, 'seven');
		const id = await initialize();
		const version = await toolsList(id, { 'MCP-Protocol-Version': '1999-01-01' });
		assert.equal(version.status, 400);
		assert.equal(version.json.id, 2);
		const notification = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
		assert.equal(notification.status, 400);
		assert.equal(notification.json.id, null, 'no id to answer: null');
		const legacy = await raw(host, { method: 'POST', path: '/messages?sessionId=nope', headers: mcpHeaders(host), body: { ...TOOLS_LIST, id: 9 } });
		assert.equal(legacy.status, 404);
		assert.equal(legacy.json.id, 9);
	});

	it('OAuth discovery answers without a token where the metadata are, 404 elsewhere (no OpenID)', async () => {
		for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
			const response = await raw(host, { path });
			assert.equal(response.status, 200, path);
			assert.equal(response.json.resource, `http://127.0.0.1:${host.port}/mcp`, path);
		}
		const server = await raw(host, { path: '/.well-known/oauth-authorization-server' });
		assert.equal(server.json.issuer, `http://127.0.0.1:${host.port}`);
		for (const path of ['/.well-known/oauth-authorization-server/mcp', '/.well-known/openid-configuration',
			'/.well-known/openid-configuration/mcp']) {
			const response = await raw(host, { path });
			assert.equal(response.status, 404, path);
			assert.equal(response.json.error, 'not_found', path);
		}
	});

	it('413 for a body over --max-body, by Content-Length or chunked', async () => {
		const big = JSON.stringify({ ...INITIALIZE, padding: 'x'.repeat(MAX_BODY) });
		const byLength = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: big });
		assert.equal(byLength.status, 413);
		assert.equal(byLength.json.error.code, -32600, byLength.text);
		const chunked = await raw(host, {
			method: 'POST',
			headers: mcpHeaders(host, { 'Transfer-Encoding': 'chunked' }),
			body: big,
		});
		assert.equal(chunked.status, 413);
		assert.equal(chunked.json.error.code, -32600, chunked.text);
		// Just under the limit passes.
		const fits = JSON.stringify({ ...INITIALIZE, padding: 'x'.repeat(MAX_BODY - 400) });
		assert.ok(Buffer.byteLength(fits) <= MAX_BODY);
		const ok = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: fits });
		assert.equal(ok.status, 200);
	});

	it('415 for a body that is not application/json', async () => {
		for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
			const headers = mcpHeaders(host, { 'Content-Type': type });
			if (type === undefined)
				delete headers['Content-Type'];
			const response = await raw(host, { method: 'POST', headers, body: JSON.stringify(INITIALIZE) });
			assert.equal(response.status, 415, String(type));
		}
		const withCharset = await raw(host, {
			method: 'POST',
			headers: mcpHeaders(host, { 'Content-Type': 'application/json; charset=utf-8' }),
			body: INITIALIZE,
		});
		assert.equal(withCharset.status, 200);
	});

	it('400 for a body that is not JSON', async () => {
		const response = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: '{"jsonrpc":' });
		assert.equal(response.status, 400);
		assert.equal(response.json.error.code, -32700);
	});

	it('405 with Allow for a method /mcp, /sse or /messages does not take', async () => {
		const options = await raw(host, { method: 'OPTIONS', headers: mcpHeaders(host) });
		assert.equal(options.status, 405);
		assert.equal(options.headers.allow, 'GET, POST, DELETE');
		const postSse = await raw(host, { method: 'POST', path: '/sse', headers: mcpHeaders(host), body: INITIALIZE });
		assert.equal(postSse.status, 405);
		assert.equal(postSse.headers.allow, 'GET');
		assert.match(postSse.json.error.message, /Streamable HTTP clients use \/mcp/, 'a client pointed at /sse learns where to go');
		const getMessages = await raw(host, { method: 'GET', path: '/messages?sessionId=x', headers: authHeaders(host) });
		assert.equal(getMessages.status, 405);
		assert.equal(getMessages.headers.allow, 'POST');
	});

	it('405 for PUT and PATCH on /mcp', async () => {
		for (const method of ['PUT', 'PATCH']) {
			const response = await raw(host, { method, headers: mcpHeaders(host), body: INITIALIZE });
			assert.equal(response.status, 405, method);
			assert.equal(response.headers.allow, 'GET, POST, DELETE', method);
		}
	});

	it('404 for a path that is not an endpoint', async () => {
		const response = await raw(host, { path: '/nope', headers: authHeaders(host) });
		assert.equal(response.status, 404);
	});

	it('/health answers without the token and shows no secret', async () => {
		const response = await raw(host, { path: '/health' });
		assert.equal(response.status, 200);
		assert.match(response.headers['content-type'], /^application\/json/);
		assert.equal(response.json.status, 'ok');
		assert.equal(response.json.version, host.welcome.version);
		assert.equal(response.json.extension_connected, true);
		assert.equal(typeof response.json.sessions, 'number');
		assert.ok(!response.text.includes(host.token), 'the token must not appear in /health');
		assert.equal(response.json.token, undefined);
	});

	it('GET /mcp without a session is 400', async () => {
		const none = await raw(host, { method: 'GET', headers: { ...authHeaders(host), Accept: 'text/event-stream' } });
		assert.equal(none.status, 400);
	});
});

describe('--no-auth', () => {
	it('accepts MCP requests without a token; the Host and Origin checks still apply', async () => {
		const host = await startHost({ args: ['--no-auth'] });
		try {
			assert.equal(host.welcome.auth, false);
			assert.equal(host.welcome.token, undefined);
			const response = await raw(host, {
				method: 'POST',
				headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
				body: INITIALIZE,
			});
			assert.equal(response.status, 200);
			// The Host and Origin checks still apply.
			const evil = await raw(host, {
				method: 'POST',
				headers: { 'Content-Type': 'application/json', Origin: 'https://evil.example' },
				body: INITIALIZE,
			});
			assert.equal(evil.status, 403);
		} finally {
			await host.stop();
		}
	});
});

describe('CORS for the origins config.json allows', () => {
	const INSPECTOR = 'http://localhost:6274';
	let host;
	let configHome;
	before(async () => {
		configHome = mkdtempSync(join(tmpdir(), 'bb-cors-'));
		mkdirSync(join(configHome, 'browser-bridge'), { mode: 0o700 });
		writeFileSync(join(configHome, 'browser-bridge', 'config.json'),
		    JSON.stringify({ allowed_origins: [INSPECTOR, 'https://inspector.example.com'] }));
		host = await startHost({ env: { XDG_CONFIG_HOME: configHome } });
	});
	after(async () => {
		await host.stop();
		rmSync(configHome, { recursive: true, force: true });
	});

	it('a listed origin gets its preflight answered without the token, then CORS headers on requests that carry it', async () => {
		const preflight = await raw(host, { method: 'OPTIONS', headers: {
			Origin: INSPECTOR, 'Access-Control-Request-Method': 'POST',
			'Access-Control-Request-Headers': 'authorization, content-type, mcp-session-id',
		} });
		assert.equal(preflight.status, 204);
		assert.equal(preflight.headers['access-control-allow-origin'], INSPECTOR);
		assert.match(preflight.headers['access-control-allow-headers'], /Authorization/);
		assert.match(preflight.headers['access-control-allow-headers'], /Mcp-Session-Id/);

		const init = await raw(host, { method: 'POST', headers: mcpHeaders(host, { Origin: INSPECTOR }), body: INITIALIZE });
		assert.equal(init.status, 200);
		assert.equal(init.headers['access-control-allow-origin'], INSPECTOR);
		assert.match(init.headers['access-control-expose-headers'], /Mcp-Session-Id/);

		const noToken = await raw(host, { method: 'POST', headers: { 'Content-Type': 'application/json',
		    Accept: 'application/json, text/event-stream', Origin: INSPECTOR }, body: INITIALIZE });
		assert.equal(noToken.status, 401, 'the token is still required');
	});

	it('a listed web origin that is not loopback passes the Origin check; an unlisted one gets no CORS', async () => {
		const listed = await raw(host, { method: 'POST',
		    headers: mcpHeaders(host, { Origin: 'https://inspector.example.com' }), body: INITIALIZE });
		assert.equal(listed.status, 200);
		const unlisted = await raw(host, { method: 'OPTIONS', headers: { Origin: 'http://localhost:9999' } });
		assert.equal(unlisted.headers['access-control-allow-origin'], undefined);
		assert.notEqual(unlisted.status, 204);
		const evil = await raw(host, { method: 'POST', headers: mcpHeaders(host, { Origin: 'https://evil.example' }), body: INITIALIZE });
		assert.equal(evil.status, 403);
	});
});

describe('CORS by default', () => {
	let host;
	before(async () => {
		host = await startHost();
	});
	after(async () => {
		await host.stop();
	});

	it('is off: a preflight from a loopback page gets no CORS headers', async () => {
		const preflight = await raw(host, { method: 'OPTIONS', headers: { Origin: 'http://localhost:6274' } });
		assert.notEqual(preflight.status, 204);
		assert.equal(preflight.headers['access-control-allow-origin'], undefined);
	});
});
