// The person's control (src/control.js): the pause switch refuses actions
// but not reads or stop_task, holds across a service-worker restart (a
// new PersonControl over the same storage), the last 20 actions newest
// first, and the badge for each state; and the dispatcher applies it to
// every call, recording refused ones too.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ACTIVITY_MAX, BADGES, BUSY_LINGER_MS, MARK_MS, PersonControl } from '../src/control.js';
import { Dispatcher } from '../src/dispatcher.js';
import { ErrorCode } from '../src/errors.js';

// A chrome.storage area kept in a Map.
function storageArea() {
	const data = new Map();
	return {
		data,
		get: async key => (data.has(key) ? { [key]: structuredClone(data.get(key)) } : {}),
		set: async items => {
			for (const [key, value] of Object.entries(items))
				data.set(key, structuredClone(value));
		},
	};
}

// chrome.action, remembering the last badge.
function actionButton() {
	const shown = {};
	return {
		shown,
		setBadgeText: async ({ text }) => { shown.text = text; },
		setBadgeBackgroundColor: async ({ color }) => { shown.color = color; },
		setTitle: async ({ title }) => { shown.title = title; },
	};
}

test('paused: actions are refused with PAUSED_BY_USER, reads and stop_task are not; the switch survives a restart', async () => {
	const local = storageArea(), session = storageArea();
	const control = new PersonControl({ local, session });
	await control.ready;
	control.check('click_element', false);
	await control.setPaused(true);
	assert.throws(() => control.check('click_element', false), error => {
		assert.equal(error.code, ErrorCode.PAUSED_BY_USER);
		assert.match(error.message, /paused all agent control .* so click_element did not run\. Reading pages still works\./);
		return true;
	});
	control.check('get_browser_state', true);
	control.check('stop_task', false);
	const restarted = new PersonControl({ local, session: storageArea() });
	await restarted.ready;
	assert.equal(restarted.paused, true, 'the switch is read back after a service-worker restart');
	assert.throws(() => restarted.check('navigate_to', false), error => error.code === ErrorCode.PAUSED_BY_USER);
	await restarted.setPaused(false);
	restarted.check('navigate_to', false);
	assert.equal((await local.get('paused')).paused, false);
});

test('the last 20 actions, newest first, with outcome, tab and time taken', async () => {
	let now = 1000;
	const changes = [];
	const control = new PersonControl({ local: storageArea(), session: storageArea(), now: () => now, onChange: c => changes.push(c) });
	await control.ready;
	for (let i = 0; i < ACTIVITY_MAX + 5; i++) {
		const end = control.begin({ who: 'MCP client', tool: `tool${i}` });
		now += 7;
		end(i % 2 === 0 ? 'ok' : 'STALE_REF', 40 + i);
		end('ignored');
	}
	const { activity } = control.snapshot();
	assert.equal(activity.length, ACTIVITY_MAX);
	assert.deepEqual(activity[0], { time: 1000 + 24 * 7, who: 'MCP client', tool: 'tool24', outcome: 'ok', tab: 64, ms: 7 });
	assert.equal(activity[1].outcome, 'STALE_REF');
	assert.equal(activity.at(-1).tool, 'tool5');
	assert.ok(changes.length >= 2 * (ACTIVITY_MAX + 5), 'the popup hears of each start and end');
});

// Timers run by hand: start(ms, onTime) returns its cancel; fire() runs those due.
function manualTimers() {
	const pending = new Set();
	return {
		pending,
		start: (ms, onTime) => {
			const timer = { ms, onTime };
			pending.add(timer);
			return () => pending.delete(timer);
		},
		fire() {
			for (const timer of [...pending]) {
				pending.delete(timer);
				timer.onTime();
			}
		},
	};
}

test('the badge: off, on, run while something acts (and a moment after), II while paused', async () => {
	const action = actionButton();
	const timers = manualTimers();
	const control = new PersonControl({ local: storageArea(), session: storageArea(), action, timer: timers.start });
	await control.ready;
	assert.equal(action.shown.text, BADGES.disconnected.text);
	control.setConnection('connected');
	assert.deepEqual(action.shown, BADGES.connected);
	const end = control.begin({ who: 'task t1', tool: 'click_element', tab: 3 });
	assert.equal(action.shown.text, BADGES.busy.text);
	end('ok');
	assert.equal(action.shown.text, BADGES.busy.text, 'the busy badge lingers after the action');
	assert.deepEqual([...timers.pending].map(t => t.ms), [BUSY_LINGER_MS]);
	timers.fire();
	assert.equal(action.shown.text, BADGES.connected.text);
	await control.setPaused(true);
	assert.deepEqual(action.shown, BADGES.paused);
	control.setConnection('disconnected');
	assert.equal(action.shown.text, BADGES.paused.text, 'paused shows over the connection');
	await control.setPaused(false);
	assert.equal(action.shown.text, BADGES.disconnected.text);
});

