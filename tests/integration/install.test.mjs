// `browser-bridge install`, `uninstall`, `doctor` and `status` under a
// temporary HOME on Linux: the exact manifest files for every supported
// browser, idempotence, what uninstall leaves alone, and doctor finding and
// explaining each injected fault with a fix command that works.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
	chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync,
	realpathSync, rmSync, statSync, unlinkSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';

import { scaled, startHost } from './fake-extension.mjs';
import { close, connect, raw } from './mcp-client.mjs';

const BIN = realpathSync(process.env.BRIDGE_BIN);
const VERSION = await version();
const EXTENSION_ID = 'lbgfejnjcgkdeceohflfkdiejmokjlpk';
const OTHER_ID = 'abcdefghijklmnopabcdefghijklmnop';
const MANIFEST = 'org.browserbridge.host.json';

// Every supported browser: --browser name, title, user data dir under ~/.config.
const BROWSERS = [
	{ name: 'chrome', title: 'Google Chrome', dir: 'google-chrome' },
	{ name: 'chromium', title: 'Chromium', dir: 'chromium' },
	{ name: 'edge', title: 'Microsoft Edge', dir: 'microsoft-edge' },
	{ name: 'brave', title: 'Brave', dir: 'BraveSoftware/Brave-Browser' },
	{ name: 'vivaldi', title: 'Vivaldi', dir: 'vivaldi' },
];

// The browser-bridge version line.
async function version() {
	const { stdout } = await run(['--version'], process.env);
	return stdout.trim();
}

// Runs browser-bridge with args and env; resolves to { code, signal, stdout, stderr }.
function run(args, env) {
	const wrapper = (process.env.BRIDGE_WRAPPER ?? '').split(' ').filter(Boolean);
	const argv = [...wrapper, process.env.BRIDGE_BIN, ...args];
	return new Promise((resolve, reject) => {
		const child = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout.setEncoding('utf8');
		child.stderr.setEncoding('utf8');
		child.stdout.on('data', text => { stdout += text; });
		child.stderr.on('data', text => { stderr += text; });
		const timer = setTimeout(() => child.kill('SIGKILL'), scaled(20000));
		child.on('error', reject);
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			if (code === 99)
				reject(new Error(`valgrind found errors in browser-bridge ${args.join(' ')}\n${stderr}`));
			else
				resolve({ code, signal, stdout, stderr });
		});
	});
}

