// The step loop (src/agents/task-loop.js) with scripted models and a fake
// browser: how it plans, acts, recovers, validates and stops.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { AgentTask, StopReason } from '../src/agents/task-loop.js';
import { BridgeError, ErrorCode } from '../src/errors.js';
import { DEFAULT_LIMITS } from '../src/agents/settings.js';
import { MAX_ACTIONS_PER_STEP, ROLE_SCHEMAS } from '../src/agents/roles.js';
import { navigatorTools } from './host-catalogue.mjs';

// A model that answers each call with the next output of its role's script
// (a function gets the prompt input and returns the output).
function scriptedModels(scripts, usage = { input_tokens: 10, output_tokens: 5 }) {
	const calls = [];
	const models = {};
	for (const role of ['planner', 'navigator', 'validator']) {
		const script = [...(scripts[role] ?? [])];
		models[role] = {
			async complete({ input, signal }) {
				calls.push({ role, input });
				if (script.length === 0)
					throw new Error(`the ${role} script ran out`);
				const next = script.shift();
				const output = typeof next === 'function' ? await next(input, signal) : next;
				return { output, usage };
			},
		};
	}
	return { models, calls };
}

// The prompt builder hands the input through, so the scripts can read it.
const passInput = (role, input) => ({ input });

// A browser of pages keyed by URL; actions are functions of the fake's state.
function fakeBrowser({ pages, actions = {} }) {
	const browser = {
		url: Object.keys(pages)[0],
		acted: [],
		wentBack: 0,
		blockedUrls: [],
		async read() {
			const page = pages[browser.url];
			return {
				state: page.state, page_text: page.text ?? '', url: browser.url, title: 'T',
				labels: new Map(Object.entries(page.labels ?? {})),
			};
		},
		async act(tool, args, signal) {
			browser.acted.push({ tool, args });
			const run = actions[tool];
			if (run === undefined)
				return { text: `${tool} done`, url: browser.url };
			const text = await run(args, browser, signal);
			return { text: text ?? `${tool} done`, url: browser.url };
		},
		async back() {
			browser.wentBack++;
			browser.url = Object.keys(pages)[0];
		},
		blocked: () => browser.blockedUrls.splice(0),
	};
	return browser;
}

/** Some of the tools the navigator is offered, as the host's catalogue gives them. */
const TOOLS = navigatorTools().filter(tool => ['navigate_to', 'click_element', 'type_value', 'get_browser_state'].includes(tool.name));
const plan = (status = 'continue', extra = {}) => ({ plan: 'p', next_goal: 'g', status, ...extra });
const act = (...actions) => ({ actions: actions.map(([tool, args]) => ({ tool, args })) });
const done = answer => ({ actions: [], done: { answer } });
const accept = { verdict: 'accept', reason: 'matches' };

function makeTask({ scripts, browser, limits = {}, ...rest }) {
	const { models, calls } = scriptedModels(scripts);
	const task = new AgentTask({
		task: 'Buy a thing', models, buildPrompt: passInput, browser, tools: TOOLS,
		limits: { ...DEFAULT_LIMITS, ...limits }, ...rest,
	});
	return { task, calls };
}

test('a task plans, acts, claims an answer and ends done when the validator accepts', async () => {
	const browser = fakeBrowser({
		pages: {
			'http://a/form': { state: 'e1 button "Buy"', labels: { e1: 'Buy' } },
			'http://a/done': { state: '', text: 'Order #42' },
		},
		actions: { click_element: (args, b) => { b.url = 'http://a/done'; } },
	});
	const { task, calls } = makeTask({
		browser,
		scripts: {
			planner: [plan()],
			navigator: [act(['click_element', { ref: 'e1' }]), input => done(input.page_text)],
			validator: [accept],
		},
	});
	const events = [];
	task.onEvent = event => events.push(event);
	const result = await task.run(new AbortController().signal);
	assert.equal(result.stop_reason, StopReason.DONE);
	assert.equal(result.answer, 'Order #42');
	assert.deepEqual(result.verdict, { verdict: 'accept', reason: 'matches', answer: 'Order #42' });
	assert.equal(result.steps_taken, 2);
	assert.deepEqual(calls.map(c => c.role), ['planner', 'navigator', 'navigator', 'validator']);
	assert.deepEqual(result.usage, { input_tokens: 40, output_tokens: 20, cached_input_tokens: 0, model_calls: 4 });
	const click = result.steps.find(s => s.tool === 'click_element');
	assert.equal(click.label, 'Buy');
	assert.equal(click.outcome, 'ok');
	assert.deepEqual(events.map(e => e.type), ['plan', 'action', 'verdict']);
});

