// `browser-bridge stdio` speaking MCP 2026-07-28, as a v2 SDK client pinned
// to that revision meets it when Claude or Cursor start the bridge: the
// scenarios of modern-scenarios.mjs (the same that run over HTTP), then
// what is stdio's own: names no header carries bare, and the answers and
// listen streams while no host runs.

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';

import { TOOL_NAMES, startHost } from './fake-extension.mjs';
import { eventually, textOf } from './mcp-client.mjs';
import { describeModernScenarios, modernBody } from './modern-scenarios.mjs';
import { StdioLines, connectModernStdio, freshDirs } from './stdio-client.mjs';

// What a client passes the bridge besides the SDK's minimal environment:
// where the test's host keeps its files.
function clientEnv(host) {
	return { HOME: host.env.HOME, XDG_CONFIG_HOME: host.env.XDG_CONFIG_HOME, XDG_RUNTIME_DIR: host.env.XDG_RUNTIME_DIR };
}

// Raw modern requests to one bridge process, started at the first.
function rawStdio(env) {
	let lines;
	let id = 1;
	return {
		request: async (method, params) => {
			lines ??= new StdioLines(env);
			return { json: await lines.answer(modernBody(method, params, id++)) };
		},
		close: async () => {
			await lines?.close();
		},
	};
}

describeModernScenarios({
	name: 'stdio',
	statuses: false,
	open: async host => ({
		client: () => connectModernStdio(clientEnv(host)),
		...rawStdio(clientEnv(host)),
	}),
});

describe('MCP 2026-07-28 over stdio: what is stdio\'s own', () => {
	let host;
	let raw;
	before(async () => {
		host = await startHost();
		raw = rawStdio(clientEnv(host));
	});
	after(async () => {
		await raw.close();
		await host.stop();
	});

	it('a name no header carries bare reaches the host Base64-encoded, not refused as a mismatch', async () => {
		for (const uri of ['browser://tabs/ü', ' browser://tabs', '=?base64?eA==?=']) {
			const answer = await raw.request('resources/read', { uri });
			assert.equal(answer.json.error.code, -32602, uri);
			assert.match(answer.json.error.message, /^Resource not found/, uri);
		}
	});
});

describe('MCP 2026-07-28 over stdio with no host running', () => {
	let dirs;
	let client;
	let host;
	before(async () => {
		dirs = freshDirs();
		client = await connectModernStdio(dirs.env);
	});
	after(async () => {
		await client?.close();
		await host?.stop();
		if (!process.env.BRIDGE_KEEP_TMP)
			rmSync(dirs.dir, { recursive: true, force: true });
	});

	it('server/discover names the server, and tools/list gives the whole catalogue', async () => {
		assert.equal(client.getServerVersion().name, 'browser-bridge');
		assert.match(client.getInstructions(), /get_browser_state/);
		const { tools } = await client.listTools();
		assert.deepEqual(tools.map(t => t.name).sort(), [...TOOL_NAMES].sort());
	});

	it('a tool call returns isError saying to open the browser', async () => {
		const got = await client.callTool({ name: 'get_browser_state', arguments: {} });
		assert.equal(got.isError, true);
		assert.match(textOf(got), /^HOST_NOT_RUNNING: No Browser Bridge host is running/);
		assert.equal(client.wire.at(-1).result.resultType, 'complete');
	});

	it('a listen opened before the host runs carries its notifications once one starts, acknowledged once', async () => {
		const updates = [];
		client.setNotificationHandler('notifications/resources/updated', note => updates.push(note.params.uri));
		const subscription = await client.listen({ resourceSubscriptions: ['browser://tabs', 'browser://nowhere'] });
		assert.deepEqual(subscription.honoredFilter, { resourceSubscriptions: ['browser://tabs'] });
		host = await startHost({ env: dirs.env });
		// The bridge looks for a host every second; the update is sent
		// again until the listen is there to carry it.
		await eventually(() => {
			host.send({ type: 'event', event: 'resource_updated', uri: 'browser://tabs' });
			return updates.length > 0;
		}, 'a resources/updated on the listen opened before the host ran', 10000);
		assert.equal(client.wire.filter(m => m.method === 'notifications/subscriptions/acknowledged').length, 1,
		    'the host\'s acknowledgement is not passed on a second time');
		await subscription.close();
	});

	it('once the host runs, a call reaches the extension; when it stops, calls say to open the browser again', async () => {
		host.handle('get_browser_state', () => ({ content: [{ type: 'text', text: 'state from the host' }] }));
		const got = await eventually(async () => {
			const result = await client.callTool({ name: 'get_browser_state', arguments: {} });
			return result.isError ? false : result;
		}, 'a call that reaches the host', 10000);
		assert.equal(textOf(got), 'state from the host');
		await host.stop();
		const gone = await eventually(async () => {
			const result = await client.callTool({ name: 'get_browser_state', arguments: {} });
			return result.isError ? result : false;
		}, 'a call answered without the host', 10000);
		assert.match(textOf(gone), /^HOST_NOT_RUNNING: /);
	});
});
