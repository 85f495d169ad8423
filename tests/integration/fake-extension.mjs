// A fake browser extension for the host's integration tests: it starts the
// host the way Chrome does (origin argument, pipes on stdin and stdout),
// speaks the native-messaging protocol of docs/protocol.md and answers the
// host's requests with handlers the test supplies.
//
// Every byte the host writes to stdout is checked: it must be a frame (a
// 4-byte little-endian length, then that many bytes of UTF-8 JSON holding an
// object with a string "type", at most 1 MiB). Anything else is recorded as a
// violation, rejects every pending wait and fails stop().

import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { scaled } from '../timing.mjs';

// Chrome's limit for one host-to-browser message.
export const OUTBOUND_MAX = 1024 * 1024;

// The origin Chrome passes as argv[1]; the Origin the host allows besides
// loopback pages.
export const EXTENSION_ORIGIN = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/';

// Time margins scale with valgrind and the machine's load (../timing.mjs).
export { SLOW, scaled } from '../timing.mjs';

// The tools the host lists, in no particular order.
export const TOOL_NAMES = [
	'navigate_to', 'navigate_history', 'get_browser_state',
	'get_dom_extra_elements', 'click_element', 'type_value',
	'select_option', 'hover_element', 'press_keys', 'scroll_page',
	'manage_tabs', 'take_screenshot', 'get_page_content',
	'evaluate_script', 'get_console_logs', 'wait_for', 'handle_dialog', 'set_viewport', 'save_pdf', 'fill_form', 'drag_and_drop', 'list_network_requests', 'get_network_request', 'upload_file',
	'run_task', 'get_task', 'stop_task', 'answer_task', 'list_tasks', 'host_status',
	'start_recording', 'stop_recording', 'run_recipe', 'list_recipes', 'get_recipe', 'delete_recipe',
];

// What a handler throws to answer with an error response.
export class ExtensionError extends Error {
	constructor(code, message) {
		super(message);
		this.code = code;
	}
}

// A promise that never settles: a handler returns it to never answer.
export function never() {
	return new Promise(() => {});
}

// The default handler: echoes the method and params.
export function echo(params, ctx) {
	return {
		content: [{ type: 'text', text: JSON.stringify({ method: ctx.method, params }) }],
		structuredContent: { method: ctx.method, params },
	};
}