test('a rejected answer goes back to the planner with the reason, and the task recovers', async () => {
	const browser = fakeBrowser({ pages: { 'http://a/': { state: 's', text: 'Order #7' } } });
	const { task, calls } = makeTask({
		browser,
		scripts: {
			planner: [plan(), input => { assert.equal(input.rejection, 'wrong number'); return plan(); }],
			navigator: [done('Order #1'), done('Order #7')],
			validator: [{ verdict: 'reject', reason: 'wrong number' }, accept],
		},
	});
	const result = await task.run(new AbortController().signal);
	assert.equal(result.stop_reason, StopReason.DONE);
	assert.equal(result.answer, 'Order #7');
	assert.deepEqual(calls.map(c => c.role), ['planner', 'navigator', 'validator', 'planner', 'navigator', 'validator']);
	assert.deepEqual(result.steps.filter(s => s.tool === 'validator').map(s => s.outcome), ['rejected', 'accepted']);
});

test('rejected answers in a row stop the task with max_failures, whether the planner or the navigator claims them', async () => {
	const reject = { verdict: 'reject', reason: 'not shown on the page' };
	const browser = fakeBrowser({ pages: { 'http://a/': { state: 's', text: 'nothing yet' } } });
	const byPlanner = makeTask({
		browser, limits: { max_failures: 2 },
		scripts: { planner: [plan('done', { answer: 'x' }), plan('done', { answer: 'y' }), plan('done', { answer: 'z' })], validator: [reject, reject, reject] },
	});
	const planned = await byPlanner.task.run(new AbortController().signal);
	assert.equal(planned.stop_reason, StopReason.MAX_FAILURES, planned.message);
	assert.deepEqual(byPlanner.calls.map(c => c.role), ['planner', 'validator', 'planner', 'validator']);

	const byNavigator = makeTask({
		browser, limits: { max_failures: 2, max_steps: 10 },
		scripts: { planner: [plan(), plan(), plan()], navigator: [done('x'), done('y'), done('z')], validator: [reject, reject, reject] },
	});
	const claimed = await byNavigator.task.run(new AbortController().signal);
	assert.equal(claimed.stop_reason, StopReason.MAX_FAILURES, claimed.message);
	assert.equal(claimed.steps_taken, 2);
});

test('a stale ref is recovered by reading the page again, not by failing', async () => {
	let attempts = 0;
	const browser = fakeBrowser({
		pages: { 'http://a/': { state: 'e5 button "Go"', labels: { e5: 'Go', e9: 'Go' } } },
		actions: {
			click_element: args => {
				attempts++;
				if (args.ref === 'e5')
					throw new BridgeError(ErrorCode.STALE_REF, 'Element e5 is no longer on the page');
			},
		},
	});
	const { task, calls } = makeTask({
		browser,
		scripts: {
			planner: [plan()],
			navigator: [act(['click_element', { ref: 'e5' }]), input => {
				const last = input.history.at(-1);
				assert.equal(last.outcome, 'error');
				assert.match(last.detail, /STALE_REF.*read again/);
				return act(['click_element', { ref: 'e9' }]);
			}, done('ok')],
			validator: [accept],
		},
	});
	const result = await task.run(new AbortController().signal);
	assert.equal(result.stop_reason, StopReason.DONE);
	assert.equal(attempts, 2);
	assert.equal(calls.filter(c => c.role === 'navigator').length, 3);
});

test('the person pausing agent control stops the task at its next action, without another model call', async () => {
	const browser = fakeBrowser({
		pages: { 'http://a/': { state: 'e5 button "Go"', labels: { e5: 'Go' } } },
		actions: {
			click_element: () => {
				throw new BridgeError(ErrorCode.PAUSED_BY_USER, 'The person using this browser has paused all agent control');
			},
		},
	});
	const { task, calls } = makeTask({
		browser,
		scripts: { planner: [plan()], navigator: [act(['click_element', { ref: 'e5' }], ['click_element', { ref: 'e5' }])] },
	});
	const result = await task.run(new AbortController().signal);
	assert.equal(result.stop_reason, StopReason.PAUSED_BY_USER);
	assert.match(result.message, /^Stopped: The person using this browser has paused all agent control/);
	assert.equal(browser.acted.length, 1, 'the second action of the step never ran');
	assert.equal(calls.length, 2, 'one planner and one navigator call, nothing after the refusal');
});

