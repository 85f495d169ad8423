// Recipes (src/recipes/): locators found again by role, name, context and
// nth; a recording made into a recipe with parameters, where a secret is
// never stored; parameters bound and substituted; the store's owners and
// cap; and the dispatcher recording the calls of a caller that records.

import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';

import { describeTarget, nearest, resolveTarget, targetOf } from '../src/recipes/locator.js';
import { buildRecipe, Recorder, Recordings, MAX_PARAMETERS } from '../src/recipes/record.js';
import { bindParameters, RecipeRunner, samePage } from '../src/recipes/replay.js';
import { validateRecipe } from '../src/recipes/schema.js';
import { RecipeStore, RECIPES_KEY, RECIPES_PER_OWNER } from '../src/recipes/store.js';
import { Dispatcher } from '../src/dispatcher.js';
import { ErrorCode } from '../src/errors.js';

// A page's state: two "Delete" buttons, two unnamed checkboxes told apart by context.
const PAGE = [
	{ ref: 'e1', role: 'link', name: 'Home' },
	{ ref: 'e2', role: 'button', name: 'Delete' },
	{ ref: 'e3', role: 'checkbox', name: '', context: 'Milk' },
	{ ref: 'e4', role: 'button', name: 'Delete' },
	{ ref: 'e5', role: 'checkbox', name: '', context: 'Eggs' },
	{ ref: 'e6', role: 'textbox', name: 'Password', secret: true },
	{ ref: 'e7', role: 'textbox', name: 'Email' },
];

test('a locator names an element by role, name, context and which of equal matches', () => {
	assert.deepEqual(targetOf(PAGE[3], PAGE), { role: 'button', name: 'Delete', nth: 1 });
	assert.deepEqual(targetOf(PAGE[1], PAGE), { role: 'button', name: 'Delete', nth: 0 });
	assert.deepEqual(targetOf(PAGE[4], PAGE), { role: 'checkbox', name: '', context: 'Eggs', nth: 0 });
	assert.equal(describeTarget(targetOf(PAGE[3], PAGE)), 'button "Delete" (match 2)');
	assert.equal(describeTarget(targetOf(PAGE[4], PAGE)), 'checkbox "" in "Eggs"');
});

test('a locator finds its element again in a changed page (new refs, moved, others added)', () => {
	const later = [
		{ ref: 'e20', role: 'heading', name: 'List' },
		{ ref: 'e21', role: 'checkbox', name: '', context: 'Eggs' },
		{ ref: 'e22', role: 'button', name: 'Delete' },
		{ ref: 'e23', role: 'checkbox', name: '', context: 'Milk' },
		{ ref: 'e24', role: 'button', name: 'Delete' },
	];
	assert.equal(resolveTarget({ role: 'button', name: 'Delete', nth: 1 }, later).ref, 'e24');
	assert.equal(resolveTarget({ role: 'checkbox', name: '', context: 'Milk', nth: 0 }, later).ref, 'e23');
	assert.equal(resolveTarget({ role: 'button', name: 'Delete', nth: 2 }, later), undefined, 'no third match');
	assert.equal(resolveTarget({ role: 'button', name: 'Remove', nth: 0 }, later), undefined);
	assert.equal(resolveTarget({ role: 'checkbox', name: '', nth: 0 }, later), undefined, 'the context must match too');
});

test('a missing element\'s nearest offers are of its role and closest name first', () => {
	const page = [
		{ ref: 'e1', role: 'link', name: 'Place order' },
		{ ref: 'e2', role: 'button', name: 'Cancel' },
		{ ref: 'e3', role: 'button', name: 'Submit order' },
		{ ref: 'e4', role: 'textbox', name: 'Full name' },
	];
	assert.deepEqual(nearest({ role: 'button', name: 'Place order' }, page).map(e => e.ref), ['e3', 'e2', 'e1']);
});

// A recorded call as the Recorder keeps it.
function recorded(tool, args, targets = {}, { secrets = [], before = 'https://shop.example/a', after = before, present = null, fieldTargets } = {}) {
	return { tool, args, targets, secrets: new Set(secrets), before, after, present, ...(fieldTargets ? { fieldTargets } : {}) };
}

const ABOUT = { name: 'Sign in and order', owner: 'client-a', source: { kind: 'recording' } };

