// Per-client keys with consent (#25): the host's OAuth authorization
// server and protected resource, driven by the MCP SDK's own OAuth client
// and by raw requests, with the fake extension answering approve_client
// as the person would in the popup.

import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import {
	Client as ModernClient,
	StreamableHTTPClientTransport as ModernTransport,
	UnauthorizedError as ModernUnauthorizedError,
} from '@modelcontextprotocol/client';

import { EXTENSION_ORIGIN, never, scaled, startHost } from './fake-extension.mjs';
import { INITIALIZE, authHeaders, eventually, openStream as openRawStream, raw } from './mcp-client.mjs';
import { modernBody } from './modern-scenarios.mjs';
import { MODERN } from './stdio-client.mjs';

const DEFAULT_SCOPES = ['pages:read', 'pages:act', 'tasks'];

// An OAuthClientProvider kept in memory: the SDK's interface for a client
// that runs the authorization code flow itself. The "browser" is the test:
// redirectToAuthorization records the URL, which browse() then follows.
class MemoryProvider {
	constructor(name, redirectUrl) {
		this.name = name;
		this.redirect = redirectUrl;
		this.info = undefined;
		this.saved = undefined;
		this.verifier = undefined;
		this.authorizationUrl = undefined;
		this.lastState = undefined;
	}

	get redirectUrl() {
		return this.redirect;
	}

	get clientMetadata() {
		return {
			client_name: this.name,
			redirect_uris: [this.redirect],
			grant_types: ['authorization_code', 'refresh_token'],
			response_types: ['code'],
			token_endpoint_auth_method: 'none',
		};
	}

	state() {
		this.lastState = randomBytes(8).toString('hex');
		return this.lastState;
	}

	clientInformation() {
		return this.info;
	}

	saveClientInformation(info) {
		this.info = info;
	}

	tokens() {
		return this.saved;
	}

	saveTokens(tokens) {
		this.saved = tokens;
	}

	redirectToAuthorization(url) {
		this.authorizationUrl = url;
	}

	saveCodeVerifier(verifier) {
		this.verifier = verifier;
	}

	codeVerifier() {
		return this.verifier;
	}
}

// The person's browser on the authorization page: it reloads the page as
// its meta refresh says until the host redirects; returns the redirect's
// URL (the page's last HTML in .pages).
async function browse(url, ms = 10000) {
	const limit = performance.now() + scaled(ms);
	const pages = [];
	let next = new URL(url);
	for (;;) {
		const response = await fetch(next, { redirect: 'manual' });
		if (response.status === 302) {
			const location = new URL(response.headers.get('location'));
			location.pages = pages;
			return location;
		}
		const html = await response.text();
		pages.push(html);
		assert.equal(response.status, 200, `the authorization page: ${html}`);
		const refresh = /http-equiv="refresh" content="\d+; url=([^"]+)"/.exec(html);
		assert.ok(refresh, `the waiting page reloads itself: ${html}`);
		if (performance.now() > limit)
			throw new Error(`no redirect after ${scaled(ms)} ms: ${html}`);
		next = new URL(refresh[1], next);
		await new Promise(resolve => setTimeout(resolve, 100));
	}
}

// A PKCE pair (RFC 7636, S256).
function pkce() {
	const verifier = randomBytes(32).toString('base64url');
	return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

// POSTs a form to an OAuth endpoint; resolves to { status, json, headers }.
async function postForm(host, path, fields) {
	const response = await fetch(`${host.base}${path}`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams(fields).toString(),
	});
	return { status: response.status, headers: response.headers, json: await response.json() };
}

// Registers a client; resolves to the registration response's body.
async function register(host, fields = {}) {
	const response = await fetch(`${host.base}/register`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ client_name: 'raw client', redirect_uris: ['http://127.0.0.1:41000/callback'], ...fields }),
	});
	return { status: response.status, json: await response.json() };
}

// The authorization URL of a raw client.
function authorizeUrl(host, client, { challenge, scope, state = 'st4te', resource = host.url, redirect } = {}) {
	const url = new URL(`${host.base}/authorize`);
	url.searchParams.set('response_type', 'code');
	url.searchParams.set('client_id', client.client_id);
	if (redirect !== null)	/* null: the client leaves it out */
		url.searchParams.set('redirect_uri', redirect ?? client.redirect_uris[0]);
	url.searchParams.set('code_challenge', challenge);
	url.searchParams.set('code_challenge_method', 'S256');
	url.searchParams.set('state', state);
	if (resource !== undefined)
		url.searchParams.set('resource', resource);
	if (scope !== undefined)
		url.searchParams.set('scope', scope);
	return url;
}

// What a process of its own runs (elsewhereRegister): registers clients of
// the names in argv[3] (JSON) at the host's base URL argv[1], asks argv[4]
// times for each one's approval (challenge argv[2]), and prints the
// registrations with the answers.
const ELSEWHERE = `
const [base, challenge, names, asks] = process.argv.slice(1);
const clients = [];
for (const client_name of JSON.parse(names)) {
	const registered = await fetch(base + '/register', {
		method: 'POST', headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ client_name, redirect_uris: ['http://127.0.0.1:41000/callback'] }),
	});
	const client = { status: registered.status, json: await registered.json(), asked: [] };
	clients.push(client);
	for (let i = 0; i < Number(asks) && registered.status === 201; i++) {
		const url = new URL(base + '/authorize');
		for (const [name, value] of Object.entries({ response_type: 'code', client_id: client.json.client_id,
			redirect_uri: 'http://127.0.0.1:41000/callback', code_challenge: challenge, code_challenge_method: 'S256' }))
			url.searchParams.set(name, value);
		const page = await fetch(url, { redirect: 'manual' });
		client.asked.push({ status: page.status, retry: page.headers.get('retry-after'), text: await page.text() });
	}
}
console.log(JSON.stringify(clients));
`;

// Registers clients of these names from a new Node process (as uid, when
// given), which asks `asks` times for each one's approval; resolves to
// [{ status, json, asked: [{ status, retry, text }] }], one per name.
function elsewhereRegister(host, names, { asks = 0, uid } = {}) {
	return new Promise((resolve, reject) => {
		execFile(process.execPath, ['--input-type=module', '-e', ELSEWHERE, host.base, pkce().challenge,
			JSON.stringify(names), String(asks)], { uid, timeout: scaled(30000) }, (error, stdout, stderr) => {
			if (error)
				reject(new Error(`the registering process failed: ${error.message}\n${stderr}`));
			else
				resolve(JSON.parse(stdout));
		});
	});
}