test('a multi-action step stops when the page changes under it', async () => {
	const browser = fakeBrowser({
		pages: {
			'http://a/1': { state: 'e1', labels: { e1: 'Next', e2: 'Name' } },
			'http://a/2': { state: 'e3', labels: { e3: 'Other' } },
		},
		actions: { click_element: (args, b) => { b.url = 'http://a/2'; } },
	});
	const { task } = makeTask({
		browser,
		scripts: {
			planner: [plan()],
			navigator: [act(['click_element', { ref: 'e1' }], ['type_value', { ref: 'e2', text: 'x' }]), done('ok')],
			validator: [accept],
		},
	});
	const result = await task.run(new AbortController().signal);
	assert.deepEqual(browser.acted.map(a => a.tool), ['click_element']);
	const skipped = result.steps.find(s => s.outcome === 'skipped');
	assert.equal(skipped.tool, 'type_value');
	assert.match(skipped.detail, /page changed/);
});

test('one limit of actions per step: the navigator\'s schema allows it and the loop runs no more', async () => {
	assert.equal(ROLE_SCHEMAS.navigator.properties.actions.maxItems, MAX_ACTIONS_PER_STEP);
	const browser = fakeBrowser({ pages: { 'http://a/': { state: 'e1 button "Read"' } } });
	const reads = Array.from({ length: MAX_ACTIONS_PER_STEP + 1 }, () => ['get_browser_state', {}]);
	const { task } = makeTask({
		browser,
		scripts: { planner: [plan()], navigator: [act(...reads), done('ok')], validator: [accept] },
	});
	await task.run(new AbortController().signal);
	assert.equal(browser.acted.length, MAX_ACTIONS_PER_STEP);
});

test('max_steps stops the task with that reason', async () => {
	const browser = fakeBrowser({ pages: { 'http://a/': { state: 's' } } });
	const { task } = makeTask({
		browser, limits: { max_steps: 2, planner_interval: 10 },
		scripts: { planner: [plan()], navigator: [act(['get_browser_state', {}]), act(['get_browser_state', {}])] },
	});
	const result = await task.run(new AbortController().signal);
	assert.equal(result.stop_reason, StopReason.MAX_STEPS);
	assert.equal(result.steps_taken, 2);
	assert.equal(result.answer, null);
});

test('consecutive failures stop the task with max_failures; a success in between resets the count', async () => {
	let n = 0;
	const browser = fakeBrowser({
		pages: { 'http://a/': { state: 's' } },
		actions: { click_element: () => { if (++n !== 2) throw new BridgeError(ErrorCode.NOT_INTERACTABLE, 'covered'); } },
	});
	const click = act(['click_element', { ref: 'e1' }]);
	const { task } = makeTask({
		browser, limits: { max_failures: 2, planner_interval: 10 },
		scripts: { planner: [plan(), plan()], navigator: [click, click, click, click] },
	});
	const result = await task.run(new AbortController().signal);
	assert.equal(result.stop_reason, StopReason.MAX_FAILURES);
	assert.equal(n, 4);
});

test('an unknown action and a URL outside allowed_domains are refused as errors the model sees', async () => {
	const browser = fakeBrowser({
		pages: { 'http://shop.example/': { state: 's', labels: { e1: 'Evil link' } }, 'http://evil.test/': { state: 'x' } },
		actions: { click_element: (args, b) => { b.url = 'http://evil.test/'; } },
	});
	const seen = [];
	const { task } = makeTask({
		browser, allowedDomains: ['example'], limits: { planner_interval: 10, max_failures: 5 },
		scripts: {
			planner: [plan(), plan(), plan()],
			navigator: [
				act(['evaluate_script', { code: '1' }]),
				act(['navigate_to', { url: 'https://evil.test/x' }]),
				act(['click_element', { ref: 'e1' }]),
				input => { seen.push(...input.history.map(h => h.outcome)); return done('ok'); },
			],
			validator: [accept],
		},
	});
	const result = await task.run(new AbortController().signal);
	assert.equal(result.stop_reason, StopReason.DONE);
	assert.deepEqual(seen, ['planned', 'refused', 'refused', 'planned', 'refused', 'planned']);
	assert.deepEqual(browser.acted.map(a => a.tool), ['click_element'], 'the refused navigate_to never ran');
	assert.equal(browser.wentBack, 1, 'the click that left the domains was undone');
	assert.match(result.steps[4].detail, /evil\.test.*outside the domains this task may visit \(example\)/);
});