test('values typed and chosen become parameters with their defaults; a secret never is stored', () => {
	const email = { role: 'textbox', name: 'Email', nth: 0 };
	const password = { role: 'textbox', name: 'Password', nth: 0 };
	const recipe = buildRecipe([
		recorded('navigate_to', { url: 'https://shop.example/login' }, {}, { before: 'about:blank', after: 'https://shop.example/login' }),
		recorded('type_value', { text: 'ada@example.com' }, { target: email }, { before: 'https://shop.example/login' }),
		recorded('type_value', { text: 'hunter22-SECRET', submit: true }, { target: password },
		    { secrets: ['target'], before: 'https://shop.example/login', after: 'https://shop.example/home' }),
		recorded('select_option', { values: ['Canada'] }, { target: { role: 'combobox', name: 'Country', nth: 0 } },
		    { before: 'https://shop.example/home' }),
		recorded('fill_form', { fields: [{ value: 'Ada' }, { value: '1234-PIN-x' }, { value: true }] }, {}, {
			before: 'https://shop.example/home', secrets: ['field 1'],
			fieldTargets: [{ role: 'textbox', name: 'Email', nth: 0 }, { role: 'textbox', name: 'PIN', nth: 0 },
				{ role: 'checkbox', name: '', context: 'Gift wrap', nth: 0 }],
		}),
	], ABOUT);
	const text = JSON.stringify(recipe);
	assert.doesNotMatch(text, /hunter22|1234-PIN/, 'no secret in the recipe');
	assert.equal(recipe.start_url, 'https://shop.example/login', 'a first navigation is the start URL');
	assert.deepEqual(recipe.allowed_domains, ['shop.example']);
	assert.deepEqual(recipe.parameters, [
		{ name: 'email', default: 'ada@example.com', secret: false },
		{ name: 'password', secret: true, required: true },
		{ name: 'country', default: 'Canada', secret: false },
		{ name: 'email_2', default: 'Ada', secret: false },
		{ name: 'pin', secret: true, required: true },
	]);
	assert.deepEqual(recipe.steps.map(step => step.args), [
		{ text: '{{email}}' },
		{ text: '{{password}}', submit: true },
		{ values: ['{{country}}'] },
		{ fields: [{ target: { role: 'textbox', name: 'Email', nth: 0 }, value: '{{email_2}}' },
			{ target: { role: 'textbox', name: 'PIN', nth: 0 }, value: '{{pin}}' },
			{ target: { role: 'checkbox', name: '', context: 'Gift wrap', nth: 0 }, value: true }] },
	]);
	assert.deepEqual(recipe.steps[0].target, email);
	assert.deepEqual(recipe.steps[1].expect, { url: 'https://shop.example/home' }, 'the page the step reached');
	assert.match(recipe.id, /^rcp_[A-Za-z0-9_-]{16}$/);
	assert.deepEqual(validateRecipe(recipe).errors, [], 'the recipe follows the schema');
});

test('a step that stays on its page expects the next step\'s element when it was not there before', () => {
	const more = { role: 'button', name: 'Show more', nth: 0 };
	const hidden = { role: 'link', name: 'Details', nth: 0 };
	const recipe = buildRecipe([
		recorded('click_element', {}, { target: more }, { present: new Set(['button\nShow more']) }),
		recorded('click_element', {}, { target: hidden }, { present: new Set(['button\nShow more', 'link\nDetails']) }),
	], ABOUT);
	assert.deepEqual(recipe.steps[0].expect, { appears: { role: 'link', name: 'Details' } });
	assert.deepEqual(recipe.steps[1].expect, {});
	assert.equal(recipe.start_url, 'https://shop.example/a');
});

test('past the parameter limit a plain value stays as typed; a secret still becomes a parameter', () => {
	const field = i => ({ target: { role: 'textbox', name: `Field ${i}`, nth: 0 } });
	const calls = Array.from({ length: MAX_PARAMETERS + 1 }, (_, i) => recorded('type_value', { text: `v${i}` }, field(i)));
	calls.push(recorded('type_value', { text: 'top-SECRET' }, field(99), { secrets: ['target'] }));
	const recipe = buildRecipe(calls, ABOUT);
	assert.equal(recipe.steps[MAX_PARAMETERS].args.text, `v${MAX_PARAMETERS}`);
	assert.equal(recipe.parameters.length, MAX_PARAMETERS + 1);
	assert.doesNotMatch(JSON.stringify(recipe), /top-SECRET/);
});

