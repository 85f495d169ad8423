// `browser-bridge stdio` driven by the official SDK's StdioClientTransport:
// relayed to a running host with the fake extension (tools/list, a call,
// progress, cancellation, server notifications), and with no host running
// (initialize and tools/list still work, calls say to open the browser, and
// the bridge connects when a host appears and lets go when it leaves).

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { TOOL_NAMES, deadline, never, scaled, startHost } from './fake-extension.mjs';
import { close, connect, eventually, opts, rawCall, textOf, wireEvent } from './mcp-client.mjs';
import { bridgeArgv, freshDirs } from './stdio-client.mjs';

// Starts `browser-bridge stdio` with env and connects an SDK client to it.
// The client gets .child (the process), .exit (resolves to its exit) and
// .stderrText() (what it logged).
async function connectStdio(env, extra = []) {
	const argv = bridgeArgv(extra);
	const transport = new StdioClientTransport({
		command: argv[0],
		args: argv.slice(1),
		env,
		stderr: 'pipe',
	});
	let stderr = '';
	transport.stderr.setEncoding('utf8');
	transport.stderr.on('data', text => {
		stderr += text;
		if (process.env.BRIDGE_TEST_VERBOSE)
			process.stderr.write(text);
	});
	const errors = [];
	const client = new Client({ name: 'stdio-test', version: '1.0.0' });
	await client.connect(transport, { timeout: scaled(10000) });
	transport.onerror = error => errors.push(error);	// after connect: the Client sets its own
	const child = transport._process;
	client.child = child;
	client.exit = new Promise(resolve => child.once('exit', (code, signal) => resolve({ code, signal })));
	client.stderrText = () => stderr;
	client.transportErrors = errors;
	return client;
}

// Closes a stdio client and checks the bridge exited cleanly by itself.
async function closeStdio(client) {
	await client.close();
	const exit = await client.exit;
	assert.deepEqual(exit, { code: 0, signal: null },
	    `the stdio bridge exited with ${JSON.stringify(exit)}\n--- its stderr ---\n${client.stderrText().slice(-4000)}`);
	assert.deepEqual(client.transportErrors, [], 'the bridge wrote something that is not a JSON-RPC line');
}

describe('stdio bridge with a running host', () => {
	let host;
	let client;

	before(async () => {
		host = await startHost();
		client = await connectStdio(host.env);
	});

	after(async () => {
		await closeStdio(client);
		await host.stop();
	});

	it('initialize describes the same server as the host does over HTTP', async () => {
		const direct = await connect(host);
		try {
			assert.deepEqual(client.getServerVersion(), direct.getServerVersion());
			assert.deepEqual(client.getServerCapabilities(), direct.getServerCapabilities());
			assert.equal(client.getInstructions(), direct.getInstructions());
		} finally {
			await close(direct);
		}
	});

	it('tools/list relays the host\'s catalogue', async () => {
		const { tools } = await client.listTools(undefined, opts());
		assert.deepEqual(tools.map(t => t.name).sort(), [...TOOL_NAMES].sort());
	});

	it('a call reaches the extension and its result comes back unchanged', async () => {
		const result = {
			content: [{ type: 'text', text: 'typed "ü" \\ \n 😀' }],
			structuredContent: { typed: 'ü', list: [1, 2.5, null, true] },
		};
		host.handle('type_value', () => result);
		const got = await client.callTool({ name: 'type_value', arguments: { ref: 'e1', text: 'ü' }, _meta: { 'browser-bridge/structured': true } }, undefined, opts());
		assert.deepEqual(got, result);
		assert.deepEqual(host.requests.at(-1).params, { ref: 'e1', text: 'ü' });
	});

	// Read from the bridge's stdout, not by the SDK client: SDK 1.x drops a
	// notification read in the same chunk as the response after it
	// (typescript-sdk#2580; docs/clients.md).
	it('progress notifications go out in order, then the result, on the bridge\'s stdout', async () => {
		host.handle('wait_for', async (params, ctx) => {
			ctx.progress(1, 3, 'first');
			await new Promise(resolve => setTimeout(resolve, 30));
			// The second back to back with the result: one read for the host.
			ctx.progress(2, 3, 'second');
			return { content: [{ type: 'text', text: 'waited' }] };
		});
		const messages = await rawCall(host, 'stdio', 'wait_for', { text: 'x' });
		assert.deepEqual(messages.map(wireEvent), [
			{ progress: 1, total: 3, message: 'first' },
			{ progress: 2, total: 3, message: 'second' },
			{ result: 'waited' },
		]);
	});

	it('cancelling a call sends the cancel on to the extension', async () => {
		host.handle('hover_element', () => never());
		const before = host.requests.length;
		const controller = new AbortController();
		const call = client.callTool({ name: 'hover_element', arguments: { ref: 'slow' } }, undefined,
		    opts({ signal: controller.signal }));
		const request = await host.waitForRequest((r, i) => r.method === 'hover_element' &&
		    host.requests.indexOf(r) >= before, 'the hover_element request');
		controller.abort('the test cancels');
		await assert.rejects(call);
		const cancel = await host.waitForCancel(request.id);
		assert.equal(cancel.id, request.id);
	});

	it('a tool error from the extension comes back as isError', async () => {
		host.handle('click_element', () => ({ content: [{ type: 'text', text: 'STALE_REF: gone' }], isError: true }));
		const got = await client.callTool({ name: 'click_element', arguments: { ref: 'e9' } }, undefined, opts());
		assert.equal(got.isError, true);
		assert.equal(textOf(got), 'STALE_REF: gone');
	});
});

