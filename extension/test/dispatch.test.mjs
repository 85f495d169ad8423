// Owner-aware dispatch (src/dispatcher.js): a task that holds a tab runs
// its own actions there; other callers' actions that change the page get
// TAB_BUSY at once, and so do browser-wide actions that change it
// (manage_tabs close); read-only actions interleave; holds end on release
// and when the tab closes.

import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';

import { Dispatcher } from '../src/dispatcher.js';
import { ErrorCode } from '../src/errors.js';
import { ActiveTabGone } from '../src/browser/tabs.js';
import { WELCOME_CATALOGUE } from './host-catalogue.mjs';

const TABS = new Set([1, 2]);
beforeEach(() => {
	globalThis.chrome = {
		tabs: {
			get: async id => {
				if (!TABS.has(id))
					throw new Error('No tab');
				return { id, url: `http://x/${id}`, active: id === 1 };
			},
			query: async () => [{ id: 1 }],
			TAB_ID_NONE: -1,
		},
	};
});

// A dispatcher with a mutating action (poke) and a read-only one (peek);
// refs e1 and e2 name elements of tabs 1 and 2.
function makeDispatcher() {
	const ran = [];
	const dispatcher = new Dispatcher({
		debuggers: { dialogs: new Map(), watchDialogs: async () => {}, onDialog: () => () => {} },
		refs: { resolve: ref => ({ status: 'ok', ref, entry: { ref, tabId: Number(ref.slice(1)) } }) },
		welcome: { catalogue: [
			{ name: 'poke', method: 'poke', description: 'Change the page.', inputSchema: { type: 'object' }, annotations: { destructiveHint: false } },
			{ name: 'peek', method: 'peek', description: 'Read the page.', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
		] },
	});
	const action = name => ({ run: async (params, context) => { ran.push(`${name}@${context.tab.id}`); return { content: [] }; } });
	dispatcher.register({ poke: action('poke'), peek: action('peek') });
	return { dispatcher, ran };
}

const call = owner => ({ signal: new AbortController().signal, deadline: Date.now() + 5000, progress: () => {}, owner });
const task = { label: 'task t1 ("Buy a mug")' };

test('the holder acts on its tab; others get TAB_BUSY naming it; reads interleave', async () => {
	const { dispatcher, ran } = makeDispatcher();
	const release = dispatcher.hold(1, task);
	await dispatcher.dispatch('poke', { tab_id: 1 }, call(task));
	await assert.rejects(dispatcher.dispatch('poke', { tab_id: 1 }, call()), error => {
		assert.equal(error.code, ErrorCode.TAB_BUSY);
		assert.match(error.message, /^Tab 1 is being driven by task t1 \("Buy a mug"\)\. Wait for it \(get_task\), stop it \(stop_task\)/);
		return true;
	});
	await dispatcher.dispatch('peek', { tab_id: 1 }, call());
	await dispatcher.dispatch('poke', { tab_id: 2 }, call());
	assert.deepEqual(ran, ['poke@1', 'peek@1', 'poke@2']);
	release();
	await dispatcher.dispatch('poke', { tab_id: 1 }, call());
	assert.deepEqual(ran.at(-1), 'poke@1');
});

test('a browser-wide action asks before it changes a tab: refused on a held tab, except for its holder (manage_tabs close)', async () => {
	const { dispatcher } = makeDispatcher();
	const closed = [];
	dispatcher.register({ closer: { scope: 'browser', run: async (params, { refuseIfHeld }) => {
		refuseIfHeld(params.tab_id);
		closed.push(params.tab_id);
		return { content: [] };
	} } });
	dispatcher.hold(1, task);
	await assert.rejects(dispatcher.dispatch('closer', { tab_id: 1 }, call()), error => error.code === ErrorCode.TAB_BUSY &&
	    /task t1/.test(error.message));
	await assert.rejects(dispatcher.dispatch('closer', { tab_id: 1 }, call({ label: 'task t2' })), { code: ErrorCode.TAB_BUSY });
	await dispatcher.dispatch('closer', { tab_id: 2 }, call());
	await dispatcher.dispatch('closer', { tab_id: 1 }, call(task));
	assert.deepEqual(closed, [2, 1]);
});

test('the active tab counts too: an action without tab_id on a held active tab is refused', async () => {
	const { dispatcher } = makeDispatcher();
	dispatcher.hold(1, task);
	await assert.rejects(dispatcher.dispatch('poke', {}, call()), error => error.code === ErrorCode.TAB_BUSY);
});

test('a call that opens its own tab (navigate_to new_tab) waits for no tab in front: not its hold, not its queue', async () => {
	const { dispatcher, ran } = makeDispatcher();
	const told = [];
	dispatcher.register({ opener: { actsElsewhere: params => params.new_tab === true, run: async (params, context) => {
		assert.equal(context.tab, undefined, 'no tab is resolved for it');
		context.opened(7);
		ran.push('opened 7');
		return { content: [] };
	} } });
	dispatcher.hold(1, task);
	let finish;
	dispatcher.register({ slow: { run: async () => { await new Promise(resolve => { finish = resolve; }); ran.push('slow done'); return { content: [] }; } } });
	const slow = dispatcher.dispatch('slow', {}, call(task));
	await dispatcher.dispatch('opener', { new_tab: true }, { ...call(), opened: tabId => told.push(tabId) });
	assert.deepEqual(told, [7]);
	assert.deepEqual(ran, ['opened 7'], 'it ran while the task\'s action in the held tab in front was still running');
	finish();
	await slow;
	await assert.rejects(dispatcher.dispatch('opener', {}, call()), { code: ErrorCode.TAB_BUSY }, 'without new_tab it acts in the tab in front');
});

test('a second owner cannot hold a held tab; holds on different tabs are independent', () => {
	const { dispatcher } = makeDispatcher();
	const other = { label: 'task t2' };
	const release = dispatcher.hold(1, task);
	assert.throws(() => dispatcher.hold(1, other), error => error.code === ErrorCode.TAB_BUSY && /task t1/.test(error.message));
	const releaseOther = dispatcher.hold(2, other);
	release();
	release();
	assert.equal(dispatcher.holds.get(2), other, 'releasing twice does not touch another hold');
	releaseOther();
	assert.equal(dispatcher.holds.size, 0);
});

test('a closed tab forgets its hold', async () => {
	const { dispatcher, ran } = makeDispatcher();
	dispatcher.hold(1, task);
	dispatcher.forgetTab(1);
	assert.equal(dispatcher.holds.size, 0);
	await dispatcher.dispatch('poke', { tab_id: 1 }, call());
	assert.deepEqual(ran, ['poke@1']);
});

// What the agents are given comes from the catalogue the host sends (issue #32: it had no scopes).
test('catalogueActions lists the welcome catalogue\'s tools that have actions, with read_only and scope', () => {
	const dispatcher = new Dispatcher({ welcome: { catalogue: WELCOME_CATALOGUE } });
	const action = { run: async () => ({ content: [] }) };
	dispatcher.register({ click_element: action, get_browser_state: action });
	const listed = dispatcher.catalogueActions();
	assert.deepEqual(listed.map(tool => [tool.name, tool.read_only, tool.scope]),
	    [['get_browser_state', true, 'pages:read'], ['click_element', false, 'pages:act']], 'in the catalogue\'s order; the tools without an action left out');
	const sent = WELCOME_CATALOGUE.find(tool => tool.name === 'click_element');
	assert.equal(listed[1].description, sent.description);
	assert.deepEqual(listed[1].input_schema, sent.inputSchema);
});

test('a foreign action that names an element of the held tab by ref is refused too', async () => {
	const { dispatcher, ran } = makeDispatcher();
	dispatcher.hold(1, task);
	await assert.rejects(dispatcher.dispatch('poke', { ref: 'e1' }, call()), error => error.code === ErrorCode.TAB_BUSY);
	await dispatcher.dispatch('poke', { ref: 'e2' }, call());
	await dispatcher.dispatch('poke', { ref: 'e1' }, call(task));
	assert.deepEqual(ran, ['poke@2', 'poke@1']);
});

test('unqueued actions follow the rule: a foreign one that changes the page is refused', async () => {
	const { dispatcher, ran } = makeDispatcher();
	dispatcher.register({ answer: { unqueued: true, run: async (params, context) => { ran.push(`answer@${context.tab.id}`); return {}; } } });
	dispatcher.hold(1, task);
	await assert.rejects(dispatcher.dispatch('answer', { tab_id: 1 }, call()), error => error.code === ErrorCode.TAB_BUSY);
	await dispatcher.dispatch('answer', { tab_id: 1 }, call(task));
	assert.deepEqual(ran, ['answer@1']);
});

// A deadlock would hang, so the test has a time limit (a guard, not a measurement).
test('a task that holds a tab and waits for its own actions there does not deadlock', { timeout: 10000 }, async () => {
	const { dispatcher, ran } = makeDispatcher();
	let refusedMeanwhile = null;
	// Like run_task: not queued, holds the tab, acts on it as its owner and waits.
	dispatcher.register({
		drive: {
			scope: 'browser',
			unqueued: true,
			async run(params, context) {
				const owner = { label: 'task t9' };
				const release = dispatcher.hold(1, owner);
				try {
					await dispatcher.dispatch('poke', { tab_id: 1 }, call(owner));
					refusedMeanwhile = await dispatcher.dispatch('poke', { tab_id: 1 }, call()).catch(error => error.code);
					await dispatcher.dispatch('peek', { tab_id: 1 }, call(owner));
					await dispatcher.dispatch('poke', { tab_id: 1 }, call(owner));
					return { owner: context.owner };
				} finally {
					release();
				}
			},
		},
	});
	assert.deepEqual(await dispatcher.dispatch('drive', {}, call()), { owner: undefined });
	assert.equal(refusedMeanwhile, ErrorCode.TAB_BUSY);
	assert.deepEqual(ran, ['poke@1', 'peek@1', 'poke@1']);
	assert.equal(dispatcher.holds.size, 0, 'released in finally');
});

test('actions see who issued them', async () => {
	const { dispatcher } = makeDispatcher();
	let seen;
	dispatcher.register({ who: { run: async (params, context) => { seen = context.owner; return {}; } } });
	await dispatcher.dispatch('who', { tab_id: 2 }, call(task));
	assert.equal(seen, task);
	await dispatcher.dispatch('who', { tab_id: 2 }, call());
	assert.equal(seen, undefined);
});

test('an action that waits behind another in its tab sees the tab as it is when its turn comes; one that does not wait reads it once', async () => {
	let reads = 0;
	let url = 'http://x/before';
	chrome.tabs.get = async id => {
		reads++;
		return { id, url, active: true };
	};
	const dispatcher = new Dispatcher({ debuggers: { dialogs: new Map(), watchDialogs: async () => {}, onDialog: () => () => {} } });
	let finishFirst;
	const seen = [];
	dispatcher.register({
		slow: { run: () => new Promise(resolve => { finishFirst = () => resolve({ content: [] }); }) },
		look: { run: async (params, context) => { seen.push(context.tab.url); return { content: [] }; } },
	});
	await dispatcher.dispatch('look', { tab_id: 1 }, call());
	assert.equal(reads, 1, 'nothing ahead of it: the tab read on arrival is current');

	const first = dispatcher.dispatch('slow', { tab_id: 1 }, call());
	await new Promise(resolve => setTimeout(resolve, 10));
	const second = dispatcher.dispatch('look', { tab_id: 1 }, call());
	await new Promise(resolve => setTimeout(resolve, 10));
	url = 'http://x/after';	/* the first action navigated the tab */
	finishFirst();
	await Promise.all([first, second]);
	assert.deepEqual(seen, ['http://x/before', 'http://x/after']);
});

test('the catalogue entry\'s traits, not the method\'s name, decide dialog watching, the page check and running under a dialog', async () => {
	let url = 'http://x/1';
	chrome.tabs.get = async id => ({ id, url, active: true });
	const watched = [];
	const dialogs = new Map();
	const tool = (name, traits) => ({ name, method: name, description: name, inputSchema: { type: 'object' }, annotations: {}, ...(traits ? { traits } : {}) });
	const dispatcher = new Dispatcher({
		debuggers: { dialogs, watchDialogs: async tabId => { watched.push(tabId); }, onDialog: () => () => {} },
		welcome: { catalogue: [
			tool('act', { watches_dialogs: true }), tool('go', { leaves_page: true }),
			tool('answer', { runs_under_dialog: true }), tool('plain'), tool('click_element', { watches_dialogs: false }),
		] },
	});
	const ran = [];
	const action = name => ({ run: async () => { ran.push(name); return { content: [] }; } });
	dispatcher.register({ act: action('act'), go: action('go'), answer: action('answer'), plain: action('plain'), click_element: action('click_element') });

	await dispatcher.dispatch('act', { tab_id: 1 }, call());
	await dispatcher.dispatch('plain', { tab_id: 1 }, call());
	await dispatcher.dispatch('click_element', { tab_id: 1 }, call());
	assert.deepEqual(watched, [1], 'only the action with watches_dialogs had the tab\'s dialogs watched');

	url = 'chrome://settings/';
	await assert.rejects(dispatcher.dispatch('plain', { tab_id: 1 }, call()), { code: ErrorCode.URL_NOT_ALLOWED });
	await dispatcher.dispatch('go', { tab_id: 1 }, call());

	url = 'http://x/1';
	dialogs.set(1, { type: 'alert', message: 'Hi' });
	await assert.rejects(dispatcher.dispatch('plain', { tab_id: 1 }, call()), { code: ErrorCode.NOT_INTERACTABLE });
	await dispatcher.dispatch('answer', { tab_id: 1 }, call());
	assert.deepEqual(ran, ['act', 'plain', 'click_element', 'go', 'answer']);
});

test('a call whose active tab closed before it began runs again for the tab active now, once, through the hold check', async () => {
	const { dispatcher, ran } = makeDispatcher();
	const gone = new Set([1]);
	/* poke as navigate_to's load does it: its tab may have closed under it. */
	dispatcher.registry.get('poke').run = async (params, context) => {
		ran.push(`poke@${context.tab.id}`);
		if (gone.has(context.tab.id))
			throw new ActiveTabGone(context.tab.id);
		return { content: [] };
	};
	const active = [1, 2];
	chrome.tabs.query = async () => [{ id: active.shift() ?? 2 }];
	await dispatcher.dispatch('poke', {}, call());
	assert.deepEqual(ran, ['poke@1', 'poke@2']);

	ran.length = 0;
	gone.add(2);
	active.push(1, 2);
	await assert.rejects(dispatcher.dispatch('poke', {}, call()), { code: ErrorCode.TAB_NOT_FOUND, message: /^The active tab \(2\) closed/ });
	assert.deepEqual(ran, ['poke@1', 'poke@2'], 'tried twice, not more');

	ran.length = 0;
	gone.delete(2);
	active.push(1, 2);
	const release = dispatcher.hold(2, task);
	await assert.rejects(dispatcher.dispatch('poke', {}, call()), { code: ErrorCode.TAB_BUSY }, 'the tab active now is a task\'s: the hold holds');
	assert.deepEqual(ran, ['poke@1']);
	release();
});

test('a call that waited behind another in the active tab, which closed meanwhile, runs in the tab active now; one that named the tab fails', async () => {
	const { dispatcher, ran } = makeDispatcher();
	let letGo;
	const blocked = new Promise(resolve => { letGo = resolve; });
	dispatcher.registry.get('poke').run = async (params, context) => {
		ran.push(`poke@${context.tab.id}`);
		if (params.block)
			await blocked;
		return { content: [] };
	};
	chrome.tabs.query = async () => [{ id: TABS.has(1) ? 1 : 2 }];
	try {
		const first = dispatcher.dispatch('poke', { tab_id: 1, block: true }, call());
		const implicit = dispatcher.dispatch('poke', {}, call());
		const named = dispatcher.dispatch('poke', { tab_id: 1 }, call());
		while (dispatcher.queue.size(1) < 3)
			await new Promise(resolve => setImmediate(resolve));
		TABS.delete(1);
		letGo();
		await first;
		await implicit;
		await assert.rejects(named, { code: ErrorCode.TAB_NOT_FOUND, message: /^Tab 1 does not exist/ });
		assert.deepEqual(ran, ['poke@1', 'poke@2']);
	} finally {
		TABS.add(1);
	}
});
