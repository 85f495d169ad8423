// Unit tests: the debounced resource_updated events.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResourceNotifier } from '../src/resource-events.js';

// The URIs the host lists (docs/protocol.md), written out: not the module's constants.
const TABS_URI = 'browser://tabs';
const STATE_URIS = ['browser://current/state', 'browser://dom/state'];

// A notifier on fake timers; run() fires the timers due.
function fake() {
	const sent = [];
	let now = 0;
	const timers = new Map();
	let next = 1;
	const notifier = new ResourceNotifier({
		send: m => sent.push(m),
		delay: 100,
		setTimer: (fn, ms) => {
			timers.set(next, { fn, at: now + ms });
			return next++;
		},
		clearTimer: id => timers.delete(id),
	});
	const advance = ms => {
		now += ms;
		for (const [id, t] of [...timers].sort((a, b) => a[1].at - b[1].at)) {
			if (t.at <= now) {
				timers.delete(id);
				t.fn();
			}
		}
	};
	return { notifier, sent, advance, timers };
}

test('a burst of changes becomes one event per resource after the delay', () => {
	const { notifier, sent, advance } = fake();
	notifier.pageChanged();
	advance(60);
	notifier.pageChanged();
	notifier.tabsChanged();
	advance(60);
	assert.deepEqual(sent, [], 'nothing before 100 ms of quiet');
	advance(40);
	assert.deepEqual(sent.map(m => m.uri).sort(), [...STATE_URIS, TABS_URI].sort());
	assert.ok(sent.every(m => m.type === 'event' && m.event === 'resource_updated'));
});

test('changes after an event was sent make a new event', () => {
	const { notifier, sent, advance } = fake();
	notifier.tabsChanged();
	advance(100);
	notifier.tabsChanged();
	advance(100);
	assert.deepEqual(sent, [
		{ type: 'event', event: 'resource_updated', uri: TABS_URI },
		{ type: 'event', event: 'resource_updated', uri: TABS_URI },
	]);
});

test('clear drops pending events', () => {
	const { notifier, sent, advance, timers } = fake();
	notifier.pageChanged();
	notifier.clear();
	advance(500);
	assert.deepEqual(sent, []);
	assert.equal(timers.size, 0);
});

test('with the default timers, each resource is sent once after the delay', async () => {
	const sent = [];
	const notifier = new ResourceNotifier({ send: m => sent.push(m), delay: 5 });
	notifier.tabsChanged();
	notifier.pageChanged();
	await new Promise(resolve => setTimeout(resolve, 30));
	assert.equal(sent.length, 3);
});