test('parameters: the caller\'s values, else defaults; unknown and missing ones refused', () => {
	const recipe = { parameters: [{ name: 'email', default: 'a@b.c', secret: false }, { name: 'password', secret: true, required: true }] };
	assert.deepEqual(bindParameters(recipe, { password: 'pw' }), { email: 'a@b.c', password: 'pw' });
	assert.throws(() => bindParameters(recipe, {}), error => error.code === ErrorCode.INVALID_ARGUMENT &&
	    /needs the parameter password \(a secret, never stored\)/.test(error.message));
	assert.throws(() => bindParameters(recipe, { password: 'pw', nick: 'x' }), /no parameter nick; its parameters are email, password/);
	assert.throws(() => bindParameters(recipe, { password: 7 }), /password must be a string/);
	assert.ok(samePage('https://a.example/c.html?x=1', 'https://a.example/c.html?x=2#y'));
	assert.ok(!samePage('https://a.example/c.html', 'https://a.example/d.html'));
});

// chrome.storage.local as a map.
function fakeStorage() {
	const data = new Map();
	return {
		data,
		get: async key => (data.has(key) ? { [key]: structuredClone(data.get(key)) } : {}),
		set: async items => Object.entries(items).forEach(([key, value]) => data.set(key, structuredClone(value))),
	};
}

// A one-step recipe of an owner, with an id of its own.
function ownedRecipe(owner, id, version = 1) {
	return buildRecipe([recorded('click_element', {}, { target: { role: 'button', name: 'Go', nth: 0 } })],
	    { ...ABOUT, owner, id, version });
}

test('the store refuses a recipe that breaks the schema, saying why', async () => {
	const store = new RecipeStore(fakeStorage());
	const broken = { ...ownedRecipe('alice', 'rcp_aaaa'), steps: [{ tool: 'click_element', args: { ref: 'e12' } }] };
	await assert.rejects(store.save(broken), error => error.code === ErrorCode.INVALID_ARGUMENT &&
	    /^The recipe was not saved: .*steps\[0\]\.args/.test(error.message));
	assert.deepEqual(await store.all(), []);
});

test('a recipe is its maker\'s: others neither list, get, nor delete it; the owner key and the person see all', async () => {
	const store = new RecipeStore(fakeStorage());
	await store.save(ownedRecipe('alice', 'rcp_aaaa'));
	await store.save(ownedRecipe('bob', 'rcp_bbbb'));
	assert.deepEqual((await store.list({ caller: 'alice' })).map(r => r.id), ['rcp_aaaa']);
	assert.deepEqual((await store.list({ caller: 'mallory' })), []);
	assert.deepEqual((await store.list({ caller: 'x', ownerKey: true })).map(r => r.id), ['rcp_bbbb', 'rcp_aaaa']);
	assert.deepEqual((await store.list({ person: true })).map(r => r.id), ['rcp_bbbb', 'rcp_aaaa']);
	const notFound = error => error.code === ErrorCode.INVALID_ARGUMENT && /no recipe "rcp_aaaa" of yours/.test(error.message);
	await assert.rejects(store.get('rcp_aaaa', { caller: 'bob' }), notFound);
	await assert.rejects(store.delete('rcp_aaaa', { caller: 'bob' }), notFound);
	assert.equal((await store.get('rcp_aaaa', { caller: 'alice' })).id, 'rcp_aaaa');
	await store.save(ownedRecipe('alice', 'rcp_aaaa', 2));
	assert.deepEqual((await store.all()).map(r => `${r.id}@${r.version}`), ['rcp_aaaa@2', 'rcp_bbbb@1'], 'a new version replaces the old');
	assert.equal((await store.delete('rcp_aaaa', { caller: 'alice' })).id, 'rcp_aaaa');
	assert.deepEqual((await store.all()).map(r => r.id), ['rcp_bbbb']);
});

