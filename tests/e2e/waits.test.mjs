// End-to-end: wait_for in real Chromium: late elements, text that
// appears and goes, a URL changed by pushState, a delay, and TIMEOUT.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { startBridge, until } from './harness.mjs';
import { scaled } from '../timing.mjs';

describe('wait_for', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('a selector that appears late, and text that appears', async () => {
		await b.open('waits.html');
		const s = await b.state();
		await b.ok('click_element', { ref: s.ref('button', 'Add later') });
		const r = await b.ok('wait_for', { selector: '#late', timeout_ms: 5000 });
		assert.match(r.text, /^Waited \d+ ms: "#late" is visible\.$/);
		assert.equal(r.data.state, 'visible');
		const t = await b.ok('wait_for', { text: 'late ARRIVAL' });
		assert.match(t.text, /is on the page/);
	});

	test('text that disappears, and a ref that goes away', async () => {
		const { url } = await b.open('waits.html');
		const s = await b.state();
		const later = s.ref('button', 'Add later');
		await b.ok('click_element', { ref: s.ref('button', 'Remove banner') });
		await b.ok('wait_for', { text_gone: 'Loading results', timeout_ms: 5000 });
		assert.equal(await b.evaluate(url, 'document.getElementById("banner")'), null);
		await b.evaluate(url, 'setTimeout(() => document.getElementById("later").remove(), 300)');
		const gone = await b.ok('wait_for', { ref: later, state: 'detached', timeout_ms: 5000 });
		assert.equal(gone.data.ref, later);
	});

	test('a hidden element becoming visible, by selector', async () => {
		await b.open('waits.html');
		const s = await b.state();
		const hidden = await b.ok('wait_for', { selector: '#ghost', state: 'hidden', timeout_ms: 1000 });
		assert.ok(hidden.data.waited_ms < 1000);
		await b.ok('click_element', { ref: s.ref('button', 'Show ghost') });
		await b.ok('wait_for', { selector: '#ghost', timeout_ms: 5000 });
	});

	test('the URL changed by pushState, as a substring and as /regex/', async () => {
		await b.open('waits.html');
		const s = await b.state();
		await b.ok('click_element', { ref: s.ref('button', 'Next step') });
		const r = await b.ok('wait_for', { url: '/waits/step-2', timeout_ms: 5000 });
		assert.match(r.data.url, /\/waits\/step-2$/);
		await b.ok('wait_for', { url: '/step-\\d$/', timeout_ms: 1000 });
	});

	test('network_idle waits for requests made after the load event', async () => {
		const url = b.page('network.html');
		await b.ok('navigate_to', { url, wait_until: 'domcontentloaded' });
		const r = await b.ok('wait_for', { network_idle: true, timeout_ms: 10000 });
		assert.match(r.text, /the network is idle/);
		assert.equal(await b.evaluate(url, 'window.__resourceLoaded === true'), true);
	});

	test('delay_ms waits that long', async () => {
		await b.open('waits.html');
		const start = Date.now();
		const r = await b.ok('wait_for', { delay_ms: 300 });
		assert.ok(Date.now() - start >= 300);
		assert.match(r.text, /the delay of 300 ms passed/);
	});

	test('TIMEOUT says what was awaited and what was seen', async () => {
		await b.open('waits.html');
		const start = Date.now();
		const e = await b.fails('wait_for', { selector: '#never', timeout_ms: 600 });
		assert.ok(Date.now() - start < scaled(4000), `took ${Date.now() - start} ms`);
		assert.equal(e.code, 'TIMEOUT');
		assert.match(e.message, /^Waited 600 ms for "#never" to be visible in tab \d+, but 0 elements match, 0 visible\./);
		const text = await b.fails('wait_for', { text: 'Nowhere to be seen', timeout_ms: 400 });
		assert.equal(text.code, 'TIMEOUT');
		assert.match(text.message, /the page shows "waits loading results/);
		const url = await b.fails('wait_for', { url: '/nope/', timeout_ms: 300 });
		assert.match(url.message, /the URL is still http/);
	});

	test('argument errors: no condition, two conditions, a bad selector', async () => {
		await b.open('waits.html');
		const none = await b.fails('wait_for', {});
		assert.equal(none.code, 'INVALID_ARGUMENT');
		assert.match(none.message, /needs one condition/);
		const two = await b.fails('wait_for', { text: 'a', url: 'b' });
		assert.match(two.message, /one condition at a time/);
		const bad = await b.fails('wait_for', { selector: 'div[' });
		assert.equal(bad.code, 'INVALID_ARGUMENT');
		assert.match(bad.message, /not valid CSS/);
		const delay = await b.fails('wait_for', { delay_ms: 2000, timeout_ms: 1000 });
		assert.match(delay.message, /raise timeout_ms/);
	});
});

