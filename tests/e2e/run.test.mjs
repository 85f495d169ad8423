// The README's run command in headless mode: it starts Chromium with the
// extension loaded and the host registered, prints the MCP endpoint and
// token, serves a real call, and leaves no process behind on Ctrl-C.

import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

// Returns the pids whose command line mentions text.
function processesWith(text) {
	try {
		return execFileSync('pgrep', ['-f', text], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
	} catch {
		return [];	// pgrep exits 1 when nothing matches
	}
}

test('run.sh with HEADLESS=1 serves MCP calls and stops cleanly on SIGINT', { timeout: 90000 }, async () => {
	const dir = mkdtempSync(join(tmpdir(), 'bb-run-'));
	const config = join(dir, 'config');
	mkdirSync(join(config, 'browser-bridge'), { recursive: true, mode: 0o700 });
	writeFileSync(join(config, 'browser-bridge', 'config.json'), '{"port":0}');
	const profile = join(dir, 'profile');
	const run = spawn(join(process.env.BRIDGE_SRCDIR, 'run.sh'), [], {
		env: {
			...process.env, HEADLESS: '1', HOME: dir, XDG_CONFIG_HOME: config,
			XDG_RUNTIME_DIR: join(dir, 'run'), BROWSER_BRIDGE_PROFILE: profile,
		},
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let out = '';
	run.stdout.setEncoding('utf8');
	run.stdout.on('data', text => { out += text; });
	run.stderr.setEncoding('utf8');
	run.stderr.on('data', text => { out += text; });
	const exited = new Promise(resolve => run.once('exit', (code, signal) => resolve({ code, signal })));
	try {
		const deadline = Date.now() + 60000;
		while (!out.includes('Press Ctrl-C to stop.')) {
			assert.ok(Date.now() < deadline && run.exitCode === null, `run.sh did not come up:\n${out}`);
			await new Promise(resolve => setTimeout(resolve, 100));
		}
		const url = /MCP endpoint: (\S+)/.exec(out)[1];
		const token = /Token: +(\S+)/.exec(out)[1];
		assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
		assert.ok(out.includes(`"Authorization": "Bearer ${token}"`), out);

		const client = new Client({ name: 'run-test', version: '1.0.0' });
		await client.connect(new StreamableHTTPClientTransport(new URL(url),
		    { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
		const status = await client.callTool({ name: 'host_status', arguments: {} });
		assert.equal(status.structuredContent.extension_connected, true);
		const state = await client.callTool({ name: 'get_browser_state', arguments: {} });
		assert.equal(state.isError, undefined, JSON.stringify(state));
		assert.match(state.content[0].text, /^Tab \d+ .* about:blank$/m);
		await client.close();

		assert.ok(processesWith(profile).length > 0, 'the browser runs with the private profile');
		run.kill('SIGINT');
		const { code } = await exited;
		assert.equal(code, 0, out);
		const deadlineGone = Date.now() + 10000;
		while (processesWith(profile).length > 0 && Date.now() < deadlineGone)
			await new Promise(resolve => setTimeout(resolve, 100));
		assert.deepEqual(processesWith(profile), [], 'no browser process is left behind');
		const hostFile = join(dir, 'run', 'browser-bridge', 'host.json');
		while (existsSync(hostFile) && Date.now() < deadlineGone)
			await new Promise(resolve => setTimeout(resolve, 100));
		assert.equal(existsSync(hostFile), false, 'the host exited and removed its runtime file');
	} finally {
		run.kill('SIGKILL');
		for (const pid of processesWith(profile))
			try { process.kill(Number(pid), 'SIGKILL'); } catch {}
		rmSync(dir, { recursive: true, force: true });
	}
});