test('a page the browser\'s fence blocked fails the step, naming its domain; the tab goes back only from the error page', async () => {
	const browser = fakeBrowser({
		pages: { 'http://shop.example/': { state: 's', labels: { e1: 'Partner', e2: 'Track' } } },
		actions: {
			/* A new tab opened and was blocked: the task's own tab stayed. */
			click_element: (args, b) => {
				b.blockedUrls.push(args.ref === 'e1' ? { url: 'http://evil.test/new', here: false } : { url: 'http://evil.test/track', here: true });
			},
			/* The navigation itself failed on the blocked redirect. */
			navigate_to: (args, b) => {
				b.blockedUrls.push({ url: 'http://evil.test/r', here: true });
				throw new BridgeError(ErrorCode.NAVIGATION_FAILED, 'net::ERR_BLOCKED_BY_CLIENT');
			},
		},
	});
	const { task } = makeTask({
		browser, allowedDomains: ['example'], limits: { planner_interval: 10, max_failures: 5 },
		scripts: {
			planner: [plan(), plan(), plan()],
			navigator: [
				act(['click_element', { ref: 'e1' }]),
				act(['click_element', { ref: 'e2' }]),
				act(['navigate_to', { url: 'http://shop.example/r' }]),
				done('ok'),
			],
			validator: [accept],
		},
	});
	const result = await task.run(new AbortController().signal);
	const steps = result.steps.filter(step => step.tool !== 'planner' && step.tool !== 'validator');
	assert.deepEqual(steps.map(step => step.outcome), ['refused', 'refused', 'refused']);
	assert.match(steps[0].detail, /^The browser blocked a page: http:\/\/evil\.test\/new \(domain evil\.test\) is outside the domains this task may visit \(example\)/);
	assert.doesNotMatch(steps[0].detail, /went back/);
	assert.match(steps[1].detail, /evil\.test\/track.*The tab went back\./);
	assert.match(steps[2].detail, /evil\.test\/r \(domain evil\.test\).*The tab went back\./);
	assert.equal(browser.wentBack, 2);
});

test('the token budget stops the task before the next model call', async () => {
	const browser = fakeBrowser({ pages: { 'http://a/': { state: 's' } } });
	const { task, calls } = makeTask({
		browser, limits: { token_budget: 30 },
		scripts: { planner: [plan()], navigator: [act(['get_browser_state', {}]), act(['get_browser_state', {}]), act(['get_browser_state', {}])] },
	});
	const result = await task.run(new AbortController().signal);
	assert.equal(result.stop_reason, StopReason.BUDGET);
	assert.equal(calls.length, 2, 'two calls of 15 tokens reach the budget of 30');
});

test('the planner may end the task as impossible', async () => {
	const browser = fakeBrowser({ pages: { 'http://a/': { state: 's' } } });
	const { task } = makeTask({ browser, scripts: { planner: [plan('impossible', { reason: 'no such product' })] } });
	const result = await task.run(new AbortController().signal);
	assert.equal(result.stop_reason, StopReason.IMPOSSIBLE);
	assert.equal(result.message, 'no such product');
});

test('cancel during an action stops the task: no further model call or action', async () => {
	const controller = new AbortController();
	const browser = fakeBrowser({
		pages: { 'http://a/': { state: 's' } },
		actions: {
			click_element: (args, b, signal) => new Promise((resolve, reject) => {
				signal.addEventListener('abort', () => reject(signal.reason), { once: true });
				controller.abort(new Error('cancelled by the client'));
			}),
		},
	});
	const { task, calls } = makeTask({
		browser,
		scripts: { planner: [plan()], navigator: [act(['click_element', { ref: 'e1' }], ['click_element', { ref: 'e2' }])] },
	});
	const result = await task.run(controller.signal);
	assert.equal(result.stop_reason, StopReason.CANCELLED);
	assert.match(result.message, /cancelled by the client/);
	assert.equal(browser.acted.length, 1);
	assert.equal(calls.length, 2);
});