// Settles as promise does, or rejects after ms with a message naming what
// was awaited; leaves no timer behind (a pending one would keep the test
// file's process alive).
export function deadline(promise, ms, what) {
	let timer;
	const timeout = new Promise((resolve, reject) => {
		timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Encodes one frame.
export function frame(message) {
	const body = Buffer.from(typeof message === 'string' ? message : JSON.stringify(message), 'utf8');
	const header = Buffer.alloc(4);
	header.writeUInt32LE(body.length);
	return Buffer.concat([header, body]);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

class FakeExtension extends EventEmitter {
	constructor(options) {
		super();
		this.setMaxListeners(0);
		this.options = options;
		this.handlers = new Map(Object.entries(options.handlers ?? {}));
		this.requests = [];		// every host request, reassembled, in order
		this.cancels = [];		// every cancel message
		this.messages = [];		// every message from the host
		this.chunkedMessages = [];	// messages that arrived as chunks
		this.violations = [];		// anything on stdout that is not a frame
		this.stderr = '';
		this.welcome = null;
		this.welcomes = [];
		this.inbuf = Buffer.alloc(0);
		this.chunks = new Map();
		this.running = new Map();	// request id -> AbortController
		this.extPending = new Map();	// our request id -> resolve
		this.nextExtId = 1;
		this.exitInfo = null;
		this.clients = new Set();	// MCP clients to close at stop()
	}

	// Records a protocol violation and wakes every waiter.
	violate(text) {
		this.violations.push(text);
		this.emit('change');
	}

	// Reads stdout bytes: whole frames only, each a JSON object.
	onStdout(data) {
		this.inbuf = Buffer.concat([this.inbuf, data]);
		while (this.inbuf.length >= 4) {
			const len = this.inbuf.readUInt32LE(0);
			if (len === 0 || len > OUTBOUND_MAX) {
				this.violate(`frame length ${len} (must be 1..${OUTBOUND_MAX}); ` +
				    `bytes: ${JSON.stringify(this.inbuf.subarray(0, 64).toString('latin1'))}`);
				this.inbuf = Buffer.alloc(0);
				return;
			}
			if (this.inbuf.length < 4 + len)
				return;
			const body = this.inbuf.subarray(4, 4 + len);
			this.inbuf = this.inbuf.subarray(4 + len);
			let message;
			try {
				message = JSON.parse(utf8.decode(body));
			} catch (error) {
				this.violate(`frame is not UTF-8 JSON (${error.message}): ` +
				    JSON.stringify(body.subarray(0, 64).toString('latin1')));
				continue;
			}
			this.onFrame(message);
		}
	}

	// One decoded frame: chunks are reassembled, the rest dispatched.
	onFrame(message) {
		if (message === null || typeof message !== 'object' || Array.isArray(message) ||
		    typeof message.type !== 'string') {
			this.violate(`frame is not an object with a string "type": ${JSON.stringify(message).slice(0, 200)}`);
			return;
		}
		if (message.type !== 'chunk') {
			this.onMessage(message, false);
			return;
		}
		const { id, index, count, data } = message;
		if (!Number.isInteger(index) || !Number.isInteger(count) || count < 1 ||
		    typeof data !== 'string' || id === undefined) {
			this.violate(`malformed chunk: ${JSON.stringify(message).slice(0, 200)}`);
			return;
		}
		let entry = this.chunks.get(id);
		if (entry === undefined) {
			entry = { count, parts: [] };
			this.chunks.set(id, entry);
		}
		if (entry.count !== count || index !== entry.parts.length) {
			this.violate(`chunk ${id} out of order: index ${index} count ${count}, ` +
			    `expected index ${entry.parts.length} count ${entry.count}`);
			this.chunks.delete(id);
			return;
		}
		entry.parts.push(Buffer.from(data, 'base64'));
		if (entry.parts.length < count)
			return;
		this.chunks.delete(id);
		let whole;
		try {
			whole = JSON.parse(utf8.decode(Buffer.concat(entry.parts)));
		} catch (error) {
			this.violate(`chunked message ${id} does not reassemble to JSON: ${error.message}`);
			return;
		}
		if (whole === null || typeof whole !== 'object' || Array.isArray(whole) ||
		    typeof whole.type !== 'string' || whole.type === 'chunk') {
			this.violate(`chunked message ${id} is not a message object`);
			return;
		}
		this.chunkedMessages.push({ id, count, message: whole });
		this.onMessage(whole, true);
	}

	// One whole message from the host.
	onMessage(message, chunked) {
		this.messages.push(message);
		switch (message.type) {
		case 'welcome':
			if (message.protocol !== 1)
				this.violate(`welcome with protocol ${message.protocol}`);
			this.welcome = message;
			this.welcomes.push(message);
			break;
		case 'request':
			// docs/protocol.md: a positive integer id, a method, object
			// params and a positive timeout_ms.
			if (Number.isInteger(message.id) && message.id > 0 && typeof message.method === 'string' &&
			    message.params !== null && typeof message.params === 'object' && !Array.isArray(message.params) &&
			    Number.isInteger(message.timeout_ms) && message.timeout_ms > 0) {
				this.requests.push(message);
				this.runHandler(message);
			} else
				this.violate(`malformed request: ${JSON.stringify(message).slice(0, 200)}`);
			break;
		case 'cancel':
			if (!Number.isInteger(message.id) || !['timeout', 'cancelled'].includes(message.reason))
				this.violate(`malformed cancel: ${JSON.stringify(message)}`);
			this.cancels.push(message);
			this.running.get(message.id)?.abort(message.reason);
			this.running.delete(message.id);
			break;
		case 'response': {
			const resolve = this.extPending.get(message.id);
			if (('result' in message) === ('error' in message))
				this.violate(`a response needs exactly one of result and error: ${JSON.stringify(message).slice(0, 200)}`);
			else if (resolve === undefined)
				this.violate(`response to an unknown request: ${JSON.stringify(message).slice(0, 200)}`);
			else {
				this.extPending.delete(message.id);
				resolve(message);
			}
			break;
		}
		default:
			break;
		}
		this.emit('message', message, chunked);
		this.emit('change');
	}

	// Runs the handler for a host request and answers unless cancelled.
	async runHandler(request) {
		const handler = this.handlers.get(request.method) ?? this.options.defaultHandler ?? echo;
		const controller = new AbortController();
		this.running.set(request.id, controller);
		const ctx = {
			id: request.id,
			method: request.method,
			timeoutMs: request.timeout_ms,
			request,
			signal: controller.signal,
			progress: (progress, total, text, input) => {
				const message = { type: 'progress', id: request.id, progress };
				if (total !== undefined)
					message.total = total;
				if (text !== undefined)
					message.message = text;
				if (input !== undefined)
					message.input = input;
				this.send(message);
			},
		};
		let answer;
		try {
			answer = { result: await handler(request.params, ctx) };
		} catch (error) {
			answer = error instanceof ExtensionError ?
			    { error: { code: error.code, message: error.message } } :
			    { error: { code: 'INTERNAL', message: `fake extension handler threw: ${error.message}` } };
		}
		if (controller.signal.aborted || !this.running.has(request.id))
			return;	// cancelled: the protocol says send nothing
		this.running.delete(request.id);
		this.send({ type: 'response', id: request.id, ...answer });
	}

	// Writes one message (an object, or raw JSON text) to the host.
	send(message) {
		if (this.child.stdin.writable && !this.stdinEnded)
			this.child.stdin.write(frame(message));
	}

	// Sends a hello (the default one, or fields that replace it).
	sendHello(fields = {}) {
		this.send({ type: 'hello', protocol: 1, version: 'test-0.0.1', capabilities: [], ...fields });
	}

	// Sets the handler for a method.
	handle(method, fn) {
		this.handlers.set(method, fn);
	}

	// Calls the host (an extension-to-host request); resolves to the response.
	request(method, params) {
		const id = `e${this.nextExtId++}`;
		const message = { type: 'request', id, method };
		if (params !== undefined)
			message.params = params;
		const answered = new Promise(resolve => this.extPending.set(id, resolve));
		this.send(message);
		return deadline(answered, scaled(5000), `the response to ${method}`);
	}

	// Resolves when check() returns a truthy value, re-checked on each
	// message (and every poll ms, for checks that read files).
	until(check, what, ms = 10000, poll = 0) {
		const limit = scaled(ms);
		return new Promise((resolve, reject) => {
			const test = () => {
				if (this.violations.length > 0) {
					done();
					reject(new Error(`host wrote a bad frame: ${this.violations[0]}`));
					return;
				}
				let value;
				try {
					value = check();
				} catch (error) {
					done();
					reject(error);
					return;
				}
				if (value) {
					done();
					resolve(value);
				} else if (this.exitInfo !== null) {
					done();
					reject(new Error(`host exited (${JSON.stringify(this.exitInfo)}) while waiting for ${what}` +
					    `\n--- host stderr ---\n${this.stderr.slice(-4000)}`));
				}
			};
			const timer = setTimeout(() => {
				done();
				reject(new Error(`timed out after ${limit} ms waiting for ${what}` +
				    `\n--- host stderr ---\n${this.stderr.slice(-4000)}`));
			}, limit);
			const ticker = poll > 0 ? setInterval(test, poll) : null;
			const done = () => {
				clearTimeout(timer);
				clearInterval(ticker);
				this.off('change', test);
			};
			this.on('change', test);
			test();
		});
	}

	// Waits for a host request matching a predicate; returns it.
	waitForRequest(predicate, what = 'a request', ms) {
		return this.until(() => this.requests.find(predicate), what, ms);
	}

	// Waits for the cancel of a request id; returns it.
	waitForCancel(id, ms) {
		return this.until(() => this.cancels.find(c => c.id === id), `the cancel of request ${id}`, ms);
	}

	// Closes the host's stdin, as Chrome does when the port closes.
	disconnect() {
		if (!this.stdinEnded) {
			this.stdinEnded = true;
			this.disconnectedAt = performance.now();
			this.child.stdin.end();
		}
	}

	// Kills the host.
	kill(signal = 'SIGKILL') {
		if (this.exitInfo === null)
			this.child.kill(signal);
	}

	// A summary for assertion messages.
	describe() {
		return `violations: ${JSON.stringify(this.violations)}\n--- host stderr ---\n${this.stderr.slice(-6000)}`;
	}

	// Closes stdin and checks the host ended well: exit 0, no bad bytes.
	// MCP clients a test left open are closed first (an SSE client would
	// otherwise reconnect forever and keep the test process alive).
	async stop() {
		for (const client of this.clients) {
			try {
				await client.close();
			} catch {
				// closing is best effort here
			}
		}
		this.clients.clear();
		this.disconnect();
		try {
			await deadline(this.closed, scaled(5000), 'the host to exit after stdin EOF');
		} catch (error) {
			this.kill();
			throw new Error(`${error.message}\n${this.describe()}`);
		} finally {
			this.cleanup();
		}
		if (this.violations.length > 0)
			throw new Error(`the host wrote something other than frames to stdout\n${this.describe()}`);
		if (this.inbuf.length > 0)
			throw new Error(`the host left a partial frame (${this.inbuf.length} bytes) on stdout\n${this.describe()}`);
		if (this.exitInfo.code !== 0 || this.exitInfo.signal !== null)
			throw new Error(`the host exited with ${JSON.stringify(this.exitInfo)}` +
			    `${this.exitInfo.code === 99 ? ' (valgrind found errors)' : ''}\n${this.describe()}`);
	}

	// Removes the temporary directory.
	cleanup() {
		if (this.dir !== undefined && !process.env.BRIDGE_KEEP_TMP)
			rmSync(this.dir, { recursive: true, force: true });
	}
}

// Reads a file if it exists, else undefined.
function readIfExists(path) {
	try {
		return readFileSync(path, 'utf8');
	} catch {
		return undefined;
	}
}

// Starts the host with a fresh config and runtime directory. Options:
//   args      extra command-line options (default "--port 0" unless given)
//   env       extra environment
//   hello     true (default): send the hello and wait for the welcome;
//             false: send nothing; an object: a hello with these fields
//   handlers  { method: async (params, ctx) => result }
//   wrapper   a command to run the host under (default env BRIDGE_WRAPPER)
//   origin    argv[1] (default EXTENSION_ORIGIN)
// Resolves once the host listens (and, with a hello, has welcomed us).
export async function startHost(options = {}) {
	const bin = process.env.BRIDGE_BIN;
	if (!bin)
		throw new Error('set BRIDGE_BIN to the browser-bridge program');
	const ext = new FakeExtension(options);
	const dir = mkdtempSync(join(tmpdir(), 'bb-integ-'));
	ext.dir = dir;
	ext.configHome = join(dir, 'config');
	ext.runtimeDir = join(dir, 'run');
	mkdirSync(ext.configHome, { mode: 0o700 });
	mkdirSync(ext.runtimeDir, { mode: 0o700 });
	ext.env = {
		...process.env,
		HOME: dir,
		XDG_CONFIG_HOME: ext.configHome,
		XDG_RUNTIME_DIR: ext.runtimeDir,
		...(options.env ?? {}),
	};
	// Where the host keeps its files, as host/config.c and
	// host/runtime-file.c work them out (options.env may point elsewhere).
	const absolute = name => ext.env[name]?.startsWith('/') ? ext.env[name] : undefined;
	ext.configDir = join(absolute('XDG_CONFIG_HOME') ?? join(ext.env.HOME ?? '', '.config'), 'browser-bridge');
	ext.tokenFile = join(ext.configDir, 'token');
	ext.runtimeDir = join(absolute('XDG_RUNTIME_DIR') ?? absolute('XDG_STATE_HOME') ??
	    join(ext.env.HOME ?? '', '.local', 'state'), 'browser-bridge', 'hosts');
	// A Windows host (tests/windows.sh runs the .exe under wine) keeps them
	// under %APPDATA% and %LOCALAPPDATA%, which wine sets from its own
	// profile whatever the environment says; windows.sh names both here.
	if (process.env.BRIDGE_WINDOWS_APPDATA) {
		ext.configDir = join(process.env.BRIDGE_WINDOWS_APPDATA, 'browser-bridge');
		ext.tokenFile = join(ext.configDir, 'token');
		ext.runtimeDir = join(process.env.BRIDGE_WINDOWS_LOCALAPPDATA, 'browser-bridge', 'hosts');
	}

	const args = [options.origin ?? EXTENSION_ORIGIN, ...(options.args ?? [])];
	if (!args.includes('--port'))
		args.push('--port', '0');
	const wrapper = (options.wrapper ?? process.env.BRIDGE_WRAPPER ?? '').split(' ').filter(Boolean);
	const argv = [...wrapper, bin, ...args];
	ext.child = spawn(argv[0], argv.slice(1), { env: ext.env, stdio: ['pipe', 'pipe', 'pipe'] });
	ext.pid = ext.child.pid;
	ext.runtimeFile = join(ext.runtimeDir, `${ext.pid}.json`);	/* one per host */
	ext.child.stdin.on('error', () => {});	// EPIPE after the host exits
	ext.child.stdout.on('data', data => ext.onStdout(data));
	ext.child.stderr.setEncoding('utf8');
	ext.child.stderr.on('data', text => {
		ext.stderr += text;
		ext.emit('change');
		if (process.env.BRIDGE_TEST_LOG_DIR)
			appendFileSync(join(process.env.BRIDGE_TEST_LOG_DIR, `host-${ext.pid}.log`), text);
	});
	ext.exited = new Promise(resolve => ext.child.on('exit', (code, signal) => {
		ext.exitInfo = { code, signal };
		ext.exitedAt = performance.now();
		resolve(ext.exitInfo);
		ext.emit('change');
	}));
	ext.closed = new Promise(resolve => ext.child.on('close', () => resolve(ext.exitInfo)));
	ext.child.on('error', error => ext.violate(`cannot run the host: ${error.message}`));

	try {
		if (options.hello !== false) {
			ext.sendHello(typeof options.hello === 'object' ? options.hello : {});
			await ext.until(() => ext.welcome, 'the welcome', 10000);
		}
		if (ext.welcome?.port !== undefined) {
			ext.port = ext.welcome.port;
			ext.url = ext.welcome.mcp_url;
		} else {
			// No hello, or a refused one: the runtime file says where.
			const info = await ext.until(() => {
				const text = readIfExists(ext.runtimeFile);
				if (text === undefined)
					return undefined;
				try {
					return JSON.parse(text);
				} catch {
					return undefined;	// being written
				}
			}, 'the runtime file', 10000, 20);
			ext.port = info.port;
			ext.url = info.url;
		}
		ext.base = `http://127.0.0.1:${ext.port}`;
		ext.token = existsSync(ext.tokenFile) ? readFileSync(ext.tokenFile, 'utf8').trim() : null;
	} catch (error) {
		ext.kill();
		ext.cleanup();
		throw error;
	}
	return ext;
}