describe('an action settles on events, not on a fixed wait', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('a click whose effect needs a request returns once the request is done and the DOM is still', async () => {
		await b.open('settle.html');
		const s = await b.state();
		const r = await b.ok('click_element', { ref: s.ref('button', 'Load more'), include_state: true });
		assert.match(r.text, /button "Fresh item"/, `the new item is in the state the click returned:\n${r.text}`);
		assert.doesNotMatch(r.text, /still/);
	});

	test('a click whose effect waits for a short timer alone returns once the timer has run and the DOM is still', async () => {
		await b.open('settle.html');
		const s = await b.state();
		const r = await b.ok('click_element', { ref: s.ref('button', 'Show later'), include_state: true });
		assert.match(r.text, /button "Shown later"/, `the new button is in the state the click returned:\n${r.text}`);
		assert.equal(r.data.still, undefined);
	});

	test('a click on a page that never stops changing returns at the cap and says so', async () => {
		await b.open('settle.html');
		const s = await b.state();
		const r = await b.ok('click_element', { ref: s.ref('button', 'Start ticker') });
		assert.match(r.text, /After 1 s the page was still changing: call get_browser_state again to see where it settled\./);
		assert.deepEqual(r.data.still, ['dom']);
	});

	test('a click that changes nothing says so', async () => {
		await b.open('settle.html');
		const s = await b.state();
		const r = await b.ok('click_element', { ref: s.ref('button', 'Do nothing') });
		assert.match(r.text, /Nothing on the page changed\./);
		assert.equal(r.data.still, undefined);
	});
});

describe('network requests of the tabs the tools use', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('list_network_requests lists what a click loaded; get_network_request has its headers and body', async () => {
		const { tabId } = await b.open('settle.html');
		const s = await b.state();
		await b.ok('click_element', { ref: s.ref('button', 'Load more') });
		/* On a busy machine the click may settle before the browser has reported its request's end. */
		const listed = await until(async () => {
			const list = await b.ok('list_network_requests', { filter: '/slow' });
			return / GET 200 /.test(list.text) && list;
		}, { what: 'the request the click started, ended, in the log' });
		assert.match(listed.text, new RegExp(`^1 request of tab ${tabId}:\\nn[A-Za-z0-9_-]{12} GET 200 xmlhttprequest .* ms http://127\\.0\\.0\\.1:\\d+/slow\\?ms=300$`));
		const [request] = listed.data.requests;
		const page = await b.ok('list_network_requests', { type: 'main_frame' });
		assert.ok(page.data.requests.some(r => /settle\.html/.test(r.url)), 'the page load is recorded too');
		assert.equal((await b.ok('list_network_requests', { since: request.id, filter: '/slow' })).data.total, 0);
		const got = await b.ok('get_network_request', { id: request.id });
		assert.match(got.text, /^Request headers:$/m);
		assert.match(got.text, /^ {2}content-type: text\/html/mi);
		assert.match(got.data.body, /<!doctype html>|<html|<title>/i, `the body:\n${got.text}`);
		const missing = await b.fails('get_network_request', { id: 'n999999' });
		assert.equal(missing.code, 'INVALID_ARGUMENT');
	});
});

