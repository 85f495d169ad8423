// The catalogue over both transports: initialize, tools/list, resources,
// host_status, the extension's own status request and the token command.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';

import { TOOL_NAMES, startHost } from './fake-extension.mjs';
import { close, connect, opts, textOf } from './mcp-client.mjs';

const run = promisify(execFile);

describe('catalogue', () => {
	let host;

	before(async () => {
		host = await startHost({
			handlers: {
				read_resource: params => ({
					contents: [{
						uri: params.uri,
						mimeType: 'application/json',
						text: JSON.stringify([{ id: 7, title: 'Example', url: 'https://example.com/', active: true }]),
					}],
				}),
			},
		});
	});

	after(async () => {
		await host.stop();
	});

	it('initialize over Streamable HTTP names the server and negotiates the SDK version', async () => {
		const client = await connect(host);
		try {
			const info = client.getServerVersion();
			assert.equal(info.name, 'browser-bridge');
			assert.equal(info.version, host.welcome.version);
			const caps = client.getServerCapabilities();
			assert.deepEqual(caps.tools, { listChanged: true });
			assert.equal(caps.resources.listChanged, true);
			assert.equal(typeof client.getInstructions(), 'string');
			assert.equal(typeof client.bridgeTransport.sessionId, 'string');
			assert.match(client.bridgeTransport.sessionId, /^[\x21-\x7e]{16,}$/);
		} finally {
			await close(client);
		}
	});

	it('tools/list over Streamable HTTP lists exactly the catalogue', async () => {
		const client = await connect(host);
		try {
			const { tools, nextCursor } = await client.listTools(undefined, opts());
			assert.equal(nextCursor, undefined);
			assert.deepEqual(tools.map(t => t.name).sort(), [...TOOL_NAMES].sort());
			for (const tool of tools) {
				assert.equal(tool.inputSchema.type, 'object', `${tool.name} input schema`);
				assert.equal(typeof tool.description, 'string', `${tool.name} description`);
				assert.ok(tool.description.length > 0, `${tool.name} description`);
			}
			const status = tools.find(t => t.name === 'host_status');
			assert.equal(status.outputSchema.type, 'object');
			assert.equal(host.requests.length, 0, 'tools/list must not reach the extension');
		} finally {
			await close(client);
		}
	});

	it('tools/list over legacy SSE lists the same tools as Streamable HTTP', async () => {
		const http = await connect(host);
		const sse = await connect(host, { transport: 'sse' });
		try {
			assert.equal(sse.getServerVersion().name, 'browser-bridge');
			const overHttp = await http.listTools(undefined, opts());
			const overSse = await sse.listTools(undefined, opts());
			assert.deepEqual(overSse, overHttp);
			assert.deepEqual(overSse.tools.map(t => t.name).sort(), [...TOOL_NAMES].sort());
		} finally {
			await close(sse);
			await close(http);
		}
	});

	it('a legacy SSE session carries tool calls to the extension and back', async () => {
		const client = await connect(host, { transport: 'sse' });
		try {
			const before = host.requests.length;
			const result = await client.callTool({ name: 'get_browser_state', arguments: { tab_id: 3 }, _meta: { 'browser-bridge/structured': true } }, undefined, opts());
			assert.deepEqual(result.structuredContent, { method: 'get_browser_state', params: { tab_id: 3 } });
			assert.equal(host.requests.length, before + 1);
			assert.deepEqual(host.requests.at(-1).params, { tab_id: 3 });
		} finally {
			await close(client);
		}
	});

	it('host_status is answered by the host itself and names the clients connected', async () => {
		const client = await connect(host, { name: 'status-reader' });
		try {
			const before = host.requests.length;
			const result = await client.callTool({ name: 'host_status', arguments: {} }, undefined, opts());
			const status = result.structuredContent;
			assert.equal(result.isError, undefined);
			assert.deepEqual(JSON.parse(textOf(result)), status);
			assert.equal(status.version, host.welcome.version);
			assert.equal(status.extension_connected, true);
			assert.equal(status.port, host.port);
			assert.equal(status.mcp_url, host.url);
			assert.equal(status.pid, host.pid);
			assert.equal(status.auth, true);
			assert.equal(status.extension_version, 'test-0.0.1');
			assert.ok(status.sessions >= 1, `sessions: ${status.sessions}`);
			assert.equal(status.pending_calls, 0);
			assert.ok(Number.isInteger(status.uptime_ms) && status.uptime_ms >= 0);
			/* calls counts what went to the extension: host_status did not. */
			const { idle_ms: idle, ...first } = status.clients[0];
			assert.deepEqual(first, { client: 'status-reader 1.0.0', transport: 'Streamable HTTP', calls: 0 },
			    'the caller itself, most recently active first');
			assert.ok(idle >= 0 && idle < 1000, `idle_ms ${idle}`);
			assert.equal(host.requests.length, before, 'host_status must not reach the extension');
		} finally {
			await close(client);
		}
	});

	it('tools/list pages with --tools-page-size and the pages join to the whole list', async () => {
		const paged = await startHost({ args: ['--tools-page-size', '5'] });
		try {
			const client = await connect(paged);
			try {
				const names = [];
				let cursor;
				let pages = 0;
				do {
					const page = await client.listTools(cursor === undefined ? undefined : { cursor }, opts());
					assert.ok(page.tools.length <= 5, `page of ${page.tools.length}`);
					names.push(...page.tools.map(t => t.name));
					cursor = page.nextCursor;
					pages++;
				} while (cursor !== undefined && pages < 10);
				assert.equal(pages, Math.ceil(TOOL_NAMES.length / 5));
				assert.deepEqual([...names].sort(), [...TOOL_NAMES].sort());
				assert.equal(new Set(names).size, names.length, 'no tool twice');
			} finally {
				await close(client);
			}
		} finally {
			await paged.stop();
		}
	});

	it('resources/list lists the three browser resources', async () => {
		const client = await connect(host);
		try {
			const { resources } = await client.listResources(undefined, opts());
			assert.deepEqual(resources.map(r => r.uri),
			    ['browser://tabs', 'browser://current/state', 'browser://dom/state']);
			for (const r of resources)
				assert.equal(typeof r.mimeType, 'string', r.uri);
		} finally {
			await close(client);
		}
	});

	it('resources/read is forwarded as read_resource and its contents come back unchanged', async () => {
		const client = await connect(host);
		try {
			const before = host.requests.length;
			const result = await client.readResource({ uri: 'browser://tabs' }, opts());
			assert.equal(host.requests.length, before + 1);
			const request = host.requests.at(-1);
			assert.equal(request.method, 'read_resource');
			assert.deepEqual(request.params, { uri: 'browser://tabs' });
			assert.equal(request.timeout_ms, 30000);
			assert.deepEqual(result, {
				contents: [{
					uri: 'browser://tabs',
					mimeType: 'application/json',
					text: JSON.stringify([{ id: 7, title: 'Example', url: 'https://example.com/', active: true }]),
				}],
			});
		} finally {
			await close(client);
		}
	});

	it('resources/read of an unknown URI is error -32002 and never reaches the extension', async () => {
		const client = await connect(host);
		try {
			const before = host.requests.length;
			await assert.rejects(client.readResource({ uri: 'browser://nope' }, opts()), error => {
				assert.equal(error.code, -32002);
				assert.match(error.message, /browser:\/\/nope/);
				return true;
			});
			assert.equal(host.requests.length, before);
		} finally {
			await close(client);
		}
	});

	it('the extension\'s "status" request gets the host status', async () => {
		const client = await connect(host);
		try {
			const response = await host.request('status', {});
			assert.equal(response.type, 'response');
			assert.equal(response.error, undefined);
			const status = response.result;
			assert.equal(status.version, host.welcome.version);
			assert.equal(status.extension_connected, true);
			assert.equal(status.port, host.port);
			assert.equal(status.mcp_url, host.url);
			assert.equal(status.sessions, 1);
			assert.equal(status.pending_calls, 0);
			assert.ok(Number.isInteger(status.uptime_ms));

			const noParams = await host.request('status');
			assert.equal(noParams.result.port, host.port);
		} finally {
			await close(client);
		}
	});

	it('the extension\'s unknown or malformed requests get error responses', async () => {
		const unknown = await host.request('no_such_method', {});
		assert.equal(unknown.result, undefined);
		assert.equal(unknown.error.code, 'UNKNOWN_METHOD');
		assert.match(unknown.error.message, /no_such_method/);

		const badParams = await host.request('status', [1, 2]);
		assert.equal(badParams.error.code, 'INVALID_ARGUMENT');
	});

	// Issue #32: the agents of an OAuth client's task keep to the tools whose
	// scope its key holds, read from this catalogue, which carried none.
	it('the welcome\'s catalogue is tools/list\'s tools, each with the scope, method and traits of its catalogue file', async () => {
		const client = await connect(host);
		try {
			const { tools } = await client.listTools(undefined, opts());
			const listed = new Map(tools.map(tool => [tool.name, tool]));
			assert.deepEqual(host.welcome.catalogue.map(tool => tool.name).sort(), [...TOOL_NAMES].sort());
			for (const { scope, method, traits, ...listing } of host.welcome.catalogue) {
				const data = JSON.parse(readFileSync(join(process.env.BRIDGE_SRCDIR, 'catalogue', `${listing.name}.json`), 'utf8'));
				assert.deepEqual(listing, listed.get(listing.name), `${listing.name}: its tools/list object`);
				assert.equal(scope, data.scope, `${listing.name}: its scope`);
				assert.equal(method, data.answered_by === 'extension' ? data.method : undefined, `${listing.name}: its method`);
				assert.deepEqual(traits, data.traits, `${listing.name}: its traits`);
			}
		} finally {
			await close(client);
		}
	});

	it('a second hello is welcomed again with the same answer', async () => {
		const count = host.welcomes.length;
		host.sendHello({ version: 'test-0.0.2' });
		await host.until(() => host.welcomes.length === count + 1, 'the second welcome');
		const { ...first } = host.welcomes[0];
		assert.deepEqual(host.welcomes.at(-1), first);
		const response = await host.request('status');
		assert.equal(response.result.extension_version, 'test-0.0.2');
	});

	it('`browser-bridge token` prints the token the host checks, from a 0600 file', async () => {
		const { stdout } = await run(process.env.BRIDGE_BIN, ['token'], { env: host.env });
		assert.equal(stdout, `${host.token}\n`);
		assert.match(host.token, /^[A-Za-z0-9_-]{32,}$/);
		assert.equal(host.welcome.token, host.token, 'the welcome hands the extension the token');
		assert.equal(statSync(host.tokenFile).mode & 0o777, 0o600);
		assert.equal(statSync(host.configDir).mode & 0o777, 0o700);
	});
});