// Runs a raw client's whole flow up to its tokens (the person approves
// what the host's approve_client handler says).
async function authorizeRaw(host, options = {}) {
	const client = (await register(host, options.metadata)).json;
	const { verifier, challenge } = pkce();
	const back = await browse(authorizeUrl(host, client, { challenge, ...options }));
	const code = back.searchParams.get('code');
	assert.ok(code, `a code: ${back}`);
	const tokens = await postForm(host, '/token', {
		grant_type: 'authorization_code', code, code_verifier: verifier,
		redirect_uri: client.redirect_uris[0], client_id: client.client_id, resource: host.url,
	});
	assert.equal(tokens.status, 200, JSON.stringify(tokens.json));
	return { client, verifier, code, tokens: tokens.json };
}

// An MCP POST with a bearer key.
function mcpPost(host, key, body, extra = {}) {
	return raw(host, {
		method: 'POST',
		headers: {
			'Content-Type': 'application/json',
			Accept: 'application/json, text/event-stream',
			...(key !== undefined ? { Authorization: `Bearer ${key}` } : {}),
			...extra,
		},
		body,
	});
}

// Opens a session with a key; resolves to its id.
async function openSession(host, key) {
	const response = await mcpPost(host, key, INITIALIZE);
	assert.equal(response.status, 200, response.text);
	return response.headers['mcp-session-id'];
}

