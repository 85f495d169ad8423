// The official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in tests/package.json, run with the Node 22 it needs from the npm
// package node@22) against the host, through a small proxy that adds the
// bearer token, since the suite sends no headers of its own. Only the
// scenarios that apply to a browser bridge run; docs/clients.md lists the
// others and why. Every check of every scenario run must pass.

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { startHost } from './fake-extension.mjs';

const require = createRequire(import.meta.url);
// The suite's command line, and the Node 22 binary the node@22 package ships.
const CLI = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');
const NODE22 = join(dirname(require.resolve('node/package.json')), 'bin', 'node');

// The scenarios that apply to this server (docs/clients.md says why the others do not).
export const SCENARIOS = [
	'server-initialize',
	'server-session-lifecycle',
	'server-stateless',
	'ping',
	'tools-list',
	'resources-list',
	'sep-2164-resource-not-found',
	'dns-rebinding-protection',
	'caching',
	'http-header-validation',
];

// Checks that cannot apply to a browser bridge, and why (docs/clients.md).
export const NOT_APPLICABLE = {
	'sep-2575-server-rejects-undeclared-capability': 'needs the suite\'s test_missing_capability tool',
	'sep-2575-missing-capability-http-400': 'needs the suite\'s test_missing_capability tool',
	'sep-2575-http-server-no-independent-requests-on-stream': 'needs the suite\'s test_streaming_elicitation tool',
	'sep-2575-server-no-log-without-loglevel': 'needs the suite\'s test_logging_tool tool',
	'sep-2575-server-sends-tools-list-changed-on-subscription': 'needs the suite\'s test_trigger_tool_change tool: the host\'s tool list changes only when the extension connects or leaves, which modern.test.mjs drives on a listen stream',
	'sep-2549-prompts-list-caching-hints': 'the host has no prompts and does not advertise them, so prompts/list is -32601 as the spec requires',
};