test('the wall-clock timeout stops the task with reason timeout', async () => {
	let fire;
	const browser = fakeBrowser({ pages: { 'http://a/': { state: 's' } } });
	const { task } = makeTask({
		browser, limits: { timeout_ms: 5000 },
		timer: (ms, onTime) => { fire = onTime; return () => {}; },
		scripts: {
			planner: [plan()],
			navigator: [(input, signal) => new Promise((resolve, reject) => {
				signal.addEventListener('abort', () => reject(new Error('fetch aborted')), { once: true });
				fire();
			})],
		},
	});
	const result = await task.run(new AbortController().signal);
	assert.equal(result.stop_reason, StopReason.TIMEOUT);
	assert.match(result.message, /5000 ms/);
});

test('pause holds the next action, the person changes the page, resume reads it again and plans anew; the clock stops meanwhile', async () => {
	const timers = [];
	let now = 0;
	const browser = fakeBrowser({
		pages: {
			'http://shop/': { state: 'e1 link "Blue mug"', labels: { e1: 'Blue mug' } },
			'http://shop/order': { state: 'e2 textbox "Full name"', labels: { e2: 'Full name' } },
		},
	});
	let task;
	const { task: made, calls } = makeTask({
		browser, limits: { timeout_ms: 5000 },
		now: () => now,
		timer: (ms, onTime) => {
			const timer = { ms, onTime, live: true };
			timers.push(timer);
			return () => { timer.live = false; };
		},
		scripts: {
			planner: [plan(), input => {
				assert.equal(input.url, 'http://shop/order', 'the planner sees the page the person left');
				return plan();
			}],
			navigator: [() => {
				now = 2000;	/* a second into the task */
				task.pause();	/* the person presses Pause while the model thinks */
				return act(['click_element', { ref: 'e1' }]);
			}, done('ordered')],
			validator: [accept],
		},
	});
	task = made;
	const events = [];
	task.onEvent = event => events.push(event.type);
	now = 1000;
	const running = task.run(new AbortController().signal);
	await new Promise(resolve => setTimeout(resolve, 20));
	assert.equal(task.paused, true);
	assert.deepEqual(browser.acted, [], 'nothing acts while paused');
	assert.equal(timers.length, 1);
	assert.equal(timers[0].live, false, 'the wall clock stopped');
	now = 61000;	/* a minute by hand: it does not count against timeout_ms */
	browser.url = 'http://shop/order';
	task.resume();
	const result = await running;
	assert.equal(result.stop_reason, StopReason.DONE);
	assert.deepEqual(browser.acted, [], 'the action chosen on the old page was dropped');
	assert.equal(result.steps.find(step => step.outcome === 'skipped')?.tool, 'click_element');
	assert.deepEqual(calls.map(c => c.role), ['planner', 'navigator', 'planner', 'navigator', 'validator']);
	assert.equal(timers[1].ms, 4000, 'the clock goes on with what was left');
	assert.deepEqual(events.filter(type => type === 'paused' || type === 'resumed'), ['paused', 'resumed']);
});

test('ask_user: the task waits for the person, their answer is the action\'s result, and the task goes on', async () => {
	const browser = fakeBrowser({ pages: { 'http://shop/': { state: 'e1 button "Pay"', labels: { e1: 'Pay' } } } });
	let task;
	const events = [];
	const made = makeTask({
		browser,
		onEvent: event => events.push(event),
		scripts: {
			planner: [plan()],
			navigator: [act(['ask_user', { question: 'Which card should I use?' }]), input => {
				assert.match(input.history.at(-1).detail, /The person answered: the blue one/);
				return done('paid with the blue card');
			}],
			validator: [accept],
		},
	});
	task = made.task;
	assert.ok(task.tools.some(tool => tool.name === 'ask_user'), 'the navigator is offered ask_user');
	const running = task.run(new AbortController().signal);
	await new Promise(resolve => setTimeout(resolve, 20));
	assert.equal(task.question.text, 'Which card should I use?');
	assert.equal(events.at(-1).type, 'question');
	assert.equal(task.answer('the blue one'), true);
	const result = await running;
	assert.equal(result.stop_reason, StopReason.DONE);
	assert.equal(task.question, null);
	assert.equal(task.answer('again'), false, 'nothing waits any more');
	assert.deepEqual(browser.acted, [], 'asking never touches the page');
});

