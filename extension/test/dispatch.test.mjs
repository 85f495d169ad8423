// Owner-aware dispatch (src/navigator.js): a task that holds a tab runs
// its own actions there; other callers' actions that change the page get
// TAB_BUSY at once; read-only actions interleave; holds end on release
// and when the tab closes.

import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';

import { Navigator } from '../src/navigator.js';
import { ErrorCode } from '../src/errors.js';

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

// A navigator with a mutating action (poke) and a read-only one (peek);
// refs e1 and e2 name elements of tabs 1 and 2.
function makeNavigator() {
	const ran = [];
	const navigator = new Navigator({
		debuggers: { dialogs: new Map(), watchDialogs: async () => {}, onDialog: () => () => {} },
		refs: { resolve: ref => ({ status: 'ok', ref, entry: { ref, tabId: Number(ref.slice(1)) } }) },
		welcome: { catalogue: [
			{ name: 'poke', method: 'poke', description: 'Change the page.', inputSchema: { type: 'object' }, annotations: { destructiveHint: false } },
			{ name: 'peek', method: 'peek', description: 'Read the page.', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
		] },
	});
	const action = name => ({ run: async (params, context) => { ran.push(`${name}@${context.tab.id}`); return { content: [] }; } });
	navigator.register({ poke: action('poke'), peek: action('peek') });
	return { navigator, ran };
}

const call = owner => ({ signal: new AbortController().signal, deadline: Date.now() + 5000, progress: () => {}, owner });
const task = { label: 'task t1 ("Buy a mug")' };

test('the holder acts on its tab; others get TAB_BUSY naming it; reads interleave', async () => {
	const { navigator, ran } = makeNavigator();
	const release = navigator.hold(1, task);
	await navigator.dispatch('poke', { tab_id: 1 }, call(task));
	await assert.rejects(navigator.dispatch('poke', { tab_id: 1 }, call()), error => {
		assert.equal(error.code, ErrorCode.TAB_BUSY);
		assert.match(error.message, /^Tab 1 is being driven by task t1 \("Buy a mug"\)\. Wait for it \(get_task\), stop it \(stop_task\)/);
		return true;
	});
	await navigator.dispatch('peek', { tab_id: 1 }, call());
	await navigator.dispatch('poke', { tab_id: 2 }, call());
	assert.deepEqual(ran, ['poke@1', 'peek@1', 'poke@2']);
	release();
	await navigator.dispatch('poke', { tab_id: 1 }, call());
	assert.deepEqual(ran.at(-1), 'poke@1');
});

test('the active tab counts too: an action without tab_id on a held active tab is refused', async () => {
	const { navigator } = makeNavigator();
	navigator.hold(1, task);
	await assert.rejects(navigator.dispatch('poke', {}, call()), error => error.code === ErrorCode.TAB_BUSY);
});

test('a second owner cannot hold a held tab; holds on different tabs are independent', () => {
	const { navigator } = makeNavigator();
	const other = { label: 'task t2' };
	const release = navigator.hold(1, task);
	assert.throws(() => navigator.hold(1, other), error => error.code === ErrorCode.TAB_BUSY && /task t1/.test(error.message));
	const releaseOther = navigator.hold(2, other);
	release();
	release();
	assert.equal(navigator.holds.get(2), other, 'releasing twice does not touch another hold');
	releaseOther();
	assert.equal(navigator.holds.size, 0);
});

test('a closed tab forgets its hold', async () => {
	const { navigator, ran } = makeNavigator();
	navigator.hold(1, task);
	navigator.forgetTab(1);
	assert.equal(navigator.holds.size, 0);
	await navigator.dispatch('poke', { tab_id: 1 }, call());
	assert.deepEqual(ran, ['poke@1']);
});

test('catalogueActions lists the welcome catalogue tools that have actions, with read_only', () => {
	const { navigator } = makeNavigator();
	navigator.services.welcome.catalogue.push({ name: 'elsewhere', method: 'not_registered', description: '', inputSchema: {} });
	assert.deepEqual(navigator.catalogueActions(), [
		{ name: 'poke', description: 'Change the page.', input_schema: { type: 'object' }, read_only: false },
		{ name: 'peek', description: 'Read the page.', input_schema: { type: 'object' }, read_only: true },
	]);
});

test('a foreign action that names an element of the held tab by ref is refused too', async () => {
	const { navigator, ran } = makeNavigator();
	navigator.hold(1, task);
	await assert.rejects(navigator.dispatch('poke', { ref: 'e1' }, call()), error => error.code === ErrorCode.TAB_BUSY);
	await navigator.dispatch('poke', { ref: 'e2' }, call());
	await navigator.dispatch('poke', { ref: 'e1' }, call(task));
	assert.deepEqual(ran, ['poke@2', 'poke@1']);
});

test('unqueued actions follow the rule: a foreign one that changes the page is refused', async () => {
	const { navigator, ran } = makeNavigator();
	navigator.register({ answer: { unqueued: true, run: async (params, context) => { ran.push(`answer@${context.tab.id}`); return {}; } } });
	navigator.hold(1, task);
	await assert.rejects(navigator.dispatch('answer', { tab_id: 1 }, call()), error => error.code === ErrorCode.TAB_BUSY);
	await navigator.dispatch('answer', { tab_id: 1 }, call(task));
	assert.deepEqual(ran, ['answer@1']);
});

// A deadlock would hang, so the test has a time limit (a guard, not a measurement).
test('a task that holds a tab and waits for its own actions there does not deadlock', { timeout: 10000 }, async () => {
	const { navigator, ran } = makeNavigator();
	let refusedMeanwhile = null;
	// Like run_task: not queued, holds the tab, acts on it as its owner and waits.
	navigator.register({
		drive: {
			scope: 'browser',
			unqueued: true,
			async run(params, context) {
				const owner = { label: 'task t9' };
				const release = navigator.hold(1, owner);
				try {
					await navigator.dispatch('poke', { tab_id: 1 }, call(owner));
					refusedMeanwhile = await navigator.dispatch('poke', { tab_id: 1 }, call()).catch(error => error.code);
					await navigator.dispatch('peek', { tab_id: 1 }, call(owner));
					await navigator.dispatch('poke', { tab_id: 1 }, call(owner));
					return { owner: context.owner };
				} finally {
					release();
				}
			},
		},
	});
	assert.deepEqual(await navigator.dispatch('drive', {}, call()), { owner: undefined });
	assert.equal(refusedMeanwhile, ErrorCode.TAB_BUSY);
	assert.deepEqual(ran, ['poke@1', 'peek@1', 'poke@1']);
	assert.equal(navigator.holds.size, 0, 'released in finally');
});

test('actions see who issued them', async () => {
	const { navigator } = makeNavigator();
	let seen;
	navigator.register({ who: { run: async (params, context) => { seen = context.owner; return {}; } } });
	await navigator.dispatch('who', { tab_id: 2 }, call(task));
	assert.equal(seen, task);
	await navigator.dispatch('who', { tab_id: 2 }, call());
	assert.equal(seen, undefined);
});

test('an action that waits behind another in its tab sees the tab as it is when its turn comes; one that does not wait reads it once', async () => {
	let reads = 0;
	let url = 'http://x/before';
	chrome.tabs.get = async id => {
		reads++;
		return { id, url, active: true };
	};
	const navigator = new Navigator({ debuggers: { dialogs: new Map(), watchDialogs: async () => {}, onDialog: () => () => {} } });
	let finishFirst;
	const seen = [];
	navigator.register({
		slow: { run: () => new Promise(resolve => { finishFirst = () => resolve({ content: [] }); }) },
		look: { run: async (params, context) => { seen.push(context.tab.url); return { content: [] }; } },
	});
	await navigator.dispatch('look', { tab_id: 1 }, call());
	assert.equal(reads, 1, 'nothing ahead of it: the tab read on arrival is current');

	const first = navigator.dispatch('slow', { tab_id: 1 }, call());
	await new Promise(resolve => setTimeout(resolve, 10));
	const second = navigator.dispatch('look', { tab_id: 1 }, call());
	await new Promise(resolve => setTimeout(resolve, 10));
	url = 'http://x/after';	/* the first action navigated the tab */
	finishFirst();
	await Promise.all([first, second]);
	assert.deepEqual(seen, ['http://x/before', 'http://x/after']);
});
