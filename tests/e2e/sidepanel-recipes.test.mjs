// End-to-end: the side panel's recipes (extension/sidepanel/), opened as a
// page in real Chromium. An MCP client records two recipes (an order in the
// shop; the bank's unlock form, whose PIN and one-time code become secret
// parameters); the panel lists them (name, steps, owner, created) as they
// are saved; Export downloads the recipe's JSON and its Playwright test;
// Run replays a recipe in a new tab with no model, asking for the secrets
// in password fields that reach the page and are stored nowhere; Delete
// removes a recipe, from MCP clients' lists too.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { EXTENSION_ID, startBridge, until } from './harness.mjs';
import { inExtension } from './agents-harness.mjs';
import { recipeToPlaywright } from '../extension/src/recipes/playwright.js';

const PANEL = `chrome-extension://${EXTENSION_ID}/sidepanel/sidepanel.html`;

describe('side panel: recipes', () => {
	let b;
	let panel;
	let downloads;

	before(async () => {
		b = await startBridge();
		downloads = mkdtempSync(join(tmpdir(), 'bb-downloads-'));
		await b.cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
	});
	after(async () => {
		await b?.close();
		if (downloads !== undefined)
			rmSync(downloads, { recursive: true, force: true });
	});

	// Opens the side panel page in a background tab; resolves to what the tests ask of it.
	async function openPanel() {
		const { targetId } = await b.cdp.send('Target.createTarget', { url: PANEL, background: true });
		const { sessionId } = await b.cdp.send('Target.attachToTarget', { targetId, flatten: true });
		const run = async expression => {
			const r = await b.cdp.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId);
			if (r.exceptionDetails)
				throw new Error(`in the side panel: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
			return r.result.value;
		};
		await until(() => run(`location.href === ${JSON.stringify(PANEL)} && document.readyState === 'complete'`), { what: 'the side panel to load' });
		return {
			run,
			// The recipes as the panel shows them: [{id, name, about, fields, buttons}].
			recipes: () => run(`[...document.querySelectorAll('.recipe')].map(a => ({ id: a.dataset.recipeId, name: a.querySelector('h3').textContent,
			    about: a.querySelector('.note').textContent, fields: [...a.querySelectorAll('label')].map(l => [l.textContent, l.querySelector('input').type]),
			    buttons: [...a.querySelectorAll('button')].map(button => button.textContent) }))`),
			// Presses a recipe's button by its text.
			press: (id, name) => run(`[...document.querySelector('[data-recipe-id="${id}"]').querySelectorAll('button')]
			    .find(button => button.textContent === ${JSON.stringify(name)}).click()`),
			// Types into a recipe's parameter field.
			fill: (id, field, value) => run(`document.querySelector('[data-recipe-id="${id}"] input[name="${field}"]').value = ${JSON.stringify(value)}`),
			notice: () => run('document.getElementById("notice").textContent'),
			// Waits for the panel's notice to match; resolves to it (the error says what it says instead).
			noticeMatching: (pattern, what) => until(async () => {
				const text = await run('document.getElementById("notice").textContent');
				if (!pattern.test(text))
					throw new Error(`the panel says: ${text}`);
				return text;
			}, { what, ms: 60000 }),
		};
	}

	// Records the shop's order of a red mug as a client would; resolves to the saved recipe.
	async function recordOrder() {
		await b.ok('start_recording');
		await b.open('shop/order.html?item=red');
		const state = await b.state();
		await b.ok('type_value', { ref: state.ref('textbox', 'Full name'), text: 'Ada Lovelace' });
		await b.ok('select_option', { ref: state.ref('select', 'Country'), values: ['Japan'] });
		await b.ok('click_element', { ref: state.ref('button', 'Place order') });
		const saved = (await b.ok('stop_recording', { name: 'Order a red mug' })).data.recipe;
		await b.open('index.html');	/* only the replay's tab shows the confirmation later */
		return saved;
	}

	// Records the bank's unlock form: a PIN and a one-time code, both secrets; resolves to the saved recipe.
	async function recordUnlock() {
		await b.ok('start_recording');
		await b.open('unlock.html');
		const state = await b.state();
		await b.ok('type_value', { ref: state.ref('textbox', 'PIN'), text: '4921' });
		await b.ok('type_value', { ref: state.ref('textbox', 'One-time code'), text: '739164' });
		await b.ok('click_element', { ref: state.ref('button', 'Unlock') });
		const saved = (await b.ok('stop_recording', { name: 'Unlock the card' })).data.recipe;
		await b.open('index.html');	/* only the replay's tab shows the form later */
		return saved;
	}

	let order;
	let unlock;

	test('the panel lists every recipe with its steps, owner and creation, as it is saved', async () => {
		panel = await openPanel();
		assert.equal(await panel.run('document.getElementById("no-recipes").hidden'), false, 'no recipes yet');
		order = await recordOrder();
		unlock = await recordUnlock();
		const shown = await until(async () => {
			const list = await panel.recipes();
			return list.length === 2 ? list : undefined;
		}, { what: 'the two recipes to show' });
		assert.deepEqual(shown.map(recipe => [recipe.id, recipe.name]), [[unlock.id, 'Unlock the card'], [order.id, 'Order a red mug']], 'newest first');
		assert.match(shown[1].about, new RegExp(`^3 steps, by ${order.owner}, created .+`));
		assert.equal(await panel.run('document.getElementById("no-recipes").hidden'), true);
		assert.deepEqual(shown[1].fields, [], 'every parameter of the order has a default');
		assert.deepEqual(shown[0].fields, [['pin (secret: never stored)', 'password'], ['one_time_code (secret: never stored)', 'password']]);
		assert.deepEqual(shown[1].buttons, ['Run', 'Delete', 'Export']);
	});

	test('Export downloads the recipe\'s JSON and its Playwright test', async () => {
		await panel.press(order.id, 'Export');
		const json = join(downloads, 'order-a-red-mug.recipe.json');
		const spec = join(downloads, 'order-a-red-mug.spec.ts');
		await until(() => existsSync(json) && existsSync(spec) && readFileSync(spec, 'utf8').endsWith('});\n'), { what: 'both files to download' });
		assert.deepEqual(JSON.parse(readFileSync(json, 'utf8')), (await b.ok('get_recipe', { recipe_id: order.id })).data.recipe);
		assert.equal(readFileSync(spec, 'utf8'), recipeToPlaywright(order));
		assert.match(readFileSync(spec, 'utf8'), /page\.getByRole\("button", \{ name: "Place order", exact: true \}\)\.nth\(0\)\.click\(\);/);
		assert.equal(await panel.notice(), 'Exported "Order a red mug" as order-a-red-mug.recipe.json and order-a-red-mug.spec.ts.');
	});

	test('Run replays a recipe in a new tab with no model; its secrets come from password fields, reach the page and are stored nowhere', async () => {
		await panel.press(order.id, 'Run');
		const ran = await panel.noticeMatching(/^Replayed/, 'the replay to end');
		assert.match(ran, /^Replayed "Order a red mug": 3 steps in tab \d+, with no model; the tab shows \S+shop\/confirm\.html\?item=red&name=Ada\+Lovelace&country=Japan/);
		assert.match(await b.evaluate(/shop\/confirm\.html\?item=red&name=Ada/, 'document.getElementById("summary").textContent'),
		    /^Order #\d+ confirmed: one red mug for Ada Lovelace, shipping to Japan\.$/);

		await panel.press(unlock.id, 'Run');
		await panel.noticeMatching(/needs the parameters pin/, 'the replay to ask for the secrets');
		await panel.fill(unlock.id, 'pin', '5038');
		await panel.fill(unlock.id, 'one_time_code', '246810');
		await panel.press(unlock.id, 'Run');
		const unlocked = await panel.noticeMatching(/^Replayed "Unlock/, 'the unlock replay to end');
		assert.match(unlocked, /^Replayed "Unlock the card": 3 steps in tab \d+/);
		assert.deepEqual(await b.evaluate(/unlock\.html/, 'window.received'), { pin: '5038', otp: '246810' });
		const stored = JSON.stringify(await inExtension(b, 'chrome.storage.local.get(null)'));
		for (const secret of ['4921', '739164', '5038', '246810'])
			assert.ok(!stored.includes(secret), `${secret} is stored nowhere`);
	});

	test('Delete removes a recipe from the panel and from MCP clients\' lists', async () => {
		await panel.press(order.id, 'Delete');
		await until(async () => (await panel.recipes()).length === 1, { what: 'the recipe to go' });
		assert.equal(await panel.notice(), 'Deleted recipe "Order a red mug".');
		assert.deepEqual((await b.ok('list_recipes')).data.recipes.map(recipe => recipe.recipe_id), [unlock.id]);
	});
});