// Issue #35, finding 7: a PIN the navigator typed stayed in clear in the
// result's steps[].args.text and in the kept history.
test('what the navigator types into a secret field is typed as it is, and kept, shown and returned only masked', async () => {
	const PIN = '739164';
	const CODE = '881122';
	const acted = [];
	const browser = {
		read: async () => ({
			state: 'e1 textbox "PIN" type=password\ne2 textbox "Name"\ne3 button "Unlock"', page_text: '', url: 'http://bank/', title: 'Bank',
			labels: new Map([['e1', 'PIN'], ['e2', 'Name'], ['e3', 'Unlock']]), secrets: new Set(['e1']),
		}),
		/* The page echoes what it got, and fill_form says e9 (a field of an older state) holds a secret. */
		act: async (tool, args) => {
			acted.push({ tool, args });
			return tool === 'fill_form' ? { text: `Filled 2 fields: e9 = "${CODE}"; e2 = "Ada".`, url: 'http://bank/', secretRefs: ['e9'] } :
			    { text: `The page says: PIN ${PIN} accepted.`, url: 'http://bank/' };
		},
		back: async () => {},
		blocked: () => [],
	};
	const events = [];
	const tools = navigatorTools().filter(tool => ['type_value', 'fill_form', 'press_keys'].includes(tool.name));
	const { task, calls } = makeTask({
		browser, tools, onEvent: event => events.push(event),
		scripts: {
			planner: [plan()],
			navigator: [act(['type_value', { ref: 'e1', text: PIN }], ['type_value', { ref: 'e2', text: 'Ada' }], ['press_keys', { ref: 'e1', keys: '55{Enter}' }]),
				act(['fill_form', { fields: [{ ref: 'e9', value: CODE }, { ref: 'e2', value: 'Ada' }] }]),
				done(`Unlocked with PIN ${PIN}`)],
			validator: [accept],
		},
	});
	const result = await task.run(new AbortController().signal);
	assert.equal(result.stop_reason, StopReason.DONE);
	assert.deepEqual(acted.map(a => a.args), [{ ref: 'e1', text: PIN }, { ref: 'e2', text: 'Ada' }, { ref: 'e1', keys: '55{Enter}' },
		{ fields: [{ ref: 'e9', value: CODE }, { ref: 'e2', value: 'Ada' }] }], 'the page gets the real values');
	const steps = result.steps.filter(step => step.tool !== 'planner' && step.tool !== 'validator');
	assert.deepEqual(steps.map(step => step.args), [{ ref: 'e1', text: '••••••' }, { ref: 'e2', text: 'Ada' }, { ref: 'e1', keys: '•••••••••' },
		{ fields: [{ ref: 'e9', value: '••••••' }, { ref: 'e2', value: 'Ada' }] }]);
	assert.equal(steps[0].detail, 'The page says: PIN •••••• accepted.');
	assert.equal(result.answer, 'Unlocked with PIN ••••••');
	assert.equal(task.conceal(`${PIN} and ${CODE}`), '•••••• and ••••••');
	for (const [where, kept] of [['result', result], ['events', events], ['history', task.history],
		['the navigator\'s later prompts', calls.slice(2).map(call => call.input.history)]])
		for (const secret of [PIN, CODE])
			assert.ok(!JSON.stringify(kept).includes(secret), `${secret} in the ${where}: ${JSON.stringify(kept)}`);
});

