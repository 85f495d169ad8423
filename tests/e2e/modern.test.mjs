// End-to-end: a 2026-07-28 client (the v2 SDK pinned to the stateless
// revision) and a 1.x client drive the same Chromium through the host in
// one run: navigate, read the state and type by ref, with progress,
// and a cancelled wait. The modern client connects over HTTP, then, in a
// run of its own, over `browser-bridge stdio` as clients start it.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';

import { startBridge } from './harness.mjs';

// How the modern client reaches a bridge's host, per transport.
const TRANSPORTS = {
	HTTP: b => new ModernTransport(new URL(b.url),
	    { requestInit: { headers: { Authorization: `Bearer ${b.token}` } } }),
	// The SDK's minimal environment, as clients start stdio servers; the
	// test's host keeps its files in private directories.
	stdio: b => new ModernStdioTransport({ command: process.env.BRIDGE_BIN, args: ['stdio'],
	    env: { XDG_CONFIG_HOME: b.config, XDG_RUNTIME_DIR: b.runtime } }),
};

for (const [transport, makeTransport] of Object.entries(TRANSPORTS)) {
	describe(`a 2026-07-28 client over ${transport} beside a 1.x client`, () => {
		let b;
		let modern;
		before(async () => {
			b = await startBridge();
			modern = new ModernClient({ name: 'e2e-modern', version: '2.0.0' },
			    { versionNegotiation: { mode: { pin: '2026-07-28' } } });
			await modern.connect(makeTransport(b));
		});
		after(async () => {
			await modern?.close();
			await b?.close();
		});

		// The ref of an element as the model reads it: from the text of the state.
		function refOf(state, role, name) {
			const text = state.content[0].text;
			const line = new RegExp(`^\\s*(e\\d+) ${role} ${JSON.stringify(name)}`, 'm').exec(text);
			assert.ok(line, `no ${role} "${name}" in:\n${text}`);
			return line[1];
		}

		// Calls a tool over the modern client; fails the test on a tool error.
		async function call(name, args, options = {}) {
			const result = await modern.callTool({ name, arguments: args }, options);
			assert.ok(!result.isError, `${name} failed: ${result.content?.[0]?.text}`);
			return result;
		}

		test('the modern client navigates, reads and types by ref, with progress', async () => {
			const { tools } = await modern.listTools();
			assert.ok(tools.some(t => t.name === 'get_browser_state'));
			const url = b.page('form.html');
			const progress = [];
			await call('navigate_to', { url }, { onprogress: p => progress.push(p.progress) });
			const state = await call('get_browser_state', {});
			assert.equal(state.structuredContent, undefined, 'the model reads the text only');
			await call('type_value', { ref: refOf(state, 'textbox', 'Text'), text: 'typed by a 2026 client' });
			const again = await call('get_browser_state', {});
			assert.match(again.content[0].text, /typed by a 2026 client/);
			for (let i = 1; i < progress.length; i++)
				assert.ok(progress[i] > progress[i - 1], 'progress increases');
		});

		test('the 1.x client sees what the modern client did, in the same browser', async () => {
			const state = await b.state();
			assert.match(state.text, /typed by a 2026 client/);
		});

		test('aborting a modern call stops the wait in the browser', async () => {
			const controller = new AbortController();
			const waiting = modern.callTool({ name: 'wait_for', arguments: { text: 'text that never appears', timeout_ms: 60000 } },
			    { signal: controller.signal });
			await new Promise(resolve => setTimeout(resolve, 300));
			controller.abort();
			await assert.rejects(waiting);
			// The tab is free again: a call that changes the page would queue
			// behind a wait still running there, and time out.
			const state = await call('get_browser_state', {});
			await call('type_value', { ref: refOf(state, 'textbox', 'Email'), text: 'after@example.com' }, { timeout: 10000 });
			assert.match((await call('get_browser_state', {})).content[0].text, /after@example\.com/);
		});
	});
}