// Runs a shell command (a fix doctor printed).
function sh(command, env) {
	return new Promise((resolve, reject) => {
		const child = spawn('/bin/sh', ['-c', command], { env, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		child.stdout.on('data', text => { output += text; });
		child.stderr.on('data', text => { output += text; });
		child.on('error', reject);
		child.on('close', code => code === 0 ? resolve(output) :
		    reject(new Error(`\`${command}\` failed (${code}): ${output}`)));
	});
}

// A fresh HOME with the given browsers' config directories (default: all).
function home(browsers = BROWSERS) {
	const dir = mkdtempSync(join(tmpdir(), 'bb-install-'));
	// Each a profile a browser has run with: its directory and Local State.
	for (const b of browsers) {
		mkdirSync(join(dir, '.config', b.dir), { recursive: true, mode: 0o700 });
		writeFileSync(join(dir, '.config', b.dir, 'Local State'), '{}');
	}
	mkdirSync(join(dir, 'run'), { mode: 0o700 });
	// PATH without the build directory, so fixes name the binary by path.
	const env = { PATH: '/usr/bin:/bin', HOME: dir, XDG_RUNTIME_DIR: join(dir, 'run') };
	return { dir, env };
}

// Removes a temporary HOME.
function cleanup(h) {
	if (h && !process.env.BRIDGE_KEEP_TMP)
		rmSync(h.dir, { recursive: true, force: true });
}

// Where a browser's manifest goes under a HOME (or config home).
function manifestPath(configHome, browser) {
	return join(configHome, browser.dir, 'NativeMessagingHosts', MANIFEST);
}

// The exact manifest text for a binary path and extension IDs.
function manifestText(path, ids = [EXTENSION_ID]) {
	const origins = ids.map(id => `    "chrome-extension://${id}/"`).join(',\n');
	return '{\n' +
	    '  "name": "org.browserbridge.host",\n' +
	    '  "description": "Browser Bridge: lets MCP clients drive this browser",\n' +
	    `  "path": ${JSON.stringify(path)},\n` +
	    '  "type": "stdio",\n' +
	    '  "allowed_origins": [\n' +
	    `${origins}\n` +
	    '  ]\n' +
	    '}\n';
}

// The two lines install ends with when it wrote or kept something.
function summary(ids = [EXTENSION_ID]) {
	return `The manifest starts ${BIN} for ${ids.map(id => `chrome-extension://${id}/`).join(' ')}\n` +
	    'Restart the browser (or reload the extension) to pick it up; `browser-bridge doctor` checks the whole setup.\n';
}

describe('install and uninstall', () => {
	let h;

	beforeEach(() => {
		cleanup(h);
		h = home();
	});

	after(() => cleanup(h));

	it('install writes the exact manifest for every browser found', async () => {
		const r = await run(['install'], h.env);
		assert.equal(r.code, 0, r.stderr);
		const config = join(h.dir, '.config');
		assert.equal(r.stdout, BROWSERS.map(b => `${b.title}: wrote ${manifestPath(config, b)}\n`).join('') + summary());
		for (const b of BROWSERS) {
			const path = manifestPath(config, b);
			assert.equal(readFileSync(path, 'utf8'), manifestText(BIN), path);
			assert.equal(statSync(path).mode & 0o777, 0o644, path);
			assert.deepEqual(readdirSync(join(config, b.dir, 'NativeMessagingHosts')), [MANIFEST],
			    'no temporary files are left behind');
		}
		assert.equal(r.stderr, '');
	});

	it('installing again reports every manifest unchanged and rewrites nothing', async () => {
		await run(['install'], h.env);
		const config = join(h.dir, '.config');
		const before = BROWSERS.map(b => statSync(manifestPath(config, b)).ino);
		const r = await run(['install'], h.env);
		assert.equal(r.code, 0, r.stderr);
		assert.equal(r.stdout, BROWSERS.map(b => `${b.title}: unchanged ${manifestPath(config, b)}\n`).join('') + summary());
		assert.deepEqual(BROWSERS.map(b => statSync(manifestPath(config, b)).ino), before,
		    'an unchanged manifest is not replaced');
	});

	it('--extension-id adds an origin (updated), and a malformed ID changes nothing', async () => {
		await run(['install'], h.env);
		const config = join(h.dir, '.config');
		let r = await run(['install', '--extension-id', OTHER_ID, '--extension-id', EXTENSION_ID], h.env);
		assert.equal(r.code, 0, r.stderr);
		assert.equal(r.stdout, BROWSERS.map(b => `${b.title}: updated ${manifestPath(config, b)}\n`).join('') +
		    summary([EXTENSION_ID, OTHER_ID]));
		for (const b of BROWSERS)
			assert.equal(readFileSync(manifestPath(config, b), 'utf8'), manifestText(BIN, [EXTENSION_ID, OTHER_ID]));
		for (const bad of ['ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP', 'abcdefghijklmnopabcdefghijklmnoq', 'abc', '']) {
			r = await run(['install', '--extension-id', bad], h.env);
			assert.equal(r.code, 1, `--extension-id "${bad}" must be refused`);
			assert.equal(r.stdout, '');
			assert.match(r.stderr, /is not an extension ID: an ID is 32 letters from a to p/);
		}
		for (const b of BROWSERS)
			assert.equal(readFileSync(manifestPath(config, b), 'utf8'), manifestText(BIN, [EXTENSION_ID, OTHER_ID]));
	});

	it('only browsers found are registered; --browser registers one before its first start', async () => {
		cleanup(h);
		h = home([BROWSERS[1]]);
		const config = join(h.dir, '.config');
		let r = await run(['install'], h.env);
		assert.equal(r.code, 0, r.stderr);
		const skipped = b => `${b.title}: skipped, not found (no ${join(config, b.dir)}); ` +
		    `to register anyway: ${BIN} install --browser ${b.name}\n`;
		assert.equal(r.stdout, skipped(BROWSERS[0]) + `Chromium: wrote ${manifestPath(config, BROWSERS[1])}\n` +
		    BROWSERS.slice(2).map(skipped).join('') + summary());
		assert.equal(existsSync(join(config, 'vivaldi')), false);
		r = await run(['install', '--browser', 'vivaldi'], h.env);
		assert.equal(r.code, 0, r.stderr);
		assert.equal(r.stdout, `Vivaldi: wrote ${manifestPath(config, BROWSERS[4])}\n` + summary());
		assert.equal(readFileSync(manifestPath(config, BROWSERS[4]), 'utf8'), manifestText(BIN));
		r = await run(['install', '--browser', 'opera'], h.env);
		assert.equal(r.code, 2, 'an unknown browser is a usage error');
		assert.match(r.stderr, /unknown browser "opera": use chrome, chromium, edge, brave, vivaldi or all/);
	});

	it('--browser all registers every browser, found or not', async () => {
		cleanup(h);
		h = home([]);
		const config = join(h.dir, '.config');
		const r = await run(['install', '--browser', 'all'], h.env);
		assert.equal(r.code, 0, r.stderr);
		assert.equal(r.stdout, BROWSERS.map(b => `${b.title}: wrote ${manifestPath(config, b)}\n`).join('') + summary());
	});

	it('with no browser found, install fails and says what to do', async () => {
		cleanup(h);
		h = home([]);
		const r = await run(['install'], h.env);
		assert.equal(r.code, 1);
		assert.match(r.stderr, /no Chrome-family browser found; name one with --browser/);
		assert.equal(readdirSync(join(h.dir)).includes('.config'), false, 'nothing was created');
	});

	it('XDG_CONFIG_HOME moves the browsers\' directories, as it does for Chrome', async () => {
		cleanup(h);
		h = home([]);
		const xdg = join(h.dir, 'xdg');
		mkdirSync(join(xdg, 'chromium'), { recursive: true });
		const r = await run(['install', '--browser', 'chromium'], { ...h.env, XDG_CONFIG_HOME: xdg });
		assert.equal(r.code, 0, r.stderr);
		assert.equal(r.stdout, `Chromium: wrote ${manifestPath(xdg, BROWSERS[1])}\n` + summary());
	});

	it('--user-data-dir registers into DIR/NativeMessagingHosts', async () => {
		const profile = join(h.dir, 'profile');
		const r = await run(['install', '--user-data-dir', profile], h.env);
		assert.equal(r.code, 0, r.stderr);
		const path = join(profile, 'NativeMessagingHosts', MANIFEST);
		assert.equal(r.stdout, `Profile ${profile}: wrote ${path}\n` + summary());
		assert.equal(readFileSync(path, 'utf8'), manifestText(BIN));
		const u = await run(['uninstall', '--user-data-dir', profile], h.env);
		assert.equal(u.stdout, `Profile ${profile}: removed ${path}\n`);
		assert.equal(existsSync(path), false);
	});

	it('uninstall removes exactly the manifests install wrote', async () => {
		await run(['install'], h.env);
		const config = join(h.dir, '.config');
		// Not ours: another host's manifest beside it, and a file under
		// our name that names another host.
		const neighbour = join(config, 'chromium', 'NativeMessagingHosts', 'com.example.other.json');
		writeFileSync(neighbour, '{"name":"com.example.other"}\n');
		const foreign = manifestPath(config, BROWSERS[2]);
		writeFileSync(foreign, '{"name":"com.example.impostor"}\n');
		const r = await run(['uninstall'], h.env);
		assert.equal(r.code, 0, r.stderr);
		assert.equal(r.stdout, BROWSERS.map(b => b === BROWSERS[2] ?
		    `Microsoft Edge: kept ${foreign}: its name is "com.example.impostor", not org.browserbridge.host\n` :
		    `${b.title}: removed ${manifestPath(config, b)}\n`).join(''));
		for (const b of BROWSERS) {
			if (b !== BROWSERS[2])
				assert.equal(existsSync(manifestPath(config, b)), false);
			assert.ok(existsSync(join(config, b.dir, 'NativeMessagingHosts')), 'directories stay');
		}
		assert.equal(readFileSync(neighbour, 'utf8'), '{"name":"com.example.other"}\n');
		assert.equal(readFileSync(foreign, 'utf8'), '{"name":"com.example.impostor"}\n');
		const again = await run(['uninstall'], h.env);
		assert.equal(again.code, 0);
		assert.equal(again.stdout, BROWSERS.map(b => b === BROWSERS[2] ?
		    `Microsoft Edge: kept ${foreign}: its name is "com.example.impostor", not org.browserbridge.host\n` :
		    `${b.title}: nothing to remove\n`).join(''));
	});

	it('install, uninstall, doctor and status write nothing that is not text for the user', async () => {
		for (const args of [['install'], ['uninstall'], ['doctor'], ['status']]) {
			const r = await run(args, h.env);
			assert.doesNotMatch(r.stdout, /[\u0000-\u0008\u000e-\u001f]/, `${args[0]} wrote binary bytes`);
			assert.doesNotMatch(r.stderr, /AddressSanitizer|runtime error/, r.stderr);
		}
	});
});

// Splits doctor output into its check lines.
function checks(stdout) {
	return stdout.split('\n').filter(line => /^(ok|FAIL|--) /.test(line));
}

describe('doctor and status', () => {
	let h;
	let host;
	let env;
	let config;
	let token;

	before(async () => {
		h = home();
		env = { ...h.env, XDG_CONFIG_HOME: join(h.dir, '.config') };
		config = join(h.dir, '.config');
		token = join(config, 'browser-bridge', 'token');
		const r = await run(['install'], env);
		assert.equal(r.code, 0, r.stderr);
		host = await startHost({ env });
	});

	after(async () => {
		if (host && host.exitInfo === null)
			await host.stop();
		cleanup(h);
	});

	// Runs doctor and checks it found exactly one problem, explained as
	// given, with the fix given; returns the fix.
	async function oneFault(problem, fix) {
		const r = await run(['doctor'], env);
		assert.equal(r.code, 1, `doctor must fail:\n${r.stdout}`);
		const failed = checks(r.stdout).filter(line => line.startsWith('FAIL'));
		assert.deepEqual(failed, [`FAIL  ${problem}`], r.stdout);
		assert.ok(r.stdout.includes(`FAIL  ${problem}\n      fix: ${fix}\n`), r.stdout);
		assert.match(r.stdout, /\n1 of \d+ checks failed: run each fix above, then `.* doctor` again\.\n$/);
		return fix;
	}

	// Runs doctor and checks that every check passes.
	async function allWell() {
		const r = await run(['doctor'], env);
		assert.equal(r.code, 0, r.stdout);
		const lines = checks(r.stdout);
		assert.ok(lines.every(line => line.startsWith('ok')), r.stdout);
		assert.match(r.stdout, new RegExp(`\nAll ${lines.length} checks passed\\.\n$`));
		return r.stdout;
	}

	it('with everything in place, doctor passes every check and exits 0', async () => {
		const out = await allWell();
		assert.ok(out.startsWith(`${VERSION} at ${BIN}\n`), out);
		for (const b of BROWSERS) {
			const path = manifestPath(config, b);
			assert.ok(out.includes(`ok    ${b.title}: manifest ${path}\n`), out);
			assert.ok(out.includes(`ok    ${b.title}: runs ${BIN} (${VERSION})\n`), out);
			assert.ok(out.includes(`ok    ${b.title}: allows chrome-extension://${EXTENSION_ID}/\n`), out);
		}
		assert.ok(out.includes(`ok    token file ${token} (mode 600)\n`), out);
		assert.ok(out.includes(`ok    config directory ${join(config, 'browser-bridge')} (mode 700)\n`), out);
		// The test starts the host, so its "browser" is node.
		assert.ok(out.includes(`ok    host node (pid ${host.pid}, profile default) is running\n`), out);
		assert.ok(out.includes(`ok    host node answers on 127.0.0.1:${host.port} (version ${VERSION.split(' ')[1]}`), out);
		assert.ok(out.includes('ok    host node: the extension is connected\n'), out);
	});

	it('status describes the running host and the clients connected to it, by name', async () => {
		const r = await run(['status'], env);
		assert.equal(r.code, 0, r.stderr);
		assert.equal(r.stdout, `Browser Bridge host ${VERSION.split(' ')[1]} (pid ${host.pid})\n` +
		    '  instance:   node (browser node, profile default)\n' +
		    `  MCP URL:    ${host.url}\n` +
		    `  port:       ${host.port}\n` +
		    '  sessions:   0\n' +
		    '  extension:  connected\n' +
		    '  clients:    none\n');

		const first = await connect(host, { name: 'claude-code' });
		const second = await connect(host, { name: 'cursor', transport: 'sse' });
		try {
			const listed = await run(['status'], env);
			assert.match(listed.stdout, /\n {2}clients: {4}cursor 1\.0\.0 \(HTTP\+SSE, 0 calls running, idle \d+ s\)\n {14}claude-code 1\.0\.0 \(Streamable HTTP, 0 calls running, idle \d+ s\)\n/,
			    listed.stdout);
			// Without the token, /health names no client.
			const open = await raw(host, { path: '/health', headers: {} });
			assert.equal(open.json.clients, undefined);
			assert.equal(open.json.sessions, 2);
		} finally {
			await close(second);
			await close(first);
		}
	});

	it('a missing manifest: doctor names it and install --browser puts it back', async () => {
		unlinkSync(manifestPath(config, BROWSERS[1]));
		const fix = await oneFault(`Chromium: no manifest at ${manifestPath(config, BROWSERS[1])}`,
		    `${BIN} install --browser chromium`);
		await sh(fix, env);
		await allWell();
	});

	it('a manifest whose path is wrong', async () => {
		const path = manifestPath(config, BROWSERS[2]);
		writeFileSync(path, manifestText('/nonexistent/browser-bridge'));
		const fix = await oneFault(`Microsoft Edge: the manifest's "path" /nonexistent/browser-bridge does not exist`,
		    `${BIN} install --browser edge`);
		await sh(fix, env);
		assert.equal(readFileSync(path, 'utf8'), manifestText(BIN));
		await allWell();
	});

	it('a manifest whose binary is not executable', async () => {
		const copy = join(h.dir, 'bin', 'browser-bridge');
		mkdirSync(join(h.dir, 'bin'), { recursive: true });
		copyFileSync(BIN, copy);
		chmodSync(copy, 0o644);
		writeFileSync(manifestPath(config, BROWSERS[3]), manifestText(copy));
		const fix = await oneFault(`Brave: ${copy} is not executable`, `chmod +x ${copy}`);
		await sh(fix, env);
		await allWell();
		await sh(`${BIN} install --browser brave`, env);
	});

	it('a manifest that does not allow the extension', async () => {
		const path = manifestPath(config, BROWSERS[4]);
		writeFileSync(path, manifestText(BIN, [OTHER_ID]));
		const fix = await oneFault(`Vivaldi: manifest ${path} does not allow chrome-extension://${EXTENSION_ID}/, ` +
		    'so the browser refuses to start the host for the extension', `${BIN} install --browser vivaldi`);
		await sh(fix, env);
		await allWell();
	});

	it('a manifest that is not JSON, or names another host', async () => {
		const path = manifestPath(config, BROWSERS[0]);
		writeFileSync(path, '{"name": ');
		let r = await run(['doctor'], env);
		assert.equal(r.code, 1);
		assert.match(r.stdout, new RegExp(`FAIL  Google Chrome: manifest ${path} is not valid JSON \\(line 1: .*\\)\n      fix: ${BIN} install --browser chrome\n`));
		writeFileSync(path, manifestText(BIN).replace('org.browserbridge.host', 'com.example.other'));
		r = await run(['doctor'], env);
		assert.equal(r.code, 1);
		assert.ok(r.stdout.includes(`FAIL  Google Chrome: manifest ${path} names "com.example.other", not org.browserbridge.host\n`), r.stdout);
		await sh(`${BIN} install --browser chrome`, env);
		await allWell();
	});

	it('a token file others can read', async () => {
		chmodSync(token, 0o644);
		const fix = await oneFault(`token file ${token} is open to other users (mode 644)`, `chmod 600 ${token}`);
		await sh(fix, env);
		await allWell();
	});

	it('a config directory others can enter', async () => {
		const dir = join(config, 'browser-bridge');
		chmodSync(dir, 0o755);
		const fix = await oneFault(`config directory ${dir} is open to other users (mode 755)`, `chmod 700 ${dir}`);
		await sh(fix, env);
		await allWell();
	});

	it('a broken config.json', async () => {
		const file = join(config, 'browser-bridge', 'config.json');
		writeFileSync(file, '{"port": ');
		const r = await run(['doctor'], env);
		assert.equal(r.code, 1, r.stdout);
		assert.match(r.stdout, new RegExp(`FAIL  ${file} line 1: .*\n      fix: correct ${file}, or move it away: mv ${file} ${file}.bak\n`));
		unlinkSync(file);
		await allWell();
	});

	it('a host with no extension connected', async () => {
		await host.stop();
		const lonely = await startHost({ env, hello: false });
		try {
			await oneFault('host node: the extension is not connected to the host',
			    'open chrome://extensions and reload Browser Bridge (or restart the browser)');
			const r = await run(['status'], env);
			assert.equal(r.code, 0);
			assert.match(r.stdout, /\n {2}extension: {2}not connected \(open chrome:\/\/extensions and reload Browser Bridge\)\n {2}clients: {4}none\n$/);
		} finally {
			await lonely.stop();
		}
	});

	it('no host running: doctor and status say so and how to start one', async () => {
		await host.stop();
		assert.equal(existsSync(host.runtimeFile), false, 'the host removed its runtime file');
		await oneFault('no host is running',
		    'open the browser with the Browser Bridge extension loaded (chrome://extensions); the extension starts the host');
		const r = await run(['status'], env);
		assert.equal(r.code, 1);
		assert.equal(r.stdout, 'No Browser Bridge host is running.\n' +
		    'To start one, open the browser with the Browser Bridge extension loaded (chrome://extensions); ' +
		    'the extension starts the host.\n`browser-bridge doctor` checks the whole setup.\n');
	});

	it('a stale runtime file from a host that died is ignored and removed', async () => {
		const dir = join(h.dir, 'run', 'browser-bridge', 'hosts');
		mkdirSync(dir, { recursive: true, mode: 0o700 });
		// A pid that is certainly not running: a child that has exited.
		const dead = await new Promise(resolve => {
			const child = spawn('/bin/true');
			child.on('exit', () => resolve(child.pid));
		});
		const runtime = join(dir, `${dead}.json`);
		writeFileSync(runtime, JSON.stringify({ pid: dead, port: 9, version: '0', url: 'http://127.0.0.1:9/mcp' }));
		await oneFault('no host is running',
		    'open the browser with the Browser Bridge extension loaded (chrome://extensions); the extension starts the host');
		assert.equal(existsSync(runtime), false, 'the dead host\'s file was removed');
		const r = await run(['status'], env);
		assert.equal(r.code, 1);
		assert.match(r.stdout, /^No Browser Bridge host is running\./);
	});
});
