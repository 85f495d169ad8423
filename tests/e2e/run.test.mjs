// The README's run command in headless mode: it starts Chromium with the
// extension loaded and the host registered, prints the MCP endpoint, the
// token and client configurations in the order of README's client table
// (the URL alone for OAuth clients first), which work pasted as they are
// (played here by the MCP SDK with the command and environment a client
// would use), doctor passes, and nothing is left behind on Ctrl-C.

import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { scaled } from '../timing.mjs';

// The block of lines that follows a heading line of run.sh's output.
function blockAfter(out, heading) {
	const start = out.indexOf(`${heading}\n`);
	assert.ok(start !== -1, `no "${heading}" in:\n${out}`);
	const rest = out.slice(start + heading.length + 1);
	return rest.slice(0, rest.indexOf('\n\n'));
}

// Calls get_browser_state through a connected client; fails on an error.
async function readState(client) {
	const state = await client.callTool({ name: 'get_browser_state', arguments: {} });
	assert.equal(state.isError, undefined, JSON.stringify(state));
	assert.match(state.content[0].text, /^Tab \d+ .* about:blank$/m);
}

// Returns the pids whose command line mentions text.
function processesWith(text) {
	try {
		return execFileSync('pgrep', ['-f', text], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
	} catch {
		return [];	// pgrep exits 1 when nothing matches
	}
}

test('run.sh with HEADLESS=1 prints configurations that work pasted, doctor passes, and Ctrl-C stops it', { timeout: 120000 }, async () => {
	const dir = mkdtempSync(join(tmpdir(), 'bb-run-'));
	const config = join(dir, '.config');
	mkdirSync(join(config, 'browser-bridge'), { recursive: true, mode: 0o700 });
	writeFileSync(join(config, 'browser-bridge', 'config.json'), '{"port":0}');
	const profile = join(dir, 'profile');
	// A user's session: HOME and nothing else of XDG, so the files land
	// where a client started with only HOME finds them.
	const env = { ...process.env, HEADLESS: '1', HOME: dir, BROWSER_BRIDGE_PROFILE: profile };
	for (const name of ['XDG_CONFIG_HOME', 'XDG_RUNTIME_DIR', 'XDG_STATE_HOME'])
		delete env[name];
	const run = spawn(join(process.env.BRIDGE_SRCDIR, 'run.sh'), [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
	let out = '';
	run.stdout.setEncoding('utf8');
	run.stdout.on('data', text => { out += text; });
	run.stderr.setEncoding('utf8');
	run.stderr.on('data', text => { out += text; });
	const exited = new Promise(resolve => run.once('exit', (code, signal) => resolve({ code, signal })));
	try {
		const deadline = Date.now() + scaled(60000);
		while (!out.includes('Press Ctrl-C to stop.')) {
			assert.ok(Date.now() < deadline && run.exitCode === null, `run.sh did not come up:\n${out}`);
			await new Promise(resolve => setTimeout(resolve, 100));
		}
		const url = /MCP endpoint: (\S+)/.exec(out)[1];
		assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
		assert.match(out, /running \(instance chromium:profile\)/);

		// First, as in README's client table, the URL alone for clients with
		// OAuth: no key in it, and the endpoint answers a request without
		// one by pointing at its OAuth metadata, where such a client
		// registers itself (the flow itself is tests/e2e/oauth.test.mjs's).
		const withOAuth = 'With OAuth, the URL alone (approve the client in the Browser Bridge popup when it asks):';
		const withKey = 'Without OAuth, the owner key (the token above):';
		assert.ok(out.indexOf(withOAuth) < out.indexOf(withKey), `the OAuth forms come first:\n${out}`);
		const oauth = blockAfter(out, withOAuth);
		assert.equal(/^ {2}claude mcp add --transport http browser-bridge (\S+)$/m.exec(oauth)?.[1], url, oauth);
		assert.deepEqual(JSON.parse(oauth.slice(oauth.indexOf('\n{') + 1)).mcpServers['browser-bridge'], { type: 'http', url });
		assert.doesNotMatch(oauth, /Bearer|[0-9a-f]{64}/, 'no key in the OAuth forms');
		const refused = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
			body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
				params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'run-test', version: '1.0.0' } } }) });
		assert.equal(refused.status, 401);
		const metadata = /resource_metadata="([^"]+)"/.exec(refused.headers.get('www-authenticate'))?.[1];
		const issuer = (await (await fetch(metadata)).json()).authorization_servers[0];
		const server = await (await fetch(new URL('/.well-known/oauth-authorization-server', issuer))).json();
		assert.equal(typeof server.registration_endpoint, 'string', JSON.stringify(server));

		// Then the owner key's forms. The JSON configuration, pasted: its url and headers.
		const owner = blockAfter(out, withKey);
		const http = JSON.parse(owner.slice(owner.indexOf('\n{') + 1)).mcpServers['browser-bridge'];
		const client = new Client({ name: 'run-test', version: '1.0.0' });
		await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: http.headers } }));
		const status = await client.callTool({ name: 'host_status', arguments: {} });
		assert.equal(status.structuredContent.extension_connected, true);
		await readState(client);
		await client.close();

		// The Claude Code command, as Claude Code would use its arguments.
		const claude = /^ {2}claude mcp add --transport http browser-bridge (\S+) --header "Authorization: (Bearer [0-9a-f]{64})"$/m.exec(owner);
		assert.ok(claude, out);
		const viaClaude = new Client({ name: 'claude-code', version: '1.0.0' });
		await viaClaude.connect(new StreamableHTTPClientTransport(new URL(claude[1]),
		    { requestInit: { headers: { Authorization: claude[2] } } }));
		await readState(viaClaude);
		await viaClaude.close();

		// The stdio configuration, started as Claude Desktop and Cursor start
		// servers: the command and args as printed, the SDK's minimal
		// environment (HOME, PATH, USER...), nothing of run.sh's.
		const stdio = JSON.parse(blockAfter(out, 'Claude Desktop and other clients that only start stdio servers:')).mcpServers['browser-bridge'];
		assert.ok(stdio.command.startsWith('/'), 'the command is a full path: nothing is assumed on PATH');
		const viaStdio = new Client({ name: 'claude-desktop', version: '1.0.0' });
		await viaStdio.connect(new StdioClientTransport({ command: stdio.command, args: stdio.args,
		    env: { ...getDefaultEnvironment(), HOME: dir } }));
		await readState(viaStdio);
		await viaStdio.close();

		// doctor, as printed, agrees that everything works.
		const doctor = /^Check the setup: (\S+) doctor$/m.exec(out);
		assert.ok(doctor, out);
		let report = '';
		try {
			report = execFileSync(doctor[1], ['doctor'], { env, encoding: 'utf8' });
		} catch (error) {
			assert.fail(`doctor failed after run.sh:\n${error.stdout}`);
		}
		assert.match(report, /\nAll \d+ checks passed\.\n$/);
		assert.ok(report.includes(`ok    Profile ${profile}: manifest `), report);
		assert.match(report, /ok {4}host chromium:profile \(pid \d+, profile .*\) is running/);

		assert.ok(processesWith(profile).length > 0, 'the browser runs with the private profile');
		run.kill('SIGINT');
		const { code } = await exited;
		assert.equal(code, 0, out);
		const deadlineGone = Date.now() + scaled(10000);
		while (processesWith(profile).length > 0 && Date.now() < deadlineGone)
			await new Promise(resolve => setTimeout(resolve, 100));
		assert.deepEqual(processesWith(profile), [], 'no browser process is left behind');
		const hosts = join(dir, '.local', 'state', 'browser-bridge', 'hosts');
		const files = () => existsSync(hosts) ? readdirSync(hosts) : [];
		while (files().length > 0 && Date.now() < deadlineGone)
			await new Promise(resolve => setTimeout(resolve, 100));
		assert.deepEqual(files(), [], 'the host exited and removed its runtime file');
	} finally {
		run.kill('SIGKILL');
		for (const pid of processesWith(profile))
			try { process.kill(Number(pid), 'SIGKILL'); } catch {}
		rmSync(dir, { recursive: true, force: true });
	}
});
