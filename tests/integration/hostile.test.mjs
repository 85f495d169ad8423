// Clients and an extension that stop reading: the host's buffers toward
// them are bounded, calls past the bound fail at once or the slow client
// is dropped, nothing else is lost, and the host's resident memory stays
// under a stated bound. Clients that take every file descriptor: the host
// does not spin, and serves again once they go. The front door
// (host/http-door.c): requests refused on their headers, before any body
// is read, with a JSON-RPC answer the client reads; slow heads and bodies
// cut; connections over the cap refused.

import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect as netConnect } from 'node:net';
import { after, before, describe, it } from 'node:test';

import { scaled, startHost } from './fake-extension.mjs';
import { cpuMs, residentBytes } from './process-stats.mjs';
import { INITIALIZE, authHeaders, close, connect, eventually, mcpHeaders, opts, raw, textOf } from './mcp-client.mjs';

const MiB = 1024 * 1024;
// The bounds the host promises (host/rpc.h, host/sse-stream.h).
const EXTENSION_BACKLOG_MAX = 8 * MiB;
const SSE_BACKLOG_MAX = 4 * MiB;
// Growth of resident memory the tests allow over the bound itself: the
// buffers of libevent and jansson, and one message being parsed.
const SLACK = 24 * MiB;
// The host's file descriptor limit in the exhaustion test.
const DESCRIPTORS = 64;
// Under valgrind or the sanitizers (whose allocators keep freed memory in
// quarantine) the host's memory is the tool's: the bound is not checked.
const MEASURED = !(process.env.BRIDGE_WRAPPER ?? '').includes('valgrind') &&
    (process.env.BRIDGE_SANITIZERS ?? '') === '';
// Calls of 1 MiB each sent while the extension reads nothing: without the
// bound, all 60 would wait in the host's memory, more than the bound and
// its slack. Where memory is not measured, 14 pass the bound (8 MiB) with
// calls to spare, and each costs seconds of valgrind's time.
const CALLS = MEASURED ? 60 : 14;
// The body each tokenless client sends: 50 of them buffered would be far
// over the slack. Where memory is not measured, smaller bodies take the
// same way through the door (refused on the head, the rest dropped).
const TOKENLESS_BODY = MEASURED ? 4 * MiB : MiB / 4;

// One MCP session over raw HTTP; returns a function that calls a tool in JSON mode.
async function rawSession(host) {
	const init = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: INITIALIZE });
	const headers = mcpHeaders(host, { 'Mcp-Session-Id': init.headers['mcp-session-id'], Accept: 'application/json' });
	let id = 10;
	return (name, args, timeoutMs) => raw(host, {
		method: 'POST', headers, body: { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: args } }, timeoutMs,
	});
}

