// The host's own directories and files (#22): it refuses to start in a
// runtime directory others may change or that a link stands in for, and
// with a --log that is a link; it keeps upload copies in a private
// directory of its own, removed when it exits, and removes the copies a
// host that died left behind when it starts.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { EXTENSION_ORIGIN, startHost } from './fake-extension.mjs';

// A home of its own: HOME (so ~/Downloads is the upload root), config and
// runtime directories, private as a user's are.
function makeHome() {
	const home = mkdtempSync(join(tmpdir(), 'bb-files-'));
	const env = { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_RUNTIME_DIR: join(home, 'run') };
	mkdirSync(env.XDG_CONFIG_HOME, { mode: 0o700 });
	mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700 });
	return { home, env, base: join(env.XDG_RUNTIME_DIR, 'browser-bridge') };
}

// Starts a host that should refuse to start; resolves to {code, stderr}.
function startRefused(env, args = []) {
	const wrapper = (process.env.BRIDGE_WRAPPER ?? '').split(' ').filter(Boolean);
	const argv = [...wrapper, process.env.BRIDGE_BIN, EXTENSION_ORIGIN, '--port', '0', ...args];
	return new Promise(resolve => {
		const child = spawn(argv[0], argv.slice(1), { env: { ...process.env, ...env }, stdio: ['pipe', 'ignore', 'pipe'] });
		let stderr = '';
		child.stderr.setEncoding('utf8');
		child.stderr.on('data', text => { stderr += text; });
		child.stdin.on('error', () => {});
		child.stdin.end();	/* a host that starts after all exits at EOF */
		child.on('close', code => resolve({ code, stderr }));
	});
}

// Asserts that a start was refused (not a valgrind error) with a message matching words.
function assertRefused({ code, stderr }, words) {
	assert.notEqual(code, 0, `the host started: ${stderr}`);
	assert.notEqual(code, 99, `valgrind found errors: ${stderr}`);
	assert.match(stderr, words);
}

describe('the host\'s own directories', { concurrency: true }, () => {
	it('a hosts directory any user may write to, or a link planted for it, stops the start with how to fix it', async () => {
		const { home, env, base } = makeHome();
		try {
			const hosts = join(base, 'hosts');
			mkdirSync(hosts, { recursive: true, mode: 0o700 });
			chmodSync(hosts, 0o777);
			assertRefused(await startRefused(env), new RegExp(`directory ${hosts} can be changed by other users \\(mode 777\\); run: chmod 700 ${hosts}`));

			rmSync(hosts, { recursive: true });
			mkdirSync(join(home, 'elsewhere'), { mode: 0o700 });
			symlinkSync(join(home, 'elsewhere'), hosts);
			assertRefused(await startRefused(env), new RegExp(`${hosts} is a symbolic link.*remove the link \\(rm ${hosts}\\)`));
			assert.deepEqual(readdirSync(join(home, 'elsewhere')), [], 'nothing was written through the link');

			rmSync(hosts);
			mkdirSync(join(env.XDG_CONFIG_HOME, 'browser-bridge'), { mode: 0o700 });
			chmodSync(join(env.XDG_CONFIG_HOME, 'browser-bridge'), 0o770);
			assertRefused(await startRefused(env), /browser-bridge can be changed by other users \(mode 770\); run: chmod 700/);
		} finally {
			rmSync(home, { recursive: true, force: true });
		}
	});

	it('a --log path that is a symbolic link is refused and its target left alone', async () => {
		const { home, env } = makeHome();
		try {
			const target = join(home, 'target');
			writeFileSync(target, 'keep\n');
			symlinkSync(target, join(home, 'host.log'));
			assertRefused(await startRefused(env, ['--log', join(home, 'host.log')]), /log file .*host\.log is a symbolic link; give --log the path of the file itself/);
			assert.equal(readFileSync(target, 'utf8'), 'keep\n');
		} finally {
			rmSync(home, { recursive: true, force: true });
		}
	});

	it('upload copies live in a private directory of the host\'s, go when it exits, and a dead host\'s go when the next starts', async () => {
		const { home, env, base } = makeHome();
		let host;
		try {
			const uploads = join(base, 'uploads');
			const stale = join(uploads, '999999999', '0');
			mkdirSync(stale, { recursive: true, mode: 0o700 });
			writeFileSync(join(stale, 'old.txt'), 'old');
			mkdirSync(join(home, 'Downloads'), { mode: 0o700 });
			writeFileSync(join(home, 'Downloads', 'a.txt'), 'alpha');

			host = await startHost({ env });
			assert.equal(existsSync(join(uploads, '999999999')), false, 'the dead host\'s copies are gone');
			const mine = join(uploads, String(host.pid));
			assert.equal(statSync(mine).mode & 0o777, 0o700);

			const reply = await host.request('check_upload', { paths: [join(home, 'Downloads', 'a.txt')] });
			const [copy] = reply.result.paths;
			assert.ok(copy.startsWith(`${mine}/`) && copy.endsWith('/a.txt'), copy);
			assert.equal(readFileSync(copy, 'utf8'), 'alpha');

			await host.stop();
			assert.equal(existsSync(mine), false, 'the host removed its copies as it exited');
		} finally {
			host?.kill();
			host?.cleanup();
			rmSync(home, { recursive: true, force: true });
		}
	});
});
