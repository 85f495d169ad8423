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