describe('an extension that stops reading', () => {
	let host;
	before(async () => {
		host = await startHost();
	});
	after(async () => {
		await host.stop();
	});

	it('calls past the bound fail at once with EXTENSION_BUSY, memory stays flat, and the queued calls all arrive once it reads again', async () => {
		const call = await rawSession(host);
		await call('wait_for', { text: 'warm up' });
		const pendingCalls = async () => (await call('host_status', {})).json.result.structuredContent.pending_calls;
		const before = residentBytes(host.pid);
		// One call at a time, each sent once the host has taken the one
		// before (it is pending, or answered), so that only the buffers
		// toward the extension can grow. While the extension reads
		// nothing, the backlog only grows: the calls queued are the first
		// ones, and from the first refused call on every call is refused.
		const text = 'x'.repeat(MiB);
		const calls = [];
		const answered = new Map();	// call index -> its answer, while the extension does not read
		host.child.stdout.pause();	// the extension stops reading the host
		try {
			for (let i = 0; i < CALLS; i++) {
				// A long timeout: the queued calls must outlast the pause, even under valgrind.
				const answer = call('wait_for', { text, timeout_ms: 300000 }, 300000);
				calls.push(answer);
				answer.then(a => { if (host.child.stdout.isPaused()) answered.set(i, a); }, () => {});
				await eventually(async () => answered.has(i) || await pendingCalls() + answered.size > i,
				    `the host taking call ${i}`);
			}
			assert.ok(answered.size > 0, `none of ${CALLS} calls was refused`);
			const firstRefused = Math.min(...answered.keys());
			await eventually(async () => answered.size === CALLS - firstRefused,
			    `an answer to every call from call ${firstRefused} (the first refused) on`);
			assert.ok(firstRefused >= 1, 'the calls before the bound were queued');
			assert.ok(firstRefused <= Math.ceil(EXTENSION_BACKLOG_MAX / MiB) + 2, `${CALLS - firstRefused} of ${CALLS} refused`);
			for (const answer of answered.values()) {
				assert.equal(answer.json.result.isError, true);
				assert.match(answer.json.result.content[0].text,
				    /^EXTENSION_BUSY: The browser extension is not reading its messages \(\d+ MiB wait for it\): it may be hung\./);
			}
			assert.equal(await pendingCalls(), firstRefused, 'the calls before the first refused one wait');
			const grown = residentBytes(host.pid) - before;
			if (MEASURED)
				assert.ok(grown < EXTENSION_BACKLOG_MAX + SLACK, `resident memory grew by ${(grown / MiB).toFixed(1)} MiB`);
		} finally {
			host.child.stdout.resume();
		}
		const answers = await Promise.all(calls);
		const served = answers.filter(a => !a.json.result.isError);
		const busy = answers.filter(a => /^EXTENSION_BUSY: /.test(a.json.result.content[0].text));
		assert.equal(served.length + busy.length, CALLS, 'every call was either served or refused as busy');
		assert.ok(served.length >= 1, 'the calls queued before the bound went through');
		for (const answer of served)
			assert.equal(JSON.parse(answer.json.result.content[0].text).params.text.length, MiB);
		assert.equal((await host.request('status')).result.pending_calls, 0);
	});
});

describe('an SSE client that stops reading', () => {
	let host;
	before(async () => {
		const page = 'y'.repeat(MiB);
		host = await startHost({ handlers: { get_page_content: () => ({ content: [{ type: 'text', text: page }] }) } });
	});
	after(async () => {
		await host.stop();
	});

	it('is dropped once its backlog passes the bound, its session ends, and other clients are served', async () => {
		const stream = await new Promise((resolve, reject) => {
			const req = httpRequest({
				host: '127.0.0.1', port: host.port, method: 'GET', path: '/sse', agent: false,
				headers: { Host: `127.0.0.1:${host.port}`, Accept: 'text/event-stream', ...authHeaders(host) },
			}, res => {
				let text = '';
				res.setEncoding('utf8');
				const onData = part => {
					text += part;
					const endpoint = /event: endpoint\ndata: (\S+)\n/.exec(text);
					if (endpoint !== null) {
						res.off('data', onData);
						res.pause();	// and never read again
						resolve({ endpoint: endpoint[1], req });
					}
				};
				res.on('data', onData);
			});
			req.on('error', error => { if (error.code !== 'ECONNRESET') reject(error); });
			req.end();
		});
		const post = body => raw(host, {
			method: 'POST', path: stream.endpoint, body,
			headers: { 'Content-Type': 'application/json', ...authHeaders(host) },
		});
		assert.equal((await post(INITIALIZE)).status, 202);
		assert.equal((await host.request('status')).result.sessions, 1);
		const before = residentBytes(host.pid);
		for (let i = 0; i < 24; i++) {
			const answer = await post({ jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: 'get_page_content', arguments: {} } });
			if (answer.status !== 202)
				break;	// the session is gone: the stream was dropped
		}
		await eventually(async () => (await host.request('status')).result.sessions === 0, 'the slow client\'s session ended');
		const grown = residentBytes(host.pid) - before;
		if (MEASURED)
			assert.ok(grown < SSE_BACKLOG_MAX + SLACK, `resident memory grew by ${(grown / MiB).toFixed(1)} MiB`);
		assert.match(host.stderr, /legacy SSE session \w+ started/);

		const client = await connect(host);
		const result = await client.callTool({ name: 'get_page_content', arguments: {} }, undefined, opts());
		assert.equal(textOf(result).length, MiB);
		await close(client);
		stream.req.destroy();
	});
});

