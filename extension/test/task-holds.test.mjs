// A run_task task holds its tab through the dispatcher for exactly as long
// as it runs: its own reads and actions go through, other callers' actions
// that change the page get TAB_BUSY naming it, and the hold ends however
// the task ends (finished, stopped, its caller cancelled). Real Dispatcher
// and TaskManager; fakes for chrome.tabs, the page and the model.

import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';

import { Dispatcher } from '../src/dispatcher.js';
import { tabActions } from '../src/actions/tabs.js';
import { HISTORY_KEY, HISTORY_MAX, PANEL_NOTICE_MS, TASK_KEEP_MS, TaskManager, taskActions, urlInTask } from '../src/agents/task-manager.js';
import { BridgeError, ErrorCode } from '../src/errors.js';
import { Fence } from '../src/agents/fence.js';
import { RequestRunner } from '../src/rpc.js';
import { PersonControl } from '../src/control.js';
import { PAGE_TEXT_CHARS } from '../src/agents/prompts.js';
import { contentText } from '../src/content-math.js';
import { AGENT_CATALOGUE, WELCOME_CATALOGUE } from './host-catalogue.mjs';

beforeEach(() => {
	globalThis.chrome = {
		tabs: {
			get: async id => ({ id, url: `http://shop.test/${id}`, title: `Tab ${id}`, active: id === 1 }),
			query: async () => [{ id: 1 }],
			TAB_ID_NONE: -1,
		},
	};
});

// A model that answers each role from its script, in order; when a role's
// script is used up, the call waits until the test answers it
// (pending[i](output)) or its task is stopped.
function scriptedModel(scripts = {}) {
	const pending = [];
	let check = () => {};
	return {
		pending,
		// Resolves when n calls in all have been left waiting.
		waiting: n => new Promise(resolve => {
			check = () => pending.length >= n && resolve();
			check();
		}),
		complete({ role, signal }) {
			const reply = output => ({ output, usage: { input_tokens: 1, output_tokens: 1 } });
			if (scripts[role]?.length > 0)
				return Promise.resolve(reply(scripts[role].shift()));
			return new Promise((resolve, reject) => {
				pending.push(output => resolve(reply(output)));
				signal.addEventListener('abort', () => reject(signal.reason), { once: true });
				check();
			});
		},
	};
}

// The dispatcher with the task tools, a fake page and a mutating action,
// recording who issued each read and action.
function setup(scripts, settings = {}, { onChange } = {}) {
	const issued = [];
	const model = scriptedModel(scripts);
	const dispatcher = new Dispatcher({
		debuggers: { dialogs: new Map(), watchDialogs: async () => {}, onDialog: () => () => {} },
		welcome: { catalogue: WELCOME_CATALOGUE },
	});
	const record = name => async (params, context) => {
		issued.push(`${name}@${context.tab.id} by ${context.owner?.label ?? 'client'}`);
		return { content: [{ type: 'text', text: name }], structuredContent: { tab: { url: context.tab.url, title: context.tab.title }, elements: [] } };
	};
	dispatcher.register({ get_browser_state: { run: record('read') }, get_page_content: { run: record('text') }, scroll_page: { run: record('scroll') } });
	const stored = new Map([['agents', { provider: { kind: 'openai', model: 'scripted' }, ...settings }]]);
	const closed = [];
	const storage = {
		stored,
		reads: [],
		failNextRead: false,
		failNextWrite: false,
		get: async key => {
			storage.reads.push(key);
			if (storage.failNextRead) {
				storage.failNextRead = false;
				throw new Error('storage is not available');
			}
			return stored.has(key) ? { [key]: structuredClone(stored.get(key)) } : {};
		},
		set: async items => {
			if (storage.failNextWrite) {
				storage.failNextWrite = false;
				throw new Error('storage is full');
			}
			Object.entries(items).forEach(([key, value]) => stored.set(key, structuredClone(value)));
		},
	};
	const tasks = new TaskManager({
		dispatcher,
		storage,
		createProvider: () => ({ complete: input => model.complete(input) }),
		buildPrompt: () => ({ system: '', messages: [] }),
		browser: {
			tabs: { group: async () => 7, get: chrome.tabs.get, remove: async id => closed.push(id) },
			tabGroups: { update: async () => {} },
		},
		fence: new Fence({ rules: { getSessionRules: async () => [], updateSessionRules: async () => {} }, tabs: chrome.tabs }),
		optionsUrl: 'chrome-extension://x/options/options.html',
		evaluateEnabled: async () => false,
		onChange,
	});
	dispatcher.register(taskActions(tasks));
	running = tasks;
	return { dispatcher, tasks, model, issued, closed, storage };
}

/** The tasks of the current test, stopped after it even when it fails (their timers would keep node alive). */
let running = null;
afterEach(() => {
	for (const record of running?.tasks.values() ?? [])
		record.controller.abort(new Error('the test ended'));
});

