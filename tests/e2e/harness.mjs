// End-to-end harness: headless Chromium with the Browser Bridge extension
// and a fresh profile whose NativeMessagingHosts/ points at the built host,
// the fixture site on two loopback ports, an MCP SDK client over Streamable
// HTTP, and a DevTools pipe for checking pages independently.
//
// Environment: BRIDGE_BIN (the built host), E2E_EXTENSION (the extension
// directory), CHROMIUM (the browser binary), E2E_KEEP=1 keeps the temp dir.

import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, rmSync, openSync, closeSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { CdpPipe } from './cdp.mjs';
import { startFixtureSite } from './fixture-server.mjs';
import { scaled } from '../timing.mjs';

export const EXTENSION_ID = 'lbgfejnjcgkdeceohflfkdiejmokjlpk';
export const HOST_NAME = 'org.browserbridge.host';

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

// How long closeTarget waits for a tab to go before asking again.
const CLOSE_AGAIN_MS = 1000;

// Polls fn until it returns a truthy value; throws after ms with what.
// What the running host's runtime file says (one file per host, named by
// its pid), skipping the host with pid notPid; undefined when none runs.
export function runningHost(runtime, notPid) {
	const dir = join(runtime, 'browser-bridge', 'hosts');
	if (!existsSync(dir))
		return undefined;
	for (const name of readdirSync(dir).filter(n => /^\d+\.json$/.test(n))) {
		try {
			const host = JSON.parse(readFileSync(join(dir, name), 'utf8'));
			if (host.pid !== notPid)
				return host;
		} catch {
			// being written (the rename is atomic) or gone: look again
		}
	}
	return undefined;
}

export async function until(fn, { ms = 10000, every = 50, what = 'a condition' } = {}) {
	const end = Date.now() + scaled(ms);
	let last;
	for (;;) {
		try {
			last = await fn();
			if (last)
				return last;
		} catch (error) {
			last = error;
		}
		if (Date.now() > end)
			throw new Error(`timed out after ${scaled(ms)} ms waiting for ${what}` +
			    (last instanceof Error ? `: ${last.message}` : last !== undefined ? ` (last: ${JSON.stringify(last)})` : ''));
		await sleep(every);
	}
}

// Whether promise settles (either way) within ms: false once they have
// passed. Leaves no timer behind: a pending one would keep the test file's
// process alive after its last test, for as long as the margin was.
export async function settlesWithin(promise, ms) {
	let timer;
	const timeout = new Promise(resolve => { timer = setTimeout(resolve, ms, false); });
	try {
		return await Promise.race([promise.then(() => true, () => true), timeout]);
	} finally {
		clearTimeout(timer);
	}
}

// Whether a process is alive.
function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

// Starts everything; resolves to a Bridge (see the methods below). With
// installHost false the profile has no host manifest, and only the browser
// starts (for testing what the extension says then); settings go into the
// host's config.json.
export async function startBridge({ installHost = true, settings = {} } = {}) {
	const hostBin = process.env.BRIDGE_BIN;
	const extensionDir = process.env.E2E_EXTENSION;
	const chromium = process.env.CHROMIUM ?? 'chromium';
	if (!hostBin || !extensionDir)
		throw new Error('BRIDGE_BIN and E2E_EXTENSION must be set (tests/e2e.sh sets them)');
	const dir = mkdtempSync(join(tmpdir(), 'bb-e2e-'));
	const profile = join(dir, 'profile');
	const config = join(dir, 'config');
	const runtime = join(dir, 'run');
	mkdirSync(join(profile, 'NativeMessagingHosts'), { recursive: true });
	mkdirSync(join(config, 'browser-bridge'), { recursive: true, mode: 0o700 });
	mkdirSync(runtime, { recursive: true, mode: 0o700 });
	if (installHost) {
		writeFileSync(join(profile, 'NativeMessagingHosts', `${HOST_NAME}.json`), JSON.stringify({
			name: HOST_NAME,
			description: 'Browser Bridge (end-to-end tests)',
			path: hostBin,
			type: 'stdio',
			allowed_origins: [`chrome-extension://${EXTENSION_ID}/`],
		}));
	}
	writeFileSync(join(config, 'browser-bridge', 'config.json'), JSON.stringify({ port: 0, log_level: 'debug', ...settings }));

	const site = await startFixtureSite();
	const logPath = join(dir, 'chromium.log');
	const logFd = openSync(logPath, 'a');
	const child = spawn(chromium, [
		'--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic',
		'--no-first-run', '--no-default-browser-check', '--disable-background-networking',
		'--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
		'--disable-features=Translate,MediaRouter,OptimizationHints',
		'--disable-renderer-backgrounding', '--disable-background-timer-throttling',
		'--disable-backgrounding-occluded-windows',
		'--window-size=1280,800', '--remote-debugging-pipe',
		`--user-data-dir=${profile}`, `--load-extension=${extensionDir}`,
		`--disable-extensions-except=${extensionDir}`,
		'about:blank',
	], {
		detached: true,
		stdio: ['ignore', logFd, logFd, 'pipe', 'pipe'],
		env: { ...process.env, XDG_CONFIG_HOME: config, XDG_RUNTIME_DIR: runtime },
	});
	closeSync(logFd);
	const exited = new Promise(resolve => child.once('exit', (code, signal) => resolve({ code, signal })));
	child.on('error', () => {});
	const cdp = new CdpPipe(child.stdio[3], child.stdio[4]);
	const bridge = new Bridge({ dir, profile, config, runtime, site, child, exited, cdp, logPath });
	try {
		if (!installHost) {
			await until(async () => (await cdp.targets()).some(t => t.url.startsWith(`chrome-extension://${EXTENSION_ID}/`)),
			    { ms: 20000, what: 'the extension to load' });
			return bridge;
		}
		const host = await until(() => runningHost(runtime),
		    { ms: 20000, what: `the host to start (${join(runtime, 'browser-bridge', 'hosts')}); is the extension loading?` });
		bridge.hostPid = host.pid;
		bridge.url = host.url ?? `http://127.0.0.1:${host.port}/mcp`;
		bridge.token = readFileSync(join(config, 'browser-bridge', 'token'), 'utf8').trim();
		bridge.client = await bridge.connect();
		await until(async () => {
			const r = await bridge.client.callTool({ name: 'host_status', arguments: {} });
			return r.structuredContent?.extension_connected === true;
		}, { ms: 10000, what: 'the extension to say hello to the host' });
	} catch (error) {
		error.message += `\n--- chromium log (${logPath}) ---\n${bridge.logTail()}`;
		await bridge.close().catch(problem => {
			error.message += `\n--- and on closing ---\n${problem.message}`;
		});
		throw error;
	}
	return bridge;
}