test('a client waiting for approval shows its count in its own colour over every other state, and the busy badge comes back after', async () => {
	const action = actionButton();
	const timers = manualTimers();
	const control = new PersonControl({ local: storageArea(), session: storageArea(), action, timer: timers.start });
	await control.ready;
	control.setConnection('connected');
	const end = control.begin({ who: 'claude', tool: 'click_element', tab: 3 });
	control.setAwaiting(1);
	assert.deepEqual(action.shown, { text: '1', color: BADGES.approval.color, title: BADGES.approval.title });
	assert.ok(!Object.values(BADGES).some(badge => badge !== BADGES.approval && badge.color === BADGES.approval.color), 'a colour of its own');
	await control.setPaused(true);
	control.setAwaiting(2);
	assert.equal(action.shown.text, '2', 'shown over paused and busy');
	await control.setPaused(false);
	control.setAwaiting(0);
	assert.equal(action.shown.text, BADGES.busy.text, 'the busy badge is back while the call runs');
	end('ok');
	timers.fire();
	assert.deepEqual(action.shown, BADGES.connected);
});

test('a run of short calls sets the badge once to busy and once back, not twice per call', async () => {
	const action = actionButton();
	let sets = 0;
	const counted = { ...action, setBadgeText: async badge => { sets++; return action.setBadgeText(badge); } };
	const timers = manualTimers();
	const control = new PersonControl({ local: storageArea(), session: storageArea(), action: counted, timer: timers.start });
	await control.ready;
	control.setConnection('connected');
	sets = 0;
	for (let call = 0; call < 5; call++)
		control.begin({ who: 'MCP client', tool: 'get_browser_state' })('ok');
	assert.equal(sets, 1, 'busy is set once for the run');
	assert.equal(timers.pending.size, 1, 'one linger, restarted by each call');
	timers.fire();
	assert.equal(sets, 2);
	assert.equal(action.shown.text, BADGES.connected.text);
});

test('the dispatcher refuses actions while paused, runs reads, and records both with the tab', async () => {
	globalThis.chrome = {
		tabs: { get: async id => ({ id, url: 'http://x/', active: true }), query: async () => [{ id: 4 }], TAB_ID_NONE: -1 },
	};
	const control = new PersonControl({ local: storageArea(), session: storageArea() });
	const dispatcher = new Dispatcher({
		control,
		debuggers: { dialogs: new Map(), watchDialogs: async () => {}, onDialog: () => () => {} },
		refs: { resolve: () => ({ status: 'unknown', ref: null }) },
		welcome: { catalogue: [
			{ name: 'poke', method: 'poke', annotations: {} },
			{ name: 'peek', method: 'peek', annotations: { readOnlyHint: true } },
		] },
	});
	const ran = [];
	const action = name => ({ run: async () => { ran.push(name); return { content: [] }; } });
	dispatcher.register({ poke: action('poke'), peek: action('peek') });
	const call = { signal: new AbortController().signal, deadline: Date.now() + 5000, progress: () => {} };
	await control.setPaused(true);
	await assert.rejects(dispatcher.dispatch('poke', { tab_id: 4 }, call), error => error.code === ErrorCode.PAUSED_BY_USER);
	await dispatcher.dispatch('peek', {}, call);
	await control.setPaused(false);
	await dispatcher.dispatch('poke', {}, { ...call, owner: { label: 'task t2' } });
	assert.deepEqual(ran, ['peek', 'poke']);
	assert.deepEqual(control.snapshot().activity.map(e => [e.who, e.tool, e.tab, e.outcome]), [
		['task t2', 'poke', 4, 'ok'],
		['MCP client', 'peek', 4, 'ok'],
		['MCP client', 'poke', 4, 'PAUSED_BY_USER'],
	]);
});

test('a tab an MCP client acts in is marked with a group named after it, until MARK_MS after its last action', async () => {
	const tabs = new Map([[5, { id: 5, groupId: -1 }], [6, { id: 6, groupId: 40 }]]);
	const titles = new Map();
	const timers = [];
	const browser = {
		tabs: {
			get: async id => ({ ...tabs.get(id) }),
			group: async ({ tabIds }) => { tabs.get(tabIds[0]).groupId = 77; return 77; },
			ungroup: async ([id]) => { tabs.get(id).groupId = -1; },
		},
		tabGroups: { update: async (id, { title, color }) => titles.set(id, `${title} (${color})`) },
	};
	const control = new PersonControl({
		local: storageArea(), session: storageArea(), browser,
		timer: (ms, onTime) => {
			const timer = { ms, onTime, live: true };
			timers.push(timer);
			return () => { timer.live = false; };
		},
	});
	await control.markTab(5, 'claude-code 2.1.3');
	assert.equal(tabs.get(5).groupId, 77);
	assert.equal(titles.get(77), 'Agent: claude-code 2.1.3 (purple)');
	await control.markTab(5, 'claude-code 2.1.3');
	assert.deepEqual(timers.map(t => [t.ms, t.live]), [[MARK_MS, false], [MARK_MS, true]], 'a new action starts the wait again');
	await control.markTab(6, 'claude-code 2.1.3');
	assert.equal(tabs.get(6).groupId, 40, 'a tab in the person\'s (or a task\'s) group is left alone');
	await timers[1].onTime();
	assert.equal(tabs.get(5).groupId, -1, 'the mark goes after the last action');
	assert.equal(control.marks.size, 0);
});