test('each owner keeps its newest RECIPES_PER_OWNER recipes; writes made together all land', async () => {
	const storage = fakeStorage();
	const store = new RecipeStore(storage);
	await store.save(ownedRecipe('bob', 'rcp_bob0'));
	await Promise.all(Array.from({ length: RECIPES_PER_OWNER + 2 }, (_, i) => store.save(ownedRecipe('alice', `rcp_${1000 + i}`))));
	const kept = storage.data.get(RECIPES_KEY);
	assert.equal(kept.filter(r => r.owner === 'alice').length, RECIPES_PER_OWNER);
	assert.equal(kept[0].id, `rcp_${1000 + RECIPES_PER_OWNER + 1}`);
	assert.ok(!kept.some(r => r.id === 'rcp_1000' || r.id === 'rcp_1001'), 'the oldest went');
	assert.ok(kept.some(r => r.id === 'rcp_bob0'), 'another owner\'s stay');
});

// A tab reader over one tab whose page PAGE is, at a URL that a click may change.
function fakeReader() {
	const tab = { url: 'https://shop.example/login', captures: 0 };
	return {
		tab,
		capture: async () => {
			tab.captures++;
			return { url: tab.url, elements: PAGE };
		},
		tabUrl: async () => tab.url,
		tabOf: async params => params.tab_id ?? 7,
	};
}

// A dispatcher whose type and click actions act on tab 7, with a catalogue marking get_state read-only.
function recordingDispatcher(reader) {
	const dispatcher = new Dispatcher({
		debuggers: { dialogs: new Map(), watchDialogs: async () => {}, onDialog: () => () => {} },
		refs: { resolve: ref => ({ status: 'ok', ref, entry: { ref, tabId: 7 } }) },
		welcome: { catalogue: ['type_value', 'click_element', 'get_browser_state'].map(name => ({ name, method: name,
			inputSchema: { type: 'object' }, annotations: { readOnlyHint: name === 'get_browser_state' } })) },
	});
	const act = (params, context) => {
		if (params.fail)
			throw new Error('it did not work');
		return { content: [{ type: 'text', text: `ok in ${context.tab.id}` }], structuredContent: {} };
	};
	dispatcher.register({
		type_value: { refRequired: true, run: async (params, context) => act(params, context) },
		click_element: { run: async (params, context) => {
			reader.tab.url = 'https://shop.example/home';
			return act(params, context);
		} },
		get_browser_state: { run: async () => ({ content: [] }) },
	});
	dispatcher.recordings = new Recordings(reader);
	return dispatcher;
}

beforeEach(() => {
	globalThis.chrome = { tabs: { get: async id => ({ id, url: 'https://shop.example/login', active: true }), query: async () => [{ id: 7 }] } };
});

test('the dispatcher records a recording caller\'s calls that worked, not reads, failures or other callers\'', async () => {
	const reader = fakeReader();
	const dispatcher = recordingDispatcher(reader);
	const call = caller => ({ signal: new AbortController().signal, deadline: Date.now() + 5000, progress: () => {}, caller });
	dispatcher.recordings.start('alice');
	await dispatcher.dispatch('type_value', { ref: 'e7', text: 'ada@example.com' }, call('alice'));
	await dispatcher.dispatch('get_browser_state', { tab_id: 7 }, call('alice'));
	await assert.rejects(dispatcher.dispatch('type_value', { ref: 'e7', text: 'x', fail: true }, call('alice')));
	await dispatcher.dispatch('type_value', { ref: 'e7', text: 'bob was here' }, call('bob'));
	await dispatcher.dispatch('type_value', { ref: 'e6', text: 'pa55word-SECRET' }, call('alice'));
	await dispatcher.dispatch('click_element', { ref: 'e4' }, call('alice'));
	const recorder = dispatcher.recordings.stop('alice');
	assert.deepEqual(recorder.calls.map(c => c.tool), ['type_value', 'type_value', 'click_element']);
	const recipe = buildRecipe(recorder.calls, ABOUT);
	assert.deepEqual(recipe.steps.map(step => [step.tool, describeTarget(step.target)]),
	    [['type_value', 'textbox "Email"'], ['type_value', 'textbox "Password"'], ['click_element', 'button "Delete" (match 2)']]);
	assert.deepEqual(recipe.parameters, [{ name: 'email', default: 'ada@example.com', secret: false },
		{ name: 'password', secret: true, required: true }]);
	assert.deepEqual(recipe.steps[2].expect, { url: 'https://shop.example/home' });
	assert.doesNotMatch(JSON.stringify(recipe), /SECRET|bob was here/);
	assert.deepEqual(recipe.steps[0].args, { text: '{{email}}' }, 'no ref and no tab in a step');
	assert.deepEqual(validateRecipe(recipe).errors, []);
	await dispatcher.dispatch('type_value', { ref: 'e7', text: 'after the end' }, call('alice'));
	assert.equal(recorder.calls.length, 3, 'nothing is recorded after stop');
});

