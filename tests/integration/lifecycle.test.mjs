// The extension's side of the host's life: calls before the hello, a late
// hello, a refused hello, host timeouts, the extension leaving mid-call,
// signals, the runtime file and a taken port.

import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';

import { SLOW, never, scaled, startHost } from './fake-extension.mjs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { close, connect, eventually, mcpHeaders, opts, raw, textOf } from './mcp-client.mjs';

const NOT_CONNECTED = 'EXTENSION_NOT_CONNECTED: The browser extension has not connected to this host. ' +
    'Open the browser with the Browser Bridge extension enabled (check chrome://extensions), then retry; ' +
    '`browser-bridge doctor` checks every step.';
const DISCONNECTED = 'EXTENSION_DISCONNECTED: The browser extension disconnected (browser closed or ' +
    'extension reloaded). Reopen the browser and retry.';

// Runs a browser-bridge command without blocking the other tests; resolves to {status, stdout}.
function runCommand(args, env) {
	return new Promise(resolve => execFile(process.env.BRIDGE_BIN, args, { env, encoding: 'utf8' },
	    (error, stdout, stderr) => resolve({ status: error ? error.code : 0, stdout, stderr })));
}

// Returns the host's pending call count, asked over MCP.
async function pendingCalls(client) {
	const result = await client.callTool({ name: 'host_status', arguments: {} }, undefined, opts());
	return result.structuredContent.pending_calls;
}