// Issue #35 (after finding 7): press_keys without a ref goes to whatever has
// focus, and keys pressed into a focused secret field were kept in clear.
test('keys pressed without a ref into a focused secret field are kept masked, their text masked in the task\'s words; onSecret hears once per new secret', async () => {
	const PIN = '739164';
	const acted = [];
	const browser = {
		read: async () => ({ state: 'e1 textbox "PIN" type=password', page_text: '', url: 'http://bank/', title: 'Bank',
			labels: new Map([['e1', 'PIN']]), secrets: new Set(['e1']) }),
		/* The tool says the focused field holds a secret (its structured secret: true). */
		act: async (tool, args) => {
			acted.push(args);
			return { text: `Pressed 6 characters and {Enter}; the page says PIN ${PIN} accepted.`, url: 'http://bank/', secretFocus: true };
		},
		back: async () => {},
		blocked: () => [],
	};
	const events = [];
	let secretsHeard = 0;
	const tools = navigatorTools().filter(tool => tool.name === 'press_keys');
	const { task, calls } = makeTask({
		browser, tools, task: `Unlock with PIN ${PIN}`, onEvent: event => events.push(event), onSecret: () => secretsHeard++,
		scripts: {
			planner: [plan()],
			navigator: [act(['press_keys', { keys: `${PIN}{Enter}` }]), act(['press_keys', { keys: `${PIN}{Enter}` }]), done(`Unlocked with ${PIN}`)],
			validator: [accept],
		},
	});
	const result = await task.run(new AbortController().signal);
	assert.equal(result.stop_reason, StopReason.DONE);
	assert.deepEqual(acted, [{ keys: `${PIN}{Enter}` }, { keys: `${PIN}{Enter}` }], 'the page gets the real keys');
	const pressed = result.steps.filter(step => step.tool === 'press_keys');
	assert.deepEqual(pressed.map(step => step.args), [{ keys: '•••••••••••••' }, { keys: '•••••••••••••' }]);
	assert.equal(task.conceal(task.task), 'Unlock with PIN ••••••', 'the PIN alone, without {Enter}, is masked too');
	assert.equal(secretsHeard, 1, 'the same keys again are no new secret');
	for (const [where, kept] of [['result', result], ['events', events], ['history', task.history],
		['the navigator\'s later prompts', calls.slice(2).map(call => call.input.history)]])
		assert.ok(!JSON.stringify(kept).includes(PIN), `the PIN in the ${where}: ${JSON.stringify(kept)}`);

	/* Keys pressed with nothing secret focused are kept as they are. */
	const plain = makeTask({
		browser: { ...browser, act: async () => ({ text: 'Pressed "Ada".', url: 'http://bank/' }) }, tools,
		scripts: { planner: [plan()], navigator: [act(['press_keys', { keys: 'Ada' }]), done('typed')], validator: [accept] },
	});
	const typed = await plain.task.run(new AbortController().signal);
	assert.deepEqual(typed.steps.find(step => step.tool === 'press_keys').args, { keys: 'Ada' });
});