describe('clients that take every file descriptor', () => {
	let host;
	before(async () => {
		host = await startHost({ wrapper: `sh ${import.meta.dirname}/limit-files.sh ${DESCRIPTORS}` });
	});
	after(async () => {
		await host.stop();
	});

	it('the host rests instead of spinning, says so once, and serves again when they close', async () => {
		const sockets = [];
		for (let i = 0; i < DESCRIPTORS + 16; i++) {
			const socket = netConnect({ host: '127.0.0.1', port: host.port });
			socket.on('error', () => {});
			sockets.push(socket);
		}
		await eventually(async () => /out of file descriptors/.test(host.stderr), 'the host saying it ran out of descriptors');
		const cpuBefore = cpuMs(host.pid);
		const wallBefore = performance.now();
		await new Promise(resolve => setTimeout(resolve, 2000));
		const busy = (cpuMs(host.pid) - cpuBefore) / (performance.now() - wallBefore);
		assert.ok(busy < 0.25, `the host used ${(busy * 100).toFixed(0)}% of a CPU while out of descriptors`);
		assert.equal(host.stderr.match(/out of file descriptors/g).length, 1, 'said once');

		for (const socket of sockets)
			socket.destroy();
		const client = await connect(host);
		const result = await client.callTool({ name: 'hover_element', arguments: { ref: 'e1' } }, undefined, opts());
		assert.equal(JSON.parse(textOf(result)).method, 'hover_element');
		await close(client);
	});
});

// Sends bytes on a fresh connection (then more on a timer, if given) and
// collects what comes back until the host closes the connection.
function exchange(host, first, { drip, every = 100, bodySize = 0 } = {}) {
	return new Promise(resolve => {
		const socket = netConnect({ host: '127.0.0.1', port: host.port });
		const parts = [];
		const started = performance.now();
		let timer;
		let error;
		socket.on('data', part => parts.push(part));
		socket.on('error', e => { error = e; });
		socket.on('close', () => {
			clearInterval(timer);
			const text = Buffer.concat(parts).toString('utf8');
			const body = text.slice(text.indexOf('\r\n\r\n') + 4);
			let json;
			try {
				json = JSON.parse(body);
			} catch {
				json = undefined;
			}
			resolve({ text, status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]), json, error, ms: performance.now() - started });
		});
		socket.write(first);
		if (bodySize > 0)
			socket.write(Buffer.alloc(bodySize, 'x'));
		if (drip !== undefined)
			timer = setInterval(() => { if (!socket.destroyed) socket.write(drip); }, every);
	});
}

// Checks that the host's resident memory grew by less than SLACK since before.
function assertMemoryFlat(host, before) {
	const grown = residentBytes(host.pid) - before;
	if (MEASURED)
		assert.ok(grown < SLACK, `resident memory grew by ${(grown / MiB).toFixed(1)} MiB`);
}