describe('stdio bridge relays notifications that belong to no request', () => {
	it('tools/list_changed sent when the extension connects reaches the client', async () => {
		const host = await startHost({ hello: false });
		const client = await connectStdio(host.env);
		try {
			const changed = new Promise(resolve =>
			    client.setNotificationHandler(ToolListChangedNotificationSchema, resolve));
			// The bridge opens GET /mcp right after initialize; give it a moment.
			await new Promise(resolve => setTimeout(resolve, scaled(300)));
			host.sendHello();
			await host.until(() => host.welcome, 'the welcome');
			const note = await deadline(changed, scaled(5000), 'a tools/list_changed at the client');
			assert.equal(note.method, 'notifications/tools/list_changed');
		} finally {
			await closeStdio(client);
			await host.stop();
		}
	});
});

describe('stdio bridge with no host running', () => {
	let dirs;
	let client;
	let host;

	before(async () => {
		dirs = freshDirs();
		client = await connectStdio(dirs.env);
	});

	after(async () => {
		if (client)
			await closeStdio(client);
		if (host && host.exitInfo === null)
			await host.stop();
		if (!process.env.BRIDGE_KEEP_TMP)
			rmSync(dirs.dir, { recursive: true, force: true });
	});

	it('initialize works and names the same server', () => {
		assert.equal(client.getServerVersion().name, 'browser-bridge');
		assert.ok(client.getServerCapabilities().tools);
		assert.match(client.getInstructions(), /get_browser_state/);
	});

	it('tools/list gives the whole catalogue', async () => {
		const { tools } = await client.listTools(undefined, opts());
		assert.deepEqual(tools.map(t => t.name).sort(), [...TOOL_NAMES].sort());
		assert.ok(tools.every(t => t.inputSchema?.type === 'object'));
	});

	it('a tool call returns isError saying to open the browser', async () => {
		const got = await client.callTool({ name: 'get_browser_state', arguments: {} }, undefined, opts());
		assert.equal(got.isError, true);
		const text = textOf(got);
		assert.match(text, /^HOST_NOT_RUNNING: No Browser Bridge host is running/);
		assert.match(text, /Open the browser with the Browser Bridge extension/);
		assert.match(text, /browser-bridge doctor/);
	});

	it('an unknown tool is still a protocol error', async () => {
		await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }, undefined, opts()),
		    /Unknown tool: no_such_tool/);
	});

	it('once a host starts, a later call reaches the extension', async () => {
		host = await startHost({ env: dirs.env });
		host.handle('get_browser_state', () => ({ content: [{ type: 'text', text: 'state from the host' }] }));
		const got = await eventually(async () => {
			const result = await client.callTool({ name: 'get_browser_state', arguments: {} },
			    CallToolResultSchema, opts());
			return result.isError ? false : result;
		}, 'a call that reaches the host', 10000);
		assert.equal(textOf(got), 'state from the host');
		assert.equal(host.requests.at(-1).method, 'get_browser_state');
	});

	it('when the host stops, calls say to open the browser again', async () => {
		await host.stop();
		const got = await eventually(async () => {
			const result = await client.callTool({ name: 'get_browser_state', arguments: {} },
			    CallToolResultSchema, opts());
			return result.isError ? result : false;
		}, 'a call answered without the host', 10000);
		assert.match(textOf(got), /^HOST_NOT_RUNNING: /);
	});
});