test('ask_user with nobody answering stops the task with waiting_for_user at its timeout', async () => {
	let fire;
	const browser = fakeBrowser({ pages: { 'http://a/': { state: 's' } } });
	const { task } = makeTask({
		browser, limits: { timeout_ms: 5000 },
		timer: (ms, onTime) => { fire = onTime; return () => {}; },
		scripts: { planner: [plan()], navigator: [act(['ask_user', { question: 'Log in, please.' }])] },
	});
	const running = task.run(new AbortController().signal);
	await new Promise(resolve => setTimeout(resolve, 20));
	fire();
	const result = await running;
	assert.equal(result.stop_reason, StopReason.WAITING_FOR_USER);
	assert.match(result.message, /nobody answered "Log in, please\." within the task's time \(5000 ms\)/);
});

test('a pause while the planner thinks holds the navigator call; resume plans again first', async () => {
	const browser = fakeBrowser({ pages: { 'http://a/': { state: 'e1 button "Go"', labels: { e1: 'Go' } } } });
	let task;
	const made = makeTask({
		browser,
		scripts: {
			planner: [() => { task.pause(); return plan(); }, plan()],
			navigator: [done('went')],
			validator: [accept],
		},
	});
	task = made.task;
	const running = task.run(new AbortController().signal);
	await new Promise(resolve => setTimeout(resolve, 20));
	assert.deepEqual(made.calls.map(c => c.role), ['planner'], 'no model call while paused');
	task.resume();
	const result = await running;
	assert.equal(result.stop_reason, StopReason.DONE);
	assert.deepEqual(made.calls.map(c => c.role), ['planner', 'planner', 'navigator', 'validator']);
});

test('a stop while paused ends the task at once', async () => {
	const browser = fakeBrowser({ pages: { 'http://a/': { state: 'e1 button "Go"', labels: { e1: 'Go' } } } });
	let task;
	const made = makeTask({
		browser,
		scripts: { planner: [plan()], navigator: [() => { task.pause(); return act(['click_element', { ref: 'e1' }]); }] },
	});
	task = made.task;
	const controller = new AbortController();
	const running = task.run(controller.signal);
	await new Promise(resolve => setTimeout(resolve, 20));
	controller.abort(new Error('stopped by the person'));
	const result = await running;
	assert.equal(result.stop_reason, StopReason.CANCELLED);
	assert.deepEqual(browser.acted, []);
});

test('a provider error ends the task with provider_error and its message', async () => {
	const browser = fakeBrowser({ pages: { 'http://a/': { state: 's' } } });
	const error = new Error('OpenAI answered 401: check the API key in the options page');
	error.name = 'ProviderError';
	const { task } = makeTask({ browser, scripts: { planner: [() => { throw error; }] } });
	const result = await task.run(new AbortController().signal);
	assert.equal(result.stop_reason, StopReason.PROVIDER_ERROR);
	assert.equal(result.message, error.message);
});

test('the planner runs again every planner_interval steps', async () => {
	const browser = fakeBrowser({ pages: { 'http://a/': { state: 's' } } });
	const step = act(['get_browser_state', {}]);
	const { task, calls } = makeTask({
		browser, limits: { planner_interval: 2, max_steps: 4 },
		scripts: { planner: [plan(), plan(), plan()], navigator: [step, step, step, step] },
	});
	await task.run(new AbortController().signal);
	assert.deepEqual(calls.map(c => c.role[0]).join(''), 'pnnpnnp');
});

test('arguments that break the tool\'s schema are an error the model sees, and the action never runs', async () => {
	const browser = fakeBrowser({ pages: { 'http://a/': { state: 's' } } });
	const { models } = scriptedModels({
		planner: [plan()],
		navigator: [act(['type_value', { ref: 'e1', text: 5 }]), input => {
			assert.match(input.history.at(-1).detail, /^INVALID_ARGUMENT: args\.text must be a string; see type_value's arguments/);
			return done('x');
		}],
		validator: [accept],
	});
	const task = new AgentTask({ task: 't', models, buildPrompt: passInput, browser, tools: TOOLS, limits: DEFAULT_LIMITS });
	const result = await task.run(new AbortController().signal);
	assert.equal(result.stop_reason, StopReason.DONE);
	assert.deepEqual(browser.acted, []);
});

test('the trace hook hears each phase of a task, in order, with its start and end; without it nothing is timed', async () => {
	const pages = {
		'http://a/form': { state: 'e1 button "Buy"', labels: { e1: 'Buy' } },
		'http://a/done': { state: '', text: 'Order #42' },
	};
	const scripts = () => ({
		planner: [plan()],
		navigator: [act(['click_element', { ref: 'e1' }]), input => done(input.page_text)],
		validator: [accept],
	});
	const clicks = { click_element: (args, b) => { b.url = 'http://a/done'; } };
	const heard = [];
	/* A browser whose text is read apart from the state, as the extension's. */
	const textApart = () => {
		const fake = fakeBrowser({ pages, actions: clicks });
		const read = fake.read;
		fake.read = async () => ({ ...await read(), page_text: undefined });
		fake.pageText = async () => pages[fake.url].text ?? '';
		return fake;
	};
	const browser = textApart();
	const { task } = makeTask({ browser, scripts: scripts(), trace: (phase, start, end) => heard.push({ phase, start, end }) });
	const before = performance.timeOrigin + performance.now();
	assert.equal((await task.run(new AbortController().signal)).stop_reason, StopReason.DONE);
	assert.deepEqual(heard.map(span => span.phase),
	    ['read', 'page text', 'model planner', 'model navigator', 'act click_element', 'read', 'page text', 'model navigator', 'model validator']);
	for (const [i, span] of heard.entries()) {
		assert.ok(span.start >= before && span.end >= span.start, `${span.phase}: a start and end on the wall clock`);
		assert.ok(i === 0 || span.start >= heard[i - 1].end, `${span.phase} begins after the phase before it ends`);
	}

	/* Off: the task runs the same and calls no clock. */
	const { task: untimed } = makeTask({ browser: textApart(), scripts: scripts() });
	const now = performance.now;
	performance.now = () => assert.fail('no phase is timed without the hook');
	try {
		assert.equal((await untimed.run(new AbortController().signal)).stop_reason, StopReason.DONE);
	} finally {
		performance.now = now;
	}
});