test('a secret the tool reports (secret_refs) is never stored either', async () => {
	const recorder = new Recorder({ capture: async () => ({ url: 'https://a.example/', elements: [{ ref: 'e9', role: 'textbox', name: 'Code' }] }),
		tabUrl: async () => 'https://a.example/', tabOf: async () => 1 });
	const keep = await recorder.before('type_value', { ref: 'e9', text: 'hidden-CODE-1', tab_id: 1 });
	await keep({ structuredContent: { secret_refs: ['e9'] } });
	const recipe = buildRecipe(recorder.calls, ABOUT);
	assert.deepEqual(recipe.parameters, [{ name: 'code', secret: true, required: true }]);
	assert.doesNotMatch(JSON.stringify(recipe), /hidden-CODE/);
});

// Issue #35: keys pressed without a ref go to whatever has focus; into a
// secret field the tool says so (secret: true), and they are no default.
test('keys pressed without a ref into a focused secret field (the tool\'s secret) are never stored either', async () => {
	const recorder = new Recorder({ capture: async () => ({ url: 'https://a.example/', elements: [] }),
		tabUrl: async () => 'https://a.example/', tabOf: async () => 1 });
	const keep = await recorder.before('press_keys', { keys: '739164{Enter}', tab_id: 1 });
	await keep({ structuredContent: { keys: '•••••••••••••', secret: true } });
	const plain = await recorder.before('press_keys', { keys: '{Escape}', tab_id: 1 });
	await plain({ structuredContent: { keys: '{Escape}' } });
	const recipe = buildRecipe(recorder.calls, ABOUT);
	assert.deepEqual(recipe.parameters.map(parameter => parameter.secret), [true]);
	assert.deepEqual(recipe.steps[1].args, { keys: '{Escape}' });
	assert.doesNotMatch(JSON.stringify(recipe), /739164/);
});