// A running browser, host, fixture site and MCP client.
export class Bridge {
	constructor(fields) {
		Object.assign(this, fields);
		this.clients = [];
		this.pageCount = 0;
	}

	// A new MCP client session.
	async connect() {
		const transport = new StreamableHTTPClientTransport(new URL(this.url),
		    { requestInit: { headers: { Authorization: `Bearer ${this.token}` } } });
		const client = new Client({ name: 'e2e', version: '1.0.0' });
		await client.connect(transport, { timeout: scaled(10000) });
		this.clients.push(client);
		return client;
	}

	// Calls a tool; resolves to the result (errors are results with isError).
	// The tests are a program, not a model: they ask for structuredContent.
	async call(name, args = {}, options = {}) {
		return this.client.callTool({ name, arguments: args, _meta: { 'browser-bridge/structured': true } },
		    undefined, { timeout: scaled(60000), ...options });
	}

	// Calls a tool that must succeed; resolves to { text, data, result }.
	async ok(name, args = {}) {
		const result = await this.call(name, args);
		if (result.isError)
			throw new Error(`${name} ${JSON.stringify(args)} failed: ${result.content?.[0]?.text}`);
		return { text: result.content.map(c => c.text ?? '').join('\n'), data: result.structuredContent, result };
	}

	// Calls a tool that must fail; resolves to { code, message }.
	async fails(name, args = {}) {
		const result = await this.call(name, args);
		if (!result.isError)
			throw new Error(`${name} ${JSON.stringify(args)} should have failed but answered: ${result.content?.[0]?.text}`);
		const text = result.content[0].text;
		const colon = text.indexOf(': ');
		return { code: text.slice(0, colon), message: text.slice(colon + 2), text };
	}

	// The fixture URL of a path on the first (or second) origin. Each URL
	// gets a unique query parameter so the DevTools checks find the right page.
	page(path, { other = false, unique = true } = {}) {
		let url = `${other ? this.site.other : this.site.origin}/${path.replace(/^\//, '')}`;
		if (unique)
			url += `${url.includes('?') ? '&' : '?'}u=${++this.pageCount}`;
		return url;
	}

	// Navigates the active tab; resolves to { tabId, url }.
	async open(path, options = {}) {
		const url = this.page(path, options);
		const { data } = await this.ok('navigate_to', { url, ...(options.args ?? {}) });
		return { tabId: data.tab_id, url };
	}

	// The page state; resolves to { text, data, byName(role, name) }.
	async state(args = {}) {
		const { text, data } = await this.ok('get_browser_state', args);
		const find = (role, name) => data.elements.find(e => (role === undefined || e.role === role) &&
		    (typeof name === 'string' ? e.name === name : name.test(e.name)));
		return {
			text, data,
			ref(role, name) {
				const e = find(role, name);
				if (e === undefined)
					throw new Error(`no ${role} named ${name} in the state:\n${text}`);
				return e.ref;
			},
			find,
		};
	}

