// Clients and an extension that stop reading: the host's buffers toward
// them are bounded, calls past the bound fail at once or the slow client
// is dropped, nothing else is lost, and the host's resident memory stays
// under a stated bound. Clients that take every file descriptor: the host
// does not spin, and serves again once they go.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect as netConnect } from 'node:net';
import { after, before, describe, it } from 'node:test';

import { scaled, startHost } from './fake-extension.mjs';
import { INITIALIZE, authHeaders, close, connect, eventually, mcpHeaders, opts, raw, textOf } from './mcp-client.mjs';

const MiB = 1024 * 1024;
// The bounds the host promises (host/rpc.h, host/sse.h).
const EXTENSION_BACKLOG_MAX = 8 * MiB;
const SSE_BACKLOG_MAX = 4 * MiB;
// Growth of resident memory the tests allow over the bound itself: the
// buffers of libevent and jansson, and one message being parsed.
const SLACK = 24 * MiB;
// Calls of 1 MiB each sent while the extension reads nothing: without the
// bound, all of them would wait in the host's memory.
const CALLS = 60;
// The host's file descriptor limit in the exhaustion test.
const DESCRIPTORS = 64;
// Under valgrind or the sanitizers (whose allocators keep freed memory in
// quarantine) the host's memory is the tool's: the bound is not checked.
const MEASURED = !(process.env.BRIDGE_WRAPPER ?? '').includes('valgrind') &&
    (process.env.BRIDGE_SANITIZERS ?? '') === '';

// The host's resident memory, in bytes.
function residentBytes(pid) {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)[1]) * 1024;
}

// The CPU time the host has used, in ms (user + system, from /proc).
function cpuMs(pid) {
	const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
	return (Number(fields[11]) + Number(fields[12])) * 1000 / 100;	// clock ticks of 1/100 s
}

// One MCP session over raw HTTP; returns a function that calls a tool in JSON mode.
async function rawSession(host) {
	const init = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: INITIALIZE });
	const headers = mcpHeaders(host, { 'Mcp-Session-Id': init.headers['mcp-session-id'], Accept: 'application/json' });
	let id = 10;
	return (name, args) => raw(host, {
		method: 'POST', headers, body: { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: args } },
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
		const before = residentBytes(host.pid);
		// One call at a time (a queued call waits, a refused one is answered
		// at once), so that only the buffers toward the extension can grow.
		const text = 'x'.repeat(MiB);
		const calls = [];
		const refused = [];
		host.child.stdout.pause();	// the extension stops reading the host
		try {
			for (let i = 0; i < CALLS; i++) {
				// A long timeout: the queued calls must outlast the pause, even under valgrind.
				const answer = call('wait_for', { text, timeout_ms: 300000 });
				calls.push(answer);
				const settled = await Promise.race([answer, new Promise(resolve => setTimeout(resolve, scaled(200), null))]);
				if (settled !== null)
					refused.push(settled);
			}
			assert.ok(refused.length >= CALLS - Math.ceil(EXTENSION_BACKLOG_MAX / MiB) - 2, `${refused.length} of ${CALLS} refused`);
			for (const answer of refused) {
				assert.equal(answer.json.result.isError, true);
				assert.match(answer.json.result.content[0].text,
				    /^EXTENSION_BUSY: The browser extension is not reading its messages \(\d+ MiB wait for it\): it may be hung\./);
			}
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
		host = await startHost({ wrapper: `prlimit --nofile=${DESCRIPTORS}:${DESCRIPTORS} --` });
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