describe('host lifecycle', { concurrency: true }, () => {
	it('a call that the extension never answers times out after timeout_ms + 5 s with TIMEOUT and a cancel', async () => {
		let handlerSignal;
		const host = await startHost({
			handlers: {
				wait_for: (params, ctx) => {
					handlerSignal = ctx.signal;
					return never();
				},
			},
		});
		try {
			const client = await connect(host);
			const started = performance.now();
			const result = await client.callTool({ name: 'wait_for', arguments: { text: 'Done', timeout_ms: 100 } },
			    undefined, opts({ timeout: scaled(20000) }));
			const elapsed = performance.now() - started;
			const request = host.requests.find(r => r.method === 'wait_for');
			assert.equal(request.timeout_ms, 5100);
			assert.deepEqual(result, {
				content: [{
					type: 'text',
					text: 'TIMEOUT: The extension did not answer wait_for within 5100 ms. The page may be busy ' +
					    'or the tab closed; check the tab and retry, or raise timeout_ms.',
				}],
				isError: true,
			});
			assert.ok(elapsed >= 5000, `answered after ${elapsed} ms, before the 5100 ms timeout`);
			assert.ok(elapsed < 5100 + scaled(2000), `answered after ${elapsed} ms`);
			const cancel = await host.waitForCancel(request.id);
			assert.deepEqual(cancel, { type: 'cancel', id: request.id, reason: 'timeout' });
			assert.equal(handlerSignal.aborted, true);
			// A response that crosses the cancel is dropped, and the host goes on.
			host.send({ type: 'response', id: request.id, result: { content: [{ type: 'text', text: 'late' }] } });
			assert.equal(await pendingCalls(client), 0);
			await close(client);
		} finally {
			await host.stop();
		}
	});

	it('the extension leaving mid-call fails the call with EXTENSION_DISCONNECTED; the host exits 0 within 1 s', async () => {
		const host = await startHost({ handlers: { get_page_content: () => never() } });
		try {
			assert.ok(existsSync(host.runtimeFile), 'the runtime file exists while the host runs');
			const client = await connect(host);
			const call = client.callTool({ name: 'get_page_content', arguments: {} }, undefined, opts());
			await host.waitForRequest(r => r.method === 'get_page_content', 'the get_page_content request');
			host.disconnect();
			const result = await call;
			assert.deepEqual(result, { content: [{ type: 'text', text: DISCONNECTED }], isError: true });
			const exit = await host.exited;
			assert.deepEqual(exit, { code: 0, signal: null });
			const took = host.exitedAt - host.disconnectedAt;
			assert.ok(took < scaled(1000), `exited ${took} ms after stdin EOF`);
			assert.equal(existsSync(host.runtimeFile), false, 'the runtime file is removed');
		} finally {
			await host.stop();
		}
	});

	it('calls before any hello wait for the grace period, then fail with EXTENSION_NOT_CONNECTED', async () => {
		const host = await startHost({ hello: false, args: ['--hello-grace', String(scaled(300))] });
		try {
			assert.equal(host.welcome, null);
			const client = await connect(host);
			const started = performance.now();
			const result = await client.callTool({ name: 'get_browser_state', arguments: {} }, undefined, opts());
			const elapsed = performance.now() - started;
			assert.deepEqual(result, { content: [{ type: 'text', text: NOT_CONNECTED }], isError: true });
			assert.ok(elapsed >= scaled(300) - 20, `failed after ${elapsed} ms, before the grace ended`);
			// host_status needs no extension.
			const status = await client.callTool({ name: 'host_status', arguments: {} }, undefined, opts());
			assert.equal(status.structuredContent.extension_connected, false);
			assert.equal(status.structuredContent.pending_calls, 0);
			// A hello now does not resurrect the failed call.
			host.sendHello();
			await host.until(() => host.welcome, 'the welcome');
			await client.callTool({ name: 'hover_element', arguments: { ref: 'after' } }, undefined, opts());
			assert.deepEqual(host.requests.map(r => r.method), ['hover_element']);
			await close(client);
		} finally {
			await host.stop();
		}
	});

	it('a hello within the grace period delivers the queued call with the time it has left', async () => {
		const host = await startHost({ hello: false, args: ['--hello-grace', String(scaled(10000))] });
		try {
			const client = await connect(host);
			const call = client.callTool({ name: 'navigate_to', arguments: { url: 'https://example.com/queued' }, _meta: { 'browser-bridge/structured': true } },
			    undefined, opts());
			await eventually(async () => await pendingCalls(client) === 1, 'the call to be queued');
			assert.equal(host.requests.length, 0);
			const queuedAt = performance.now();
			host.sendHello();
			const result = await call;
			assert.deepEqual(result.structuredContent,
			    { method: 'navigate_to', params: { url: 'https://example.com/queued' } });
			assert.equal(host.welcomes.length, 1);
			assert.equal(host.requests.length, 1);
			const request = host.requests[0];
			assert.ok(request.timeout_ms > 0 && request.timeout_ms < 35000,
			    `a queued call is sent with the time it has left, not ${request.timeout_ms}`);
			assert.ok(performance.now() - queuedAt < scaled(2000), 'the hello sent it at once');
			await close(client);
		} finally {
			await host.stop();
		}
	});

	it('a hello with another protocol is refused with PROTOCOL_MISMATCH and calls fail', async () => {
		const host = await startHost({ hello: { protocol: 2 }, args: ['--hello-grace', String(scaled(200))] });
		try {
			assert.equal(host.welcome.protocol, 1);
			assert.equal(host.welcome.error.code, 'PROTOCOL_MISMATCH');
			assert.match(host.welcome.error.message, /protocol 2/);
			assert.equal(host.welcome.mcp_url, undefined);
			const client = await connect(host);
			const result = await client.callTool({ name: 'get_browser_state', arguments: {} }, undefined, opts());
			assert.deepEqual(result, { content: [{ type: 'text', text: NOT_CONNECTED }], isError: true });
			assert.equal(host.requests.length, 0);
			await close(client);
		} finally {
			await host.stop();
		}
	});

	it('the runtime file holds pid, port, version and url, privately, while the host runs', async () => {
		const host = await startHost();
		try {
			const info = JSON.parse(readFileSync(host.runtimeFile, 'utf8'));
			assert.equal(info.pid, host.pid);
			assert.equal(info.port, host.port);
			assert.equal(info.version, host.welcome.version);
			assert.equal(info.url, host.url);
			assert.equal(info.url, `http://127.0.0.1:${host.port}/mcp`);
			assert.ok(Number.isInteger(info.started));
			assert.ok(Math.abs(info.started - Date.now() / 1000) < 120 * SLOW, `started ${info.started}`);
			assert.equal(statSync(host.runtimeFile).mode & 0o077, 0, 'no access for group or others');
		} finally {
			await host.stop();
		}
		assert.equal(existsSync(host.runtimeFile), false, 'the runtime file is removed at exit');
	});

	it('SIGTERM ends the host cleanly: exit 0, runtime file removed', async () => {
		const host = await startHost();
		try {
			host.kill('SIGTERM');
			assert.deepEqual(await host.exited, { code: 0, signal: null });
			assert.equal(existsSync(host.runtimeFile), false);
		} finally {
			await host.stop();
		}
	});

	it('a port held by a stranger: the host serves on a free one, says DANGER everywhere, and no token reaches the stranger', async () => {
		const seen = [];
		const stranger = createHttpServer((req, res) => {
			seen.push({ url: req.url, authorization: req.headers.authorization });
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end('{"status":"ok","version":"0.1.0","proof":"00"}');
		});
		await new Promise(resolve => stranger.listen(0, '127.0.0.1', resolve));
		const taken = stranger.address().port;
		try {
			const host = await startHost({ args: ['--port', String(taken)] });
			try {
				assert.notEqual(host.welcome.port, taken);
				assert.equal(host.welcome.mcp_url, `http://127.0.0.1:${host.welcome.port}/mcp`);
				assert.equal(host.welcome.port_unsafe, true);
				assert.match(host.welcome.port_note, new RegExp(`port ${taken} is held by a program that is not Browser Bridge`));
				assert.match(host.welcome.port_note, /would send it their token/);
				// stderr is another pipe than the welcome's: its line may come later.
				await host.until(() => new RegExp(`port ${taken} is held by a program`).test(host.stderr), 'the warning on stderr');
				const client = await connect(host);
				const status = await client.callTool({ name: 'host_status', arguments: {} }, undefined, opts());
				assert.equal(status.structuredContent.port, host.welcome.port);
				assert.equal(status.structuredContent.port_note, host.welcome.port_note);
				assert.equal(status.structuredContent.port_unsafe, true);
				const result = await client.callTool({ name: 'hover_element', arguments: { ref: 'e1' } }, undefined, opts());
				assert.equal(JSON.parse(textOf(result)).method, 'hover_element');
				await close(client);
				assert.equal(JSON.parse(readFileSync(host.runtimeFile, 'utf8')).port, host.welcome.port);

				const cli = await runCommand(['status'], host.env);
				assert.equal(cli.status, 1, cli.stdout + cli.stderr);
				assert.match(cli.stdout, new RegExp(`DANGER: +port ${taken} is held by a program that is not Browser Bridge`));
				assert.match(cli.stdout, new RegExp(`port: +${host.welcome.port}`));
				const doctor = await runCommand(['doctor'], host.env);
				assert.equal(doctor.status, 1);
				assert.match(doctor.stdout, /FAIL.*port \d+ is held by a program that is not Browser Bridge[^\n]*\n.*stop the program that holds the port/);

				// The host asked the stranger to prove itself, and never sent it the token.
				assert.ok(seen.some(r => r.url.startsWith('/health?nonce=')), JSON.stringify(seen));
				assert.deepEqual(seen.filter(r => r.authorization !== undefined), []);
			} finally {
				await host.stop();
			}
		} finally {
			stranger.close();
		}
	});

	it('two hosts (two browsers or profiles): each has its own runtime file, the first keeps the port, status lists both, stdio --instance picks one', async () => {
		const first = await startHost();
		const second = await startHost({ args: ['--port', String(first.welcome.port)], env: { ...first.env } });
		let stopped = false;
		try {
			assert.notEqual(second.welcome.port, first.welcome.port);
			assert.equal(second.welcome.port_unsafe, false);
			assert.match(second.welcome.port_note,
			    new RegExp(`port ${first.welcome.port} is used by another Browser Bridge host`));
			assert.notEqual(first.runtimeFile, second.runtimeFile);
			assert.equal(JSON.parse(readFileSync(first.runtimeFile, 'utf8')).port, first.welcome.port);
			assert.equal(JSON.parse(readFileSync(second.runtimeFile, 'utf8')).port, second.welcome.port);

			const both = await runCommand(['status'], first.env);
			assert.equal(both.status, 0, both.stdout);
			const pids = [...both.stdout.matchAll(/^Browser Bridge host \S+ \(pid (\d+)\)$/gm)].map(m => Number(m[1]));
			assert.deepEqual(pids, [first.pid, second.pid], 'both, oldest first');
			assert.match(both.stdout, /2 hosts run; `browser-bridge stdio --instance NAME` picks one/);

			// A stdio client pointed at the second host reaches its browser.
			const transport = new StdioClientTransport({ command: process.env.BRIDGE_BIN,
			    args: ['stdio', '--instance', String(second.pid)], env: first.env });
			const viaStdio = new Client({ name: 'second-browser', version: '1.0.0' });
			await viaStdio.connect(transport);
			await viaStdio.callTool({ name: 'hover_element', arguments: { ref: 'e9' } }, undefined, opts());
			await viaStdio.close();
			assert.equal(second.requests.at(-1).params.ref, 'e9');
			assert.equal(first.requests.some(r => r.params?.ref === 'e9'), false);
			const wrong = await runCommand(['status', '--instance', 'firefox'], first.env);
			assert.equal(wrong.status, 1);
			assert.match(wrong.stdout, /no running Browser Bridge host is "firefox"; running: node \(pid \d+, port \d+\), node/);

			// The second leaves: the first is still found, by everyone.
			await second.stop();
			stopped = true;
			assert.equal(existsSync(second.runtimeFile), false);
			const one = await runCommand(['status'], first.env);
			assert.equal(one.status, 0, one.stdout);
			assert.match(one.stdout, new RegExp(`^Browser Bridge host \\S+ \\(pid ${first.pid}\\)$`, 'm'));
			assert.doesNotMatch(one.stdout, /hosts run/);
		} finally {
			if (!stopped)
				await second.stop();
			await first.stop();
		}
	});

	it('a host restart between two calls of one 1.x SDK client is invisible to it', async () => {
		const first = await startHost();
		const port = first.welcome.port;
		// The config directory (the token) outlives the host, as it does for a user.
		const config = mkdtempSync(join(tmpdir(), 'bb-restart-'));
		cpSync(first.configHome, config, { recursive: true });
		const client = await connect(first);
		let second;
		try {
			const before = await client.callTool({ name: 'hover_element', arguments: { ref: 'e1' } }, undefined, opts());
			assert.equal(JSON.parse(textOf(before)).params.ref, 'e1');
			first.clients.delete(client);	// the client lives on; only the host stops
			await first.stop();	// the browser restarts the host
			second = await startHost({ args: ['--port', String(port)], env: { XDG_CONFIG_HOME: config } });
			second.clients.add(client);
			const after = await client.callTool({ name: 'hover_element', arguments: { ref: 'e2' } }, undefined, opts());
			assert.equal(JSON.parse(textOf(after)).params.ref, 'e2');
			await eventually(async () => /MCP session \w{8} resumed \(the host restarted since it began\)/.test(second.stderr),
			    'the resume in the log');
			assert.equal((await second.request('status')).result.sessions, 1);
		} finally {
			await close(client);
			await second?.stop();
			rmSync(config, { recursive: true, force: true });
		}
	});

	it('a session id the host did not sign is still 404 after a restart', async () => {
		const host = await startHost();
		try {
			const forged = 'ab'.repeat(32);
			const answer = await raw(host, { method: 'POST', headers: mcpHeaders(host, { 'Mcp-Session-Id': forged }),
			    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
			assert.equal(answer.status, 404);
			assert.equal((await host.request('status')).result.sessions, 0);
		} finally {
			await host.stop();
		}
	});

	it('a free configured port is used as is, without a port note', async () => {
		const probe = createServer(() => {});
		await new Promise(resolve => probe.listen(0, '127.0.0.1', resolve));
		const port = probe.address().port;
		await new Promise(resolve => probe.close(resolve));
		const host = await startHost({ args: ['--port', String(port)] });
		try {
			assert.equal(host.welcome.port, port);
			assert.equal(host.welcome.port_note, undefined);
		} finally {
			await host.stop();
		}
	});
});
