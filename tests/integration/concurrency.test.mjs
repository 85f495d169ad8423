// Many sessions at once: every reply reaches its own caller.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';

import { startHost } from './fake-extension.mjs';
import { INITIALIZE, close, connect, eventually, mcpHeaders, opts, raw, textOf } from './mcp-client.mjs';

// Starts a raw Streamable HTTP session (no GET stream); returns its id.
async function rawSession(host) {
	const response = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: INITIALIZE });
	assert.equal(response.status, 200, response.text);
	return response.headers['mcp-session-id'];
}

// Lists the tools in a raw session; returns the response.
function rawToolsList(host, id) {
	return raw(host, {
		method: 'POST',
		headers: mcpHeaders(host, { 'Mcp-Session-Id': id }),
		body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
	});
}

const SESSIONS = 64;
const SSE_SESSIONS = 16;	// of the 64, over the legacy transport
const CALLS = 4;		// per session, all in flight together

describe('concurrency', () => {
	it(`${SESSIONS} parallel sessions with interleaved calls each get their own replies`, async () => {
		const host = await startHost({
			handlers: {
				// Answers after a random short delay, so replies cross.
				type_value: async params => {
					await new Promise(resolve => setTimeout(resolve, Math.floor(Math.random() * 20)));
					return {
						content: [{ type: 'text', text: params.text }],
						structuredContent: { ref: params.ref, text: params.text },
					};
				},
			},
		});
		try {
			const clients = await Promise.all(Array.from({ length: SESSIONS }, (_, i) =>
			    connect(host, { transport: i < SSE_SESSIONS ? 'sse' : 'http', name: `client-${i}` })));
			const status = await host.request('status');
			assert.equal(status.result.sessions, SESSIONS);

			const calls = [];
			for (let round = 0; round < CALLS; round++) {
				clients.forEach((client, i) => {
					const nonce = `${i}.${round}.${randomBytes(8).toString('hex')}`;
					calls.push(client.callTool({ name: 'type_value', arguments: { ref: `c${i}`, text: nonce }, _meta: { 'browser-bridge/structured': true } },
					    undefined, opts()).then(result => ({ i, nonce, result })));
				});
			}
			const outcomes = await Promise.all(calls);
			for (const { i, nonce, result } of outcomes) {
				assert.equal(result.isError, undefined, `client ${i}: ${JSON.stringify(result)}`);
				assert.equal(textOf(result), nonce, `client ${i} got another caller's reply`);
				assert.deepEqual(result.structuredContent, { ref: `c${i}`, text: nonce });
			}
			assert.equal(host.requests.length, SESSIONS * CALLS);
			assert.equal(new Set(host.requests.map(r => r.id)).size, SESSIONS * CALLS, 'request ids are unique');
			assert.equal(new Set(host.requests.map(r => r.params.text)).size, SESSIONS * CALLS);

			await Promise.all(clients.map(client => close(client)));
			// DELETE ends the Streamable HTTP sessions, closing the stream the SSE ones.
			await eventually(async () => (await host.request('status')).result.sessions === 0,
			    'every session to end');
			assert.equal((await host.request('status')).result.pending_calls, 0);
		} finally {
			await host.stop();
		}
	});

	it('--max-sessions caps the sessions: a new one evicts the oldest idle session, or gets 503 when none is idle', async () => {
		const host = await startHost({ args: ['--max-sessions', '3'] });
		try {
			// Legacy SSE sessions hold their stream open, so they are never idle.
			const streams = [];
			for (let i = 0; i < 3; i++)
				streams.push(await connect(host, { transport: 'sse' }));
			const refused = await raw(host, { method: 'POST', headers: mcpHeaders(host), body: INITIALIZE });
			assert.equal(refused.status, 503);
			await assert.rejects(connect(host, { transport: 'sse' }), /503/);
			await close(streams.pop());
			await close(streams.pop());
			await eventually(async () => (await host.request('status')).result.sessions === 1,
			    'the closed streams to end their sessions');

			// Raw Streamable HTTP sessions without a GET stream are idle
			// between requests: a new one pushes out the least recently
			// used, which comes back on its next request (its id is signed)
			// by pushing out the next one: the count never passes the cap.
			const first = await rawSession(host);
			const second = await rawSession(host);
			assert.equal((await rawToolsList(host, first)).status, 200);	// second is now the oldest
			const third = await rawSession(host);
			assert.equal((await host.request('status')).result.sessions, 3);
			assert.doesNotMatch(host.stderr, new RegExp(`session ${second.slice(0, 8)} resumed`));
			assert.equal((await rawToolsList(host, second)).status, 200, 'the evicted session came back');
			await eventually(async () => new RegExp(`MCP session ${second.slice(0, 8)} resumed`).test(host.stderr), 'the resume in the log');
			assert.equal((await host.request('status')).result.sessions, 3, 'by evicting the least recently used');
			assert.equal((await rawToolsList(host, third)).status, 200);
			await Promise.all(streams.map(client => close(client)));
		} finally {
			await host.stop();
		}
	});

	it('a session idle longer than --session-idle leaves memory, and comes back on its next request', async () => {
		const host = await startHost({ args: ['--session-idle', '200', '--keepalive', '100'] });
		try {
			const id = await rawSession(host);
			assert.equal((await rawToolsList(host, id)).status, 200);
			await eventually(async () => (await host.request('status')).result.sessions === 0, 'the idle session to expire');
			assert.equal((await rawToolsList(host, id)).status, 200);
			await eventually(async () => new RegExp(`MCP session ${id.slice(0, 8)} resumed`).test(host.stderr), 'the resume in the log');
			assert.equal((await host.request('status')).result.sessions, 1);
		} finally {
			await host.stop();
		}
	});
});
