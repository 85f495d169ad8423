// The short-timer tracker (page/timers.js) in a jsdom window whose timers
// and clock are fakes installed before it, as the browser's are there
// before a document_start script: the fakes log what reaches them and run
// a timer only when the test fires it, so what the tracker passes on, what
// it remembers and what it answers can be checked exactly. The settle asks
// it as in-page/mutations.js does: a CustomEvent on the window, answered
// by another before dispatchEvent returns.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// tests/extension-unit.sh installs jsdom into the build tree (see in-page.test.mjs).
const packages = process.env.BRIDGE_TEST_PACKAGES;
const { JSDOM } = createRequire(packages ? `${packages}/` : import.meta.url)('jsdom');

const SOURCE = readFileSync(new URL('../page/timers.js', import.meta.url), 'utf8');
const TIMERS_QUERY = '__browser_bridge_timers__';
const TIMERS_DUE = '__browser_bridge_timers_due__';

// A window with fake timers and clock, then the tracker. Returns the
// window, the log of calls that reached the original timer functions, the
// timers they hold, and ways to move the clock, fire a timer and ask.
function trackedWindow() {
	const { window } = new JSDOM('<!doctype html><p>page</p>', { runScripts: 'outside-only' });
	const page = { window, calls: [], timers: new Map(), clock: 0 };
	let next = 0;
	window.Performance.prototype.now = () => page.clock;
	window.setTimeout = function (handler, timeout, ...args) {
		page.calls.push({ name: 'setTimeout', self: this, handler, timeout, args });
		const id = 100 + ++next;
		page.timers.set(id, { handler, args });
		return id;
	};
	window.setInterval = function (handler, timeout) {
		page.calls.push({ name: 'setInterval', self: this, handler, timeout });
		return 100 + ++next;
	};
	for (const name of ['clearTimeout', 'clearInterval']) {
		window[name] = function (id) {
			page.calls.push({ name, self: this, id });
			page.timers.delete(Number(id));
			return `${name} answer`;
		};
	}
	page.originals = Object.fromEntries(['setTimeout', 'clearTimeout', 'clearInterval', 'setInterval']
	    .map(name => [name, Object.getOwnPropertyDescriptor(window, name)]));
	window.eval(SOURCE);
	/* Runs a timer as the browser does: its callback with the window as this and its extra arguments. */
	page.fire = id => {
		const timer = page.timers.get(id);
		page.timers.delete(id);
		return timer.handler.apply(window, timer.args);
	};
	/* The settle's question: the latest due time of the pending short timers set in [since, before]. */
	page.due = (since, before) => {
		const answers = [];
		const hear = event => answers.push(event.detail);
		window.addEventListener(TIMERS_DUE, hear, true);
		window.dispatchEvent(new window.CustomEvent(TIMERS_QUERY, { detail: { since, before } }));
		window.removeEventListener(TIMERS_DUE, hear, true);
		assert.equal(answers.length, 1, 'one answer, before dispatchEvent returns');
		return answers[0];
	};
	return page;
}

test('a short timer is remembered until its callback starts; the original gets the same this, delay and arguments, and the page the same id, this, arguments, result and exception', () => {
	const page = trackedWindow();
	const { window } = page;
	page.clock = 40;
	let seen;
	const id = window.setTimeout(function (...args) {
		seen = { self: this, args, pending: page.due(0, Infinity) };
		return 'callback result';
	}, 300, 'a', 2);
	assert.equal(id, 101, 'the id the original gave');
	const [call] = page.calls;
	assert.equal(call.self, window);
	assert.equal(call.timeout, 300);
	assert.deepEqual(call.args, ['a', 2]);
	assert.equal(page.due(0, Infinity), 340, 'due 300 ms after it was set');

	assert.equal(page.fire(id), 'callback result');
	assert.equal(seen.self, window);
	assert.deepEqual(seen.args, ['a', 2]);
	assert.equal(seen.pending, null, 'forgotten as its callback starts');

	const thrown = new Error('page bug');
	const failing = window.setTimeout(() => { throw thrown; }, 0);
	assert.equal(page.due(0, Infinity), 40, 'no delay: due at once');
	assert.throws(() => page.fire(failing), error => error === thrown);
	assert.equal(page.due(0, Infinity), null);

	const bare = window.eval('setTimeout(() => {}, 10)');
	assert.equal(page.calls.at(-1).self, undefined, 'a bare call passes on its undefined this');
	assert.equal(page.due(0, Infinity), 50);
	page.fire(bare);
});

