// What keeps the agents cheap (issue #26): a prompt whose beginning a
// provider can cache, a compact tool list that follows the settings, one
// page read per step, the planner on its cadence, and the cached tokens a
// provider reports counted in the task's usage.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';

import { AgentTask } from '../src/agents/task-loop.js';
import { buildPrompt } from '../src/agents/prompts.js';
import { toolLine } from '../src/agents/tools.js';
import { DEFAULT_LIMITS } from '../src/agents/settings.js';
import { createProvider } from '../src/agents/providers/index.js';
import { startModelServer } from '../../tests/agents/model-server.mjs';
import { AGENT_CATALOGUE, navigatorTools } from './host-catalogue.mjs';

const plan = { plan: '1. do it', next_goal: 'do it', status: 'continue' };
const accept = { verdict: 'accept', reason: 'matches' };

// Models that answer from scripts and keep every prompt they were sent.
function recordingModels(scripts, usage = { input_tokens: 10, output_tokens: 5, cached_input_tokens: 0 }) {
	const prompts = [];
	const models = {};
	for (const role of ['planner', 'navigator', 'validator']) {
		const script = [...(scripts[role] ?? [])];
		models[role] = {
			async complete(call) {
				prompts.push({ role, system: call.system, text: call.messages[0].content });
				const next = script.shift();
				if (next === undefined)
					throw new Error(`the ${role} script ran out`);
				return { output: typeof next === 'function' ? next(call) : next, usage };
			},
		};
	}
	return { models, prompts };
}

// A browser that counts its calls: actions in `stateable` report the page
// in their own reply (include_state), the others need a read.
function countingBrowser(pages, { stateable = ['click_element', 'type_value'], moves = {} } = {}) {
	const browser = {
		url: Object.keys(pages)[0],
		calls: [],
		view() {
			const page = pages[browser.url];
			const state = browser.typed && page.typed !== undefined ? page.typed : page.state;
			return { state, url: browser.url, title: 'T', labels: new Map(Object.entries(page.labels ?? {})) };
		},
		async read() {
			browser.calls.push('read');
			return browser.view();
		},
		async pageText() {
			browser.calls.push('text');
			return pages[browser.url].text;
		},
		async act(tool, args) {
			browser.calls.push(`act ${tool}`);
			moves[tool]?.(browser, args);
			return { text: `${tool} done`, url: browser.url, ...(stateable.includes(tool) ? { view: browser.view() } : {}) };
		},
		async back() {},
		blocked: () => [],
	};
	return browser;
}

const SHOP = {
	'http://shop/': { state: 'e1 link "Blue mug"', labels: { e1: 'Blue mug' }, text: 'Mugs. Blue mug, 9 EUR.' },
	'http://shop/order': {
		state: 'e2 textbox "Full name" placeholder="Your name"\ne3 button "Place order"',
		typed: 'e2 textbox "Full name" value="Ada \\"the\\" Countess"\ne3 button "Place order"',
		labels: { e2: 'Full name', e3: 'Place order' }, text: 'Your order: one blue mug.',
	},
};
const act = (tool, args, extra = {}) => ({ actions: [{ tool, args }], ...extra });
const done = answer => ({ actions: [], done: { answer } });

// Runs the three-step shop task; resolves to what it recorded.
async function shopTask({ limits = {}, navigator, validator } = {}) {
	const browser = countingBrowser(SHOP, {
		stateable: ['click_element', 'type_value'],
		moves: {
			click_element: b => { b.url = 'http://shop/order'; },
			type_value: b => { b.typed = true; },
		},
	});
	const steps = navigator ?? [act('click_element', { ref: 'e1' }), act('type_value', { ref: 'e2', text: 'Ada' }), act('wait_for', { delay_ms: 1 }), done('ordered')];
	const { models, prompts } = recordingModels({ planner: [plan, plan, plan], navigator: steps, validator: validator ?? [accept] });
	const navigatorCalls = [];
	const task = new AgentTask({
		task: 'Order the blue mug for Ada.', models, browser, buildPrompt,
		tools: navigatorTools(),
		limits: { ...DEFAULT_LIMITS, ...limits },
	});
	const ask = task.ask.bind(task);
	task.ask = (role, input, signal) => {
		if (role === 'navigator')
			navigatorCalls.push({ calls: browser.calls.length, page_text: input.page_text });
		return ask(role, input, signal);
	};
	const result = await task.run(new AbortController().signal);
	return { result, prompts, browser, navigatorCalls };
}