describe('stdio bridge and a process that holds the host\'s port', () => {
	// A host that died left its runtime file; its pid now names a live
	// process (this test's own), and another program listens on its port,
	// answering /health like a host would. The bridge must not send it the
	// token (issue #16 item 4; docs/security.md, "Our clients verify the host").
	let dirs;
	let squatter;
	const seen = [];

	before(async () => {
		dirs = freshDirs();
		const { createServer } = await import('node:http');
		const { writeFileSync } = await import('node:fs');
		squatter = createServer((req, res) => {
			seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ status: 'ok', version: '0.1.0', extension_connected: true, sessions: 0, proof: 'f'.repeat(64) }));
		});
		await new Promise(resolve => squatter.listen(0, '127.0.0.1', resolve));
		const { port } = squatter.address();
		mkdirSync(join(dirs.env.XDG_RUNTIME_DIR, 'browser-bridge', 'hosts'), { recursive: true, mode: 0o700 });
		writeFileSync(join(dirs.env.XDG_RUNTIME_DIR, 'browser-bridge', 'hosts', `${process.pid}.json`),
		    JSON.stringify({ pid: process.pid, port, version: '0.1.0', url: `http://127.0.0.1:${port}/mcp` }), { mode: 0o600 });
	});

	after(async () => {
		await new Promise(resolve => squatter.close(resolve));
		rmSync(dirs.dir, { recursive: true, force: true });
	});

	it('asks for the host\'s proof, gets none, and sends no token anywhere', async () => {
		const client = await connectStdio(dirs.env);
		try {
			const result = await client.callTool({ name: 'get_browser_state', arguments: {} }, undefined, opts());
			assert.equal(result.isError, true);
			assert.match(textOf(result), /could not prove it is the Browser Bridge host .* the token was not sent/);
		} finally {
			await closeStdio(client);
		}
		assert.ok(seen.length > 0, 'the bridge did ask the listener to prove itself');
		assert.ok(seen.every(r => r.method === 'GET' && /^\/health\?nonce=[0-9a-f]{32}$/.test(r.url)), JSON.stringify(seen));
		assert.ok(seen.every(r => r.authorization === undefined), 'no Authorization header reached the listener');
	});
});

describe('stdio bridge started as MCP clients start it', () => {
	// The SDK's StdioClientTransport (Claude Desktop, Cursor...) starts the
	// bridge with only HOME, LOGNAME, PATH, SHELL, TERM and USER. A host
	// started by the browser writes its runtime file under XDG_RUNTIME_DIR
	// where the session sets it: on Linux, where systemd makes it
	// /run/user/UID, the bridge looks there without the variable. Where no
	// such directory is known (macOS, the BSDs: the portable build) the
	// browser has no XDG_RUNTIME_DIR either, and both sides use HOME.
	const runtimeDir = process.env.BRIDGE_OS === 'linux' ? `/run/user/${process.getuid()}` : null;
	let madeDir = false;
	let host;

	before(async t => {
		if (runtimeDir !== null && !existsSync(runtimeDir)) {
			mkdirSync(runtimeDir, { recursive: true, mode: 0o700 });
			madeDir = true;
		}
		host = await startHost({ env: runtimeDir !== null ? { XDG_RUNTIME_DIR: runtimeDir } :
		    { XDG_RUNTIME_DIR: '', XDG_STATE_HOME: '' } });
	});
	after(async () => {
		await host?.stop();
		if (madeDir)
			rmSync(runtimeDir, { recursive: true, force: true });
	});

	it('finds the host without XDG_RUNTIME_DIR and calls a tool end to end', async () => {
		const expected = runtimeDir ?? join(host.env.HOME, '.local', 'state');
		assert.ok(host.runtimeFile.startsWith(`${expected}/`) && existsSync(host.runtimeFile),
		    `the host wrote its runtime file under ${expected}`);
		// --instance PID: other hosts of this user may run beside the test's.
		const client = await connectStdio({ HOME: host.env.HOME, XDG_CONFIG_HOME: host.env.XDG_CONFIG_HOME },
		    ['--instance', String(host.pid)]);
		try {
			const result = await client.callTool({ name: 'hover_element', arguments: { ref: 'e5' } }, undefined, opts());
			assert.deepEqual(JSON.parse(textOf(result)), { method: 'hover_element', params: { ref: 'e5' } });
		} finally {
			await closeStdio(client);
		}
	});
});