// A request head, with the token unless told otherwise.
function head(host, { method = 'POST', path = '/mcp', token = true, extra = '' } = {}) {
	return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\n` +
	    (token ? `Authorization: Bearer ${host.token}\r\n` : '') +
	    'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n' + extra;
}

describe('requests refused on their headers', () => {
	let host;
	before(async () => {
		host = await startHost();
	});
	after(async () => {
		await host.stop();
	});

	it('without the token, 50 clients sending large bodies get 401 before the body is read, and memory stays flat', async () => {
		const before = residentBytes(host.pid);
		let peak = before;
		const watch = setInterval(() => { peak = Math.max(peak, residentBytes(host.pid)); }, 20);
		const answers = await Promise.all(Array.from({ length: 50 }, () =>
		    exchange(host, head(host, { token: false, extra: `Content-Length: ${TOKENLESS_BODY}\r\n\r\n` }), { bodySize: TOKENLESS_BODY })));
		clearInterval(watch);
		for (const answer of answers) {
			assert.equal(answer.status, 401, answer.text.slice(0, 200));
			assert.equal(answer.json.error.code, -32600);
			assert.match(answer.json.error.message, /browser-bridge token/);
			assert.match(answer.text, /\r\nWWW-Authenticate: Bearer/);
		}
		const grown = peak - before;
		if (MEASURED)
			assert.ok(grown < SLACK, `resident memory peaked ${(grown / MiB).toFixed(1)} MiB higher (50 bodies buffered would be ${50 * TOKENLESS_BODY / MiB})`);
		assert.equal((await raw(host, { path: '/health' })).status, 200);
	});

	it('a body over --max-body is refused from its Content-Length with a JSON-RPC 413 that fetch reads every time', async () => {
		for (let i = 0; i < 10; i++) {
			const response = await fetch(`${host.base}/mcp`, {
				method: 'POST',
				headers: mcpHeaders(host),
				body: Buffer.alloc(5 * MiB, 'x'),
			});
			assert.equal(response.status, 413, `round ${i}`);
			const body = await response.json();
			assert.equal(body.jsonrpc, '2.0');
			assert.equal(body.error.code, -32600);
			assert.match(body.error.message, /max-body/);
		}
	});

	it('a wrong Host or Origin is answered on the headers alone: the host does not wait for the body', async () => {
		// The body never comes: an answer can only come from the headers.
		const wrongHost = await exchange(host, head(host, { extra: `Content-Length: ${MiB}\r\n\r\n` }).replace(/Host: [^\r]*/, 'Host: evil.example'));
		assert.equal(wrongHost.status, 403, wrongHost.text);
		assert.match(wrongHost.json.error.message, /Host not allowed/);
		const page = await exchange(host, head(host, { extra: `Origin: https://evil.example\r\nContent-Length: ${MiB}\r\n\r\n` }));
		assert.equal(page.status, 403, page.text);
		assert.match(page.json.error.message, /Origin not allowed/);
		const noToken = await exchange(host, head(host, { token: false, extra: `Content-Length: ${MiB}\r\n\r\n` }));
		assert.equal(noToken.status, 401, noToken.text);
	});

	it('chunked bodies and pipelined requests pass the door in step', async () => {
		const body = JSON.stringify(INITIALIZE);
		const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
		const answer = await exchange(host,
		    head(host, { extra: 'Transfer-Encoding: chunked\r\n\r\n' }) + chunked +
		    `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nConnection: close\r\n\r\n`);
		const statuses = [...answer.text.matchAll(/HTTP\/1\.1 (\d+) /g)].map(m => Number(m[1]));
		assert.deepEqual(statuses, [200, 200], answer.text);
		assert.match(answer.text, /"serverInfo"/);
		assert.match(answer.text, /"status":"ok"/);
	});
});

