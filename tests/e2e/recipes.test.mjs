// End-to-end: recipes in real Chromium, through the host. A run_task task
// that ends done leaves a recipe that run_recipe replays with no model
// request (counted at the scripted model's server) to the same end; a
// client records its own calls and replays them; a drifted page (other
// ids and classes, a field moved) still replays; a renamed button stops
// the replay with an error naming the step and what the page offers, and
// heals with exactly one model request; a replay runs as a task; it keeps
// to the person's controls (TAB_BUSY, the pause, their allowed domains).

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

import { EXTENSION_ID, startBridge, until } from './harness.mjs';
import { SHOP_ORDER_STEPS, configureAgents, startModelServer } from './agents-harness.mjs';

const POPUP = `chrome-extension://${EXTENSION_ID}/popup/popup.html`;

describe('recipes', () => {
	let b;
	let model = null;

	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await model?.close();
		await b?.close();
	});

	// The confirmation text of the shop's order page whose URL names this customer.
	function confirmation(name) {
		return b.evaluate(new RegExp(`shop/confirm\\.html.*name=${encodeURIComponent(name).replace(/%20/g, '\\+')}`),
		    'document.getElementById("summary").textContent');
	}

	// Sets (or with null clears) the order page's drift on the fixture site's origin, from a page there.
	async function setDrift(value) {
		await b.open('shop/index.html?drift-switch');
		await b.evaluate(/drift-switch/, value === null ? 'localStorage.removeItem("drift")' : `localStorage.setItem("drift", ${JSON.stringify(value)})`);
	}

	let taskRecipe;

	test('a task that ends done leaves a recipe; run_recipe replays it with no model request, to the same end', async () => {
		model = await startModelServer({ steps: SHOP_ORDER_STEPS });
		await configureAgents(b, { baseUrl: `${model.url}/v1`, apiKey: 'sk-e2e-recipes' });
		const task = await b.client.callTool({ name: 'run_task', arguments: {
			task: 'Order one blue mug for Ada Lovelace, shipping to Canada, and report the order number.',
			start_url: b.page('shop/index.html'), allowed_domains: ['127.0.0.1'] } }, undefined, { timeout: 120000 });
		const result = task.structuredContent;
		assert.equal(result.stop_reason, 'done', task.content[0].text);
		assert.match(result.recipe_id ?? '', /^rcp_/, 'the result names the recipe it left');

		const listed = await b.ok('list_recipes');
		const summary = listed.data.recipes.find(recipe => recipe.recipe_id === result.recipe_id);
		assert.ok(summary, listed.text);
		assert.deepEqual(summary.source, { kind: 'task', task_id: result.task_id });
		const { data: { recipe } } = await b.ok('get_recipe', { recipe_id: result.recipe_id });
		taskRecipe = recipe;
		assert.deepEqual(recipe.steps.map(step => [step.tool, step.target.role, step.target.name]), [
			['click_element', 'link', 'Blue mug'], ['click_element', 'link', 'Order this mug'], ['type_value', 'textbox', 'Full name'],
			['select_option', 'select', 'Country'], ['click_element', 'button', 'Place order']]);
		assert.ok(!JSON.stringify(recipe).includes('"ref"'), 'no ref in a recipe');
		assert.deepEqual(recipe.parameters, [{ name: 'full_name', default: 'Ada Lovelace', secret: false },
			{ name: 'country', default: 'Canada', secret: false }]);
		assert.match(recipe.steps[4].expect.url, /shop\/confirm\.html/);
		assert.deepEqual(recipe.allowed_domains, ['127.0.0.1']);

		const requests = (await model.log()).length;
		const progress = [];
		const replay = await b.client.callTool({ name: 'run_recipe', arguments: { recipe_id: recipe.id, parameters: { full_name: 'Grace Hopper' } },
			_meta: { 'browser-bridge/structured': true } }, undefined, { timeout: 120000, onprogress: p => progress.push(p.message) });
		assert.equal(replay.isError, undefined, replay.content[0].text);
		assert.equal(replay.structuredContent.status, 'done');
		assert.equal((await model.log()).length, requests, 'the replay made no model request');
		assert.match(await confirmation('Grace Hopper'), /^Order #\d+ confirmed: one blue mug for Grace Hopper, shipping to Canada\.$/);
		assert.match(replay.structuredContent.url, /shop\/confirm\.html\?item=blue&name=Grace\+Hopper&country=Canada/);
		assert.deepEqual(progress, [
			'Step 1 of 5: click_element link "Blue mug"', 'Step 2 of 5: click_element link "Order this mug"',
			'Step 3 of 5: type_value textbox "Full name"', 'Step 4 of 5: select_option select "Country"',
			'Step 5 of 5: click_element button "Place order"']);
	});

	test('run_recipe as a task: wait false answers with a task_id at once, and get_task follows it step by step to its end', async () => {
		const requests = (await model.log()).length;
		const started = await b.ok('run_recipe', { recipe_id: taskRecipe.id, parameters: { full_name: 'Task Form' }, wait: false });
		assert.equal(started.data.status, 'running', started.text);
		const ended = await b.ok('get_task', { task_id: started.data.task_id, wait_ms: 60000 });
		assert.equal(ended.data.status, 'finished', ended.text);
		assert.equal(ended.data.stop_reason, 'done', ended.text);
		assert.deepEqual(ended.data.steps.map(step => [step.step, step.tool, step.label, step.outcome]), [
			[1, 'click_element', 'Blue mug', 'ok'], [2, 'click_element', 'Order this mug', 'ok'], [3, 'type_value', 'Full name', 'ok'],
			[4, 'select_option', 'Country', 'ok'], [5, 'click_element', 'Place order', 'ok']]);
		assert.match(ended.data.answer, /replayed 5 steps in tab \d+, with no model/);
		assert.equal(ended.data.usage.model_calls, 0);
		assert.equal((await model.log()).length, requests);
		assert.match(await confirmation('Task Form'), /one blue mug for Task Form, shipping to Canada\.$/);
		assert.ok((await b.ok('list_tasks')).data.tasks.some(task => task.task_id === started.data.task_id));
	});

	test('as an MCP task (2025-11-25): the SDK creates the replay as a task, polls it and reads its result', async () => {
		await b.client.listTools();
		let taskId = null;
		let result = null;
		for await (const message of b.client.experimental.tasks.callToolStream({ name: 'run_recipe',
			arguments: { recipe_id: taskRecipe.id, parameters: { full_name: 'Protocol Task' } } }, CallToolResultSchema, { timeout: 60000 })) {
			if (message.type === 'taskCreated')
				taskId = message.task.taskId;
			if (message.type === 'error')
				throw message.error;
			if (message.type === 'result')
				result = message.result;
		}
		assert.equal(result.structuredContent.task_id, taskId);
		assert.equal(result.structuredContent.stop_reason, 'done', result.content[0].text);
		assert.match(await confirmation('Protocol Task'), /one blue mug for Protocol Task, shipping to Canada\.$/);
	});

	let recorded;

	test('a client records its own calls and replays them, with other values for the parameters', async () => {
		await b.ok('start_recording');
		await b.open('shop/order.html?item=red');
		const state = await b.state();
		await b.ok('type_value', { ref: state.ref('textbox', 'Full name'), text: 'Ada Lovelace' });
		await b.state();
		await b.ok('select_option', { ref: state.ref('select', 'Country'), values: ['Japan'] });
		await b.ok('click_element', { ref: state.ref('button', 'Place order') });
		const saved = await b.ok('stop_recording', { name: 'Order a red mug' });
		recorded = saved.data.recipe;
		assert.equal(recorded.name, 'Order a red mug');
		assert.deepEqual(recorded.source, { kind: 'recording' });
		assert.match(recorded.start_url, /shop\/order\.html\?item=red/, 'the first navigation is the start');
		assert.deepEqual(recorded.steps.map(step => step.tool), ['type_value', 'select_option', 'click_element']);
		assert.deepEqual(recorded.parameters.map(p => [p.name, p.default]), [['full_name', 'Ada Lovelace'], ['country', 'Japan']]);
		assert.match(saved.text, /Replay it with run_recipe/);

		const replay = await b.ok('run_recipe', { recipe_id: recorded.id, parameters: { full_name: 'Alan Turing', country: 'France' } });
		assert.match(await confirmation('Alan Turing'), /^Order #\d+ confirmed: one red mug for Alan Turing, shipping to France\.$/);
		assert.match(replay.text, /replayed 3 steps in tab \d+, with no model/);
		const nothing = await b.fails('stop_recording', { name: 'again' });
		assert.match(nothing.message, /No recording is under way/);
	});

	test('a drifted page (other ids and classes, a field moved) replays by role and name', async () => {
		await setDrift('moved');
		try {
			await b.open('shop/order.html?drift-check');
			assert.equal(await b.evaluate(/drift-check/, 'document.querySelector("#checkout-v2 > .country-box select") !== null'), true,
			    'the page drifted: the form has another id, and the country field comes first');
			await b.ok('run_recipe', { recipe_id: recorded.id, parameters: { full_name: 'Moved Form' } });
			assert.match(await confirmation('Moved Form'), /one red mug for Moved Form, shipping to Japan\.$/);
		} finally {
			await setDrift(null);
		}
	});

	test('a renamed button stops the replay with an error naming the step, what it looked for and what the page offers', async () => {
		await setDrift('renamed');
		try {
			const requests = (await model.log()).length;
			const failed = await b.fails('run_recipe', { recipe_id: taskRecipe.id, parameters: { full_name: 'Renamed Button' } });
			assert.equal(failed.code, 'ELEMENT_NOT_FOUND');
			assert.match(failed.message, /^Step 5 \(click_element button "Place order"\) stopped the replay: no button "Place order" is on \S+shop\/order\.html\S*\. The page offers instead: button "Submit order"/);
			assert.equal((await model.log()).length, requests, 'no model request without heal');

			const started = await b.ok('run_recipe', { recipe_id: taskRecipe.id, parameters: { full_name: 'Renamed Task' }, wait: false });
			const ended = await b.ok('get_task', { task_id: started.data.task_id, wait_ms: 60000 });
			assert.equal(ended.data.stop_reason, 'step_failed', ended.text);
			assert.match(ended.data.message, /^ELEMENT_NOT_FOUND: Step 5 \(click_element button "Place order"\) stopped the replay/);
			assert.deepEqual(ended.data.steps.map(step => step.outcome), ['ok', 'ok', 'ok', 'ok', 'error']);
		} finally {
			await setDrift(null);
		}
	});

	test('with heal, the renamed button costs exactly one model request, the rest replays, and the recipe is saved as version 2', async () => {
		await model.close();
		model = await startModelServer({ steps: [{ do: 'click', label: 'Submit order' }] });
		await configureAgents(b, { baseUrl: `${model.url}/v1`, apiKey: 'sk-e2e-recipes' });
		await setDrift('renamed');
		try {
			const healed = await b.ok('run_recipe', { recipe_id: taskRecipe.id, heal: true, parameters: { full_name: 'Healed Button' } });
			assert.deepEqual((await model.log()).map(entry => entry.role), ['navigator'], 'one model request: the navigator\'s');
			assert.match(await confirmation('Healed Button'), /one blue mug for Healed Button, shipping to Canada\.$/);
			assert.deepEqual(healed.data.healed_steps, [5]);
			assert.match(healed.text, /healing 1 step with one model call each; saved as version 2/);
			assert.match(healed.text, /5\. click_element button "Submit order": healed/);
			const { data: { recipe } } = await b.ok('get_recipe', { recipe_id: taskRecipe.id });
			assert.equal(recipe.version, 2);
			assert.deepEqual(recipe.steps[4].target, { role: 'button', name: 'Submit order', nth: 0 });
			assert.deepEqual(recipe.steps.slice(0, 4), taskRecipe.steps.slice(0, 4), 'the other steps are as they were');

			const again = await b.ok('run_recipe', { recipe_id: taskRecipe.id, parameters: { full_name: 'Healed Again' } });
			assert.equal(again.data.model_calls, 0);
			assert.equal((await model.log()).length, 1, 'version 2 replays the renamed page with no model');
		} finally {
			await setDrift(null);
		}
	});

	test('a replay keeps to the person\'s controls: TAB_BUSY in a task\'s tab, the pause, and their allowed domains as its ceiling', async () => {
		await model.close();
		model = await startModelServer({ steps: SHOP_ORDER_STEPS, faults: [{ request: 2, hold: true }] });
		await configureAgents(b, { baseUrl: `${model.url}/v1`, apiKey: 'sk-e2e-recipes' });
		const task = await b.ok('run_task', { task: 'Order a mug, slowly.', start_url: b.page('shop/index.html?held'), wait: false });
		try {
			const busy = await b.fails('run_recipe', { recipe_id: recorded.id, tab_id: task.data.tab_id });
			assert.equal(busy.code, 'TAB_BUSY');
			assert.ok(busy.message.includes(task.data.task_id), busy.message);
		} finally {
			await b.ok('stop_task', { task_id: task.data.task_id });
		}

		const popup = await b.openDirectly(POPUP);
		const pause = async paused => {
			await b.evaluate(POPUP, 'document.getElementById("pause").click()');
			await until(() => b.evaluate(POPUP, `document.getElementById("paused-note").hidden === ${!paused}`),
			    { what: `the popup to say it is ${paused ? 'paused' : 'running again'}` });
		};
		try {
			await until(() => b.evaluate(POPUP, '!document.getElementById("pause").disabled'), { what: 'the popup to show the switch' });
			await pause(true);
			assert.equal((await b.fails('run_recipe', { recipe_id: recorded.id })).code, 'PAUSED_BY_USER');
			await pause(false);

			/* Mid-replay: the step's button appears (behind the tools' back) once the person has paused. */
			const start = b.page('index.html?paused-mid-replay');
			const recipe = { ...recorded, id: 'rcp_paused', start_url: start, parameters: [],
				steps: [{ tool: 'click_element', target: { role: 'button', name: 'Appears later', nth: 0 }, args: {}, expect: {} }] };
			const started = await b.ok('run_recipe', { recipe, wait: false });
			await pause(true);
			await b.evaluate(/paused-mid-replay/, 'document.body.append(Object.assign(document.createElement("button"), { textContent: "Appears later" }))');
			const ended = await b.ok('get_task', { task_id: started.data.task_id, wait_ms: 60000 });
			assert.equal(ended.data.stop_reason, 'step_failed', ended.text);
			assert.match(ended.data.message, /^PAUSED_BY_USER: /);
		} finally {
			if (await b.evaluate(POPUP, 'document.getElementById("pause").checked'))
				await pause(false);
			await popup.close();
		}

		await configureAgents(b, { baseUrl: `${model.url}/v1`, apiKey: 'sk-e2e-recipes', domains: 'example.org' });
		try {
			const fenced = await b.fails('run_recipe', { recipe_id: recorded.id });
			assert.equal(fenced.code, 'INVALID_ARGUMENT');
			assert.match(fenced.message, /allowed_domains can only narrow the person's list of allowed domains \(example\.org\), and 127\.0\.0\.1 lies outside it/);
		} finally {
			await configureAgents(b, { baseUrl: `${model.url}/v1`, apiKey: 'sk-e2e-recipes' });
		}
	});

	test('list, get and delete: a deleted recipe is gone; its JSON handed back in runs, a broken one is refused saying why', async () => {
		const json = (await b.ok('get_recipe', { recipe_id: recorded.id })).text;
		await b.ok('delete_recipe', { recipe_id: recorded.id });
		assert.ok(!(await b.ok('list_recipes')).data.recipes.some(recipe => recipe.recipe_id === recorded.id));
		const gone = await b.fails('get_recipe', { recipe_id: recorded.id });
		assert.equal(gone.code, 'INVALID_ARGUMENT');
		assert.match((await b.fails('run_recipe', { recipe_id: recorded.id })).message, /no recipe .* of yours/);

		await b.ok('run_recipe', { recipe: JSON.parse(json), parameters: { full_name: 'Handed In' } });
		assert.match(await confirmation('Handed In'), /one red mug for Handed In, shipping to Japan\.$/);
		const broken = { ...JSON.parse(json), steps: [{ tool: 'click_element', args: { ref: 'e12' } }] };
		const refused = await b.fails('run_recipe', { recipe: broken });
		assert.equal(refused.code, 'INVALID_ARGUMENT');
		assert.match(refused.message, /does not follow the schema .*steps\[0\]\.args/);
	});
});
