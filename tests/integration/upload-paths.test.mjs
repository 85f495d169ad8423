// upload_file's paths as the host's system writes them (#34): on Linux
// "/...", on Windows "C:\..." (tests/windows.sh runs this file against
// browser-bridge.exe under wine, where Z: is Linux's root). A file under
// the upload root is copied; a relative path, a file outside the root and
// a file with a second hard link are refused, and so is a symbolic link to
// a file outside the root: on Linux as a link; under wine, which shows
// Linux's links as plain files, by the place the opened file's handle
// names. On Windows the device and verbatim forms (\\?\, \\.\) and a
// stream (a colon past the drive) are refused too.

import assert from 'node:assert/strict';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { startHost } from './fake-extension.mjs';

const WINDOWS = Boolean(process.env.BRIDGE_WINDOWS_APPDATA);

// A Linux path as the host names it: Z:\... under wine.
function hostPath(path) {
	return WINDOWS ? `Z:${path.replaceAll('/', '\\')}` : path;
}

// A path the host gave back, as Linux reaches it: wine's C:\users\NAME\AppData\Local
// is BRIDGE_WINDOWS_LOCALAPPDATA.
function linuxPath(path) {
	if (!WINDOWS)
		return path;
	return path.replace(/^C:\\users\\[^\\]+\\AppData\\Local/i, process.env.BRIDGE_WINDOWS_LOCALAPPDATA)
	    .replaceAll('\\', '/');
}

describe('upload paths in the host system\'s form', () => {
	let home, downloads, outside, configDir, host;

	// Asks the host to check one path; resolves to its copy or its refusal.
	const check = async path => {
		const reply = await host.request('check_upload', { paths: [path] });
		return reply.error ? { refused: reply.error.message } : { copy: reply.result.paths[0] };
	};

	// Asserts that the host refuses path with a message matching words.
	const assertRefused = async (path, words) => {
		const { copy, refused } = await check(path);
		assert.equal(copy, undefined, `${path} was copied to ${copy}`);
		assert.match(refused, words);
	};

	before(async () => {
		home = mkdtempSync(join(tmpdir(), 'bb-upload-paths-'));
		downloads = join(home, 'Downloads');
		outside = join(home, 'outside');
		mkdirSync(downloads, { mode: 0o700 });
		mkdirSync(outside, { mode: 0o700 });
		writeFileSync(join(downloads, 'a.txt'), 'alpha');
		writeFileSync(join(outside, 'b.txt'), 'bravo');
		writeFileSync(join(downloads, 'twice.txt'), 'twice');
		linkSync(join(downloads, 'twice.txt'), join(outside, 'twice.txt'));
		const env = { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_RUNTIME_DIR: join(home, 'run') };
		mkdirSync(env.XDG_CONFIG_HOME, { mode: 0o700 });
		mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700 });
		// The root in config.json, as the host's system writes it (wine's
		// %APPDATA% holds the .exe's config whatever the environment says).
		configDir = WINDOWS ? join(process.env.BRIDGE_WINDOWS_APPDATA, 'browser-bridge') :
		    join(env.XDG_CONFIG_HOME, 'browser-bridge');
		mkdirSync(configDir, { recursive: true, mode: 0o700 });
		writeFileSync(join(configDir, 'config.json'), JSON.stringify({ upload_roots: [hostPath(downloads)] }));
		host = await startHost({ env });
	});

	after(async () => {
		await host?.stop();
		host?.cleanup();
		rmSync(join(configDir, 'config.json'), { force: true });
		rmSync(home, { recursive: true, force: true });
	});

	it('copies a file under the root, named as the system names it', async () => {
		const { copy, refused } = await check(hostPath(join(downloads, 'a.txt')));
		assert.equal(refused, undefined);
		assert.match(copy, WINDOWS ? /^C:\\.*[\\/]a\.txt$/ : /^\/.*\/a\.txt$/);
		assert.equal(readFileSync(linuxPath(copy), 'utf8'), 'alpha');
	});

	it('refuses a relative path, a file outside the root and a file with two links', async () => {
		await assertRefused('a.txt', /"a\.txt" is not an absolute path of a file/);
		await assertRefused(hostPath(downloads) + (WINDOWS ? '\\' : '/'), /is not an absolute path of a file/);
		await assertRefused(hostPath(join(outside, 'b.txt')), /outside the directories uploads may come from/);
		await assertRefused(hostPath(join(downloads, 'twice.txt')), /has 2 hard links/);
	});

	it('refuses a link to a file outside the root', async () => {
		symlinkSync(join(outside, 'b.txt'), join(downloads, 'link.txt'));
		await assertRefused(hostPath(join(downloads, 'link.txt')),
		    WINDOWS ? /link\.txt is outside the directories uploads may come from/ : /is a symbolic link/);
	});

	it('refuses Windows\' device and verbatim forms and streams there', async () => {
		const file = hostPath(join(downloads, 'a.txt'));
		if (WINDOWS) {
			await assertRefused(`\\\\?\\${file}`, /is a device or verbatim path/);
			await assertRefused(`\\\\.\\${file}`, /is a device or verbatim path/);
			await assertRefused(`${file}:hidden`, /names a stream of a file \(the colon after Z:.*a\.txt\)/);
		} else
			await assertRefused(`\\\\?\\C:\\a.txt`, /is not an absolute path of a file/);
	});
});