describe('slow and idle clients', () => {
	const HEAD_TIMEOUT = 400;
	const MAX_CONNECTIONS = 8;
	let host;
	before(async () => {
		host = await startHost({ args: ['--head-timeout', String(scaled(HEAD_TIMEOUT)), '--max-connections', String(MAX_CONNECTIONS)] });
	});
	after(async () => {
		await host.stop();
	});

	it('a head that comes a line at a time is cut at --head-timeout with 408', async () => {
		const before = residentBytes(host.pid);
		const answer = await exchange(host, head(host), { drip: 'X-Slow: 1\r\n' });
		assertMemoryFlat(host, before);
		assert.equal(answer.status, 408, answer.text);
		assert.match(answer.json.error.message, /headers too slow/);
		assert.ok(answer.ms >= scaled(HEAD_TIMEOUT) - 50, `cut after ${answer.ms} ms`);
		assert.ok(answer.ms < scaled(HEAD_TIMEOUT) + scaled(3000), `cut after ${answer.ms} ms`);
		// Blank lines before a head (skipped, as HTTP allows) do not extend it.
		const blank = await exchange(host, '\r\n', { drip: '\r\n' });
		assert.equal(blank.status, 408, blank.text);
		assert.ok(blank.ms < scaled(HEAD_TIMEOUT) + scaled(3000), `cut after ${blank.ms} ms`);
	});

	it('a body slower than 64 KiB/s is cut with 408 once its time is up', async () => {
		const length = 100000;	// at 64 KiB/s: 1.5 s after the head timeout
		const before = residentBytes(host.pid);
		const answer = await exchange(host, head(host, { extra: `Content-Length: ${length}\r\n\r\n` }), { drip: 'x'.repeat(100) });
		assertMemoryFlat(host, before);
		assert.equal(answer.status, 408, answer.text);
		assert.match(answer.json.error.message, /body too slow/);
		assert.ok(answer.ms >= scaled(HEAD_TIMEOUT) + 1400, `cut after ${answer.ms} ms`);
	});

	it('over --max-connections a new connection gets 503 at once, said once; idle ones close after the head timeout', async () => {
		const before = residentBytes(host.pid);
		const idle = [];
		for (let i = 0; i < MAX_CONNECTIONS; i++) {
			const socket = netConnect({ host: '127.0.0.1', port: host.port });
			socket.on('error', () => {});
			socket.resume();	/* reads the host's answer, so sees it close */
			idle.push(new Promise(resolve => socket.on('close', resolve)));
			await new Promise(resolve => socket.on('connect', resolve));
		}
		const refused = await Promise.all([1, 2, 3].map(() =>
		    exchange(host, `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\n\r\n`)));
		for (const answer of refused) {
			assert.equal(answer.status, 503, answer.text);
			assert.match(answer.json.error.message, /max-connections/);
		}
		assert.equal(host.stderr.match(/connections are open, the most max-connections allows/g).length, 1, 'said once');
		await Promise.all(idle);	// the host closed them
		assertMemoryFlat(host, before);
		// Served again once the host has seen them go.
		await eventually(async () => (await raw(host, { path: '/health' })).status === 200, 'a request served after the idle connections closed');
	});
});

// Opens a connection, writes bytes on it and collects what comes back;
// closed resolves once the host has closed it.
function pipeline(host, bytes) {
	const socket = netConnect({ host: '127.0.0.1', port: host.port });
	const conn = { text: '', error: undefined };
	socket.on('data', part => { conn.text += part.toString('latin1'); });
	socket.on('error', e => { conn.error = e; });
	conn.closed = new Promise(resolve => socket.on('close', resolve));
	socket.write(bytes);
	return conn;
}