// A call from the host, by the caller it names (alice unless said).
const call = (signal = new AbortController().signal, caller = 'alice') => ({ signal, deadline: Date.now() + 60000, progress: () => {}, caller });
const impossible = { plan: 'p', next_goal: 'g', status: 'impossible', reason: 'no such mug' };
const busy = label => error => {
	assert.equal(error.code, ErrorCode.TAB_BUSY);
	assert.match(error.message, new RegExp(label.replace(/[()"]/g, '\\$&')));
	return true;
};

test('a running task acts on its tab while others are refused; the hold ends when the task finishes', async () => {
	const { dispatcher, tasks, model, issued } = setup({
		planner: [{ plan: 'p', next_goal: 'g', status: 'continue' }],
		navigator: [{ actions: [{ tool: 'scroll_page', args: { direction: 'down' } }] }],
	});
	const started = await dispatcher.dispatch('run_task', { task: 'Buy a mug', tab_id: 1, wait: false }, call());
	const id = started.structuredContent.task_id;
	await model.waiting(1);
	const task = `by task ${id} ("Buy a mug")`;
	/* After the scroll the page reads the same, so its text is not read again (docs/agents.md). */
	assert.deepEqual(issued, [`read@1 ${task}`, `text@1 ${task}`, `scroll@1 ${task}`, `read@1 ${task}`]);
	issued.length = 0;

	await assert.rejects(dispatcher.dispatch('scroll_page', { tab_id: 1, direction: 'down' }, call()), busy(`task ${id} ("Buy a mug")`));
	await assert.rejects(dispatcher.dispatch('run_task', { task: 'Another', tab_id: 1, wait: false }, call()), busy(`task ${id}`));
	await dispatcher.dispatch('get_browser_state', { tab_id: 1 }, call());
	await dispatcher.dispatch('scroll_page', { tab_id: 2, direction: 'down' }, call());
	assert.deepEqual(issued, ['read@1 by client', 'scroll@2 by client']);

	model.pending[0]({ actions: [], done: { answer: 'Mug ordered' } });
	await model.waiting(2);
	model.pending[1]({ verdict: 'reject', reason: 'no order number' });
	await model.waiting(3);
	model.pending[2](impossible);
	const result = await (await tasks.get(id, { caller: 'alice' })).done;
	assert.equal(result.stop_reason, 'impossible');
	assert.equal(dispatcher.holds.size, 0);
	await dispatcher.dispatch('scroll_page', { tab_id: 1, direction: 'down' }, call());
	assert.equal(issued.at(-1), 'scroll@1 by client');
});

test('the tabs a task opened are listed in its result and closed at its end, unless the person keeps them', async () => {
	for (const keep of [false, true]) {
		const { dispatcher, tasks, model, closed } = setup({ planner: [{ plan: 'p', next_goal: 'g', status: 'continue' }] },
		    { keep_tabs: keep });
		const started = await dispatcher.dispatch('run_task', { task: 'Compare mugs', tab_id: 1, wait: false }, call());
		await model.waiting(1);
		/* The page opened a tab (target=_blank), and that tab another. */
		await tasks.deps.fence.tabCreated({ id: 5, openerTabId: 1, windowId: 1, pendingUrl: 'http://shop.test/5' });
		await tasks.deps.fence.tabCreated({ id: 6, openerTabId: 5, windowId: 1, pendingUrl: 'http://shop.test/6' });
		await tasks.deps.fence.tabCreated({ id: 7, windowId: 1, pendingUrl: 'http://news.test/' });
		model.pending[0](impossible);
		const result = await (await tasks.get(started.structuredContent.task_id, { caller: 'alice' })).done;
		assert.deepEqual(result.opened_tabs, [
			{ tab_id: 5, url: 'http://shop.test/5', kept: keep },
			{ tab_id: 6, url: 'http://shop.test/6', kept: keep },
		]);
		assert.deepEqual(closed, keep ? [] : [5, 6], 'the task\'s own tab and the person\'s tab stay');
	}
});

test('stop_task ends the hold', async () => {
	const { dispatcher, model } = setup();
	const started = await dispatcher.dispatch('run_task', { task: 'Wait forever', tab_id: 1, wait: false }, call());
	await model.waiting(1);
	assert.equal(dispatcher.holds.size, 1);
	const stopped = await dispatcher.dispatch('stop_task', { task_id: started.structuredContent.task_id }, call());
	assert.equal(stopped.structuredContent.stop_reason, 'cancelled');
	assert.equal(stopped.structuredContent.stopped, true);
	assert.equal(dispatcher.holds.size, 0);
	await dispatcher.dispatch('scroll_page', { tab_id: 1, direction: 'down' }, call());
});

// Issue #35, finding 2: manage_tabs close was the one tool that changed a
// task's tab past its hold, and the task then ran on in a closed tab.
test('no other client closes a task\'s tab; the person does, and the task ends at once saying so', async () => {
	const { dispatcher, tasks, model } = setup();
	dispatcher.register(tabActions);
	dispatcher.services.refs = { expireTab: () => {} };
	const removed = [];
	chrome.tabs.query = async () => [{ id: 1 }, { id: 2 }];
	chrome.tabs.remove = async id => { removed.push(id); };
	const started = await dispatcher.dispatch('run_task', { task: 'Wait forever', tab_id: 1, wait: false }, call());
	const id = started.structuredContent.task_id;
	await model.waiting(1);
	await assert.rejects(dispatcher.dispatch('manage_tabs', { action: 'close', tab_id: 1 }, call(undefined, 'bob')),
	    busy(`task ${id} ("Wait forever")`));
	await assert.rejects(dispatcher.dispatch('manage_tabs', { action: 'close' }, { ...call(), ownerKey: true }),
	    busy(`task ${id}`), 'the tab in front, with the owner key');
	assert.deepEqual(removed, []);
	await dispatcher.dispatch('manage_tabs', { action: 'close', tab_id: 2 }, call(undefined, 'bob'));
	assert.deepEqual(removed, [2], 'another tab closes');
	assert.equal((await dispatcher.dispatch('get_task', { task_id: id }, call())).structuredContent.status, 'running');

	/* The person presses the tab's close button: the browser says it closed. */
	assert.equal(await tasks.tabClosed(1), true);
	const ended = await dispatcher.dispatch('get_task', { task_id: id }, call());
	assert.equal(ended.structuredContent.status, 'finished');
	assert.equal(ended.structuredContent.stop_reason, 'tab_closed');
	assert.match(ended.structuredContent.message, /^Stopped: tab 1, where the task ran, was closed\.$/);
	assert.match(ended.content[0].text, /stopped \(tab_closed\).*tab 1, where the task ran, was closed/);
	assert.equal(dispatcher.holds.size, 0);
	assert.equal(await tasks.tabClosed(1), false, 'nothing runs there any more');
});

// Issue #35, finding 7: what a task typed into a secret field is masked in
// everything the task manager keeps and returns, the task's own words included.
test('a PIN typed into a secret field is in no answer, list, kept history or panel entry, though the task names it', async () => {
	const PIN = '739164';
	const { dispatcher, tasks, storage } = setup({
		planner: [{ plan: `Type ${PIN} into the PIN field.`, next_goal: 'unlock', status: 'continue' }],
		navigator: [{ actions: [{ tool: 'type_value', args: { ref: 'e1', text: PIN } }] }, { actions: [], done: { answer: `Unlocked with ${PIN}` } }],
		validator: [{ verdict: 'accept', reason: `The page took ${PIN}.` }],
	});
	dispatcher.registry.set('get_browser_state', { run: async (params, context) => ({
		content: [{ type: 'text', text: 'e1 textbox "PIN" type=password' }],
		structuredContent: { tab: { id: context.tab.id, url: context.tab.url, title: 'Bank' },
			elements: [{ ref: 'e1', role: 'textbox', name: 'PIN', type: 'password', secret: true }] },
	}) });
	dispatcher.services.refs = { resolve: ref => ({ status: 'ok', entry: { ref, tabId: 1 } }) };
	const typed = [];
	dispatcher.register({ type_value: { run: async params => {
		typed.push(params.text);
		return { content: [{ type: 'text', text: 'Typed 6 characters into e1 (textbox "PIN").' }] };
	} } });
	const started = await dispatcher.dispatch('run_task', { task: `Unlock the card with PIN ${PIN}.`, tab_id: 1, wait: false }, call());
	const id = started.structuredContent.task_id;
	const record = await tasks.get(id, { caller: 'alice' });
	await record.done;
	await new Promise(resolve => setTimeout(resolve, 10));	/* keeping is asynchronous */
	assert.deepEqual(typed, [PIN], 'the page got the PIN');
	assert.equal(record.result.stop_reason, 'done');
	assert.equal(record.result.answer, 'Unlocked with ••••••');
	const places = {
		get_task: await dispatcher.dispatch('get_task', { task_id: id }, call()),
		list_tasks: await dispatcher.dispatch('list_tasks', {}, call()),
		panel: await tasks.panelTasks(),
		taskHistory: storage.stored.get(HISTORY_KEY),
	};
	assert.equal(places.list_tasks.structuredContent.tasks[0].task, 'Unlock the card with PIN ••••••.');
	for (const [where, data] of Object.entries(places))
		assert.ok(!JSON.stringify(data).includes(PIN), `the PIN in ${where}: ${JSON.stringify(data)}`);
});

// Issue #35 (after findings 2 and 7): the tabs a task opened could be
// acted in and closed by another client while the task ran.
test('the tabs a task opens are held as its own tab, from birth: others\' changes and closes get TAB_BUSY; the hold ends with the task, kept tabs too', async () => {
	const { dispatcher, tasks, model } = setup({
		planner: [{ plan: 'p', next_goal: 'g', status: 'continue' }],
		navigator: [{ actions: [{ tool: 'navigate_to', args: { url: 'http://shop.test/9', new_tab: true } }] }],
	}, { keep_tabs: true });
	dispatcher.register(tabActions);
	dispatcher.services.refs = { expireTab: () => {} };
	const removed = [];
	chrome.tabs.query = async () => [{ id: 1 }, { id: 5 }, { id: 9 }];
	chrome.tabs.remove = async id => { removed.push(id); };
	let atBirth;
	dispatcher.register({ navigate_to: { actsElsewhere: params => params.new_tab === true, run: async (params, context) => {
		context.opened(9);
		/* Another caller, while the new tab's page loads. */
		atBirth = await dispatcher.dispatch('scroll_page', { tab_id: 9, direction: 'down' }, call()).then(() => 'acted', error => error);
		return { content: [{ type: 'text', text: 'Loaded.' }], structuredContent: { tab: { id: 9, url: params.url } } };
	} } });
	const started = await dispatcher.dispatch('run_task', { task: 'Compare two mugs', tab_id: 1, wait: false }, call());
	const id = started.structuredContent.task_id;
	await model.waiting(1);
	assert.ok(busy(`task ${id} ("Compare two mugs")`)(atBirth));
	/* A page of the task's tab opens another tab (target=_blank). */
	await tasks.deps.fence.tabCreated({ id: 5, openerTabId: 1, windowId: 1, pendingUrl: 'http://shop.test/5' });

	for (const tab of [9, 5]) {
		await assert.rejects(dispatcher.dispatch('scroll_page', { tab_id: tab, direction: 'down' }, call(undefined, 'bob')),
		    busy(`task ${id} ("Compare two mugs")`), `tab ${tab}`);
		await assert.rejects(dispatcher.dispatch('manage_tabs', { action: 'close', tab_id: tab }, { ...call(), ownerKey: true }),
		    busy(`task ${id}`), `tab ${tab}, with the owner key`);
		await dispatcher.dispatch('get_browser_state', { tab_id: tab }, call(undefined, 'bob'));
	}
	assert.deepEqual(removed, []);
	await assert.rejects(dispatcher.dispatch('run_task', { task: 'Another', tab_id: 9, wait: false }, call()), busy(`task ${id}`));
	assert.deepEqual([...tasks.deps.fence.fences.keys()], [id], 'the refused task left no fence behind');

	model.pending[0](impossible);
	const result = await (await tasks.get(id, { caller: 'alice' })).done;
	assert.deepEqual(result.opened_tabs.map(tab => [tab.tab_id, tab.kept]), [[9, true], [5, true]]);
	assert.equal(dispatcher.holds.size, 0, 'no hold outlives the task');
	await dispatcher.dispatch('scroll_page', { tab_id: 9, direction: 'down' }, call(undefined, 'bob'));
	await dispatcher.dispatch('manage_tabs', { action: 'close', tab_id: 5 }, call(undefined, 'bob'));
	assert.deepEqual(removed, [5]);
});

// Issue #35 (after finding 7): the task's own words, which named the PIN it
// typed, stayed in clear in TAB_BUSY, the popup's recent actions and the
// tab group's title.
test('once a task types a PIN its words name, TAB_BUSY, the recent actions (earlier ones too) and its tab group\'s title mask it', async () => {
	const PIN = '739164';
	const { dispatcher, tasks, model } = setup({
		planner: [{ plan: 'p', next_goal: 'unlock', status: 'continue' }],
		navigator: [{ actions: [{ tool: 'type_value', args: { ref: 'e1', text: PIN } }] }],
	});
	const control = new PersonControl({ local: { get: async () => ({}) }, session: { get: async () => ({}), set: async () => {} } });
	dispatcher.services.control = control;
	const titles = [];
	tasks.deps.browser.tabGroups.update = async (groupId, { title }) => { titles.push(title); };
	dispatcher.registry.set('get_browser_state', { run: async (params, context) => ({
		content: [{ type: 'text', text: 'e1 textbox "PIN" type=password' }],
		structuredContent: { tab: { id: context.tab.id, url: context.tab.url, title: 'Bank' },
			elements: [{ ref: 'e1', role: 'textbox', name: 'PIN', type: 'password', secret: true }] },
	}) });
	dispatcher.services.refs = { resolve: ref => ({ status: 'ok', entry: { ref, tabId: 1 } }) };
	const typed = [];
	/* The client's scroll, refused while the task types: what it is told then. */
	let refusedMeanwhile;
	dispatcher.register({ type_value: { run: async params => {
		typed.push(params.text);
		refusedMeanwhile = await dispatcher.dispatch('scroll_page', { tab_id: 1, direction: 'down' }, call(undefined, 'bob')).catch(error => error);
		return { content: [{ type: 'text', text: 'Typed 6 characters into e1 (textbox "PIN").' }] };
	} } });
	const started = await dispatcher.dispatch('run_task', { task: `Unlock the card with PIN ${PIN}.`, tab_id: 1, wait: false }, call());
	const id = started.structuredContent.task_id;
	await model.waiting(1);
	assert.deepEqual(typed, [PIN], 'the page got the PIN');
	const masked = `task ${id} ("Unlock the card with PIN ••••••.")`;
	assert.equal(refusedMeanwhile.code, ErrorCode.TAB_BUSY);
	assert.ok(refusedMeanwhile.message.includes(masked), refusedMeanwhile.message);
	const refused = await dispatcher.dispatch('run_task', { task: 'Another', tab_id: 1, wait: false }, call()).catch(error => error);
	assert.ok(refused.message.includes(masked), refused.message);
	const activity = control.snapshot().activity.filter(entry => entry.who.startsWith(`task ${id}`));
	assert.deepEqual(new Set(activity.map(entry => entry.tool)), new Set(['get_browser_state', 'get_page_content', 'type_value']),
	    'the reads before the typing are listed too');
	assert.ok(activity.every(entry => entry.who === masked), JSON.stringify(activity));
	assert.deepEqual(titles, [`Agent: Unlock the card with PIN ${PIN}.`, 'Agent: Unlock the card with PIN ••••••.'],
	    'named before the PIN was typed, renamed once it was');
	for (const [where, data] of Object.entries({ 'TAB_BUSY': [refusedMeanwhile.message, refused.message],
		'the recent actions': control.snapshot(), 'the group title': titles.at(-1) }))
		assert.ok(!JSON.stringify(data).includes(PIN), `the PIN in ${where}: ${JSON.stringify(data)}`);
});

// Issue #35 (after finding 7): press_keys without a ref types into
// whatever has focus; into a secret field its keys were kept in clear.
test('a PIN pressed as keys into a focused secret field is in no answer, list, kept history or panel entry', async () => {
	const PIN = '739164';
	const { dispatcher, tasks, storage } = setup({
		planner: [{ plan: 'p', next_goal: 'unlock', status: 'continue' }],
		navigator: [{ actions: [{ tool: 'click_element', args: { ref: 'e1' } }, { tool: 'press_keys', args: { keys: `${PIN}{Enter}` } }] },
			{ actions: [], done: { answer: `Unlocked with ${PIN}` } }],
		validator: [{ verdict: 'accept', reason: 'The page says unlocked.' }],
	});
	dispatcher.registry.set('get_browser_state', { run: async (params, context) => ({
		content: [{ type: 'text', text: 'e1 textbox "PIN" type=password' }],
		structuredContent: { tab: { id: context.tab.id, url: context.tab.url, title: 'Bank' },
			elements: [{ ref: 'e1', role: 'textbox', name: 'PIN', type: 'password', secret: true }] },
	}) });
	dispatcher.services.refs = { resolve: ref => ({ status: 'ok', entry: { ref, tabId: 1 } }) };
	const pressed = [];
	dispatcher.register({
		click_element: { run: async () => ({ content: [{ type: 'text', text: 'Clicked e1 (textbox "PIN").' }] }) },
		/* As the tool answers keys pressed into a focused secret field: counted, masked, secret. */
		press_keys: { run: async params => {
			pressed.push(params.keys);
			return { content: [{ type: 'text', text: 'Pressed 6 characters and {Enter}.' }],
				structuredContent: { keys: '•'.repeat(params.keys.length), focused: { tag: 'input', id: 'pin' }, secret: true } };
		} },
	});
	const started = await dispatcher.dispatch('run_task', { task: `Unlock the card: press ${PIN} in the PIN field.`, tab_id: 1, wait: false }, call());
	const id = started.structuredContent.task_id;
	const record = await tasks.get(id, { caller: 'alice' });
	await record.done;
	await new Promise(resolve => setTimeout(resolve, 10));	/* keeping is asynchronous */
	assert.deepEqual(pressed, [`${PIN}{Enter}`], 'the page got the keys');
	assert.equal(record.result.stop_reason, 'done');
	assert.deepEqual(record.result.steps.find(step => step.tool === 'press_keys').args, { keys: '•••••••••••••' });
	const places = {
		result: record.result,
		get_task: await dispatcher.dispatch('get_task', { task_id: id }, call()),
		list_tasks: await dispatcher.dispatch('list_tasks', {}, call()),
		panel: await tasks.panelTasks(),
		taskHistory: storage.stored.get(HISTORY_KEY),
	};
	assert.equal(places.list_tasks.structuredContent.tasks[0].task, 'Unlock the card: press •••••• in the PIN field.');
	for (const [where, data] of Object.entries(places))
		assert.ok(!JSON.stringify(data).includes(PIN), `the PIN in ${where}: ${JSON.stringify(data)}`);
});

test('a caller that cancels a waiting run_task ends the hold', async () => {
	const { dispatcher, model } = setup();
	const controller = new AbortController();
	const waiting = dispatcher.dispatch('run_task', { task: 'Cancel me', tab_id: 1 }, call(controller.signal));
	await model.waiting(1);
	assert.equal(dispatcher.holds.size, 1);
	controller.abort(new Error('the client cancelled'));
	const result = await waiting;
	assert.equal(result.structuredContent.stop_reason, 'cancelled');
	assert.equal(dispatcher.holds.size, 0);
});

test('tasks on two tabs hold them independently', async () => {
	const { dispatcher, model } = setup();
	const first = await dispatcher.dispatch('run_task', { task: 'First', tab_id: 1, wait: false }, call());
	const second = await dispatcher.dispatch('run_task', { task: 'Second', tab_id: 2, wait: false }, call());
	await model.waiting(2);
	await dispatcher.dispatch('stop_task', { task_id: first.structuredContent.task_id }, call());
	await dispatcher.dispatch('scroll_page', { tab_id: 1, direction: 'down' }, call());
	await assert.rejects(dispatcher.dispatch('scroll_page', { tab_id: 2, direction: 'down' }, call()), busy(`task ${second.structuredContent.task_id} ("Second")`));
	await dispatcher.dispatch('stop_task', { task_id: second.structuredContent.task_id }, call());
	assert.equal(dispatcher.holds.size, 0);
});

test('task ids are 128 random bits, and a task is visible only to the caller that started it', async () => {
	const { dispatcher, model } = setup({});
	const first = (await dispatcher.dispatch('run_task', { task: 'One', tab_id: 1, wait: false }, call())).structuredContent;
	const second = (await dispatcher.dispatch('run_task', { task: 'Two', tab_id: 2, wait: false }, call())).structuredContent;
	await model.waiting(2);
	assert.match(first.task_id, /^[A-Za-z0-9_-]{22}$/);
	assert.notEqual(first.task_id, second.task_id);
	assert.ok(Date.parse(first.created_at) <= Date.parse(first.updated_at));
	assert.equal(first.keep_ms, TASK_KEEP_MS);

	const notFound = error => error.code === ErrorCode.TASK_NOT_FOUND && /list_tasks/.test(error.message);
	await assert.rejects(dispatcher.dispatch('get_task', { task_id: first.task_id }, call(undefined, 'mallory')), notFound);
	await assert.rejects(dispatcher.dispatch('stop_task', { task_id: first.task_id }, call(undefined, 'mallory')), notFound);
	assert.deepEqual((await dispatcher.dispatch('list_tasks', {}, call(undefined, 'mallory'))).structuredContent.tasks, []);

	const listed = (await dispatcher.dispatch('list_tasks', {}, call())).structuredContent.tasks;
	assert.deepEqual(listed.map(task => task.task_id), [second.task_id, first.task_id]);
	const stopped = await dispatcher.dispatch('stop_task', { task_id: first.task_id }, call());
	assert.equal(stopped.structuredContent.stopped, true);
	const again = await dispatcher.dispatch('stop_task', { task_id: first.task_id }, call());
	assert.equal(again.structuredContent.stopped, false, 'a finished task is not stopped twice');
	assert.equal(again.structuredContent.stop_reason, 'cancelled');
	await dispatcher.dispatch('stop_task', { task_id: second.task_id }, call());
});

test('a finished task is kept for TASK_KEEP_MS, then forgotten', async () => {
	const { dispatcher, model } = setup();
	const id = (await dispatcher.dispatch('run_task', { task: 'Short', tab_id: 1, wait: false }, call())).structuredContent.task_id;
	await model.waiting(1);
	await dispatcher.dispatch('stop_task', { task_id: id }, call());
	const realNow = Date.now;
	try {
		Date.now = () => realNow() + TASK_KEEP_MS - 1000;
		assert.equal((await dispatcher.dispatch('get_task', { task_id: id }, call())).structuredContent.task_id, id);
		Date.now = () => realNow() + TASK_KEEP_MS + 1000;
		await assert.rejects(dispatcher.dispatch('get_task', { task_id: id }, call()), { code: ErrorCode.TASK_NOT_FOUND });
	} finally {
		Date.now = realNow;
	}
});

test('a task while a browser page is in front starts in a new tab at the URL it names, or is refused saying why', async () => {
	const { dispatcher, tasks, model } = setup();
	chrome.tabs.query = async () => [{ id: 3, url: 'chrome://newtab/' }];
	chrome.tabs.get = async id => ({ id, url: id === 3 ? 'chrome://newtab/' : `https://shop.test/${id}` });
	const created = [];
	const opened = [];
	tasks.deps.browser.tabs.create = async ({ url, active }) => {
		created.push(url);
		opened.push(`create ${url} active=${active}`);
		return { id: 9 };
	};
	/* An unfenced task's tab opens at its page, as navigate_to's new_tab does. */
	const loaded = [];
	dispatcher.register({ navigate_to: { actsElsewhere: params => params.new_tab === true, run: async (params, context) => {
		loaded.push([params.tab_id, params.url, params.new_tab]);
		opened.push(`load ${params.url}`);
		context.opened?.(9);
		return { content: [{ type: 'text', text: 'at it' }] };
	} } });
	await assert.rejects(tasks.start({ task: 'Find a blue mug' }, () => {}, { byPerson: true }), error => {
		assert.equal(error.code, ErrorCode.URL_NOT_ALLOWED);
		assert.match(error.message, /^The task cannot run in tab 3: chrome: pages \(chrome:\/\/newtab\/\) are browser or extension pages/);
		assert.match(error.message, /name the page to start on in the task \(as https:\/\/example\.com\/\): the task then starts there in a new tab/);
		return true;
	});
	await assert.rejects(dispatcher.dispatch('run_task', { task: 'Find a blue mug', wait: false }, call()),
	    { code: ErrorCode.URL_NOT_ALLOWED, message: /Pass start_url/ });
	await assert.rejects(dispatcher.dispatch('run_task', { task: 'On https://shop.test/ find a mug', tab_id: 3, wait: false }, call()),
	    { code: ErrorCode.URL_NOT_ALLOWED }, 'a tab named by tab_id is not swapped for a new one');
	assert.deepEqual(created, []);
	assert.deepEqual(loaded, []);
	const record = await tasks.start({ task: 'On https://shop.test/mugs, find a blue mug.' }, () => {}, { byPerson: true });
	assert.equal(record.tabId, 9);
	assert.deepEqual(created, []);
	assert.deepEqual(loaded, [[undefined, 'https://shop.test/mugs', true]]);
	assert.deepEqual(opened, ['load https://shop.test/mugs']);
	await model.waiting(1);
	assert.equal(record.result, null, 'it runs');
});

test('a start that fails once its blank tab is open closes that tab: the tools unreadable, the fence refused', async () => {
	const { tasks, closed } = setup({}, { allowed_domains: ['shop.test'] });
	let next = 20;
	tasks.deps.browser.tabs.create = async () => ({ id: next++ });
	tasks.deps.evaluateEnabled = async () => { throw new Error('storage is not available'); };
	await assert.rejects(tasks.start({ task: 'Find a mug', start_url: 'https://shop.test/' }), /storage is not available/);
	assert.deepEqual(closed, [20]);
	tasks.deps.evaluateEnabled = async () => false;
	tasks.deps.fence.enclose = async () => { throw new Error('rule limit reached'); };
	await assert.rejects(tasks.start({ task: 'Find a mug', start_url: 'https://shop.test/' }),
	    { code: ErrorCode.INVALID_ARGUMENT, message: /refused to fence the task .*rule limit reached/ });
	assert.deepEqual(closed, [20, 21]);
	assert.equal(tasks.tasks.size, 0);

	/* A tab the browser will not open fails the start once, while the tools are still being read: no unhandled rejection. */
	tasks.deps.browser.tabs.create = async () => { throw new Error('No current window'); };
	tasks.deps.evaluateEnabled = () => new Promise(resolve => setTimeout(() => resolve(false), 50));
	await assert.rejects(tasks.start({ task: 'Find a mug', start_url: 'https://shop.test/' }), /No current window/);
	assert.deepEqual(closed, [20, 21]);
});

test('an unfenced start_url task opens its tab at start_url, held from the moment it exists; a failed load closes it', async () => {
	const { dispatcher, tasks, model, closed } = setup();
	const created = [];
	tasks.deps.browser.tabs.create = async ({ url }) => {
		created.push(url);
		return { id: 30 };
	};
	let load = async () => {};
	const calls = [];
	let nextTab = 8;
	dispatcher.register({ navigate_to: { actsElsewhere: params => params.new_tab === true, run: async (params, context) => {
		calls.push(params);
		const tabId = nextTab++;
		context.opened(tabId);
		/* Another caller cannot act in the tab while it loads. */
		await assert.rejects(dispatcher.dispatch('scroll_page', { tab_id: tabId, direction: 'down' }, call()), busy('task'));
		await load();
		return { content: [{ type: 'text', text: 'at it' }] };
	} } });
	const record = await tasks.start({ task: 'Find a mug', start_url: 'https://shop.test/' });
	assert.equal(record.tabId, 8);
	assert.deepEqual(calls, [{ url: 'https://shop.test/', new_tab: true }]);
	assert.deepEqual(created, [], 'no blank tab first');
	assert.equal(tasks.deps.fence.ownerOf(8), record.id, 'its tabs are kept track of');
	await model.waiting(1);

	load = async () => { throw new Error('net::ERR_CONNECTION_REFUSED'); };
	await assert.rejects(tasks.start({ task: 'Find a cup', start_url: 'https://shop.test/cups' }), /ERR_CONNECTION_REFUSED/);
	assert.deepEqual(closed, [9]);
	assert.equal(tasks.tasks.size, 1);
	assert.equal(dispatcher.holds.has(9), false);
	assert.equal(tasks.deps.fence.ownerOf(9), undefined);
	assert.equal(dispatcher.holds.get(8)?.id, record.id, 'the failed start released only its own hold');
});

test('an unfenced start whose first page a fence going up meanwhile stopped loads it again in its tab; a fence not yet ready is ended once it is', async () => {
	const { dispatcher, tasks, model, closed } = setup();
	const calls = [];
	let refuse = null;
	dispatcher.register({ navigate_to: { actsElsewhere: params => params.new_tab === true, run: async (params, context) => {
		calls.push(params);
		if (refuse !== null)
			return refuse(context);
		if (params.new_tab) {
			context.opened(50);
			if (calls.length === 1)
				throw new BridgeError(ErrorCode.NAVIGATION_FAILED,
				    'https://shop.test/ did not load: net::ERR_BLOCKED_BY_CLIENT (the browser or a policy blocked the page).');
		}
		return { content: [{ type: 'text', text: 'at it' }] };
	} } });
	const record = await tasks.start({ task: 'Find a mug', start_url: 'https://shop.test/' });
	assert.equal(record.tabId, 50);
	assert.deepEqual(calls, [{ url: 'https://shop.test/', new_tab: true }, { tab_id: 50, url: 'https://shop.test/' }]);
	assert.deepEqual(closed, []);
	await model.waiting(1);
	record.controller.abort(new Error('done'));
	await record.done.catch(() => {});

	/* Another failure is not tried again; the fence, set up after the failure, is ended all the same. */
	let ready;
	tasks.deps.fence.ready = new Promise(resolve => { ready = resolve; });
	refuse = context => {
		context.opened(51);
		setTimeout(ready, 20);
		throw new BridgeError(ErrorCode.NAVIGATION_FAILED, 'https://shop.test/ did not load: net::ERR_CONNECTION_REFUSED.');
	};
	await assert.rejects(tasks.start({ task: 'Find a cup', start_url: 'https://shop.test/' }), /ERR_CONNECTION_REFUSED/);
	assert.deepEqual(closed, [51]);
	await tasks.deps.fence.ready;
	await new Promise(resolve => setTimeout(resolve, 20));
	assert.equal(tasks.deps.fence.ownerOf(51), undefined, 'no fence is left behind for a task that never started');
});

test('while a fenced task runs, an unfenced start_url task opens blank first, so its first page meets its own rules', async () => {
	const { dispatcher, tasks, model } = setup();
	let next = 40;
	const created = [];
	tasks.deps.browser.tabs.create = async ({ url }) => {
		created.push(url);
		return { id: next++ };
	};
	const loaded = [];
	dispatcher.register({ navigate_to: { actsElsewhere: params => params.new_tab === true, run: async params => {
		loaded.push([params.tab_id, params.url, params.new_tab]);
		return { content: [{ type: 'text', text: 'at it' }] };
	} } });
	await tasks.start({ task: 'Find a mug', start_url: 'https://shop.test/', allowed_domains: ['shop.test'] });
	await tasks.start({ task: 'Find a book', start_url: 'https://books.test/' });
	assert.deepEqual(created, ['about:blank', 'about:blank']);
	assert.deepEqual(loaded, [[40, 'https://shop.test/', undefined], [41, 'https://books.test/', undefined]]);
	await model.waiting(2);
});

test('urlInTask finds the first http(s) URL a task names, without the sentence\'s punctuation', () => {
	assert.equal(urlInTask('Go to https://shop.test/mugs?c=blue. Then buy one.'), 'https://shop.test/mugs?c=blue');
	assert.equal(urlInTask('(see http://a.test/x), then https://b.test/'), 'http://a.test/x');
	assert.equal(urlInTask('Buy a mug on shop.test'), null);
	assert.equal(urlInTask('ftp://files.test/ is not a page'), null);
});

test('the person\'s hand: a panel task is invisible to MCP clients; stop gives stopped_by_user; the last HISTORY_MAX are kept', async () => {
	const { dispatcher, tasks, model } = setup();
	const mine = await tasks.start({ task: 'Mine', tab_id: 1 }, () => {}, { byPerson: true });
	await model.waiting(1);
	await assert.rejects(dispatcher.dispatch('get_task', { task_id: mine.id }, call()), { code: ErrorCode.TASK_NOT_FOUND });
	let shown = await tasks.panelTasks();
	assert.deepEqual(shown.map(task => [task.id, task.started_by, task.status]), [[mine.id, 'you', 'running']]);
	await tasks.control(mine.id, 'pause');
	assert.equal((await tasks.panelTasks())[0].status, 'paused');
	await tasks.control(mine.id, 'stop');
	await assert.rejects(tasks.control(mine.id, 'resume'), { code: ErrorCode.TASK_NOT_FOUND });
	await new Promise(resolve => setTimeout(resolve, 10));	/* keeping is asynchronous */
	shown = await tasks.panelTasks();
	assert.deepEqual(shown.map(task => [task.id, task.status, task.stop_reason]), [[mine.id, 'finished', 'stopped_by_user']]);

	for (let i = 0; i < HISTORY_MAX + 3; i++) {
		const record = await tasks.start({ task: `Task ${i}`, tab_id: 2 }, () => {}, { byPerson: true });
		await tasks.control(record.id, 'stop');
	}
	await new Promise(resolve => setTimeout(resolve, 10));
	shown = await tasks.panelTasks();
	assert.equal(shown.length, HISTORY_MAX);
	assert.equal(shown[0].task, `Task ${HISTORY_MAX + 2}`, 'newest first');
	await tasks.forget(shown[0].id);
	assert.equal((await tasks.panelTasks())[0].task, `Task ${HISTORY_MAX + 1}`);
});

test('the side panel hears once for a burst of changes, and the kept tasks are read from storage once', async () => {
	let notices = 0;
	const { tasks, model, storage } = setup(undefined, {}, { onChange: () => notices++ });
	const first = await tasks.start({ task: 'First', tab_id: 1 }, () => {}, { byPerson: true });
	await model.waiting(1);
	for (let i = 0; i < 5; i++)
		tasks.changed();
	assert.equal(notices, 0, 'the notice waits for the burst to end');
	await new Promise(resolve => setTimeout(resolve, PANEL_NOTICE_MS * 2));
	assert.equal(notices, 1, 'one notice for the start and five changes');

	await tasks.control(first.id, 'stop');
	await first.done;
	const second = await tasks.start({ task: 'Second', tab_id: 2 }, () => {}, { byPerson: true });
	await tasks.control(second.id, 'stop');
	await second.done;
	await new Promise(resolve => setTimeout(resolve, 10));	/* keeping is asynchronous */
	for (let i = 0; i < 3; i++)
		assert.deepEqual((await tasks.panelTasks()).map(task => task.task), ['Second', 'First']);
	await tasks.forget(second.id);
	assert.deepEqual((await tasks.panelTasks()).map(task => task.task), ['First']);
	assert.deepEqual(storage.reads.filter(key => key === HISTORY_KEY), [HISTORY_KEY], 'storage was read once');
	assert.deepEqual(storage.stored.get(HISTORY_KEY).map(task => task.id), [first.id], 'and told every change');
});

test('a failed read or write of the kept tasks is not remembered: the next read or change starts from storage', async () => {
	const { tasks, storage } = setup();
	const names = list => list.map(task => task.task);
	storage.stored.set(HISTORY_KEY, [{ id: 'a', task: 'A' }, { id: 'b', task: 'B' }, { id: 'c', task: 'C' }]);
	storage.failNextRead = true;
	const refused = tasks.panelTasks();
	const queued = tasks.forget('a');	/* made while the read that fails is under way */
	await assert.rejects(refused, /storage is not available/);
	await queued;
	assert.deepEqual(names(storage.stored.get(HISTORY_KEY)), ['B', 'C'], 'the change behind the failed read was made');
	assert.deepEqual(names(await tasks.panelTasks()), ['B', 'C']);
	storage.failNextWrite = true;
	await assert.rejects(tasks.forget('b'), /storage is full/);
	assert.deepEqual(names(await tasks.panelTasks()), ['B', 'C'], 'what storage holds, not the change it refused');
	await tasks.forget('c');
	assert.deepEqual(names(storage.stored.get(HISTORY_KEY)), ['B']);
});

test('a task that asks the person is input_required to MCP clients, with the question; its own client\'s answer_task lets it go on', async () => {
	const { dispatcher, tasks, model } = setup({
		planner: [{ plan: 'p', next_goal: 'g', status: 'continue' }],
		navigator: [{ thought: 't', actions: [{ tool: 'ask_user', args: { question: 'Which size?' } }] }],
	});
	const started = (await dispatcher.dispatch('run_task', { task: 'Buy a shirt', tab_id: 1, wait: false }, call())).structuredContent;
	let seen;
	for (let i = 0; i < 100; i++) {
		seen = await dispatcher.dispatch('get_task', { task_id: started.task_id }, call());
		if (seen.structuredContent.status === 'input_required')
			break;
		await new Promise(resolve => setTimeout(resolve, 10));
	}
	assert.equal(seen.structuredContent.question, 'Which size?');
	assert.match(seen.content[0].text, /waits for the person at the browser, who was asked: "Which size\?"/);
	assert.equal((await tasks.panelTasks())[0].status, 'waiting');
	assert.equal(seen.structuredContent.question_id, 'q1');
	await assert.rejects(dispatcher.dispatch('answer_task', { task_id: started.task_id, answer: 'S' }, call(undefined, 'mallory')),
	    { code: ErrorCode.TASK_NOT_FOUND }, 'another caller cannot answer');
	const stale = await dispatcher.dispatch('answer_task', { task_id: started.task_id, answer: 'S', question_id: 'q0' }, call());
	assert.equal(stale.structuredContent.answered, false, 'an answer to another question is not taken');
	assert.match(stale.content[0].text, /^Nothing was waiting for that answer/);
	const answered = await dispatcher.dispatch('answer_task', { task_id: started.task_id, answer: 'M', question_id: 'q1' }, call());
	assert.equal(answered.structuredContent.answered, true);
	await model.waiting(1);	/* the navigator is asked again, with the answer */
	assert.equal((await tasks.panelTasks())[0].status, 'running');
	await assert.rejects(tasks.control(started.task_id, 'answer', 'L'), { code: ErrorCode.INVALID_ARGUMENT },
	    'a second answer finds nothing waiting');
	await tasks.control(started.task_id, 'stop');
});

test('the tab group forms while the task reads its page and asks its model; the result waits for it; the trace hears the start', { timeout: 10000 }, async () => {
	const { dispatcher, tasks, model, issued } = setup({ planner: [{ plan: 'p', next_goal: 'g', status: 'continue' }] });
	let formGroup;
	tasks.deps.browser.tabs.group = () => new Promise(resolve => {
		formGroup = resolve;
	});
	const heard = [];
	tasks.deps.trace = () => phase => heard.push(phase);
	const started = await dispatcher.dispatch('run_task', { task: 'Buy a mug', tab_id: 1, wait: false }, call());
	await model.waiting(1);
	const record = await tasks.get(started.structuredContent.task_id, { caller: 'alice' });
	assert.equal(record.groupId, undefined, 'the navigator is asked before the group has formed');
	assert.equal(issued.length, 2, 'the page was read meanwhile');
	model.pending[0]({ actions: [], done: { answer: 'Mug ordered' } });
	await model.waiting(2);
	model.pending[1]({ verdict: 'accept', reason: 'ok' });
	let finished = false;
	record.done.then(() => {
		finished = true;
	});
	await new Promise(resolve => setTimeout(resolve, 50));
	assert.equal(finished, false, 'the result waits for the group');
	formGroup(7);
	assert.equal((await record.done).stop_reason, 'done');
	assert.equal(record.groupId, 7);
	assert.deepEqual(heard, ['start: page', 'start: settings', 'start: tools', 'start: fence', 'read', 'page text', 'model planner',
		'model navigator', 'model validator', 'alongside: tab group', 'end: fence and tabs']);
});

test('an action that reports the page gives the task its tab\'s URL; one that does not, the tab is asked', async () => {
	const asked = [];
	chrome.tabs.get = async id => {
		asked.push(id);
		return { id, url: 'http://shop.test/asked' };
	};
	const replies = {
		click_element: { content: [{ type: 'text', text: 'Clicked.' }, { type: 'text', text: 'e2 button "Pay"' }],
			structuredContent: { state: { tab: { id: 1, url: 'http://shop.test/cart', title: 'Cart' }, elements: [{ ref: 'e2', name: 'Pay' }] } } },
		wait_for: { content: [{ type: 'text', text: 'Waited.' }], structuredContent: {} },
	};
	const tasks = new TaskManager({
		dispatcher: {
			catalogueActions: () => AGENT_CATALOGUE,
			dispatch: async method => replies[method],
		},
		fence: new Fence({ rules: { getSessionRules: async () => [], updateSessionRules: async () => {} }, tabs: chrome.tabs }),
	});
	const browser = tasks.tabBrowser(1, { kind: 'task', id: 't' }, 't');
	const clicked = await browser.act('click_element', { ref: 'e1' }, new AbortController().signal);
	assert.equal(clicked.url, 'http://shop.test/cart');
	assert.equal(clicked.view.url, 'http://shop.test/cart');
	assert.equal(clicked.text, 'Clicked.');
	assert.deepEqual(asked, [], 'the reported page says where the tab is');
	const waited = await browser.act('wait_for', { delay_ms: 1 }, new AbortController().signal);
	assert.deepEqual({ url: waited.url, view: waited.view, asked }, { url: 'http://shop.test/asked', view: undefined, asked: [1] });
});

test('the task\'s reads and actions ask for the page\'s text in the same pass; it reaches the loop cut as get_page_content cuts it', async () => {
	const calls = [];
	const long = 'x'.repeat(PAGE_TEXT_CHARS + 5);
	const state = { tab: { id: 1, url: 'http://shop.test/cart', title: 'Cart' }, elements: [] };
	const replies = {
		get_browser_state: { content: [{ type: 'text', text: 'e1 button "Pay"' }], structuredContent: state, pageText: 'Cart\nOne mug' },
		click_element: { content: [{ type: 'text', text: 'Clicked.' }, { type: 'text', text: 'e2 link "Home"' }], structuredContent: { state }, pageText: long },
		type_value: { content: [{ type: 'text', text: 'Typed.' }, { type: 'text', text: 'e3 textbox "Name"' }], structuredContent: { state }, pageText: null },
	};
	const tasks = new TaskManager({
		dispatcher: {
			catalogueActions: () => AGENT_CATALOGUE,
			dispatch: async (method, params, call) => {
				calls.push(`${method} ${call.pageText}`);
				return replies[method];
			},
		},
		fence: new Fence({ rules: { getSessionRules: async () => [], updateSessionRules: async () => {} }, tabs: chrome.tabs }),
	});
	const browser = tasks.tabBrowser(1, { kind: 'task', id: 't' }, 't');
	const signal = new AbortController().signal;
	assert.equal((await browser.read(signal)).page_text, 'Cart\nOne mug');
	assert.equal((await browser.act('click_element', { ref: 'e1' }, signal)).view.page_text,
	    contentText(long, '', PAGE_TEXT_CHARS).text, 'the same text and the same cut as get_page_content with max_chars');
	assert.match((await browser.act('click_element', { ref: 'e1' }, signal)).view.page_text, /^x+\n\n\[Content cut: showing the first \d+ of \d+ characters/);
	assert.equal((await browser.act('type_value', { ref: 'e3', text: 'Ann' }, signal)).view.page_text, undefined,
	    'a page that gave no text: the loop reads it with get_page_content when it needs it');
	assert.deepEqual(calls, ['get_browser_state true', 'click_element true', 'click_element true', 'type_value true']);
});

// An OAuth client's key names its scopes on each request (protocol.md,
// section 9): its task's agents get only the tools those allow, and a key
// without pages:read starts no task, for the agents could not see a page.
test('a task keeps to the scopes of the key that started it', async () => {
	const { dispatcher, tasks, model } = setup({ planner: [{ plan: 'p', next_goal: 'g', status: 'continue' }] });
	const names = tools => tools.map(tool => tool.name);
	assert.deepEqual(names(await tasks.modelTools()), ['get_browser_state', 'scroll_page', 'get_page_content'], 'the owner key: every tool');
	assert.deepEqual(names(await tasks.modelTools(['pages:read', 'tasks'])), ['get_browser_state', 'get_page_content'],
	    'without pages:act the agents only read');
	const runner = new RequestRunner({ send: () => {}, dispatch: (method, params, context) => dispatcher.dispatch(method, params, context) });
	const seen = [];
	const modelTools = tasks.modelTools.bind(tasks);
	tasks.modelTools = scopes => { seen.push(scopes); return modelTools(scopes); };
	runner.handle({ type: 'request', id: 1, method: 'run_task', params: { task: 'Read the headline', tab_id: 1, wait: false },
		timeout_ms: 60000, caller: 'a'.repeat(32), scopes: ['pages:read', 'tasks'] });
	await model.waiting(1);
	assert.deepEqual(seen, [['pages:read', 'tasks']], 'the request\'s scopes reach the task');
	await assert.rejects(dispatcher.dispatch('run_task', { task: 'Read the headline', tab_id: 2, wait: false }, { ...call(), scopes: ['tasks'] }),
	    error => error.code === ErrorCode.INVALID_ARGUMENT && /lacks the scope pages:read/.test(error.message));
});

// Issue #25: every client holds a key of its own, and the host names it in
// each request (`caller`, the same across its sessions); the owner key's
// requests say `owner: true`. Here the requests come as the host sends them,
// through the RequestRunner, so what the extension reads off each message is
// what decides who sees a task.
test('each caller sees only its own tasks; the owner key sees and acts on all; the person\'s tasks stay the person\'s', async () => {
	const { dispatcher, tasks, model } = setup();
	const sent = [];
	const runner = new RequestRunner({ send: message => sent.push(message), dispatch: (method, params, context) => dispatcher.dispatch(method, params, context) });
	let next = 1;
	const ask = (who, method, params) => new Promise(resolve => {
		const id = next++;
		const before = sent.length;
		runner.handle({ type: 'request', id, method, params, timeout_ms: 60000, ...who });
		const poll = () => {
			const reply = sent.slice(before).find(message => message.type === 'response' && message.id === id);
			if (reply !== undefined)
				resolve(reply);
			else
				setTimeout(poll, 2);
		};
		poll();
	});
	const alice = { caller: 'a'.repeat(32), client: 'alice 1.0' };
	const bob = { caller: 'b'.repeat(32), client: 'bob 1.0' };
	const owner = { caller: 'c'.repeat(32), owner: true };
	const hers = (await ask(alice, 'run_task', { task: 'Alice\'s errand', tab_id: 1, wait: false })).result.structuredContent.task_id;
	const his = (await ask(bob, 'run_task', { task: 'Bob\'s errand', tab_id: 2, wait: false })).result.structuredContent.task_id;
	const person = await tasks.start({ task: 'Mine', tab_id: 3 }, () => {}, { byPerson: true });
	await model.waiting(3);

	const ids = reply => reply.result.structuredContent.tasks.map(task => task.task_id);
	assert.deepEqual(ids(await ask(alice, 'list_tasks', {})), [hers]);
	assert.deepEqual(ids(await ask(bob, 'list_tasks', {})), [his]);
	for (const [method, params] of [['get_task', {}], ['answer_task', { answer: 'yes' }], ['stop_task', {}]]) {
		const refused = await ask(bob, method, { task_id: hers, ...params });
		assert.equal(refused.error?.code, ErrorCode.TASK_NOT_FOUND, `${method} of another caller's task`);
		assert.doesNotMatch(refused.error.message, /Alice/, 'nothing of the task leaks');
	}
	assert.equal((await ask({}, 'get_task', { task_id: hers })).error?.code, ErrorCode.TASK_NOT_FOUND,
	    'a request naming no caller sees nothing');
	assert.equal((await tasks.get(hers, { caller: alice.caller })).result, null, 'Bob\'s stop_task did not stop it');

	assert.deepEqual(new Set(ids(await ask(owner, 'list_tasks', {}))), new Set([hers, his]), 'the owner key lists every client\'s tasks');
	assert.equal((await ask(owner, 'get_task', { task_id: his })).result.structuredContent.task_id, his);
	for (const who of [alice, bob, owner])
		assert.equal((await ask(who, 'get_task', { task_id: person.id })).error?.code, ErrorCode.TASK_NOT_FOUND,
		    'the person\'s side-panel task is no client\'s');
	assert.equal((await ask(owner, 'stop_task', { task_id: hers })).result.structuredContent.stopped, true, 'the owner key may stop it');
	assert.equal((await ask(alice, 'get_task', { task_id: hers })).result.structuredContent.stop_reason, 'cancelled');
	await ask(bob, 'stop_task', { task_id: his });
	await tasks.control(person.id, 'stop');
});

test('revoking a client stops its running tasks only: another client\'s and the person\'s go on', async () => {
	const { dispatcher, tasks, model } = setup();
	const hers = (await dispatcher.dispatch('run_task', { task: 'Alice\'s errand', tab_id: 1, wait: false }, call(undefined, 'alice')))
	    .structuredContent.task_id;
	const his = (await dispatcher.dispatch('run_task', { task: 'Bob\'s errand', tab_id: 2, wait: false }, call(undefined, 'bob')))
	    .structuredContent.task_id;
	const person = await tasks.start({ task: 'Mine', tab_id: 3 }, () => {}, { byPerson: true });
	await model.waiting(3);
	assert.equal(await tasks.stopCaller('alice', 'The person revoked the client that started this task.'), 1);
	const ended = await tasks.get(hers, { caller: 'alice' });
	assert.equal(ended.result.stop_reason, 'cancelled');
	assert.equal((await tasks.get(his, { caller: 'bob' })).result, null, 'the other client\'s task runs on');
	assert.equal(person.result, null, 'the person\'s task runs on');
	assert.equal(await tasks.stopCaller('alice', 'again'), 0, 'nothing left to stop');
	await tasks.stop(his, 'done', { caller: 'bob' });
	await tasks.control(person.id, 'stop');
});