// A proxy on a free loopback port that adds the token and forwards to the host as is.
function tokenProxy(host) {
	const server = createServer((req, res) => {
		const upstream = httpRequest({
			host: '127.0.0.1', port: host.port, method: req.method, path: req.url,
			headers: { ...req.headers, authorization: `Bearer ${host.token}` },
		}, answer => {
			res.writeHead(answer.statusCode, answer.headers);
			answer.pipe(res);
		});
		upstream.on('error', () => res.destroy());
		req.pipe(upstream);
	});
	return new Promise(resolve => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// The checks.json files under a directory.
function checkFiles(dir) {
	return readdirSync(dir, { recursive: true }).filter(name => name.endsWith('checks.json')).map(name => join(dir, name));
}

// Runs one scenario; resolves to its checks.
function runScenario(url, scenario, dir) {
	const output = join(dir, scenario);
	return new Promise((resolve, reject) => {
		execFile(NODE22, [CLI, 'server', '--url', url, '--scenario', scenario, '-o', output],
		    { cwd: dir, timeout: 120000 }, (error, stdout, stderr) => {
			let files = [];
			try {
				files = checkFiles(output);
			} catch {
				// no output directory: reported below
			}
			if (files.length === 0)
				return reject(new Error(`${scenario} left no results: ${error?.message}\n${stdout}\n${stderr}`));
			resolve(files.flatMap(file => JSON.parse(readFileSync(file, 'utf8'))));
		});
	});
}

// The scenarios run three at a time: each is a Node process that mostly
// waits on the host, and each opens its own sessions.
describe('the official MCP conformance suite', { concurrency: 3 }, () => {
	let host;
	let proxy;
	let dir;
	before(async () => {
		host = await startHost({
			args: ['--port', '0'],
			handlers: { read_resource: ({ uri }) => ({ contents: [{ uri, mimeType: 'application/json', text: '[]' }] }) },
		});
		proxy = await tokenProxy(host);
		dir = mkdtempSync(join(tmpdir(), 'bb-conformance-'));
	});
	after(async () => {
		proxy?.close();
		await host?.stop();
		rmSync(dir, { recursive: true, force: true });
	});

	for (const scenario of SCENARIOS) {
		it(scenario, async () => {
			const url = `http://127.0.0.1:${proxy.address().port}/mcp`;
			const checks = await runScenario(url, scenario, dir);
			assert.ok(checks.length > 0, `${scenario} ran no checks`);
			// SKIPPED: the suite found the check does not apply (subscriptions/listen, which the host does not offer).
			const failed = checks.filter(c => !['SUCCESS', 'INFO', 'SKIPPED'].includes(c.status) && !(c.id in NOT_APPLICABLE));
			assert.deepEqual(failed.map(c => `${c.id} [${c.status}]: ${c.errorMessage ?? c.description ?? ''}`), []);
		});
	}
});

// A free loopback port (for the suite's OAuth callback listener).
function freePort() {
	return new Promise(resolve => {
		const server = createNetServer().listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

// Runs the authorization server scenarios (the grant reads the metadata
// scenario's result, so both run in one go). The suite prints the URL a
// person would open; the test opens it as the person's browser (reloading
// the waiting page as it says until the fake extension's approval turns
// it into the redirect) and follows the redirect to the suite's callback.
function runAuthorization(host, dir, extra) {
	const output = join(dir, 'authorization');
	return new Promise((resolve, reject) => {
		const child = spawn(NODE22, [CLI, 'authorization', '--url', host.base,
			'--resource', host.url, '-o', output, ...extra], { cwd: dir });
		let stdout = '';
		let stderr = '';
		let opened = false;
		child.stderr.on('data', data => { stderr += data; });
		child.stdout.on('data', async data => {
			stdout += data;
			const url = new RegExp(`^${host.base}/authorize\\?\\S+$`, 'm').exec(stdout);
			if (url === null || opened)
				return;
			opened = true;
			try {
				let next = new URL(url[0]);
				for (let i = 0; i < 100; i++) {
					const page = await fetch(next, { redirect: 'manual' });
					if (page.status === 302) {
						await fetch(page.headers.get('location'));
						return;
					}
					const refresh = /url=([^"]+)"/.exec(await page.text());
					next = new URL(refresh[1], next);
					await new Promise(done => setTimeout(done, 100));
				}
			} catch (error) {
				child.kill();
				reject(error);
			}
		});
		const timer = setTimeout(() => child.kill(), 120000);
		child.on('exit', () => {
			clearTimeout(timer);
			let files = [];
			try {
				files = checkFiles(output);
			} catch {
				// no output directory: reported below
			}
			if (files.length === 0)
				return reject(new Error(`the authorization scenarios left no results\n${stdout}\n${stderr}`));
			resolve(files.flatMap(file => JSON.parse(readFileSync(file, 'utf8'))));
		});
	});
}

// Authorization server checks that do not apply, and why (docs/security.md).
export const AUTHORIZATION_NOT_APPLICABLE = {
	'authorization-server-metadata-cimd': 'the host does not fetch client ID metadata documents (SSRF from whoever reaches the port; docs/security.md, "Keys and scopes"): clients register dynamically',
};

describe('the official MCP conformance suite: authorization server scenarios', () => {
	let host;
	let dir;
	before(async () => {
		host = await startHost({ handlers: { approve_client: () => ({ approved: true, scopes: ['pages:read'] }) } });
		dir = mkdtempSync(join(tmpdir(), 'bb-conformance-auth-'));
	});
	after(async () => {
		await host?.stop();
		rmSync(dir, { recursive: true, force: true });
	});

	it('authorization-server-metadata-endpoint and authorization-code-grant, the person approving in the (fake) extension', async () => {
		const port = await freePort();
		const registered = await fetch(`${host.base}/register`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ client_name: 'conformance', redirect_uris: [`http://127.0.0.1:${port}/callback`] }),
		});
		const client = await registered.json();
		const checks = await runAuthorization(host, dir, ['--client-id', client.client_id, '-p', String(port)]);
		const ids = checks.map(c => c.id);
		assert.ok(ids.includes('authorization-code-grant'), ids.join(', '));
		assert.ok(ids.includes('authorization-server-metadata-endpoint') || ids.some(id => id.startsWith('authorization-server-metadata')), ids.join(', '));
		const failed = checks.filter(c => !['SUCCESS', 'INFO'].includes(c.status) && !(c.id in AUTHORIZATION_NOT_APPLICABLE));
		assert.deepEqual(failed.map(c => `${c.id} [${c.status}]: ${c.errorMessage ?? ''}`), []);
		assert.ok(host.requests.some(r => r.method === 'approve_client' && r.params.client_name === 'conformance'));
	});
});
