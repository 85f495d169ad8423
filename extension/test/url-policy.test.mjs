// Which pages the tools may open or read (src/url-policy.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { checkUrlAllowed, urlPolicy, urlRefusal } from '../src/url-policy.js';

const strict = urlPolicy(undefined);
const files = urlPolicy({ allow_file_urls: true, protected_dirs: ['/home/u/.config/browser-bridge', '/run/user/1000/browser-bridge', 'relative/ignored'] });

test('web pages are allowed', () => {
	for (const url of ['https://example.com/', 'http://127.0.0.1:8080/x', 'about:blank', 'about:srcdoc', 'data:text/html,hi', 'blob:https://example.com/1234'])
		assert.equal(urlRefusal(url, strict), null, url);
});

test('local files are refused by default, with how to allow them', () => {
	const refusal = urlRefusal('file:///home/u/.config/browser-bridge/token', strict);
	assert.match(refusal, /is a local file, and local files are off/);
	assert.match(refusal, /"allow_file_urls": true/);
	assert.throws(() => checkUrlAllowed('file:///etc/passwd', strict), error => error.code === 'URL_NOT_ALLOWED');
});

test('with allow_file_urls, files are allowed except under the host\'s own directories', () => {
	assert.equal(urlRefusal('file:///home/u/notes.txt', files), null);
	assert.match(urlRefusal('file:///home/u/.config/browser-bridge/token', files), /inside \/home\/u\/\.config\/browser-bridge, the Browser Bridge host's own directory/);
	assert.match(urlRefusal('file:///home/u/.config/browser-bridge', files), /host's own directory/);
	assert.match(urlRefusal('file:///run/user/1000/browser-bridge/host.json', files), /host's own directory/);
	assert.match(urlRefusal('file:///run/user/1000/%62rowser-bridge/host.json', files), /host's own directory/, 'percent-encoding does not hide the path');
	assert.equal(urlRefusal('file:///home/u/.config/browser-bridge-other/x', files), null, 'a sibling with the same prefix is not inside');
	assert.deepEqual(files.protectedDirs, ['/home/u/.config/browser-bridge', '/run/user/1000/browser-bridge']);
});

test('browser and extension pages are always refused', () => {
	for (const url of ['chrome://settings/passwords', 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/options.html', 'devtools://devtools/bundled/inspector.html',
		'view-source:https://example.com/', 'chrome-untrusted://terminal/', 'about:settings', 'edge://settings'])
		assert.match(urlRefusal(url, files) ?? '', /browser (or extension )?page/, url);
});

test('other schemes are refused as unsupported, not as browser pages', () => {
	for (const url of ['ftp://ftp.example.com/file.txt', 'mailto:someone@example.com', 'javascript:alert(1)', 'ws://example.com/socket']) {
		const refusal = urlRefusal(url, files) ?? '';
		assert.match(refusal, /URLs \(.*\) are not supported: the tools open web pages\. Use an http\(s\) URL\./, url);
		assert.doesNotMatch(refusal, /browser or extension/, url);
	}
});

test('every browser scheme is refused as a browser page, by name, with the URL cut at 80 characters', () => {
	for (const scheme of ['chrome', 'chrome-extension', 'chrome-untrusted', 'devtools', 'view-source', 'edge', 'brave', 'opera', 'vivaldi',
		'chrome-search', 'extension', 'moz-extension']) {
		assert.equal(urlRefusal(`${scheme}://x/`, files), `${scheme}: pages (${scheme}://x/) are browser or extension pages, which the tools never open ` +
		    'or read: they hold settings, keys and other extensions\' data. Use an http(s) page.');
	}
	const long = `ftp://example.com/${'a'.repeat(62)}`;
	assert.equal(long.length, 80);
	assert.equal(urlRefusal(long, files), `ftp: URLs (${long}) are not supported: the tools open web pages. Use an http(s) URL.`, '80 characters are shown whole');
	assert.equal(urlRefusal(`${long}b`, files), `ftp: URLs (${long.slice(0, 79)}…) are not supported: the tools open web pages. Use an http(s) URL.`);
	assert.equal(urlRefusal('about:settings', files), 'about:settings is a browser page, which the tools do not open or read.');
});

test('a protected directory counts with or without trailing slashes; the policy takes only what the welcome says exactly', () => {
	const slashed = urlPolicy({ allow_file_urls: true, protected_dirs: ['/srv/bb//', 7] });
	assert.deepEqual(slashed.protectedDirs, ['/srv/bb//']);
	assert.equal(urlRefusal('file:///srv/bb/token', slashed), 'file:///srv/bb/token is inside /srv/bb//, the Browser Bridge host\'s own directory ' +
	    '(its token and state), which the tools never open, even with allow_file_urls.');
	assert.equal(urlRefusal('file:///srv/bbx/token', slashed), null);
	assert.equal(urlPolicy({ allow_file_urls: 'yes' }).allowFileUrls, false);
	assert.deepEqual(urlPolicy({ allow_file_urls: true, protected_dirs: '/srv' }), { allowFileUrls: true, protectedDirs: [] });
	assert.equal(urlRefusal('not a url', strict), null, 'not a URL: the callers say so');
	assert.equal(urlRefusal('file:///x', strict), 'file:///x is a local file, and local files are off: they may hold secrets (the host\'s token among them). ' +
	    'To allow them, add "allow_file_urls": true to ~/.config/browser-bridge/config.json and restart the browser.');
});