test('each navigator prompt of a task begins byte for byte as the one before it, up to the page', async () => {
	const { result, prompts } = await shopTask();
	assert.equal(result.stop_reason, 'done', result.message);
	const navigator = prompts.filter(p => p.role === 'navigator');
	assert.equal(navigator.length, 4);
	for (const p of navigator)
		assert.equal(p.system, navigator[0].system, 'the system prompt (rules, tools, output format) never changes in a task');
	assert.match(navigator[0].system, /Tools you may use[\s\S]*- click_element\(ref\?: string,[\s\S]*Call navigator_output/);
	assert.doesNotMatch(navigator[0].system, /Order the blue mug|Blue mug|untrusted_page_data nonce="[0-9a-f]/, 'nothing of the task or the page in it');
	for (let i = 1; i < navigator.length; i++) {
		const before = `${navigator[i - 1].system}\n${navigator[i - 1].text}`;
		const now = `${navigator[i].system}\n${navigator[i].text}`;
		/* Everything before the page (rules, tools, task, the fence's opening and the history so far) is repeated. */
		const stable = before.slice(0, before.indexOf('\n\nURL: '));
		assert.ok(now.startsWith(stable), `request ${i + 1} does not begin as request ${i} did`);
		assert.ok(stable.length > 0.6 * now.length, `only ${stable.length} of ${now.length} characters repeat`);
	}
	const nonces = new Set(prompts.map(p => /<untrusted_page_data nonce="([0-9a-f]{16})">/.exec(p.text)[1]));
	assert.equal(nonces.size, 1, 'one nonce for the whole task');
	const task = navigator[0].text;
	assert.ok(task.indexOf('Task (from the user') < task.indexOf('History of steps') &&
	    task.indexOf('History of steps') < task.indexOf('URL: ') && task.indexOf('URL: ') < task.indexOf('Current plan'),
	'task, history, page, then the plan');
});

test('two tasks get different nonces', async () => {
	const a = await shopTask();
	const b = await shopTask();
	const nonce = run => /nonce="([0-9a-f]{16})"/.exec(run.prompts[0].text)[1];
	assert.notEqual(nonce(a), nonce(b));
});

test('the navigator\'s tools follow the settings and are listed one line each, without JSON Schema', () => {
	const names = allowed => navigatorTools(allowed).map(tool => tool.name);
	const base = names({ script: false, network: false });
	for (const name of ['click_element', 'type_value', 'select_option', 'navigate_to', 'get_page_content', 'wait_for', 'manage_tabs'])
		assert.ok(base.includes(name), `${name} is offered`);
	for (const name of ['evaluate_script', 'list_network_requests', 'get_network_request', 'save_pdf', 'set_viewport',
		'get_console_logs', 'take_screenshot', 'upload_file', 'host_status', 'run_task', 'get_task', 'stop_task', 'list_tasks', 'answer_task'])
		assert.ok(!base.includes(name), `${name} is not offered by default`);
	assert.deepEqual(names({ script: true, network: false }).filter(name => !base.includes(name)), ['evaluate_script']);
	assert.deepEqual(names({ script: false, network: true }).filter(name => !base.includes(name)).sort(), ['get_network_request', 'list_network_requests']);

	const tools = navigatorTools();
	const system = buildPrompt('navigator', { task: 't', state: '', history: [], tools }).system;
	const listed = system.split('\n').filter(line => /^- \w+\(/.test(line));
	assert.deepEqual(listed.map(line => /^- (\w+)\(/.exec(line)[1]), base, 'one line per tool');
	assert.doesNotMatch(system, /"type"|"properties"|additionalProperties/);
	assert.equal(toolLine(AGENT_CATALOGUE.find(tool => tool.name === 'select_option')), '- select_option(ref: string, values: [string]): Choose options of a select element.');
	assert.match(toolLine(AGENT_CATALOGUE.find(tool => tool.name === 'navigate_to')), /^- navigate_to\(url: string, wait_until\?: load\|domcontentloaded\|networkidle\|none, /);
	assert.doesNotMatch(toolLine(AGENT_CATALOGUE.find(tool => tool.name === 'click_element')), /tab_id|include_state/, 'the loop fills those in');
	assert.match(toolLine(AGENT_CATALOGUE.find(tool => tool.name === 'manage_tabs')), /tab_id\?: integer/, 'manage_tabs names other tabs');
	const toolsChars = listed.join('\n').length;
	assert.ok(toolsChars < 3500, `the tool list takes ${toolsChars} characters`);
});

// Issue #32: the scope each tool needs comes from the host's welcome; an
// OAuth client's agents keep to its key's scopes, over the settings.
test('an OAuth client\'s key picks the navigator\'s tools by the scope the host names for each', () => {
	const names = allowed => navigatorTools(allowed).map(tool => tool.name);
	const readOnly = new Map(AGENT_CATALOGUE.map(tool => [tool.name, tool.read_only]));
	const reading = names({ scopes: ['pages:read', 'tasks'] });
	assert.deepEqual(reading, ['get_browser_state', 'get_page_content']);
	const acting = names({ scopes: ['pages:act'] });
	for (const name of ['click_element', 'type_value', 'navigate_to', 'wait_for'])
		assert.ok(acting.includes(name), `${name} comes with pages:act`);
	assert.ok(acting.every(name => !reading.includes(name)));
	assert.deepEqual([...reading, ...acting].sort(), names({}).sort(), 'the two page scopes together: every tool of the settings');
	assert.ok(reading.every(name => readOnly.get(name)), 'without pages:act the agents only read');
	assert.deepEqual(names({ script: true, network: true, scopes: ['pages:read', 'pages:act'] }), names({}),
	    'scripts and network details need their scopes as well as their settings');
	assert.deepEqual(names({ script: true, network: true, scopes: ['network', 'scripts'] }).sort(),
	    ['evaluate_script', 'get_network_request', 'list_network_requests']);
});

test('the model\'s actions are still checked against the full schema the compact list leaves out', async () => {
	const { result, browser } = await shopTask({ navigator: [act('select_option', { ref: 'e1', values: 'Canada' }), done('x')] });
	assert.equal(result.steps.find(step => step.tool === 'select_option').outcome, 'error');
	assert.match(result.steps.find(step => step.tool === 'select_option').detail, /^INVALID_ARGUMENT: args\.values must be an array/);
	assert.ok(!browser.calls.includes('act select_option'));
});

test('one page read per step: the action\'s own reply, a read only when it has none, the text only when the page changed', async () => {
	const { browser, navigatorCalls, prompts } = await shopTask();
	/* Before step 1: the state and the text (for the planner). Step 1 (a click to a new page): the click and the new text.
	   Step 2 (typing): the action alone; only a field's value changed, which is no news. Step 3 (wait_for): the action and
	   one read; nothing changed, so no text. Then the validator, which reads the text afresh. */
	assert.deepEqual(browser.calls, ['read', 'text', 'act click_element', 'text', 'act type_value', 'act wait_for', 'read', 'text']);
	assert.deepEqual(navigatorCalls.map(call => call.calls), [2, 4, 5, 7], 'the browser calls made before each navigator prompt');
	assert.deepEqual(navigatorCalls.map(call => call.page_text),
	    ['Mugs. Blue mug, 9 EUR.', 'Your order: one blue mug.', undefined, undefined]);
	const navigator = prompts.filter(p => p.role === 'navigator');
	assert.match(navigator[2].text, /Page text:\n\(the same as at the last step, not sent again: get_page_content reads it\)/);
	assert.match(prompts.find(p => p.role === 'validator').text, /Page text:\nYour order: one blue mug\./, 'the validator always sees the text');
});

test('after a new plan (here: a rejected answer) the navigator gets the text of an unchanged page again', async () => {
	const { result, navigatorCalls } = await shopTask({
		navigator: [done('Order #0'), done('Order #1')],
		validator: [{ verdict: 'reject', reason: 'the page shows another number' }, accept],
	});
	assert.equal(result.stop_reason, 'done');
	assert.deepEqual(navigatorCalls.map(call => call.page_text), ['Mugs. Blue mug, 9 EUR.', 'Mugs. Blue mug, 9 EUR.']);
});

test('the planner is asked when the sub-goal is reached, after a failed step, and every planner_interval steps (5 by default)', async () => {
	assert.equal(DEFAULT_LIMITS.planner_interval, 5);
	const wait = act('wait_for', { delay_ms: 1 });
	const roles = async (navigator, limits) => (await shopTask({ navigator, limits })).prompts.map(p => p.role[0]).join('');
	assert.equal(await roles([wait, wait, wait, wait, wait, wait, done('x')]), 'pnnnnnpnnv', 'every 5 steps');
	assert.equal(await roles([wait, act('wait_for', { delay_ms: 1 }, { goal_reached: true }), wait, done('x')]), 'pnnpnnv', 'after a reached sub-goal');
	const broken = act('click_element', { ref: 'e99', coordinates: 'x' });
	assert.equal(await roles([broken, broken, wait, done('x')], { max_failures: 5 }), 'pnnpnnv', 'after two failed actions in a row');
});

const servers = [];
after(() => Promise.all(servers.map(s => new Promise(resolve => s.server.close(resolve)))));

for (const kind of ['openai', 'anthropic']) {
	test(`${kind}: the cached tokens the API reports come back in the usage, counted in the input`, async () => {
		const started = await startModelServer({ steps: [], usage_per_request: { input_tokens: 100, output_tokens: 20, cached_tokens: 80 } });
		servers.push(started);
		const bodies = [];
		const spy = async (url, init) => {
			bodies.push(JSON.parse(init.body));
			return fetch(url, init);
		};
		const provider = createProvider({ kind, base_url: kind === 'openai' ? `${started.url}/v1` : started.url, api_key: 'k', model: 'm' }, { fetch: spy });
		const reply = await provider.complete({ role: 'validator', system: 'You are the validator.', messages: [{ role: 'user', content: 'Check.' }] });
		assert.deepEqual(reply.usage, { input_tokens: 100, output_tokens: 20, cached_input_tokens: 80 });
		if (kind === 'anthropic')
			assert.deepEqual(bodies[0].system, [{ type: 'text', text: 'You are the validator.', cache_control: { type: 'ephemeral' } }],
			    'a cache breakpoint on the system prompt');
	});
}

test('gemini: cachedContentTokenCount comes back as the cached tokens', async () => {
	const fake = async () => new Response(JSON.stringify({
		candidates: [{ content: { parts: [{ functionCall: { name: 'validator_output', args: { verdict: 'accept', reason: 'ok' } } }] } }],
		usageMetadata: { promptTokenCount: 3000, candidatesTokenCount: 9, cachedContentTokenCount: 2048 },
	}));
	const provider = createProvider({ kind: 'gemini', api_key: 'k', model: 'g' }, { fetch: fake });
	const reply = await provider.complete({ role: 'validator', system: 's', messages: [{ role: 'user', content: 'u' }] });
	assert.deepEqual(reply.usage, { input_tokens: 3000, output_tokens: 9, cached_input_tokens: 2048 });
});

test('the task\'s usage adds up the cached tokens of its model calls', async () => {
	const browser = countingBrowser(SHOP);
	const { models } = recordingModels({ planner: [plan], navigator: [done('x')], validator: [accept] },
	    { input_tokens: 1000, output_tokens: 10, cached_input_tokens: 900 });
	const task = new AgentTask({ task: 't', models, browser, buildPrompt, tools: [], limits: DEFAULT_LIMITS });
	const result = await task.run(new AbortController().signal);
	assert.deepEqual(result.usage, { input_tokens: 3000, output_tokens: 30, cached_input_tokens: 2700, model_calls: 3 });
});
