// End-to-end: recipes exported as Playwright tests (extension/src/recipes/
// playwright.js) run green under `playwright test` against the fixture site,
// with the system Chromium (CHROMIUM) and Playwright from npm (pinned in
// tests/playwright/package.json, installed in the build tree). The recipes
// are two of the agents' benchmark tasks, written out in the recipe format:
// the shop order (links, a text field, a select, a button, across pages)
// and the todo list (typing with Enter, an unnamed checkbox found by its
// row's text, which is not the first row's). Two more exports must fail, and say why: one whose
// secret parameter is not in the environment (the test names the variable)
// and one whose expectation does not hold on the page.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { startFixtureSite } from './fixture-server.mjs';
import { scaled } from '../timing.mjs';
import { recipeToPlaywright } from '../extension/src/recipes/playwright.js';
import { validateRecipe } from '../extension/src/recipes/schema.js';

const SOURCE = join(process.env.BRIDGE_SRCDIR, 'tests', 'playwright');
const DIR = join(process.env.BRIDGE_BUILDDIR, 'tests', 'playwright-export');

// Installs the pinned Playwright into DIR (npm ci, skipped when the lock is unchanged; tests/npm-ci.sh).
function installPlaywright() {
	mkdirSync(DIR, { recursive: true });
	for (const file of ['package.json', 'package-lock.json', 'playwright.config.mjs']) {
		copyFileSync(join(SOURCE, file), join(DIR, file));
		chmodSync(join(DIR, file), 0o644);
	}
	const install = spawnSync('sh', ['-c', '. "$1"; npm_ci_once "$2" recipes-export.test.mjs', 'sh',
		join(process.env.BRIDGE_SRCDIR, 'tests', 'npm-ci.sh'), DIR],
	    { env: { ...process.env, NPM: process.env.NPM || 'npm', PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' }, encoding: 'utf8' });
	assert.equal(install.status, 0, `npm ci of tests/playwright failed:\n${install.stderr}`);
}

// A recipe in the format (docs/recipes.md) for the fixture site at origin.
function recipe(origin, name, steps, parameters = []) {
	const recipeValue = {
		schema: 'browser-bridge/recipe', schema_version: 1, id: `rcp_${name.replace(/\W+/g, '_')}`, version: 1, name,
		created: new Date().toISOString(), owner: 'owner', source: { kind: 'recording' },
		start_url: `${origin}/${steps[0].args.url ?? ''}`, allowed_domains: [new URL(origin).hostname], parameters,
		steps: steps.map(step => step.tool === 'navigate_to' ? { ...step, args: { url: `${origin}/${step.args.url}` } } : step),
	};
	const checked = validateRecipe(recipeValue);
	assert.deepEqual(checked.errors, [], `the ${name} recipe is valid`);
	return recipeValue;
}

// The shop order of the agents' benchmark: a mug, a name, a country, the order.
function shopOrder(origin) {
	return recipe(origin, 'shop order', [
		{ tool: 'navigate_to', args: { url: 'shop/index.html' }, expect: { url: `${origin}/shop/index.html` } },
		{ tool: 'click_element', target: { role: 'link', name: 'Blue mug', nth: 0 }, args: {}, expect: { url: `${origin}/shop/mug-blue.html` } },
		{ tool: 'click_element', target: { role: 'link', name: 'Order this mug', nth: 0 }, args: {}, expect: { url: `${origin}/shop/order.html?item=blue` } },
		{ tool: 'type_value', target: { role: 'textbox', name: 'Full name', nth: 0 }, args: { text: '{{full_name}}' } },
		{ tool: 'select_option', target: { role: 'select', name: 'Country', nth: 0 }, args: { values: ['{{country}}'] } },
		{ tool: 'click_element', target: { role: 'button', name: 'Place order', nth: 0 }, args: {},
			expect: { appears: { role: 'heading', name: 'Thank you', nth: 0 } } },
		{ tool: 'wait_for', args: { text: 'Order #' } },
	], [{ name: 'full_name', default: 'Ada Lovelace', secret: false }, { name: 'country', default: 'Canada', secret: false }]);
}

// The todo list of the agents' benchmark: add an item with Enter, tick a row's unnamed checkbox
// by the row's text (the second row, so that the first checkbox would be the wrong one), 3 left.
function todoList(origin, { itemSecret = false, left = 3 } = {}) {
	return recipe(origin, itemSecret ? 'todo list with a secret' : left === 3 ? 'todo list' : 'todo list expecting too much', [
		{ tool: 'navigate_to', args: { url: 'todos.html' }, expect: { url: `${origin}/todos.html` } },
		{ tool: 'type_value', target: { role: 'textbox', name: 'What needs to be done?', nth: 0 }, args: { text: '{{item}}', submit: true },
			expect: { appears: { role: 'checkbox', name: '', context: 'buy milk', nth: 0 } } },
		{ tool: 'click_element', target: { role: 'checkbox', name: '', context: 'water the plants', nth: 0 }, args: {} },
		{ tool: 'wait_for', args: { selector: 'li.completed:nth-child(2)', timeout_ms: 2000 } },
		{ tool: 'wait_for', args: { text: `${left} items left`, timeout_ms: 2000 } },
	], [itemSecret ? { name: 'item', secret: true } : { name: 'item', default: 'buy milk', secret: false }]);
}

// Runs `playwright test` on the spec files in DIR/run with the parameters' variables given (and no others); resolves to {code, output, results}.
function runPlaywright(run, variables) {
	const resultsFile = join(DIR, `${run}-results.json`);
	rmSync(resultsFile, { force: true });
	const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('RECIPE_')));
	return new Promise(resolve => {
		const child = spawn(process.execPath, [join(DIR, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '--config', join(DIR, 'playwright.config.mjs'), run],
		    { cwd: DIR, env: { ...env, ...variables, RECIPE_TEST_RESULTS: resultsFile, RECIPE_TEST_TIMEOUT_MS: String(scaled(30000)) }, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		child.stdout.on('data', chunk => { output += chunk; });
		child.stderr.on('data', chunk => { output += chunk; });
		child.on('close', code => resolve({ code, output, results: JSON.parse(readFileSync(resultsFile, 'utf8')) }));
	});
}

// Each test's outcome by its title: {status, error}.
function outcomes(results) {
	const byTitle = new Map();
	const walk = suite => {
		for (const spec of suite.specs ?? [])
			for (const run of spec.tests)
				byTitle.set(spec.title, { status: run.results[0]?.status, error: run.results[0]?.error?.message ?? '' });
		(suite.suites ?? []).forEach(walk);
	};
	results.suites.forEach(walk);
	return byTitle;
}

describe('recipes exported as Playwright tests', () => {
	let site;
	let run;

	before(async () => {
		installPlaywright();
		site = await startFixtureSite();
		run = `run-${process.pid}`;
		rmSync(join(DIR, run), { recursive: true, force: true });
		mkdirSync(join(DIR, run));
	});
	after(async () => {
		await site?.close();
		if (run !== undefined)
			rmSync(join(DIR, run), { recursive: true, force: true });
	});

	test('the shop order and the todo list pass; a missing secret and a wrong expectation fail, saying so', { timeout: scaled(240000) }, async () => {
		const specs = {
			'shop-order.spec.ts': shopOrder(site.origin),
			'todo-list.spec.ts': todoList(site.origin),
			'todo-secret.spec.ts': todoList(site.origin, { itemSecret: true }),
			'todo-wrong.spec.ts': todoList(site.origin, { left: 9 }),
		};
		for (const [file, value] of Object.entries(specs))
			writeFileSync(join(DIR, run, file), recipeToPlaywright(value));
		const { output, results } = await runPlaywright(run, {});
		const byTitle = outcomes(results);
		assert.equal(byTitle.size, 4, `four tests ran:\n${output}`);
		assert.equal(byTitle.get('shop order').status, 'passed', `shop order:\n${output}`);
		assert.equal(byTitle.get('todo list').status, 'passed', `todo list:\n${output}`);
		assert.equal(byTitle.get('todo list with a secret').status, 'failed');
		assert.match(byTitle.get('todo list with a secret').error,
		    /Set RECIPE_ITEM in the environment: the recipe's parameter item is a secret, which recipes never store/);
		assert.equal(byTitle.get('todo list expecting too much').status, 'failed');
		assert.match(byTitle.get('todo list expecting too much').error, /toBeVisible/);
		assert.match(byTitle.get('todo list expecting too much').error, /9 items left/);

		/* With the secret in the environment, that test passes too. */
		rmSync(join(DIR, run, 'shop-order.spec.ts'));
		rmSync(join(DIR, run, 'todo-list.spec.ts'));
		rmSync(join(DIR, run, 'todo-wrong.spec.ts'));
		const again = await runPlaywright(run, { RECIPE_ITEM: 'buy milk' });
		assert.equal(outcomes(again.results).get('todo list with a secret').status, 'passed', again.output);
	});
});
