import { test } from 'node:test';
import assert from 'node:assert/strict';

import { fitScale, truncateText, truncationNote, LogBuffer, formatLogEntry } from '../src/content-math.js';
import { imageSize, evaluateEnabled, EVALUATE_OFF_MESSAGE, EVALUATE_OPTION_KEY } from '../src/actions/content.js';
import { contentNeeds } from '../src/actions/page-content.js';
import { IN_PAGE_SCRIPT, READABILITY, TURNDOWN } from '../src/browser/page-channel.js';

test('fitScale scales down only images wider than max_width', () => {
	assert.equal(fitScale(1280, undefined), 1);
	assert.equal(fitScale(1280, 2000), 1);
	assert.equal(fitScale(1280, 1280), 1);
	assert.equal(fitScale(1280, 320), 0.25);
	assert.equal(fitScale(0, 320), 1, 'an empty clip is not divided by zero');
});

test('truncateText cuts at max_chars, never inside a surrogate pair, and counts the whole', () => {
	assert.deepEqual(truncateText('hello', 10), { text: 'hello', truncated: false, total: 5 });
	assert.deepEqual(truncateText('hello world', 5), { text: 'hello', truncated: true, total: 11 });
	const emoji = 'ab\u{1F600}cd';
	assert.equal(truncateText(emoji, 3).text, 'ab', 'half an emoji is dropped');
	assert.match(truncationNote(5, 11), /first 5 of 11 characters.*max_chars/);
});

test('LogBuffer keeps the newest entries up to its capacity and counts the dropped', () => {
	const buffer = new LogBuffer(3);
	for (let i = 1; i <= 5; i++)
		buffer.push({ level: 'log', text: `m${i}`, time: i });
	const read = buffer.read();
	assert.deepEqual(read.entries.map(e => e.text), ['m3', 'm4', 'm5']);
	assert.equal(read.dropped, 2);
});

test('LogBuffer filters by level, keeps the newest max, and reads only new entries since the last call', () => {
	const buffer = new LogBuffer(100);
	for (const level of ['debug', 'log', 'info', 'warn', 'error'])
		buffer.push({ level, text: level, time: 0 });
	assert.deepEqual(buffer.read({ level: ['warn', 'error'] }).entries.map(e => e.text), ['warn', 'error']);
	const newest = buffer.read({ max: 2 });
	assert.deepEqual(newest.entries.map(e => e.text), ['warn', 'error']);
	assert.equal(newest.matched, 5);
	assert.equal(buffer.read({ since_last_call: true }).entries.length, 0, 'nothing new since the last read');
	buffer.push({ level: 'log', text: 'later', time: 0 });
	assert.deepEqual(buffer.read({ since_last_call: true }).entries.map(e => e.text), ['later']);
});

test('formatLogEntry shows time, level, text and source location', () => {
	const line = formatLogEntry({ level: 'warn', text: 'careful', time: Date.UTC(2026, 0, 1, 12, 34, 56, 789), url: 'http://x/a.js', line: 3, column: 7 });
	assert.equal(line, '12:34:56.789 [warn] careful (http://x/a.js:3:7)');
});

test('imageSize reads PNG, JPEG and WebP headers', () => {
	const png = Buffer.alloc(33);
	Buffer.from([0x89, 0x50, 0x4e, 0x47]).copy(png, 0);
	png.writeUInt32BE(640, 16);
	png.writeUInt32BE(480, 20);
	assert.deepEqual(imageSize(png.toString('base64')), { width: 640, height: 480 });
	const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0, 0, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x02, 0x58, 0x03, 0, 0, 0, 0]);
	assert.deepEqual(imageSize(jpeg.toString('base64')), { width: 600, height: 300 });
	const webp = Buffer.alloc(30);
	webp.write('RIFF', 0, 'latin1');
	webp.write('WEBPVP8X', 8, 'latin1');
	webp.writeUIntLE(99, 24, 3);
	webp.writeUIntLE(49, 27, 3);
	assert.deepEqual(imageSize(webp.toString('base64')), { width: 100, height: 50 });
});

test('evaluate_script is on by the host config or by the options page switch the services hand in', async () => {
	const storage = value => ({ get: async key => (key === EVALUATE_OPTION_KEY ? { [key]: value } : {}) });
	assert.equal(await evaluateEnabled({ welcome: { evaluate_script: true } }), true);
	assert.equal(await evaluateEnabled({ storage: storage(true) }), true);
	assert.equal(await evaluateEnabled({ storage: storage(false) }), false);
	assert.equal(await evaluateEnabled({ storage: { get: async () => { throw new Error('gone'); } } }), false);
});