test('a replay refuses, before anything runs, a step the key\'s scopes do not allow, and a navigation outside its domains', async () => {
	const scopes = { click_element: 'pages:act', navigate_to: 'pages:act', evaluate_script: 'scripts' };
	const runner = new RecipeRunner({ dispatcher: { catalogueEntry: method => scopes[method] && { scope: scopes[method] } } });
	const recipe = ownedRecipe('alice', 'rcp_scoped');
	assert.doesNotThrow(() => runner.checkSteps(recipe, undefined), 'the owner key has every scope');
	assert.doesNotThrow(() => runner.checkSteps(recipe, ['pages:read', 'pages:act']));
	assert.throws(() => runner.checkSteps(recipe, ['pages:read']), error => error.code === ErrorCode.INVALID_ARGUMENT &&
	    /^Step 1 uses click_element, which needs the scope pages:act that this client's key lacks/.test(error.message));
	assert.throws(() => runner.checkSteps(recipe, ['pages:act']), /lacks the scope pages:read, which a replay needs/);
	const scripted = { ...recipe, steps: [{ tool: 'evaluate_script', args: { script: '1' } }] };
	assert.throws(() => runner.checkSteps(scripted, undefined), /Step 1 uses evaluate_script, which a recipe cannot run/);
	await assert.rejects(runner.stepParams({ tool: 'navigate_to', args: { url: 'https://evil.example/' } }, 2,
	    { url: 'https://evil.example/' }, 7, null, ['shop.example'], new AbortController().signal, null),
	error => error.code === ErrorCode.URL_NOT_ALLOWED && /^Step 3 \(navigate_to\) stopped: https:\/\/evil\.example\/ \(domain evil\.example\) is outside/.test(error.message));
});

// A runner over one fake tab (5) whose page lists `elements`; a click on "Send" goes to /NAME/done, NAME the text typed.
function fakeRunner(elements, { navigates = true } = {}) {
	const tab = { url: 'about:blank', typed: '' };
	const dispatched = [];
	const runner = new RecipeRunner({
		dispatcher: {
			catalogueEntry: () => ({ scope: 'pages:act' }),
			refuseIfHeld: () => {},
			dispatch: async (tool, params) => {
				dispatched.push([tool, params]);
				if (tool === 'type_value')
					tab.typed = params.text;
				if (tool === 'click_element' && navigates)
					tab.url = `https://shop.example/${tab.typed}/done`;
				return { content: [] };
			},
		},
		tasks: { enterTab: async (id, tabId, { startUrl }) => {
			tab.url = startUrl;
			return { tabId, release: () => {} };
		} },
		fence: { active: false, end: async () => [], blocked: () => [] },
		storage: fakeStorage(),
		browser: { tabs: { create: async () => ({ id: 5 }) } },
		page: { capture: async () => ({ url: tab.url, elements }), tabUrl: async () => tab.url },
		optionsUrl: 'chrome-extension://x/options/options.html',
		stepWaitMs: 30,
	});
	return { runner, dispatched, tab };
}

// A form recipe: type the name, press the second "Send", reach /NAME/done.
const FORM_RECIPE = {
	schema: 'browser-bridge/recipe', schema_version: 1, id: 'rcp_form', version: 1, name: 'Send the form', created: '2026-11-28T07:00:00.000Z',
	owner: 'alice', source: { kind: 'recording' }, start_url: 'https://shop.example/form', allowed_domains: ['shop.example'],
	parameters: [{ name: 'name', default: 'Ada', secret: false }],
	steps: [
		{ tool: 'type_value', target: { role: 'textbox', name: 'Name', nth: 0 }, args: { text: '{{name}}' }, expect: {} },
		{ tool: 'click_element', target: { role: 'button', name: 'Send', nth: 1 }, args: {}, expect: { url: 'https://shop.example/{{name}}/done' } },
	],
};
const FORM_PAGE = [{ ref: 'e1', role: 'textbox', name: 'Name' }, { ref: 'e2', role: 'button', name: 'Send' },
	{ ref: 'e3', role: 'button', name: 'Send' }, { ref: 'e4', role: 'link', name: 'Help' }];
const REPLAY_CALL = { signal: new AbortController().signal, deadline: Date.now() + 60000, progress: () => {}, caller: 'alice' };

test('a replay finds each locator\'s element, fills in the parameters (the expected URL too) and runs the steps through the dispatcher', async () => {
	assert.deepEqual(validateRecipe(FORM_RECIPE).errors, []);
	const { runner, dispatched } = fakeRunner(FORM_PAGE);
	const progress = [];
	const replay = await runner.run(FORM_RECIPE, { parameters: { name: 'Bob' } }, { ...REPLAY_CALL, progress: (n, total, text) => progress.push(text) });
	assert.deepEqual(dispatched, [['type_value', { text: 'Bob', tab_id: 5, ref: 'e1' }], ['click_element', { tab_id: 5, ref: 'e3' }]]);
	assert.equal(replay.url, 'https://shop.example/Bob/done');
	assert.deepEqual(progress, ['Step 1 of 2: type_value textbox "Name"', 'Step 2 of 2: click_element button "Send" (match 2)']);
});

test('a replay stops at a missing element naming the step and the nearest offers, and at an outcome that did not follow', async () => {
	const renamed = FORM_PAGE.map(element => element.name === 'Send' ? { ...element, name: 'Submit' } : element);
	await assert.rejects(fakeRunner(renamed).runner.run(FORM_RECIPE, {}, REPLAY_CALL), error => error.code === ErrorCode.ELEMENT_NOT_FOUND &&
	    error.message === 'Step 2 (click_element button "Send" (match 2)) stopped the replay: no button "Send" (match 2) is on ' +
	    'https://shop.example/form. The page offers instead: button "Submit", button "Submit", link "Help".');
	const stuck = fakeRunner(FORM_PAGE, { navigates: false });
	await assert.rejects(stuck.runner.run(FORM_RECIPE, {}, REPLAY_CALL), error => error.code === ErrorCode.NAVIGATION_FAILED &&
	    /^Step 2 \(click_element button "Send" \(match 2\)\) stopped the replay: it should have reached https:\/\/shop\.example\/Ada\/done, but the tab shows https:\/\/shop\.example\/form\.$/.test(error.message));
});
