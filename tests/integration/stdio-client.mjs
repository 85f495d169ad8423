// `browser-bridge stdio` for the integration tests, started the way MCP
// clients start it: by the v2 SDK's StdioClientTransport (a client pinned
// to 2026-07-28), or line by line as a raw client that sends a message
// and waits for what answers it.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';

import { scaled } from './fake-extension.mjs';

export const MODERN = '2026-07-28';

// The command line of `browser-bridge stdio` (under the test's wrapper).
export function bridgeArgv(extra = []) {
	const wrapper = (process.env.BRIDGE_WRAPPER ?? '').split(' ').filter(Boolean);
	return [...wrapper, process.env.BRIDGE_BIN, 'stdio', ...extra];
}

// A private HOME, config and runtime directory for a run without a host.
export function freshDirs() {
	const dir = mkdtempSync(join(tmpdir(), 'bb-stdio-'));
	const env = {
		HOME: dir,
		XDG_CONFIG_HOME: join(dir, 'config'),
		XDG_RUNTIME_DIR: join(dir, 'run'),
	};
	mkdirSync(env.XDG_CONFIG_HOME, { mode: 0o700 });
	mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700 });
	return { dir, env };
}

// Records every message the client's transport receives, in order, before
// the SDK handles it: client.wire. (The SDK handles a notification a
// moment after a response read in the same chunk, so a progress handler
// may miss what was on the wire: typescript-sdk#2580.)
export function recordWire(client) {
	const transport = client.transport;
	const handle = transport.onmessage;
	client.wire = [];
	transport.onmessage = (message, extra) => {
		client.wire.push(message);
		handle?.(message, extra);
	};
	return client;
}

// A v2 SDK client pinned to 2026-07-28 that starts `browser-bridge stdio`
// with env over the SDK's minimal environment, as Claude or Cursor do.
// client.stderrText() is what the bridge logged; client.close() checks
// that the bridge then exited cleanly by itself.
export async function connectModernStdio(env, extra = []) {
	const argv = bridgeArgv(extra);
	const transport = new ModernStdioTransport({ command: argv[0], args: argv.slice(1), env, stderr: 'pipe' });
	let stderr = '';
	transport.stderr.setEncoding('utf8');
	transport.stderr.on('data', text => {
		stderr += text;
	});
	const client = new ModernClient({ name: 'modern-stdio-test', version: '2.0.0' },
	    { versionNegotiation: { mode: { pin: MODERN } } });
	await client.connect(transport, { timeout: scaled(10000) });
	const exit = new Promise(resolve => transport._process.once('exit', (code, signal) => resolve({ code, signal })));
	const close = client.close.bind(client);
	client.close = async () => {
		await close();
		assert.deepEqual(await exit, { code: 0, signal: null },
		    `the stdio bridge exited with ${JSON.stringify(await exit)}\n--- its stderr ---\n${stderr.slice(-4000)}`);
	};
	client.stderrText = () => stderr;
	return recordWire(client);
}

// `browser-bridge stdio` as a raw client: send() writes a line, answer()
// waits for the response to a request, until() for any message. Every
// line the bridge writes must be a JSON object.
export class StdioLines {
	constructor(env, extra = []) {
		const argv = bridgeArgv(extra);
		this.child = spawn(argv[0], argv.slice(1), { env: { PATH: process.env.PATH, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
		this.messages = [];
		this.violations = [];
		this.stderr = '';
		this.waiters = new Set();
		let pending = '';
		this.child.stdout.setEncoding('utf8');
		this.child.stdout.on('data', text => {
			const lines = (pending + text).split('\n');
			pending = lines.pop();
			for (const line of lines) {
				try {
					const message = JSON.parse(line);
					if (typeof message !== 'object' || message === null || Array.isArray(message))
						throw new Error('not an object');
					this.messages.push(message);
				} catch {
					this.violations.push(line);
				}
			}
			for (const wake of this.waiters)
				wake();
		});
		this.child.stderr.setEncoding('utf8');
		this.child.stderr.on('data', text => {
			this.stderr += text;
		});
		this.child.stdin.on('error', () => {});
		this.exit = new Promise(resolve => this.child.once('exit', (code, signal) => resolve({ code, signal })));
	}

	// Writes one message as a line.
	send(message) {
		this.child.stdin.write(`${JSON.stringify(message)}\n`);
	}

	// Waits for the first message (from index from on) that test accepts.
	until(test, what, from = 0) {
		return new Promise((resolve, reject) => {
			const check = () => {
				const found = this.messages.slice(from).find(test);
				if (found === undefined)
					return;
				done();
				resolve(found);
			};
			const timer = setTimeout(() => {
				done();
				reject(new Error(`timed out waiting for ${what}\n--- the bridge's stderr ---\n${this.stderr.slice(-4000)}`));
			}, scaled(20000));
			const done = () => {
				clearTimeout(timer);
				this.waiters.delete(check);
			};
			this.waiters.add(check);
			check();
		});
	}

	// Sends a request and waits for its response.
	answer(request) {
		const from = this.messages.length;
		this.send(request);
		return this.until(m => m.id === request.id && m.method === undefined, `the answer to ${request.method}`, from);
	}

	// Closes stdin; the bridge must exit cleanly, having written only JSON lines.
	async close() {
		this.child.stdin.end();
		const exit = await this.exit;
		assert.deepEqual(exit, { code: 0, signal: null }, `the stdio bridge exited with ${JSON.stringify(exit)}\n${this.stderr.slice(-4000)}`);
		assert.deepEqual(this.violations, [], 'the bridge wrote lines that are not JSON objects');
	}
}