test('the evaluate_script refusal says both ways to enable it', () => {
	assert.match(EVALUATE_OFF_MESSAGE, /"evaluate_script": true to config\.json in ~\/\.config\/browser-bridge\/ and restart the browser/);
	assert.match(EVALUATE_OFF_MESSAGE, /options page/);
});

test('ConsoleStore keeps clean entries per tab and get_console_logs words the result', async () => {
	const { ConsoleStore, consoleResult } = await import('../src/actions/console.js');
	let clock = 0;
	const store = new ConsoleStore(10, () => clock);
	store.add(1, 0, { level: 'warn', text: 'w', time: 0, url: 'http://x/', line: 2, column: 3, evil: 'dropped' });
	clock = 1000;
	store.add(1, 4, { level: 'error', text: 'e', time: 99999, uncaught: true, stack: 'Error: e\n    at f (http://x/:1:1)' });
	store.add(2, 0, { level: 'log', text: 'other tab', time: 0 });
	store.add(1, 0, { level: 'log' });
	const read = store.buffer(1).read({ max: 1 });
	const result = consoleResult(1, read, { max: 1 });
	assert.equal(read.matched, 2, 'an entry without text is ignored');
	assert.deepEqual(result.structuredContent.messages, [{ level: 'error', text: 'e', time: '1970-01-01T00:00:01.000Z',
	    stack: 'Error: e\n    at f (http://x/:1:1)', uncaught: true, frame_id: 4 }]);
	assert.match(result.content[0].text, /^1 console message kept for tab 1, oldest first \(the newest 1 of 2; raise max for more\):\n.*\[error\] e\n    at f/);
	store.forget(1);
	assert.equal(store.buffer(1).read().entries.length, 0);
	assert.equal(store.buffer(2).read().entries.length, 1);
});

test('ConsoleStore takes only known levels, cuts long strings and says what a flooding page lost', async () => {
	const { ConsoleStore, CONSOLE_RATE_PER_SECOND, CONSOLE_TEXT_MAX } = await import('../src/actions/console.js');
	let clock = 0;
	const store = new ConsoleStore(1000, () => clock);
	store.add(1, 0, { level: 'critical', text: 'an unknown level' });
	store.add(1, 0, { level: 'log', text: 'x'.repeat(CONSOLE_TEXT_MAX + 10), url: 'u'.repeat(5000), line: -1, stack: 's'.repeat(9000) });
	const [long] = store.buffer(1).read().entries;
	assert.equal(store.buffer(1).read().entries.length, 1, 'the unknown level is ignored');
	assert.equal(long.text, `${'x'.repeat(CONSOLE_TEXT_MAX)}… (${CONSOLE_TEXT_MAX + 10} characters)`);
	assert.ok(long.url.length < 2100 && long.stack.length < CONSOLE_TEXT_MAX + 40);
	assert.equal(long.line, undefined);

	for (let i = 0; i < 3 * CONSOLE_RATE_PER_SECOND; i++)
		store.add(2, 0, { level: 'log', text: `flood ${i}` });
	clock = 1500;
	const { entries } = store.buffer(2).read({ max: 1000 });
	assert.equal(entries.length, CONSOLE_RATE_PER_SECOND + 1);
	assert.equal(entries.at(-2).text, `flood ${CONSOLE_RATE_PER_SECOND - 1}`);
	assert.deepEqual({ level: entries.at(-1).level, text: entries.at(-1).text },
	    { level: 'warn', text: `${2 * CONSOLE_RATE_PER_SECOND} console messages were dropped: the page logged more than ${CONSOLE_RATE_PER_SECOND} a second.` });
	store.add(2, 0, { level: 'log', text: 'a new second' });
	assert.equal(store.buffer(2).read().entries.at(-1).text, 'a new second');
});

test('get_page_content injects a library into the page only for the read that uses it', () => {
	assert.deepEqual(contentNeeds({ format: 'text', mainContent: false }), [IN_PAGE_SCRIPT], 'a plain text read (the agents\') needs neither library');
	assert.deepEqual(contentNeeds({ format: 'html', mainContent: false }), [IN_PAGE_SCRIPT]);
	assert.deepEqual(contentNeeds({ format: 'text', mainContent: true }), [IN_PAGE_SCRIPT, READABILITY]);
	assert.deepEqual(contentNeeds({ format: 'markdown', mainContent: false }), [IN_PAGE_SCRIPT, TURNDOWN]);
	assert.deepEqual(contentNeeds({ format: 'markdown', mainContent: true }), [IN_PAGE_SCRIPT, READABILITY, TURNDOWN]);
});
