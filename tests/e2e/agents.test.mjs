// End-to-end: run_task in real Chromium, through the host, with the
// extension's agents driven by the scripted model server
// (tests/agents/model-server.mjs). The model is set up on the options page
// the way a person would.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

import { EXTENSION_ID, startBridge, until } from './harness.mjs';
import { SHOP_ORDER_STEPS, configureAgents, inExtension, openOptions, startModelServer } from './agents-harness.mjs';
import { scaled } from '../timing.mjs';

const API_KEY = 'sk-e2e-SECRET-4f9a2c';


describe('run_task', () => {
	let b;
	let model = null;

	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await model?.close();
		await b?.close();
	});

	// Starts the model server on a scenario and points the extension at it.
	async function useScenario(scenario, options = {}) {
		await model?.close();
		model = await startModelServer({ usage_per_request: { input_tokens: 100, output_tokens: 20 }, ...scenario });
		await configureAgents(b, { baseUrl: `${model.url}/v1`, apiKey: API_KEY, ...options });
		return model;
	}

	// Runs a task; resolves to { result, data, text, progress }.
	async function runTask(args, options = {}) {
		const progress = [];
		const result = await b.client.callTool({ name: 'run_task', arguments: args }, undefined, {
			timeout: 120000, resetTimeoutOnProgress: true,
			onprogress: p => progress.push(p.message), ...options,
		});
		return { result, data: result.structuredContent, text: result.content?.[0]?.text ?? '', progress };
	}

	test('without a model, run_task says to open the options page', async () => {
		const r = await b.fails('run_task', { task: 'Anything' });
		assert.equal(r.code, 'PROVIDER_NOT_CONFIGURED');
		assert.ok(r.message.includes(`chrome-extension://${EXTENSION_ID}/options/options.html`), r.message);
	});

	test('Test connection on the options page reaches the model', async () => {
		await useScenario({ steps: [] });
		const page = await openOptions(b);
		try {
			assert.equal(await page.value('Model'), 'scripted', 'the saved settings are shown');
			const status = await page.press('Test connection');
			assert.match(status, /scripted/);
			assert.doesNotMatch(status, /SECRET/);
		} finally {
			await page.close();
		}
		const log = await model.log();
		assert.equal(log.length, 1);
	});

	// Sets the navigator's own model on the options page ('' for none).
	async function setNavigatorModel(name) {
		const page = await openOptions(b);
		try {
			await page.expand('A different model per role (optional)');
			assert.equal(await page.value('Provider', '#provider-navigator'), '', 'a role\'s provider is the main one by default');
			await page.fill('Model', name, '#provider-navigator');
			assert.match(await page.press('Save'), /^Saved\./);
		} finally {
			await page.close();
		}
	}

	test('a role given only a model on the options page calls the main address with the main key', async () => {
		await useScenario({ steps: [] });
		await setNavigatorModel('small-navigator');
		try {
			await runTask({ task: 'Report what the page says.', start_url: b.page('index.html') });
		} finally {
			await setNavigatorModel('');
		}
		const log = await model.log();
		const navigator = log.filter(entry => entry.role === 'navigator');
		assert.ok(navigator.length > 0, 'the navigator was asked');
		for (const entry of navigator)
			assert.deepEqual([entry.api, entry.model, entry.key], ['openai', 'small-navigator', API_KEY]);
		const planner = log.find(entry => entry.role === 'planner');
		assert.deepEqual([planner.model, planner.key], ['scripted', API_KEY]);
	});

	test('a multi-page task completes with the right answer, progress in order, in a tab group', async () => {
		await useScenario({ steps: SHOP_ORDER_STEPS, usage_per_request: { input_tokens: 100, output_tokens: 20, cached_tokens: 60 } });
		const r = await runTask({ task: 'Order one blue mug for Ada Lovelace, shipping to Canada, and report the order number.',
		    start_url: b.page('shop/index.html'), allowed_domains: ['127.0.0.1'] });
		assert.equal(r.result.isError, undefined, r.text);
		assert.equal(r.data.stop_reason, 'done', r.text);
		const shown = await b.evaluate(/shop\/confirm\.html/, 'document.getElementById("summary").textContent');
		assert.match(shown, /^Order #\d+ confirmed: one blue mug for Ada Lovelace, shipping to Canada\.$/);
		assert.equal(r.data.answer, /Order #\d+/.exec(shown)[0]);
		assert.equal(r.data.verdict.verdict, 'accept');
		assert.equal(r.data.usage.model_calls, r.data.usage.input_tokens / 100);
		assert.equal(r.data.usage.cached_input_tokens, 60 * r.data.usage.model_calls, 'the cached tokens the API reported');
		assert.match(r.text, new RegExp(`Tokens: ${r.data.usage.input_tokens} in \\(${r.data.usage.cached_input_tokens} of them cached\\)`));

		const actions = r.progress.filter(m => / step \d+: /.test(m));
		assert.deepEqual(actions.map(m => /step \d+: (\w+ "[^"]*")/.exec(m)[1]), [
			'click_element "Blue mug"', 'click_element "Order this mug"', 'type_value "Full name"',
			'select_option "Country"', 'click_element "Place order"',
		]);
		assert.match(r.progress[0], /plan:/);
		assert.match(r.progress.at(-1), /validator accepted/);

		const group = await inExtension(b, `chrome.tabs.get(${r.data.tab_id}).then(t => t.groupId === -1 ? null : chrome.tabGroups.get(t.groupId)).then(g => g && g.title)`);
		assert.match(group ?? '', /^Agent: Order one blue mug/);
	});

	test('a wrong answer is rejected by the validator and the task recovers', async () => {
		await useScenario({ steps: [{ do: 'answer', pattern: 'Order #[0-9]+' }], wrong_answer_first: true });
		const r = await runTask({ task: 'Report the order number on this page.',
		    start_url: b.page('shop/confirm.html?item=red&name=Bo&country=Japan') });
		assert.equal(r.data.stop_reason, 'done', r.text);
		const shown = await b.evaluate(/item=red&name=Bo/, 'document.getElementById("summary").textContent');
		assert.equal(r.data.answer, /Order #\d+/.exec(shown)[0]);
		assert.deepEqual(r.data.steps.filter(s => s.tool === 'validator').map(s => s.outcome), ['rejected', 'accepted']);
		assert.ok(r.progress.some(m => /validator rejected/.test(m)));
	});

	test('a ref that goes stale mid-task is recovered by reading the page again', async () => {
		// order.html?rerender=1 re-creates its button 2 s after the country
		// changes; the model answers the click late, with the ref it saw before.
		await useScenario({ steps: SHOP_ORDER_STEPS.slice(2), faults: [{ request: 4, delay_ms: 3500 }] });
		const r = await runTask({ task: 'Order the mug for Ada Lovelace in Canada and report the order number.',
		    start_url: b.page('shop/order.html?item=blue&rerender=1') });
		assert.equal(r.data.stop_reason, 'done', r.text);
		const clicks = r.data.steps.filter(s => s.tool === 'click_element');
		assert.equal(clicks[0].outcome, 'error', JSON.stringify(clicks));
		assert.match(clicks[0].detail, /STALE_REF/);
		assert.equal(clicks.at(-1).outcome, 'ok');
	});

	test('a 401 fails at once, naming the provider, without the key', async () => {
		await useScenario({ steps: [{ do: 'answer', pattern: 'Order #[0-9]+' }], faults: [{ request: 1, status: 401 }] });
		const r = await runTask({ task: 'Report the order number.', start_url: b.page('shop/confirm.html?item=red&name=Cy&country=France') });
		assert.equal(r.data.stop_reason, 'provider_error', r.text);
		assert.match(r.data.message, /OpenAI/);
		assert.match(r.data.message, /options page/);
		assert.ok(!JSON.stringify(r.result).includes(API_KEY), 'the key is not in the result');
		assert.equal((await model.log()).length, 1, 'no retry after a 401');
	});

	test('429 with Retry-After, 500 and malformed output are retried or repaired', async () => {
		await useScenario({
			steps: [{ do: 'answer', pattern: 'Order #[0-9]+' }],
			faults: [{ request: 1, status: 429, retry_after: 1 }, { request: 3, status: 500 }, { request: 5, malformed: true }],
		});
		const r = await runTask({ task: 'Report the order number.', start_url: b.page('shop/confirm.html?item=red&name=Di&country=Canada') });
		assert.equal(r.data.stop_reason, 'done', r.text);
		const log = await model.log();
		assert.deepEqual(log.slice(0, 6).map(entry => entry.status), [429, 200, 500, 200, 200, 200]);
		assert.ok(log[1].time - log[0].time >= 1000, `the retry waited for Retry-After (${log[1].time - log[0].time} ms)`);
	});

	test('max_steps and timeout are reported as such', async () => {
		await useScenario({ steps: SHOP_ORDER_STEPS });
		const steps = await runTask({ task: 'Order a mug.', start_url: b.page('shop/index.html'), max_steps: 1 });
		assert.equal(steps.data.stop_reason, 'max_steps', steps.text);
		assert.equal(steps.data.steps_taken, 1);

		await useScenario({ steps: SHOP_ORDER_STEPS, faults: [{ request: 2, delay_ms: scaled(8000) }] });
		const started = Date.now();
		const slow = await runTask({ task: 'Order a mug.', start_url: b.page('shop/index.html'), timeout_ms: 2000 });
		assert.equal(slow.data.stop_reason, 'timeout', slow.text);
		assert.ok(Date.now() - started < scaled(7000), 'the timeout did not wait for the model');
	});

	test('cancel stops the task within a step, and no request reaches the model after it', async () => {
		await useScenario({ steps: SHOP_ORDER_STEPS, faults: [{ request: 3, delay_ms: scaled(5000) }] });
		const controller = new AbortController();
		const call = runTask({ task: 'Order a mug.', start_url: b.page('shop/index.html') }, { signal: controller.signal });
		await until(async () => (await model.log()).length >= 3, { what: 'the third model request' });
		const cancelled = Date.now();
		controller.abort();
		await assert.rejects(call);
		const stopped = await until(async () => {
			const { data } = await b.ok('list_tasks');
			return data.tasks[0].status === 'finished' && data.tasks[0];
		}, { what: 'the task to stop' });
		assert.equal(stopped.stop_reason, 'cancelled');
		assert.ok(Date.now() - cancelled < scaled(4000), 'the model request in flight was aborted, not waited for');
		await new Promise(resolve => setTimeout(resolve, 500));
		assert.equal((await model.log()).length, 3, 'no request reached the model after the cancel');
		const state = await b.state({ tab_id: stopped.tab_id });
		await b.ok('click_element', { ref: state.ref('link', 'Order this mug') });
	});

	test('one task per tab: TAB_BUSY for a second task and foreign actions, reads interleave, stop_task frees it', async () => {
		await useScenario({ steps: SHOP_ORDER_STEPS, faults: [{ request: 2, hold: true }] });
		const started = await runTask({ task: 'Order a mug slowly.', start_url: b.page('shop/index.html'), wait: false });
		const id = started.data.task_id;
		const tab = started.data.tab_id;
		assert.equal(started.data.status, 'running');
		await until(async () => (await model.log()).length >= 2, { what: 'the slow model request' });

		const second = await b.fails('run_task', { task: 'Another', tab_id: tab });
		assert.equal(second.code, 'TAB_BUSY');
		assert.ok(second.message.includes(id), second.message);
		const state = await b.state({ tab_id: tab });
		const click = await b.fails('click_element', { ref: state.ref('link', 'Blue mug') });
		assert.equal(click.code, 'TAB_BUSY');

		const running = await b.ok('get_task', { task_id: id });
		assert.equal(running.data.status, 'running');
		const stopped = await b.ok('stop_task', { task_id: id });
		assert.equal(stopped.data.stop_reason, 'cancelled');
		const later = await b.ok('get_task', { task_id: id, wait_ms: 1000 });
		assert.equal(later.data.status, 'finished');
		await b.ok('click_element', { ref: (await b.state({ tab_id: tab })).ref('link', 'Blue mug') });
	});

	// Issue #35, finding 2: another client's manage_tabs close closed a
	// running task's tab, and the task ran on as if its tab were there.
	test('no client closes a running task\'s tab; the person closing it ends the task at once, and get_task says why', async () => {
		await useScenario({ steps: SHOP_ORDER_STEPS, faults: [{ request: 2, hold: true }] });
		const start = b.page('shop/index.html?closed-by-the-person');
		const started = await runTask({ task: 'Order a mug while the person watches.', start_url: start, wait: false });
		const { task_id: id, tab_id: tab } = started.data;
		await until(async () => (await model.log()).length >= 2, { what: 'the held model request' });

		const close = await b.fails('manage_tabs', { action: 'close', tab_id: tab });
		assert.equal(close.code, 'TAB_BUSY');
		assert.ok(close.message.includes(id), close.message);
		assert.ok((await b.ok('manage_tabs', { action: 'list' })).data.tabs.some(t => t.id === tab), 'the tab is still open');
		assert.equal((await b.ok('get_task', { task_id: id })).data.status, 'running');

		/* The person presses the tab's close button. */
		const target = (await b.cdp.targets()).find(t => t.type === 'page' && t.url === start);
		await b.cdp.send('Target.closeTarget', { targetId: target.targetId });
		const ended = await b.ok('get_task', { task_id: id, wait_ms: scaled(10000) });
		assert.equal(ended.data.status, 'finished', ended.text);
		assert.equal(ended.data.stop_reason, 'tab_closed');
		assert.match(ended.text, new RegExp(`stopped \\(tab_closed\\).*tab ${tab}, where the task ran, was closed`));
	});

	// Issue #35 (after finding 2): the tabs a task opened could be acted in
	// and closed by another client while it ran.
	test('the tabs a running task opens are held as its own: no client acts in or closes them, the person can; the hold ends with the task', async () => {
		const kept = b.page('shop/index.html?opened-and-kept');
		const closedByPerson = b.page('shop/index.html?opened-and-closed-by-the-person');
		/* The navigator's third answer waits until the test has tried the opened tabs. */
		await useScenario({ steps: [{ do: 'navigate', url: kept, new_tab: true }, { do: 'navigate', url: closedByPerson, new_tab: true },
			{ do: 'answer', pattern: 'Red mug' }], faults: [{ request: 4, hold: true }] }, { keepTabs: true });
		const started = await runTask({ task: 'Open two shop pages in new tabs.', start_url: b.page('shop/index.html?task-own-tab'), wait: false });
		const { task_id: id } = started.data;
		await until(async () => (await model.log()).length >= 4, { what: 'the held model request' });
		const tabs = (await b.ok('manage_tabs', { action: 'list' })).data.tabs;
		const [first, second] = [kept, closedByPerson].map(url => tabs.find(tab => tab.url === url)?.id);
		assert.ok(first !== undefined && second !== undefined, `the task opened both tabs: ${JSON.stringify(tabs)}`);

		for (const [tool, args] of [['manage_tabs', { action: 'close', tab_id: first }], ['navigate_to', { tab_id: first, url: b.page('shop/index.html') }],
			['click_element', { ref: (await b.state({ tab_id: first })).ref('link', 'Blue mug') }]]) {
			const refused = await b.fails(tool, args);
			assert.equal(refused.code, 'TAB_BUSY', `${tool}: ${refused.text}`);
			assert.ok(refused.message.includes(id), refused.message);
		}
		/* Reading it works. */
		await b.ok('get_page_content', { tab_id: first, format: 'text' });

		/* The person closes the other one with its close button: the task runs on. */
		const target = (await b.cdp.targets()).find(t => t.type === 'page' && t.url === closedByPerson);
		await b.cdp.send('Target.closeTarget', { targetId: target.targetId });
		await until(async () => !(await b.ok('manage_tabs', { action: 'list' })).data.tabs.some(tab => tab.id === second),
		    { what: 'the person\'s close' });
		assert.equal((await b.ok('get_task', { task_id: id })).data.status, 'running');

		await model.release(4);
		const ended = await b.ok('get_task', { task_id: id, wait_ms: scaled(30000) });
		assert.equal(ended.data.stop_reason, 'done', ended.text);
		assert.deepEqual(ended.data.opened_tabs.map(tab => [tab.tab_id, tab.kept]), [[first, true], [second, false]]);
		/* Kept, it is the person's again: anyone may act in it and close it. */
		await b.ok('click_element', { ref: (await b.state({ tab_id: first })).ref('link', 'Blue mug') });
		await b.ok('manage_tabs', { action: 'close', tab_id: first });
	});

	test('allowed_domains refuses a link to another site and reports it', async () => {
		await useScenario({ steps: [{ do: 'click', label: 'Partner deals' }] });
		const r = await runTask({ task: 'Look at the partner deals.', start_url: b.page('shop/index.html'),
		    allowed_domains: ['127.0.0.1'], max_failures: 1 });
		assert.equal(r.data.stop_reason, 'max_failures', r.text);
		const refused = r.data.steps.find(s => s.outcome === 'refused');
		assert.match(refused.detail, /localhost.*outside the domains this task may visit \(127\.0\.0\.1\)/);
		const tab = await b.state({ tab_id: r.data.tab_id });
		assert.match(tab.data.tab.url, /^http:\/\/127\.0\.0\.1:\d+\/shop\/index\.html/, `the tab went back: ${JSON.stringify(r.data.steps)}`);
	});

	// The fence is the browser's: the outside site (the fixture server under
	// the name localhost) must receive no request at all, not one that is
	// undone afterwards.
	const outside = () => b.site.requestsTo('localhost').length;
	const partnerUrl = () => `http://localhost:${new URL(b.site.origin).port}/shop/partner.html`;

	test('a target=_blank link to another site: the new tab is fenced from birth, is the task\'s, and is closed at its end', async () => {
		await useScenario({ steps: [{ do: 'click', label: 'Partner deals in a new tab' }, { do: 'answer', pattern: 'Links that leave the shop' }] },
		    { domains: '127.0.0.1' });
		const before = outside();
		const r = await runTask({ task: 'Open the partner deals, then report the heading.', start_url: b.page('shop/elsewhere.html'),
		    allowed_domains: ['127.0.0.1'], max_failures: 1 });
		assert.equal(outside(), before, `the outside site got no request: ${JSON.stringify(b.site.requestsTo('localhost').slice(before))}`);
		assert.equal(r.data.opened_tabs?.length, 1, r.text);
		const [opened] = r.data.opened_tabs;
		assert.match(opened.url, /^http:\/\/localhost:\d+\/shop\/partner\.html/);
		assert.equal(opened.kept, false);
		assert.match(r.text, new RegExp(`Tabs it opened: ${opened.tab_id} \\(`));
		assert.equal(await inExtension(b, `chrome.tabs.get(${opened.tab_id}).then(() => 'open', () => 'closed')`), 'closed');
		assert.equal(await inExtension(b, 'chrome.declarativeNetRequest.getSessionRules().then(rules => rules.length)'), 0,
		    'the rules went with the task');
	});

	test('a same-site link that redirects outside is blocked before the outside site hears of it, and the step names the domain', async () => {
		await useScenario({ steps: [{ do: 'click', label: 'Track my parcel' }] }, { domains: '127.0.0.1' });
		const before = outside();
		const redirects = b.site.requestsTo('127.0.0.1').filter(path => path.startsWith('/redirect')).length;
		const r = await runTask({ task: 'Track my parcel.', start_url: b.page('shop/elsewhere.html'), max_failures: 1 });
		assert.equal(outside(), before, `the outside site got no request: ${JSON.stringify(b.site.requestsTo('localhost').slice(before))}`);
		assert.equal(b.site.requestsTo('127.0.0.1').filter(path => path.startsWith('/redirect')).length, redirects + 1, 'the link was followed');
		assert.equal(r.data.stop_reason, 'max_failures', r.text);
		const refused = r.data.steps.find(s => s.tool === 'click_element');
		assert.equal(refused.outcome, 'refused', JSON.stringify(refused));
		assert.match(refused.detail, /\(domain localhost\) is outside the domains this task may visit \(127\.0\.0\.1\)/);
	});

	test('navigate_to or a start_url on the site that redirects outside: the outside site gets nothing', async () => {
		await useScenario({ steps: [{ do: 'navigate', url: `${b.site.origin}/redirect?to=${encodeURIComponent(partnerUrl())}` }] },
		    { domains: '127.0.0.1' });
		const before = outside();
		const r = await runTask({ task: 'Open the tracking page.', start_url: b.page('shop/elsewhere.html'), max_failures: 1 });
		assert.equal(outside(), before, `the outside site got no request: ${JSON.stringify(b.site.requestsTo('localhost').slice(before))}`);
		assert.equal(r.data.stop_reason, 'max_failures', r.text);
		const step = r.data.steps.find(s => s.tool === 'navigate_to');
		assert.match(step.detail, /localhost/, JSON.stringify(step));

		const start = await b.fails('run_task', { task: 'Track it.', start_url: `${b.site.origin}/redirect?to=${encodeURIComponent(partnerUrl())}` });
		assert.equal(start.code, 'INVALID_ARGUMENT');
		assert.match(start.message, /blocked start_url on its way: .*\(domain localhost\)/);
		assert.equal(outside(), before, 'nor for a start_url that redirects');
	});

	test('the person\'s list is a ceiling: a wider client list is refused, an empty one means the person\'s', async () => {
		await useScenario({ steps: [{ do: 'answer', pattern: 'Partner deals' }] }, { domains: '127.0.0.1' });
		const before = outside();
		const wider = await b.fails('run_task', { task: 'Look at the partner deals.', start_url: b.page('shop/index.html'),
		    allowed_domains: ['127.0.0.1', 'localhost'] });
		assert.equal(wider.code, 'INVALID_ARGUMENT');
		assert.match(wider.message, /can only narrow the person's list of allowed domains \(127\.0\.0\.1\), and localhost lies outside it/);
		for (const allowed of [[], undefined]) {
			const empty = await b.fails('run_task', { task: 'Look at the partner deals.', start_url: partnerUrl(),
			    ...(allowed !== undefined ? { allowed_domains: allowed } : {}) });
			assert.equal(empty.code, 'INVALID_ARGUMENT');
			assert.match(empty.message, /\(domain localhost\) is outside the domains this task may visit \(127\.0\.0\.1\)/);
		}
		assert.equal(outside(), before);
	});

	test('wait:false and get_task with wait_ms return the finished result', async () => {
		await useScenario({ steps: [{ do: 'answer', pattern: 'Order #[0-9]+' }] });
		const started = await runTask({ task: 'Report the order number.', wait: false,
		    start_url: b.page('shop/confirm.html?item=blue&name=Ed&country=Japan') });
		const done = await b.ok('get_task', { task_id: started.data.task_id, wait_ms: 30000 });
		assert.equal(done.data.status, 'finished');
		assert.equal(done.data.stop_reason, 'done');
		assert.match(done.data.answer, /^Order #\d+$/);
	});

	test('as an MCP task (2025-11-25): the SDK creates it, polls it and reads the result; get_task sees it', async () => {
		await useScenario({ steps: [{ do: 'answer', pattern: 'Order #[0-9]+' }] });
		await b.client.listTools();
		const statuses = [];
		let result = null;
		let taskId = null;
		for await (const message of b.client.experimental.tasks.callToolStream({ name: 'run_task', arguments: {
			task: 'Report the order number.', start_url: b.page('shop/confirm.html?item=blue&name=Ed&country=Japan') } },
		    CallToolResultSchema, { timeout: 60000 })) {
			if (message.type === 'taskCreated')
				taskId = message.task.taskId;
			if (message.type === 'taskStatus')
				statuses.push(message.task.status);
			if (message.type === 'error')
				throw message.error;
			if (message.type === 'result')
				result = message.result;
		}
		assert.match(taskId, /^[A-Za-z0-9_-]{22}$/, 'an unguessable id');
		assert.equal(statuses.at(-1), 'completed');
		assert.equal(result.structuredContent.task_id, taskId);
		assert.match(result.structuredContent.answer, /^Order #\d+$/);
		const viaTool = await b.ok('get_task', { task_id: taskId });
		assert.equal(viaTool.data.answer, result.structuredContent.answer, 'the tools read the same store');
	});

	test('as an MCP task (2026-07-28 tasks extension): tasks/get until completed, with the result inline', async () => {
		await useScenario({ steps: [{ do: 'answer', pattern: 'Order #[0-9]+' }] });
		const post = async (method, params, name) => {
			const response = await fetch(b.url, {
				method: 'POST',
				headers: {
					'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
					Authorization: `Bearer ${b.token}`, 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method, 'Mcp-Name': name,
				},
				body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: {
					'io.modelcontextprotocol/protocolVersion': '2026-07-28',
					'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
				} } }),
			});
			const body = await response.json();
			assert.equal(body.error, undefined, JSON.stringify(body.error));
			return body.result;
		};
		const created = await post('tools/call', { name: 'run_task', arguments: {
			task: 'Report the order number.', start_url: b.page('shop/confirm.html?item=red&name=Ada&country=Canada') } }, 'run_task');
		assert.equal(created.resultType, 'task');
		const done = await until(async () => {
			const task = await post('tasks/get', { taskId: created.taskId }, created.taskId);
			return task.status !== 'working' && task;
		}, { what: 'the task to complete', ms: 60000 });
		assert.equal(done.status, 'completed');
		assert.match(done.result.structuredContent.answer, /^Order #\d+$/);
	});
});