// A tools/call in a session, as a raw POST.
function callTool(host, key, session, name, args = {}, id = 5) {
	return mcpPost(host, key, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
	    { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-06-18' });
}

// Opens an event stream (GET /mcp's, or a POST answered as one); resolves
// once open, with ended (a promise).
function openStream(host, key, { method = 'GET', headers = {}, body } = {}) {
	return new Promise((resolve, reject) => {
		const data = body !== undefined ? Buffer.from(JSON.stringify(body)) : undefined;
		const req = httpRequest({
			host: '127.0.0.1', port: host.port, method, path: '/mcp', agent: false,
			headers: {
				Host: `127.0.0.1:${host.port}`, Accept: 'text/event-stream', Authorization: `Bearer ${key}`,
				...(data !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': data.length } : {}),
				...headers,
			},
		}, res => {
			const ended = new Promise(done => {
				res.on('end', done);
				res.on('close', done);
				res.on('error', done);
			});
			res.resume();
			resolve({ status: res.statusCode, type: res.headers['content-type'], ended, close: () => req.destroy() });
		});
		req.on('error', error => { if (error.code !== 'ECONNRESET') reject(error); });
		req.end(data);
	});
}

describe('OAuth: the SDK client runs the whole flow', () => {
	let host;
	let approve = () => ({ approved: true, scopes: DEFAULT_SCOPES });

	before(async () => {
		host = await startHost({ handlers: { approve_client: params => approve(params) } });
	});
	after(async () => host?.stop());

	it('401 names the resource metadata; the SDK registers, the person approves, tools/call works', async () => {
		assert.equal(host.welcome.oauth, true, 'the welcome says OAuth is on');
		const bare = await mcpPost(host, undefined, INITIALIZE);
		assert.equal(bare.status, 401);
		assert.equal(bare.headers['www-authenticate'],
		    `Bearer resource_metadata="${host.base}/.well-known/oauth-protected-resource/mcp", scope="pages:read pages:act tasks"`);

		const provider = new MemoryProvider('SDK test client', 'http://127.0.0.1:43210/callback');
		const first = new StreamableHTTPClientTransport(new URL(host.url), { authProvider: provider });
		await assert.rejects(new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first), UnauthorizedError);
		assert.ok(provider.info?.client_id, 'the SDK registered a client');
		assert.equal(provider.authorizationUrl.searchParams.get('resource'), host.url);
		assert.equal(provider.authorizationUrl.searchParams.get('code_challenge_method'), 'S256');

		const back = await browse(provider.authorizationUrl);
		assert.match(back.pages[0], /SDK test client/);
		assert.match(back.pages[0], /Browser Bridge popup/);
		assert.equal(`${back.origin}${back.pathname}`, 'http://127.0.0.1:43210/callback');
		assert.equal(back.searchParams.get('state'), provider.lastState);
		assert.equal(back.searchParams.get('iss'), host.base);

		const ask = host.requests.find(r => r.method === 'approve_client');
		assert.equal(ask.timeout_ms, 300000);
		assert.match(ask.params.request_id, /^[0-9a-f]{32}$/);
		assert.equal(ask.params.client_id, provider.info.client_id);
		assert.equal(ask.params.client_name, 'SDK test client');
		assert.equal(ask.params.redirect_uri, 'http://127.0.0.1:43210/callback');
		assert.equal(ask.params.redirect_host, '127.0.0.1:43210');
		assert.deepEqual(ask.params.scopes, DEFAULT_SCOPES);
		assert.equal(ask.params.expires_at_ms - ask.params.requested_at_ms, 300000);

		await first.finishAuth(back.searchParams.get('code'));
		assert.ok(provider.saved.access_token.startsWith('bba_'));
		assert.ok(provider.saved.refresh_token.startsWith('bbr_'));
		const client = new Client({ name: 'oauth-test', version: '1.0.0' });
		await client.connect(new StreamableHTTPClientTransport(new URL(host.url), { authProvider: provider }));
		const result = await client.callTool({ name: 'navigate_to', arguments: { url: 'https://example.com/' } });
		assert.notEqual(result.isError, true, JSON.stringify(result));
		const call = host.requests.findLast(r => r.method === 'navigate_to');
		assert.match(call.caller, /^[0-9a-f]{32}$/);
		assert.equal(call.owner, undefined, 'an OAuth client is not the owner');
		await client.close();

		const listed = await host.request('list_clients');
		const mine = listed.result.clients.find(c => c.client_id === provider.info.client_id);
		assert.equal(mine.client_name, 'SDK test client');
		assert.equal(mine.redirect_host, '127.0.0.1:43210');
		assert.deepEqual(mine.scopes, DEFAULT_SCOPES);
		assert.ok(Number.isInteger(mine.approved_at_ms));
		assert.ok(Number.isInteger(mine.last_used_ms), 'the call recorded its use');
		assert.equal(mine.last_used_ms % 60000, 0, 'to the minute');
	});

	it('the 2.x SDK client runs the same flow, and its key works for stateless 2026-07-28 requests', async () => {
		const provider = new MemoryProvider('SDK 2 client', 'http://localhost:43211/cb');
		const first = new ModernTransport(new URL(host.url), { authProvider: provider });
		await assert.rejects(new ModernClient({ name: 'oauth-2x', version: '2.0.0' }).connect(first),
		    error => error instanceof ModernUnauthorizedError || /nauthorized/.test(error.message));
		const back = await browse(provider.authorizationUrl);
		assert.equal(back.host, 'localhost:43211');
		assert.equal(back.searchParams.get('iss'), host.base);
		await first.finishAuth(back.searchParams);	/* iss checked (RFC 9207) */
		const client = new ModernClient({ name: 'oauth-2x', version: '2.0.0' });
		await client.connect(new ModernTransport(new URL(host.url), { authProvider: provider }));
		const tools = await client.listTools();
		assert.ok(tools.tools.some(t => t.name === 'run_task'));
		assert.ok(!tools.tools.some(t => t.name === 'evaluate_script'), 'scripts was not granted');
		const result = await client.callTool({ name: 'get_browser_state', arguments: {} });
		assert.notEqual(result.isError, true, JSON.stringify(result));
		const call = host.requests.findLast(r => r.method === 'get_browser_state');
		assert.match(call.caller, /^[0-9a-f]{32}$/);
		assert.equal(call.owner, undefined);
		await client.close();
	});

	it('status and doctor list the approved clients, their names with no control or format character', async () => {
		const tricky = await authorizeRaw(host, { metadata: { client_name: 'Tricky\u009b2J \u202eedoC\u001b[0m' } });
		const ask = host.requests.findLast(r => r.method === 'approve_client');
		assert.equal(ask.params.client_id, tricky.client.client_id);
		assert.equal(ask.params.client_name, 'Tricky\ufffd2J \ufffdedoC\ufffd[0m');
		for (const command of ['status', 'doctor']) {
			const r = spawnSync(process.env.BRIDGE_BIN, [command], { env: host.env, encoding: 'utf8' });
			assert.match(r.stdout, /"SDK test client" \(the name it gave\) \["pages:read","pages:act","tasks"\], approved \d{4}-\d\d-\d\d \d\d:\d\d UTC, last used \d{4}-/,
			    `${command}: ${r.stdout}${r.stderr}`);
			assert.ok(r.stdout.includes('"Tricky\ufffd2J \ufffdedoC\ufffd[0m" (the name it gave)'), `${command}: ${r.stdout}`);
			assert.doesNotMatch(r.stdout, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u, command);
		}
		await postForm(host, '/revoke', { token: tricky.tokens.refresh_token, client_id: tricky.client.client_id });
	});

	it('a client whose name resembles an approved client\'s is marked so in approve_client, with that client\'s dates', async () => {
		await authorizeRaw(host, { metadata: { client_name: 'sdk  TEST c1ient' } });
		const ask = host.requests.findLast(r => r.method === 'approve_client');
		assert.equal(ask.params.client_name, 'sdk  TEST c1ient');
		assert.equal(ask.params.name_taken_by?.client_name, 'SDK test client', JSON.stringify(ask.params));
		assert.ok(Number.isInteger(ask.params.name_taken_by.registered_at_ms));
		assert.ok(ask.params.name_taken_by.approved_at_ms >= ask.params.name_taken_by.registered_at_ms);
		await authorizeRaw(host, { metadata: { client_name: 'another test client' } });
		assert.equal(host.requests.findLast(r => r.method === 'approve_client').params.name_taken_by, undefined);
	});

	it('the owner key still opens everything, marked owner', async () => {
		const session = await openSession(host, host.token);
		const call = await callTool(host, host.token, session, 'list_network_requests');
		assert.equal(call.status, 200, call.text);
		const sent = host.requests.findLast(r => r.method === 'list_network_requests');
		assert.equal(sent.owner, true);
	});

	it('host_status names the connected clients to the owner key only', async () => {
		const { tokens } = await authorizeRaw(host, { metadata: { client_name: 'Onlooker' } });
		const mine = await openSession(host, tokens.access_token);
		const owners = await openSession(host, host.token);
		const status = async (key, session) => {
			const call = await callTool(host, key, session, 'host_status');
			assert.equal(call.status, 200, call.text);
			return call.json.result;
		};
		const seen = await status(host.token, owners);
		assert.ok(Array.isArray(seen.structuredContent.clients) && seen.structuredContent.clients.length >= 2);
		const hidden = await status(tokens.access_token, mine);
		assert.equal(hidden.structuredContent.clients, undefined, 'no other client\'s sessions');
		assert.doesNotMatch(hidden.content[0].text, /"clients"/);
		assert.equal(typeof hidden.structuredContent.version, 'string');
	});

	it('tools/list shows only the tools the key allows; a call outside them is 403 insufficient_scope', async () => {
		approve = () => ({ approved: true, scopes: ['pages:read'] });
		try {
			const { tokens } = await authorizeRaw(host, { scope: 'pages:read pages:act' });
			assert.equal(tokens.scope, 'pages:read', 'unticked scopes are not granted');
			const key = tokens.access_token;
			const session = await openSession(host, key);
			const listed = await mcpPost(host, key, { jsonrpc: '2.0', id: 2, method: 'tools/list' },
			    { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-06-18' });
			const names = listed.json.result.tools.map(t => t.name);
			assert.ok(names.includes('get_browser_state'));
			for (const hidden of ['navigate_to', 'run_task', 'evaluate_script', 'list_network_requests'])
				assert.ok(!names.includes(hidden), `${hidden} is hidden`);

			const refused = await callTool(host, key, session, 'navigate_to', { url: 'https://example.com/' });
			assert.equal(refused.status, 403);
			assert.match(refused.headers['www-authenticate'], /^Bearer error="insufficient_scope", resource_metadata="[^"]+", scope="pages:read pages:act"$/,
			    'before 2026-07-28: the scopes needed and the ones held');
			assert.equal(refused.json.id, 5);
			const modern = await mcpPost(host, key, modernBody('tools/call', { name: 'navigate_to', arguments: { url: 'https://example.com/' } }),
			    { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'navigate_to' });
			assert.equal(modern.status, 403, modern.text);
			assert.match(modern.headers['www-authenticate'], /^Bearer error="insufficient_scope", resource_metadata="[^"]+", scope="pages:act"$/,
			    '2026-07-28 (SEP-2350): only the scopes the request needs');
			for (const method of ['tasks/list', 'tasks/get']) {
				const tasks = await mcpPost(host, key, { jsonrpc: '2.0', id: 6, method, params: { taskId: 'x' } },
				    { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25' });
				assert.equal(tasks.status, 403, method);
				assert.match(tasks.headers['www-authenticate'], /scope="pages:read tasks"/);
			}
			const read = await mcpPost(host, key, { jsonrpc: '2.0', id: 7, method: 'resources/list' },
			    { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-06-18' });
			assert.equal(read.status, 200, 'pages:read allows resources/*');
			assert.equal(host.requests.filter(r => r.method === 'navigate_to' && r.caller !== undefined && r.owner === undefined).length, 1,
			    'the refused call never reached the extension');
		} finally {
			approve = () => ({ approved: true, scopes: DEFAULT_SCOPES });
		}
	});

	it('a task started with a client key tells the agents that key\'s scopes; the owner key sends none', async () => {
		approve = () => ({ approved: true, scopes: ['pages:read', 'tasks'] });
		try {
			const { tokens } = await authorizeRaw(host);
			assert.equal(tokens.scope, 'pages:read tasks');
			const session = await openSession(host, tokens.access_token);
			const started = await callTool(host, tokens.access_token, session, 'run_task', { task: 'read the headline' });
			assert.equal(started.status, 200, started.text);
			const sent = host.requests.findLast(r => r.method === 'run_task');
			assert.deepEqual(sent.scopes, ['pages:read', 'tasks'], 'the agents may not act on pages');
			assert.equal(sent.owner, undefined);
			const owners = await openSession(host, host.token);
			await callTool(host, host.token, owners, 'run_task', { task: 'read the headline' });
			const owned = host.requests.findLast(r => r.method === 'run_task');
			assert.equal(owned.owner, true);
			assert.equal(owned.scopes, undefined, 'the owner key may do everything');
		} finally {
			approve = () => ({ approved: true, scopes: DEFAULT_SCOPES });
		}
	});

	it('a 2026-07-28 listen stream for resources needs pages:read', async () => {
		approve = () => ({ approved: true, scopes: ['tasks'] });
		try {
			const { tokens } = await authorizeRaw(host);
			assert.equal(tokens.scope, 'tasks');
			const listen = notifications => openStream(host, tokens.access_token, {
				method: 'POST',
				headers: { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'subscriptions/listen' },
				body: modernBody('subscriptions/listen', { notifications }),
			});
			for (const notifications of [{ resourceSubscriptions: ['browser://tabs'] }, { resourcesListChanged: true }]) {
				const refused = await listen(notifications);
				refused.close();
				assert.equal(refused.status, 403, `insufficient_scope for ${JSON.stringify(notifications)}`);
			}
			const tools = await listen({ toolsListChanged: true });
			tools.close();
			assert.equal(tools.status, 200, 'the tool list needs no scope');
		} finally {
			approve = () => ({ approved: true, scopes: DEFAULT_SCOPES });
		}
	});

	it('the legacy HTTP+SSE transport takes a client key too, with the same scopes', async () => {
		approve = () => ({ approved: true, scopes: ['pages:read'] });
		try {
			const key = (await authorizeRaw(host)).tokens.access_token;
			const auth = { Authorization: `Bearer ${key}` };
			const stream = await openRawStream(host, '/sse', auth);
			try {
				assert.equal(stream.status, 200);
				const endpoint = /event: endpoint\ndata: (\S+)\n/.exec(await stream.until(/event: endpoint\ndata: \S+\n/))[1];
				const post = body => raw(host, { method: 'POST', path: endpoint, body,
				    headers: { 'Content-Type': 'application/json', ...auth } });
				assert.equal((await post(INITIALIZE)).status, 202);
				const refused = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'navigate_to', arguments: { url: 'https://example.com/' } } });
				assert.equal(refused.status, 403);
				assert.match(refused.headers['www-authenticate'], /error="insufficient_scope"/);
				assert.equal((await post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_browser_state', arguments: {} } })).status, 202);
				// Another key cannot post to this client's stream.
				const other = await raw(host, { method: 'POST', path: endpoint, body: INITIALIZE,
				    headers: { 'Content-Type': 'application/json', ...authHeaders(host) } });
				assert.equal(other.status, 404);
			} finally {
				stream.close();
			}
		} finally {
			approve = () => ({ approved: true, scopes: DEFAULT_SCOPES });
		}
	});

	it('each client is one caller across its sessions, another client another', async () => {
		const a = await authorizeRaw(host);
		const b = await authorizeRaw(host);
		const callers = [];
		for (const key of [a.tokens.access_token, a.tokens.access_token, b.tokens.access_token]) {
			const session = await openSession(host, key);
			assert.equal((await callTool(host, key, session, 'list_tasks')).status, 200);
			callers.push(host.requests.findLast(r => r.method === 'list_tasks').caller);
		}
		assert.equal(callers[0], callers[1]);
		assert.notEqual(callers[0], callers[2]);
		// A session is its key's: another client's key cannot use it.
		const session = await openSession(host, a.tokens.access_token);
		assert.equal((await callTool(host, b.tokens.access_token, session, 'list_tasks')).status, 404);
		assert.equal((await callTool(host, host.token, session, 'list_tasks')).status, 404);
	});
});

describe('OAuth: refusals, each with the spec\'s error', () => {
	let host;
	let approve = () => ({ approved: true, scopes: DEFAULT_SCOPES });

	before(async () => {
		host = await startHost({ handlers: { approve_client: params => approve(params) } });
	});
	after(async () => host?.stop());

	it('registration takes loopback redirect URIs only, no secrets, and keeps the name as sent', async () => {
		for (const uri of ['https://evil.example/cb', 'http://192.168.1.2/cb', 'http://127.0.0.1.evil.example/cb',
			'http://user@127.0.0.1/cb', 'http://127.0.0.1:99999/cb', 'http://127.0.0.1/cb#x', 'com.example.app:/cb',
			// #35: a header or a line smuggled into the Location of a redirect
			'http://127.0.0.1/cb\r\nX-Injected: 1', 'http://127.0.0.1/cb\r\n\tX-Injected: 1', 'http://127.0.0.1/c b',
			'http://127.0.0.1/cb%0d%0aX-Injected:%201', 'http://127.0.0.1/cb%0D%0A', 'http://127.0.0.1/cb\u009b']) {
			const r = await register(host, { redirect_uris: [uri] });
			assert.equal(r.status, 400, uri);
			assert.equal(r.json.error, 'invalid_redirect_uri', uri);
		}
		const many = await register(host, { redirect_uris: Array.from({ length: 9 }, (_, i) => `http://127.0.0.1/${i}`) });
		assert.equal(many.json.error, 'invalid_redirect_uri');
		const secret = await register(host, { token_endpoint_auth_method: 'client_secret_basic' });
		assert.equal(secret.json.error, 'invalid_client_metadata');
		const grant = await register(host, { grant_types: ['client_credentials'] });
		assert.equal(grant.json.error, 'invalid_client_metadata');
		const name = await register(host, { client_name: `Evil\u0007\u001b[31m${'x'.repeat(500)}` });
		assert.equal(name.status, 201);
		assert.equal(name.json.client_name, `Evil\u0007\u001b[31m${'x'.repeat(390)}`, 'kept as sent, 400 characters at most');
		assert.equal(name.json.token_endpoint_auth_method, 'none');
		for (const uri of ['http://localhost:1/cb', 'http://[::1]/cb?x=1', 'http://127.0.0.1/'])
			assert.equal((await register(host, { redirect_uris: [uri] })).status, 201, uri);
	});

	it('an unregistered redirect URI gets an error page, never a redirect; any port of a registered one works', async () => {
		const client = (await register(host)).json;
		const { challenge } = pkce();
		for (const redirect of ['http://127.0.0.1:41000/other', 'http://localhost:41000/callback', 'https://evil.example/callback']) {
			const response = await fetch(authorizeUrl(host, client, { challenge, redirect }), { redirect: 'manual' });
			assert.equal(response.status, 400, redirect);
			assert.match(await response.text(), /not one this client registered/);
		}
		const otherPort = await browse(authorizeUrl(host, client, { challenge, redirect: 'http://127.0.0.1:52000/callback' }));
		assert.equal(otherPort.host, '127.0.0.1:52000');
		assert.ok(otherPort.searchParams.get('code'));
	});

	it('plain PKCE, a missing challenge, another resource and an unknown scope are sent back as errors', async () => {
		const client = (await register(host)).json;
		const { challenge } = pkce();
		const cases = [
			[url => url.searchParams.set('code_challenge_method', 'plain'), 'invalid_request'],
			[url => url.searchParams.delete('code_challenge'), 'invalid_request'],
			[url => url.searchParams.set('response_type', 'token'), 'unsupported_response_type'],
			[url => url.searchParams.set('resource', `http://127.0.0.1:${host.port + 1}/mcp`), 'invalid_target'],
			[url => url.searchParams.set('resource', 'https://evil.example/mcp'), 'invalid_target'],
			[url => url.searchParams.set('scope', 'pages:read admin'), 'invalid_scope'],
		];
		for (const [change, error] of cases) {
			const url = authorizeUrl(host, client, { challenge });
			change(url);
			const response = await fetch(url, { redirect: 'manual' });
			assert.equal(response.status, 302, `${url}`);
			const back = new URL(response.headers.get('location'));
			assert.equal(back.searchParams.get('error'), error, `${url}`);
			assert.equal(back.searchParams.get('state'), 'st4te');
			assert.equal(back.searchParams.get('iss'), host.base);
		}
	});

	it('a wrong PKCE verifier, a code used twice, another redirect_uri: invalid_grant', async () => {
		const client = (await register(host)).json;
		const other = (await register(host, { client_name: 'another client' })).json;
		const { verifier, challenge } = pkce();
		const code = (await browse(authorizeUrl(host, client, { challenge }))).searchParams.get('code');
		const exchange = fields => postForm(host, '/token', {
			grant_type: 'authorization_code', code, code_verifier: verifier,
			redirect_uri: client.redirect_uris[0], client_id: client.client_id, resource: host.url, ...fields,
		});
		const wrong = await exchange({ code_verifier: pkce().verifier });
		assert.equal(wrong.status, 400);
		assert.equal(wrong.json.error, 'invalid_grant');
		assert.match(wrong.json.error_description, /code_verifier/);
		const stolen = await exchange({ client_id: other.client_id });
		assert.equal(stolen.json.error, 'invalid_grant');
		assert.match(stolen.json.error_description, /another client_id/);
		// Failed tries spend nothing: the client still gets its tokens.
		const tokens = await exchange({});
		assert.equal(tokens.status, 200, JSON.stringify(tokens.json));
		assert.equal((await mcpPost(host, tokens.json.access_token, INITIALIZE)).status, 200);
		// The spent code replayed by another client takes back what it gave (RFC 6749 4.1.2).
		const again = await exchange({ client_id: other.client_id });
		assert.equal(again.json.error, 'invalid_grant');
		assert.match(again.json.error_description, /used already/);
		assert.equal((await mcpPost(host, tokens.json.access_token, INITIALIZE)).status, 401);

		const second = await authorizeRaw(host);
		const replay = await postForm(host, '/token', {
			grant_type: 'authorization_code', code: second.code, code_verifier: second.verifier,
			redirect_uri: second.client.redirect_uris[0], client_id: second.client.client_id,
		});
		assert.equal(replay.json.error, 'invalid_grant');
		// Replaying the code takes back what it gave (RFC 6749 4.1.2).
		assert.equal((await mcpPost(host, second.tokens.access_token, INITIALIZE)).status, 401);

		const third = (await register(host)).json;
		const pair = pkce();
		const thirdCode = (await browse(authorizeUrl(host, third, { challenge: pair.challenge }))).searchParams.get('code');
		const moved = await postForm(host, '/token', {
			grant_type: 'authorization_code', code: thirdCode, code_verifier: pair.verifier,
			redirect_uri: 'http://127.0.0.1:41000/elsewhere', client_id: third.client_id,
		});
		assert.equal(moved.json.error, 'invalid_grant');
		const foreign = await postForm(host, '/token', { grant_type: 'password', client_id: third.client_id });
		assert.equal(foreign.json.error, 'unsupported_grant_type');
		const unknown = await postForm(host, '/token', { grant_type: 'authorization_code', client_id: 'nobody' });
		assert.equal(unknown.status, 401);
		assert.equal(unknown.json.error, 'invalid_client');
	});

	it('a parameter sent twice is invalid_request (RFC 6749 3.1)', async () => {
		const client = (await register(host)).json;
		const { verifier, challenge } = pkce();
		const url = authorizeUrl(host, client, { challenge });
		url.searchParams.append('state', 'other');
		const back = await browse(url);
		assert.equal(back.searchParams.get('error'), 'invalid_request');
		assert.match(back.searchParams.get('error_description'), /more than once/);
		const twice = authorizeUrl(host, client, { challenge });
		twice.searchParams.append('redirect_uri', 'http://127.0.0.1:41001/callback');
		const page = await fetch(twice, { redirect: 'manual' });
		assert.equal(page.status, 400, 'two redirect URIs: no redirect at all');
		const code = (await browse(authorizeUrl(host, client, { challenge }))).searchParams.get('code');
		const body = new URLSearchParams({
			grant_type: 'authorization_code', code, code_verifier: verifier,
			redirect_uri: client.redirect_uris[0], client_id: client.client_id,
		});
		body.append('code_verifier', pkce().verifier);
		const response = await fetch(`${host.base}/token`, {
			method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: body.toString(),
		});
		const refused = await response.json();
		assert.equal(response.status, 400);
		assert.equal(refused.error, 'invalid_request');
		assert.match(refused.error_description, /code_verifier is sent more than once/);
	});

	it('/token needs redirect_uri only when the authorization request had one (RFC 6749 4.1.3)', async () => {
		const client = (await register(host)).json;
		const without = pkce();
		const code = (await browse(authorizeUrl(host, client, { challenge: without.challenge, redirect: null }))).searchParams.get('code');
		const tokens = await postForm(host, '/token', {
			grant_type: 'authorization_code', code, code_verifier: without.verifier, client_id: client.client_id, resource: host.url,
		});
		assert.equal(tokens.status, 200, JSON.stringify(tokens.json));
		const withIt = pkce();
		const second = (await browse(authorizeUrl(host, client, { challenge: withIt.challenge }))).searchParams.get('code');
		const missing = await postForm(host, '/token', {
			grant_type: 'authorization_code', code: second, code_verifier: withIt.verifier, client_id: client.client_id,
		});
		assert.equal(missing.json.error, 'invalid_request');
		assert.match(missing.json.error_description, /redirect_uri/);
	});

	it('a refresh token rotates; reusing a rotated one revokes the whole grant', async () => {
		const { client, tokens } = await authorizeRaw(host);
		const refresh = fields => postForm(host, '/token', {
			grant_type: 'refresh_token', client_id: client.client_id, resource: host.url, ...fields,
		});
		const rotated = await refresh({ refresh_token: tokens.refresh_token });
		assert.equal(rotated.status, 200, JSON.stringify(rotated.json));
		assert.notEqual(rotated.json.refresh_token, tokens.refresh_token);
		assert.equal((await mcpPost(host, rotated.json.access_token, INITIALIZE)).status, 200);
		const wider = await refresh({ refresh_token: rotated.json.refresh_token, scope: 'pages:read scripts' });
		assert.equal(wider.json.error, 'invalid_scope');

		const reused = await refresh({ refresh_token: tokens.refresh_token });
		assert.equal(reused.status, 400);
		assert.equal(reused.json.error, 'invalid_grant');
		assert.equal((await mcpPost(host, rotated.json.access_token, INITIALIZE)).status, 401, 'the grant is revoked');
		assert.equal((await refresh({ refresh_token: rotated.json.refresh_token })).json.error, 'invalid_grant');
	});

	it('a token given up at /revoke opens nothing more', async () => {
		const { client, tokens } = await authorizeRaw(host);
		assert.equal((await mcpPost(host, tokens.access_token, INITIALIZE)).status, 200);
		const revoked = await postForm(host, '/revoke', { token: tokens.refresh_token, client_id: client.client_id });
		assert.equal(revoked.status, 200);
		const after = await mcpPost(host, tokens.access_token, INITIALIZE);
		assert.equal(after.status, 401);
		assert.match(after.headers['www-authenticate'], /^Bearer error="invalid_token", resource_metadata=/);
	});

	it('Deny redirects with access_denied, state and iss', async () => {
		approve = () => ({ approved: false });
		try {
			const client = (await register(host)).json;
			const back = await browse(authorizeUrl(host, client, { challenge: pkce().challenge }));
			assert.equal(back.searchParams.get('error'), 'access_denied');
			assert.equal(back.searchParams.get('state'), 'st4te');
			assert.equal(back.searchParams.get('iss'), host.base);
			assert.equal(back.searchParams.get('code'), null);
			approve = () => ({ approved: true, scopes: [] });
			const none = await browse(authorizeUrl(host, client, { challenge: pkce().challenge }));
			assert.equal(none.searchParams.get('error'), 'access_denied', 'no scope left ticked is a denial');
		} finally {
			approve = () => ({ approved: true, scopes: DEFAULT_SCOPES });
		}
	});

	it('nothing sent over HTTP approves a request, not even from the extension\'s origin', async () => {
		approve = () => never();
		try {
			const client = (await register(host)).json;
			const url = authorizeUrl(host, client, { challenge: pkce().challenge });
			const page = await fetch(url, { redirect: 'manual' });
			assert.equal(page.status, 200);
			const requestId = /request_id=([0-9a-f]{32})/.exec(await page.text())[1];
			const attempts = [
				['GET', `/authorize?request_id=${requestId}&approved=true&scopes=pages:read`],
				['POST', `/authorize?request_id=${requestId}`],
				['POST', '/approve'],
				['POST', '/approve_client'],
				['POST', `/token`],
			];
			for (const [method, path] of attempts) {
				const body = JSON.stringify({ request_id: requestId, approved: true, scopes: ['pages:read'] });
				await raw(host, { method, path, body, headers: { Origin: EXTENSION_ORIGIN, 'Content-Type': 'application/json', ...authHeaders(host) } });
			}
			const still = await fetch(`${host.base}/authorize?request_id=${requestId}`, { redirect: 'manual' });
			assert.equal(still.status, 200, 'still waiting for the person');
			assert.match(await still.text(), /Approve it in the Browser Bridge popup/);
		} finally {
			approve = () => ({ approved: true, scopes: DEFAULT_SCOPES });
		}
	});

	it('a token minted for another host (another port, the same clients file) opens nothing there', async () => {
		const { tokens } = await authorizeRaw(host);
		const other = await startHost({ env: { XDG_CONFIG_HOME: host.env.XDG_CONFIG_HOME, HOME: host.env.HOME } });
		try {
			assert.equal((await mcpPost(other, tokens.access_token, INITIALIZE)).status, 401);
			assert.equal((await mcpPost(host, tokens.access_token, INITIALIZE)).status, 200);
		} finally {
			await other.stop();
		}
	});

	it('two hosts on one clients file: a revocation and a rotation at one stay when the other saves', async () => {
		const gone = await authorizeRaw(host);
		const kept = await authorizeRaw(host);
		const other = await startHost({ env: { XDG_CONFIG_HOME: host.env.XDG_CONFIG_HOME, HOME: host.env.HOME } });
		try {
			const rotated = await postForm(host, '/token', {
				grant_type: 'refresh_token', refresh_token: kept.tokens.refresh_token, client_id: kept.client.client_id,
			});
			assert.equal(rotated.status, 200, JSON.stringify(rotated.json));
			assert.equal((await host.request('revoke_client', { client_id: gone.client.client_id })).result.revoked, true);
			assert.equal((await register(other)).status, 201, 'the other host saves a change of its own');
			const listed = await other.request('list_clients');
			assert.ok(!listed.result.clients.some(c => c.client_id === gone.client.client_id), 'the other host sees the revocation');
			assert.ok(listed.result.clients.some(c => c.client_id === kept.client.client_id), 'and the approvals made at the first');
			assert.equal((await mcpPost(host, gone.tokens.access_token, INITIALIZE)).status, 401, 'still revoked');
			const reused = await postForm(host, '/token', {
				grant_type: 'refresh_token', refresh_token: kept.tokens.refresh_token, client_id: kept.client.client_id,
			});
			assert.equal(reused.json.error, 'invalid_grant', 'a rotated refresh token stays dead');
		} finally {
			await other.stop();
		}
	});

	it('revoke_client ends the client\'s sessions and streams at once; its next request is 401', async () => {
		const { client, tokens } = await authorizeRaw(host);
		const key = tokens.access_token;
		const session = await openSession(host, key);
		const stream = await openStream(host, key, { headers: { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-06-18' } });
		assert.equal(stream.status, 200);
		// A stateless 2026-07-28 listen stream is the client's too.
		const listen = await openStream(host, key, {
			method: 'POST',
			headers: { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'subscriptions/listen' },
			body: modernBody('subscriptions/listen', { notifications: { toolsListChanged: true } }),
		});
		assert.equal(listen.status, 200);
		assert.match(listen.type, /text\/event-stream/);
		const owners = await openStream(host, host.token, {
			method: 'POST',
			headers: { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'subscriptions/listen', Authorization: `Bearer ${host.token}` },
			body: modernBody('subscriptions/listen', { notifications: { toolsListChanged: true } }),
		});
		let ownersEnded = false;
		owners.ended.then(() => { ownersEnded = true; });
		// Calls in flight, in its session and stateless: the extension
		// hears they are cancelled.
		host.handle('get_page_content', () => never());
		const inSession = callTool(host, key, session, 'get_page_content');
		const stateless = mcpPost(host, key, modernBody('tools/call', { name: 'get_page_content', arguments: {} }, 9),
		    { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'get_page_content', Accept: 'application/json' });
		await eventually(() => host.requests.filter(r => r.method === 'get_page_content').length === 2, 'both calls reached the extension');
		const inFlight = host.requests.filter(r => r.method === 'get_page_content');
		const started = performance.now();
		const revoked = await host.request('revoke_client', { client_id: client.client_id });
		assert.deepEqual(revoked.result, { revoked: true, caller: inFlight[0].caller }, 'the caller whose tasks the extension stops');
		await Promise.all([stream.ended, listen.ended, ...inFlight.map(r => host.waitForCancel(r.id, 1000))]);
		assert.ok(performance.now() - started < scaled(1000), 'the streams closed and the calls were cancelled within a second');
		await Promise.all([inSession, stateless]);
		assert.equal(ownersEnded, false, 'the owner\'s stream stays open');
		owners.close();
		assert.equal((await callTool(host, key, session, 'list_tasks')).status, 401);
		const listed = await host.request('list_clients');
		assert.ok(!listed.result.clients.some(c => c.client_id === client.client_id));
		const unknown = await host.request('revoke_client', { client_id: client.client_id });
		assert.equal(unknown.error.code, 'INVALID_ARGUMENT');
	});

	it('the clients file is the user\'s alone and holds no code or token, only digests', async () => {
		const { tokens, code } = await authorizeRaw(host);
		const file = join(host.configDir, 'clients.json');
		assert.equal(statSync(file).mode & 0o777, 0o600);
		const text = readFileSync(file, 'utf8');
		for (const secret of [tokens.access_token, tokens.refresh_token, code, tokens.access_token.slice(4)])
			assert.ok(!text.includes(secret), 'no secret in the file');
		assert.match(text, /"digest": "[0-9a-f]{64}"/);
	});
});

describe('OAuth: across restarts, without the extension, and turned off', () => {
	let configHome;

	before(() => {
		configHome = mkdtempSync(join(tmpdir(), 'bb-oauth-'));
	});
	after(() => rmSync(configHome, { recursive: true, force: true }));

	it('an approved client\'s tokens survive a host restart', async () => {
		const env = { XDG_CONFIG_HOME: configHome };
		const first = await startHost({ env, handlers: { approve_client: () => ({ approved: true, scopes: DEFAULT_SCOPES }) } });
		let tokens;
		try {
			tokens = (await authorizeRaw(first)).tokens;
		} finally {
			await first.stop();
		}
		const second = await startHost({ env, args: ['--port', String(first.port)] });
		try {
			assert.equal((await mcpPost(second, tokens.access_token, INITIALIZE)).status, 200);
		} finally {
			await second.stop();
		}
	});

	it('at most 2 requests of a client and 8 in all wait for the person; the 503 says when to retry; a decided one frees its place', async () => {
		let release;
		const decided = new Promise(resolve => { release = resolve; });
		let asked = 0;
		const host = await startHost({ handlers: { approve_client: () => (++asked === 1 ? decided : never()) } });
		const ask = client => fetch(authorizeUrl(host, client, { challenge: pkce().challenge }), { redirect: 'manual' });
		try {
			// Each registered by a process of its own: one process's new
			// clients share 2 places (the test below).
			const clients = [];
			for (let i = 0; i < 5; i++)
				clients.push((await elsewhereRegister(host, [`waiting ${i}`]))[0].json);
			assert.equal((await ask(clients[0])).status, 200);
			assert.equal((await ask(clients[0])).status, 200);
			const mine = await ask(clients[0]);
			assert.equal(mine.status, 503);
			const seconds = Number(mine.headers.get('retry-after'));
			assert.ok(seconds > 290 && seconds <= 300, `Retry-After: ${seconds}`);
			assert.match(await mine.text(), new RegExp(`This client already has 2 approval requests waiting .* in ${seconds} seconds`));
			for (let i = 1; i < 4; i++) {
				assert.equal((await ask(clients[i])).status, 200);
				assert.equal((await ask(clients[i])).status, 200);
			}
			const full = await ask(clients[4]);
			assert.equal(full.status, 503);
			assert.ok(Number(full.headers.get('retry-after')) > 0, 'Retry-After');
			assert.match(await full.text(), /Too many approval requests are waiting .* in \d+ seconds/);
			release({ approved: false });
			await eventually(async () => (await ask(clients[4])).status === 200, 'the denied request to free its place');
		} finally {
			await host.stop();
		}
	});

	it('one process registering 4 clients holds at most 2 places of new clients, whatever it asks; another process\'s new client still finds one', async () => {
		const host = await startHost({ handlers: { approve_client: () => never() } });
		// The OS layer names the registering process on Linux and macOS (and
		// Windows); the portable one cannot, and the rule per client holds.
		const knowsProcesses = ['linux', 'darwin', 'win32'].includes(process.env.BRIDGE_OS);
		try {
			const flood = await elsewhereRegister(host, ['flood 0', 'flood 1', 'flood 2', 'flood 3'], { asks: 2 });
			assert.deepEqual(flood.map(client => client.status), [201, 201, 201, 201]);
			const statuses = flood.flatMap(client => client.asked.map(page => page.status));
			if (knowsProcesses) {
				assert.deepEqual(statuses, [200, 200, 503, 503, 503, 503, 503, 503]);
				const refused = flood[3].asked[1];
				assert.ok(Number(refused.retry) > 290 && Number(refused.retry) <= 300, `Retry-After: ${refused.retry}`);
				assert.match(refused.text, new RegExp('The program that registered this client already has 2 approval ' +
				    `requests of new clients waiting .* in ${refused.retry} seconds`));
			} else
				assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 200]);
			const newcomer = (await register(host, { client_name: 'second process' })).json;
			const page = await fetch(authorizeUrl(host, newcomer, { challenge: pkce().challenge }), { redirect: 'manual' });
			assert.equal(page.status, knowsProcesses ? 200 : 503, await page.text());
			// Another user's process may not register (Linux; only root
			// can start one here).
			if (process.env.BRIDGE_OS === 'linux' && process.getuid() === 0) {
				const [stranger] = await elsewhereRegister(host, ['stranger'], { uid: 65534 });
				assert.equal(stranger.status, 403);
				assert.equal(stranger.json.error, 'access_denied');
				assert.match(stranger.json.error_description, /a process of another user may not register/);
			}
		} finally {
			await host.stop();
		}
	});

	it('a flood of registrations gets 429 with Retry-After after a burst of 16, does not rewrite the clients file, and leaves a waiting client its approval', async () => {
		let decide;
		const host = await startHost({ handlers: { approve_client: () => new Promise(resolve => { decide = resolve; }) } });
		try {
			const file = join(host.configDir, 'clients.json');
			const waiting = (await register(host, { client_name: 'waiting client' })).json;
			const page = await fetch(authorizeUrl(host, waiting, { challenge: pkce().challenge }), { redirect: 'manual' });
			assert.equal(page.status, 200);
			const requestId = /request_id=([0-9a-f]{32})/.exec(await page.text())[1];
			const before = statSync(file, { bigint: true });
			const statuses = [];
			let refused;
			while (statuses.length < 40 && refused === undefined) {
				const response = await fetch(`${host.base}/register`, {
					method: 'POST', headers: { 'Content-Type': 'application/json' },
					body: JSON.stringify({ client_name: `flood ${statuses.length}`, redirect_uris: ['http://127.0.0.1:41000/callback'] }),
				});
				statuses.push(response.status);
				if (response.status === 429)
					refused = { retry: Number(response.headers.get('retry-after')), json: await response.json() };
				else
					await response.body?.cancel();
			}
			assert.ok(refused, `a 429 within 40 registrations: ${statuses}`);
			assert.ok(statuses.length >= 14, `the burst registers first: ${statuses}`);
			assert.equal(refused.retry, 1);
			assert.equal(refused.json.error, 'temporarily_unavailable');
			assert.match(refused.json.error_description, /register again in 1 seconds/);
			const after = statSync(file, { bigint: true });
			assert.deepEqual([after.ino, after.mtimeNs], [before.ino, before.mtimeNs], 'the clients file is not rewritten');
			assert.doesNotMatch(readFileSync(file, 'utf8'), /flood|waiting client/, 'clients not approved stay in memory');
			await eventually(() => decide !== undefined, 'the question reached the extension');
			decide({ approved: true, scopes: DEFAULT_SCOPES });
			const back = await browse(`${host.base}/authorize?request_id=${requestId}`);
			assert.ok(back.searchParams.get('code'), `the waiting client still gets its code: ${back}`);
		} finally {
			await host.stop();
		}
	});

	it('no extension to ask: the request is denied once the hello grace is over', async () => {
		const host = await startHost({ hello: false, args: ['--hello-grace', '300'] });
		try {
			const client = (await register(host)).json;
			const back = await browse(authorizeUrl(host, client, { challenge: pkce().challenge }));
			assert.equal(back.searchParams.get('error'), 'access_denied');
			assert.match(back.searchParams.get('error_description'), /not connected/);
		} finally {
			await host.stop();
		}
	});

	it('"oauth": false: only the owner key, a 401 without resource_metadata, no OAuth endpoints', async () => {
		const home = mkdtempSync(join(tmpdir(), 'bb-oauth-off-'));
		const dir = join(home, 'browser-bridge');
		mkdirSync(dir, { recursive: true, mode: 0o700 });
		writeFileSync(join(dir, 'config.json'), '{"oauth": false}\n');
		const host = await startHost({ env: { XDG_CONFIG_HOME: home } });
		try {
			assert.equal(host.welcome.oauth, false);
			const bare = await mcpPost(host, undefined, INITIALIZE);
			assert.equal(bare.status, 401);
			assert.equal(bare.headers['www-authenticate'], 'Bearer realm="browser-bridge"');
			for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server'])
				assert.equal((await raw(host, { path })).status, 404, path);
			assert.equal((await register(host)).status, 404);
			assert.equal((await mcpPost(host, host.token, INITIALIZE)).status, 200);
			assert.deepEqual((await host.request('list_clients')).result, { clients: [] });
		} finally {
			await host.stop();
			rmSync(home, { recursive: true, force: true });
		}
	});
});