	// Opens a URL in a new tab behind the tools' back (DevTools), for pages
	// the tools refuse to open (the extension's own, local files); resolves
	// to the tab's target and a close().
	async openDirectly(url) {
		const { targetId } = await this.cdp.send('Target.createTarget', { url });
		await until(async () => (await this.cdp.targets()).some(t => t.targetId === targetId && t.url !== ''),
		    { what: `the tab of ${url}` });
		await until(() => this.evaluate(url, `location.href === ${JSON.stringify(url)} && document.readyState === "complete"`),
		    { what: `${url} to load` });
		return { targetId, close: () => this.closeTarget(targetId) };
	}

	// Closes a tab behind the tools' back and waits until it is gone:
	// DevTools answers before the browser has removed it, and a tool call
	// for "the active tab" made in between would find the closing one.
	// Chromium drops a close that meets a navigation about to commit: it
	// answers success, and the tab stays, on the new page (an OAuth tab
	// closed as its redirect to the callback committed stayed open until
	// the wait timed out, and the client's code expired meanwhile). So while
	// the tab is there, the close is asked again every CLOSE_AGAIN_MS.
	async closeTarget(targetId) {
		await this.cdp.send('Target.closeTarget', { targetId });
		let asked = Date.now();
		await until(async () => {
			if (!(await this.cdp.targets()).some(t => t.targetId === targetId))
				return true;
			if (Date.now() - asked >= CLOSE_AGAIN_MS) {
				asked = Date.now();
				/* It may have gone since the list was read. */
				await this.cdp.send('Target.closeTarget', { targetId }).catch(() => {});
			}
			return false;
		}, { what: `tab ${targetId} to close` });
	}

	// Evaluates JavaScript in the page (or frame) whose URL contains `where`.
	evaluate(where, expression) {
		return this.cdp.evaluate(where, expression);
	}

	// The last lines of Chromium's log (the host's stderr goes there too).
	logTail(lines = 60) {
		try {
			return readFileSync(this.logPath, 'utf8').split('\n').slice(-lines).join('\n');
		} catch {
			return '(no log)';
		}
	}

	// Stops everything and checks that no process is left behind.
	async close() {
		for (const client of this.clients) {
			try {
				await client.transport?.terminateSession?.();
			} catch {
				// the host may be gone
			}
			await client.close().catch(() => {});
		}
		this.clients = [];
		if (this.child.exitCode === null && this.child.signalCode === null) {
			await this.cdp.send('Browser.close').catch(() => {});
			if (!await settlesWithin(this.exited, scaled(5000))) {
				try {
					process.kill(-this.child.pid, 'SIGKILL');
				} catch {
					// gone already
				}
				await this.exited;
			}
		}
		// Chrome's helpers share its process group: none may outlive it.
		try {
			process.kill(-this.child.pid, 'SIGKILL');
		} catch {
			// no process left in the group
		}
		let leftover = null;
		if (this.hostPid !== undefined) {
			const gone = await until(() => !alive(this.hostPid), { ms: 5000, what: 'the host to exit' }).then(() => true, () => false);
			if (!gone) {
				leftover = `the host (pid ${this.hostPid}) was still running after the browser exited`;
				try {
					process.kill(this.hostPid, 'SIGKILL');
				} catch {
					// raced with its exit
				}
			}
		}
		const problems = leftover !== null ? [leftover] : [];
		const report = this.sanitizerReport();
		if (report !== null)
			problems.push(`the host hit a sanitizer error (built with --enable-sanitizers):\n${report}`);
		await this.site.close().catch(error => problems.push(`the fixture site did not close: ${error.message}`));
		if (process.env.E2E_KEEP !== '1')
			rmSync(this.dir, { recursive: true, force: true });
		if (problems.length > 0)
			throw new Error(problems.join('\n'));
	}

	// What AddressSanitizer, LeakSanitizer or UndefinedBehaviorSanitizer
	// reported about a host in Chromium's log (the hosts' stderr): the first
	// report, to its SUMMARY line; null when none did.
	sanitizerReport() {
		let log;
		try {
			log = readFileSync(this.logPath, 'utf8');
		} catch {
			return null;
		}
		const found = /^.*(==\d+==ERROR: \w+Sanitizer|\w+Sanitizer has encountered a fatal error|\.[ch]:\d+:\d+: runtime error:)/m.exec(log);
		if (found === null)
			return null;
		const summary = log.indexOf('\nSUMMARY: ', found.index);
		return log.slice(found.index, summary === -1 ? found.index + 6000 : log.indexOf('\n', summary + 1));
	}
}