// Splits the bytes of a connection into HTTP/1.1 responses (bodies by
// Content-Length or chunked); what follows the last whole one is left.
function responses(text) {
	const parsed = [];
	let at = 0;
	for (;;) {
		const end = text.indexOf('\r\n\r\n', at);
		if (end < 0)
			break;
		const lines = text.slice(at, end).split('\r\n');
		const status = Number(/^HTTP\/1\.1 (\d+) /.exec(lines[0])?.[1]);
		const headers = Object.fromEntries(lines.slice(1).map(line =>
		    [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
		let body = '';
		let next = end + 4;
		if (headers['transfer-encoding'] === 'chunked') {
			for (;;) {
				const eol = text.indexOf('\r\n', next);
				if (eol < 0)
					return { parsed, rest: text.slice(at) };
				const size = parseInt(text.slice(next, eol), 16);
				if (text.length < eol + 2 + size + 2)
					return { parsed, rest: text.slice(at) };
				body += text.slice(eol + 2, eol + 2 + size);
				next = eol + 2 + size + 2;
				if (size === 0)
					break;
			}
		} else {
			const length = Number(headers['content-length'] ?? 0);
			if (text.length < next + length)
				break;
			body = text.slice(next, next + length);
			next += length;
		}
		parsed.push({ status, headers, body });
		at = next;
	}
	return { parsed, rest: text.slice(at) };
}

// A POST /mcp with a JSON body, whole, with the token unless told otherwise.
function post(host, message, { token = true, extra = '' } = {}) {
	const body = JSON.stringify(message);
	return head(host, { token, extra: `${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n` }) + body;
}

// Checks that a connection brought the answers of statuses in order, the
// last a refusal with a JSON-RPC error, then the host's clean close.
async function assertAnsweredThenRefused(conn, statuses) {
	await conn.closed;
	assert.equal(conn.error, undefined, 'closed with a FIN, not a reset');
	const { parsed, rest } = responses(conn.text);
	assert.deepEqual(parsed.map(r => r.status), statuses, conn.text);
	assert.equal(rest, '', 'nothing after the refusal');
	const refusal = parsed.at(-1);
	assert.equal(refusal.headers.connection, 'close');
	assert.equal(JSON.parse(refusal.body).error.code, -32600);
	return parsed;
}

describe('pipelined requests: an answered request is never lost to a refused one after it', () => {
	let host;
	let release;
	let called;
	before(async () => {
		host = await startHost({ handlers: {
			// Answers only when the test says so.
			hover_element: () => new Promise(resolve => {
				release = () => resolve({ content: [{ type: 'text', text: 'hovered' }] });
				called();
			}),
		} });
	});
	after(async () => {
		await host.stop();
	});

	// Starts a session over raw HTTP; returns its id.
	async function session() {
		const init = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: INITIALIZE });
		assert.equal(init.status, 200);
		return init.headers['mcp-session-id'];
	}

	it('an initialize followed in the same write by a tokenless request: the 200 first, then the 401, then the close', async () => {
		const conn = pipeline(host, post(host, INITIALIZE) + post(host, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { token: false }));
		const [answer, refusal] = await assertAnsweredThenRefused(conn, [200, 401]);
		assert.equal(JSON.parse(answer.body).result.serverInfo.name, 'browser-bridge');
		assert.match(JSON.parse(refusal.body).error.message, /browser-bridge token/);
		assert.match(refusal.headers['www-authenticate'], /^Bearer /);
	});

	it('two answered requests, then a wrong Host: both answers, then the 403', async () => {
		const health = `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\n\r\n`;
		const conn = pipeline(host, health + post(host, INITIALIZE) +
		    post(host, INITIALIZE).replace(/Host: [^\r]*/, 'Host: evil.example'));
		const [, answer, refusal] = await assertAnsweredThenRefused(conn, [200, 200, 403]);
		assert.ok(JSON.parse(answer.body).result.serverInfo);
		assert.match(JSON.parse(refusal.body).error.message, /Host not allowed/);
	});

	it('a tool call still waiting on the extension is answered before the refusal behind it', async () => {
		const id = await session();
		const reached = new Promise(resolve => { called = resolve; });
		const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'hover_element', arguments: { ref: 'e1' } } };
		const conn = pipeline(host, post(host, call, { extra: `Mcp-Session-Id: ${id}\r\nAccept: application/json\r\n` }) +
		    post(host, call, { token: false }));
		await reached;		// the call waits on the extension, the refusal behind it
		assert.ok(!/HTTP\/1\.1 401/.test(conn.text), 'no refusal while the call is answered');
		release();
		const [answer] = await assertAnsweredThenRefused(conn, [200, 401]);
		const result = JSON.parse(answer.body);
		assert.equal(result.id, 7);
		assert.equal(result.result.content[0].text, 'hovered');
	});

	it('a stream ahead of the refusal: its events come, and the refusal once it ends', async () => {
		const id = await session();
		const stream = `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nAuthorization: Bearer ${host.token}\r\n` +
		    `Accept: text/event-stream\r\nMcp-Session-Id: ${id}\r\n\r\n`;
		const conn = pipeline(host, stream + post(host, INITIALIZE, { token: false }));
		await eventually(async () => /: stream open/.test(conn.text), 'the stream\'s first comment');
		// The session's end ends its stream.
		const ended = await raw(host, { method: 'DELETE', headers: mcpHeaders(host, { 'Mcp-Session-Id': id }) });
		assert.equal(ended.status, 200);
		const [events] = await assertAnsweredThenRefused(conn, [200, 401]);
		assert.equal(events.headers['content-type'], 'text/event-stream');
		assert.match(events.body, /^: stream open\n/);
	});
});