test('clearTimeout and clearInterval (one list of ids) forget a timer, also by a string id, and pass on their this, arguments and result', () => {
	const page = trackedWindow();
	const { window } = page;
	const first = window.setTimeout(() => {}, 100);
	const second = window.setTimeout(() => {}, 200);
	const third = window.setTimeout(() => {}, 300);
	assert.equal(page.due(0, Infinity), 300);
	assert.equal(window.clearTimeout(third), 'clearTimeout answer');
	assert.deepEqual(page.calls.at(-1), { name: 'clearTimeout', self: window, id: third });
	assert.equal(page.due(0, Infinity), 200);
	assert.equal(window.clearInterval(String(second)), 'clearInterval answer');
	assert.equal(page.calls.at(-1).id, String(second));
	assert.equal(page.due(0, Infinity), 100);
	window.clearTimeout(first);
	assert.equal(page.due(0, Infinity), null);
	assert.equal(window.clearTimeout(), 'clearTimeout answer', 'a clear with no id is the original\'s business');
});

test('long timers, string handlers, object delays and intervals reach the originals untouched and are not waited for', () => {
	const page = trackedWindow();
	const { window } = page;
	const handler = () => {};
	window.setTimeout(handler, 501);
	window.setTimeout('tick()', 100);
	let conversions = 0;
	const delay = { valueOf() { conversions++; return 100; } };
	window.setTimeout(handler, delay);
	window.setInterval(handler, 100);
	assert.deepEqual(page.calls.map(call => call.handler), [handler, 'tick()', handler, handler], 'the page\'s own handlers');
	assert.equal(page.calls[2].timeout, delay, 'the object itself, for the browser to convert');
	assert.equal(conversions, 0, 'the tracker ran none of the page\'s code');
	assert.equal(page.due(0, Infinity), null);

	window.setTimeout(handler, 500);
	window.setTimeout(handler, '250');
	window.setTimeout(handler, -5);
	window.setTimeout(handler, Number.NaN);
	window.setTimeout(handler);
	assert.equal(page.due(0, Infinity), 500, 'up to 500 ms is short; a numeric string, a negative, NaN and none are delays too');
	assert.equal(page.calls.at(-4).timeout, '250', 'passed on as the page gave it');
});

test('the answer is the latest due time of the pending timers set between since and before', () => {
	const page = trackedWindow();
	const { window } = page;
	page.clock = 10;
	window.setTimeout(() => {}, 300);
	page.clock = 50;
	window.setTimeout(() => {}, 100);
	page.clock = 70;
	assert.equal(page.due(0, 70), 310);
	assert.equal(page.due(20, 70), 150, 'only those set since `since`');
	assert.equal(page.due(0, 40), 310, 'only those set before `before`');
	assert.equal(page.due(60, 70), null);
	/* A question that is not the settle's (aimed at an element) gets no answer. */
	let answered = false;
	window.addEventListener(TIMERS_DUE, () => { answered = true; }, true);
	window.document.body.dispatchEvent(new window.CustomEvent(TIMERS_QUERY, { detail: { since: 0, before: 70 }, bubbles: true }));
	assert.equal(answered, false);
});

test('the wrappers keep the originals\' names, lengths and property attributes and are not constructors', () => {
	const page = trackedWindow();
	const { window } = page;
	const lengths = { setTimeout: 1, clearTimeout: 0, clearInterval: 0 };
	for (const [name, length] of Object.entries(lengths)) {
		const { value: wrapper, ...attributes } = Object.getOwnPropertyDescriptor(window, name);
		const { value: original, ...originalAttributes } = page.originals[name];
		assert.notEqual(wrapper, original, `${name} is wrapped`);
		assert.deepEqual(attributes, originalAttributes);
		assert.equal(wrapper.name, name);
		assert.equal(wrapper.length, length);
		assert.equal(wrapper.prototype, undefined);
		assert.throws(() => new wrapper(() => {}), TypeError);
	}
	assert.equal(window.setInterval, page.originals.setInterval.value, 'setInterval is left as it was');
});
