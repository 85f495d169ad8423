// Unit tests: a recipe as a Playwright test (src/recipes/playwright.js).
// tests/e2e/recipes-export.test.mjs runs such tests under `npx playwright test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { CONTEXT_CONTAINERS, locatorSource, recipeToPlaywright, stringSource } from '../src/recipes/playwright.js';

/** A recipe with the given steps and parameters, valid otherwise. */
function recipe(steps, parameters = []) {
	return {
		schema: 'browser-bridge/recipe', schema_version: 1, id: 'rcp_test0001', version: 3, name: 'sign in',
		created: '2026-11-28T06:30:00.000Z', owner: 'owner', source: { kind: 'recording' },
		start_url: 'https://example.com/login', allowed_domains: ['example.com'], parameters, steps,
	};
}

/** The lines of a recipe's test body: the lines between the test's opening and closing, without indentation or blank lines. */
function bodyLines(steps, parameters) {
	const source = recipeToPlaywright(recipe(steps, parameters));
	const start = source.indexOf('test("');
	return source.slice(source.indexOf('\n', start) + 1, source.lastIndexOf('});')).split('\n').map(line => line.trim()).filter(Boolean);
}

test('a target becomes getByRole with its exact name and nth; a text field also matches searchbox and spinbutton', () => {
	assert.equal(locatorSource({ role: 'button', name: 'Sign in', nth: 0 }), 'page.getByRole("button", { name: "Sign in", exact: true }).nth(0)');
	assert.equal(locatorSource({ role: 'link', name: 'Blue mug' }), 'page.getByRole("link", { name: "Blue mug", exact: true }).nth(0)', 'nth defaults to 0');
	assert.equal(locatorSource({ role: 'button', name: 'Say "hi"', nth: 2 }), 'page.getByRole("button", { name: "Say \\"hi\\"", exact: true }).nth(2)');
	assert.equal(locatorSource({ role: 'textbox', name: 'Email', nth: 1 }),
	    'page.getByRole("textbox", { name: "Email", exact: true }).or(page.getByRole("searchbox", { name: "Email", exact: true }))' +
	    '.or(page.getByRole("spinbutton", { name: "Email", exact: true })).nth(1)');
	assert.equal(locatorSource({ role: 'select', name: 'Country' }),
	    'page.getByRole("combobox", { name: "Country", exact: true }).or(page.getByRole("listbox", { name: "Country", exact: true })).nth(0)');
	assert.equal(locatorSource({ role: 'textarea', name: 'Notes' }), 'page.getByRole("textbox", { name: "Notes", exact: true }).nth(0)');
});

test('a context becomes the list item, row or fieldset holding its text, as the state reads it', () => {
	assert.equal(CONTEXT_CONTAINERS, 'li, tr, [role="listitem"], [role="row"], fieldset');
	assert.equal(locatorSource({ role: 'checkbox', name: '', context: 'walk the dog', nth: 0 }),
	    'page.locator("li, tr, [role=\\"listitem\\"], [role=\\"row\\"], fieldset").filter({ hasText: "walk the dog" }).getByRole("checkbox").nth(0)');
	assert.match(locatorSource({ role: 'button', name: '×', context: 'call the bank about the new…' }),
	    /filter\(\{ hasText: "call the bank about the new" \}\)\.getByRole\("button", \{ name: "×", exact: true \}\)/, 'a cut context is matched by its start');
});

test('a name the state cut is matched by its start; roles ARIA lacks are found by label, text or CSS', () => {
	const long = `${'a'.repeat(79)}…`;
	assert.equal(locatorSource({ role: 'link', name: long }), `page.getByRole("link", { name: new RegExp("^${'a'.repeat(79)}") }).nth(0)`);
	assert.equal(locatorSource({ role: 'link', name: 'Loading…' }), 'page.getByRole("link", { name: "Loading…", exact: true }).nth(0)', 'a short name is whole');
	assert.equal(locatorSource({ role: 'editable', name: 'Body' }),
	    'page.locator("[contenteditable]:not([contenteditable=\\"false\\"])").and(page.getByLabel("Body", { exact: true })).nth(0)');
	assert.equal(locatorSource({ role: 'input', name: 'Birthday' }), 'page.locator("input").and(page.getByLabel("Birthday", { exact: true })).nth(0)');
	assert.equal(locatorSource({ role: 'clickable', name: 'Open menu', nth: 1 }), 'page.getByText("Open menu", { exact: true }).nth(1)');
	assert.equal(locatorSource({ role: 'draggable', name: '' }), 'page.locator("[draggable=\\"true\\"]").nth(0)');
});

test('strings with placeholders read params, escaping what a template literal would read', () => {
	assert.equal(stringSource('plain'), '"plain"');
	assert.equal(stringSource('{{email}}'), 'params.email');
	assert.equal(stringSource('Dear {{name}}, `${x}` costs \\1'), '`Dear ${params.name}, \\`\\${x}\\` costs \\\\1`');
	assert.equal(stringSource('{{ spaced }}'), '"{{ spaced }}"', 'not a placeholder: a literal');
});

test('parameters come from RECIPE_<NAME> with their defaults; secrets and default-less ones are required, naming the variable', () => {
	const source = recipeToPlaywright(recipe([
		{ tool: 'type_value', target: { role: 'textbox', name: 'Email' }, args: { text: '{{email}}' } },
		{ tool: 'type_value', target: { role: 'textbox', name: 'Password' }, args: { text: '{{password}}', submit: true } },
	], [{ name: 'email', default: 'a@b.c' }, { name: 'password', secret: true }, { name: 'code' }]));
	assert.match(source, /^\/\/   RECIPE_EMAIL \(default "a@b\.c"\)$/m);
	assert.match(source, /^\/\/   RECIPE_PASSWORD \(secret: required, never stored\)$/m);
	assert.match(source, /^\/\/   RECIPE_CODE \(required\)$/m);
	assert.match(source, /^\t\temail: process\.env\.RECIPE_EMAIL \?\? "a@b\.c",$/m);
	assert.match(source, /^\t\tpassword: requiredEnv\("RECIPE_PASSWORD", "the recipe's parameter password is a secret, which recipes never store"\),$/m);
	assert.match(source, /^\t\tcode: requiredEnv\("RECIPE_CODE", "the recipe's parameter code has no default"\),$/m);
	assert.match(source, /^function requiredEnv\(name: string, why: string\): string \{$/m);
	assert.match(source, /typeValue\(page, page\.getByRole\("textbox", \{ name: "Password", exact: true \}\).*\.nth\(0\), params\.password, \{ submit: true \}\);/);
	const plain = recipeToPlaywright(recipe([{ tool: 'navigate_to', args: { url: 'https://example.com/' } }]));
	assert.doesNotMatch(plain, /requiredEnv|params|typeValue|Locator/, 'helpers only where used');
	assert.match(plain, /^import \{ test, expect \} from '@playwright\/test';$/m);
});

test('each tool as Playwright calls, and each expectation as toHaveURL or toBeVisible', () => {
	const button = { role: 'button', name: 'Go' };
	assert.deepEqual(bodyLines([
		{ tool: 'navigate_to', args: { url: 'https://example.com/a', wait_until: 'none' }, expect: { url: 'https://example.com/a' } },
		{ tool: 'click_element', target: button, args: { click_count: 2, modifiers: ['Shift'] }, expect: { appears: { role: 'heading', name: 'Done', nth: 1 } } },
		{ tool: 'click_element', args: { coordinates: { x: 10, y: 20 }, button: 'right' } },
		{ tool: 'hover_element', target: button, args: {} },
		{ tool: 'select_option', target: { role: 'select', name: 'Size' }, args: { values: ['L', '{{colour}}'] } },
		{ tool: 'press_keys', target: button, args: { keys: '{Control+A}' } },
		{ tool: 'navigate_history', args: { action: 'back' } },
		{ tool: 'scroll_page', args: { direction: 'up', pixels: 200 } },
		{ tool: 'scroll_page', target: button, args: { direction: 'to_element' } },
		{ tool: 'wait_for', args: { text: 'Saved', url: 'example.com/b', timeout_ms: 5000 } },
		{ tool: 'get_browser_state', args: {} },
	], [{ name: 'colour', default: 'blue' }]), [
		'const params = {',
		'colour: process.env.RECIPE_COLOUR ?? "blue",',
		'};',
		'await page.goto("https://example.com/login");',
		'// Step 1: navigate_to',
		'await page.goto("https://example.com/a", { waitUntil: "commit" });',
		'await expect(page).toHaveURL(samePage("https://example.com/a"));',
		'// Step 2: click_element button "Go"',
		'await page.getByRole("button", { name: "Go", exact: true }).nth(0).click({ clickCount: 2, modifiers: ["Shift"] });',
		'await expect(page.getByRole("heading", { name: "Done", exact: true }).nth(1)).toBeVisible();',
		'// Step 3: click_element',
		'await page.mouse.click(10, 20, { button: "right" });',
		'// Step 4: hover_element button "Go"',
		'await page.getByRole("button", { name: "Go", exact: true }).nth(0).hover();',
		'// Step 5: select_option select "Size"',
		'await page.getByRole("combobox", { name: "Size", exact: true }).or(page.getByRole("listbox", { name: "Size", exact: true })).nth(0).selectOption(["L", params.colour]);',
		'// Step 6: press_keys button "Go"',
		'await page.getByRole("button", { name: "Go", exact: true }).nth(0).focus();',
		'await sendKeys(page, null, "{Control+A}");',
		'// Step 7: navigate_history',
		'await page.goBack();',
		'// Step 8: scroll_page',
		'await page.evaluate(() => window.scrollBy(0, -200));',
		'// Step 9: scroll_page button "Go"',
		'await page.getByRole("button", { name: "Go", exact: true }).nth(0).scrollIntoViewIfNeeded();',
		'// Step 10: wait_for',
		'await expect(page.getByText("Saved").first()).toBeVisible({ timeout: 5000 });',
		'await expect(page).toHaveURL(new RegExp("example\\\\.com\\\\/b"), { timeout: 5000 });',
		'// Step 11: get_browser_state',
		'// get_browser_state only reads the page: nothing to do here.',
	]);
});

test('an expected URL is compared by origin and path, as replay does (the query may hold other parameters\' values)', () => {
	const source = recipeToPlaywright(recipe([{ tool: 'click_element', target: { role: 'button', name: 'Place order' }, args: {},
		expect: { url: 'https://example.com/confirm.html?name=Ada+Lovelace' } }]));
	assert.match(source, /^\tawait expect\(page\)\.toHaveURL\(samePage\("https:\/\/example\.com\/confirm\.html\?name=Ada\+Lovelace"\)\);$/m);
	const start = source.indexOf('function samePage');
	const helper = source.slice(start, source.indexOf('\n}\n', start) + 3).replace('(expected: string): (url: URL) => boolean', '(expected)');
	const samePage = new Function(`${helper}; return samePage;`)();
	const expected = samePage('https://example.com/confirm.html?name=Ada+Lovelace');
	assert.equal(expected(new URL('https://example.com/confirm.html?name=Grace+Hopper#top')), true);
	assert.equal(expected(new URL('https://example.com/order.html?name=Ada+Lovelace')), false);
	assert.equal(expected(new URL('https://example.org/confirm.html?name=Ada+Lovelace')), false);
	assert.doesNotMatch(recipeToPlaywright(recipe([{ tool: 'scroll_page', args: { direction: 'down' } }])), /samePage/, 'only where used');
});

test('the start URL opens first unless the first step navigates there; a dialog\'s answer is set before the step that opens it', () => {
	const lines = bodyLines([
		{ tool: 'click_element', target: { role: 'button', name: 'Delete' }, args: {} },
		{ tool: 'handle_dialog', args: { action: 'accept', prompt_text: 'yes' } },
	]);
	assert.deepEqual(bodyLines([{ tool: 'navigate_to', args: { url: 'https://example.com/other' } }]).slice(0, 2),
	    ['await page.goto("https://example.com/login");', '// Step 1: navigate_to'], 'a first step elsewhere: the start URL first, as replay does');
	assert.deepEqual(bodyLines([{ tool: 'navigate_to', args: { url: 'https://example.com/login' } }]).slice(0, 2),
	    ['// Step 1: navigate_to', 'await page.goto("https://example.com/login");'], 'not twice');
	assert.deepEqual(lines, [
		'await page.goto("https://example.com/login");',
		'// Step 1: click_element button "Delete"',
		'page.once(\'dialog\', dialog => dialog.accept("yes"));',
		'await page.getByRole("button", { name: "Delete", exact: true }).nth(0).click();',
		'// Step 2: handle_dialog',
		'// The dialog is answered by the handler set before the step that opened it.',
	]);
});

test('drag_and_drop drags one locator onto the other; fill_form sets each field by its kind', () => {
	const lines = bodyLines([
		{ tool: 'drag_and_drop', from_target: { role: 'draggable', name: 'Card' }, to_target: { role: 'listitem', name: 'Done' }, args: {} },
		{ tool: 'fill_form', args: { fields: [{ target: { role: 'textbox', name: 'Email' }, value: '{{email}}' },
			{ target: { role: 'checkbox', name: 'Terms', nth: 1 }, value: true }] } },
	], [{ name: 'email', default: 'a@b.c' }]);
	assert.deepEqual(lines.slice(3), [
		'await page.goto("https://example.com/login");',
		'// Step 1: drag_and_drop draggable "Card"',
		'await page.getByText("Card", { exact: true }).nth(0).dragTo(page.getByRole("listitem", { name: "Done", exact: true }).nth(0));',
		'// Step 2: fill_form',
		'await fillField(page.getByRole("textbox", { name: "Email", exact: true }).or(page.getByRole("searchbox", { name: "Email", exact: true }))' +
		    '.or(page.getByRole("spinbutton", { name: "Email", exact: true })).nth(0), params.email);',
		'await fillField(page.getByRole("checkbox", { name: "Terms", exact: true }).nth(1), true);',
	]);
	const source = recipeToPlaywright(recipe([{ tool: 'fill_form', args: { fields: [{ target: { role: 'checkbox', name: 'Terms' }, value: false }] } }]));
	assert.match(source, /^import \{ test, expect, type Locator \} from '@playwright\/test';$/m);
	assert.match(source, /^async function fillField\(field: Locator, value: string \| boolean\): Promise<void> \{$/m);
});

test('a step the export cannot do fails the test with its number; an invalid recipe is not exported', () => {
	assert.deepEqual(bodyLines([{ tool: 'navigate_to', args: { url: 'https://example.com/' } }, { tool: 'manage_tabs', args: { action: 'new' } }]).slice(-1),
	    ['throw new Error("Step 2: manage_tabs has no Playwright form in this export (docs/recipes.md, Export)");']);
	assert.throws(() => recipeToPlaywright(recipe([])), /^Error: The recipe cannot be exported: steps: must hold from 1 to 200 steps/);
});

test('typing keeps Browser Bridge\'s key language: the helper splits {Key} presses and {{ }} braces', async () => {
	const source = recipeToPlaywright(recipe([{ tool: 'type_value', target: { role: 'textbox', name: 'New' }, args: { text: 'buy milk{Enter}' } }]));
	assert.match(source, /^import \{ test, expect, type Locator, type Page \} from '@playwright\/test';$/m);
	/* The helper, its types stripped, run on its own. */
	const start = source.indexOf('const MODIFIERS');
	const helper = source.slice(start, source.indexOf('/** Types text and presses keys'))
	    .replace(/: Record<string, string>/, '').replace(/\(text: string\): Array<\{ text: string \} \| \{ key: string \}>/, '(text)')
	    .replace(/: Array<\{ text: string \} \| \{ key: string \}> =/, ' =');
	const keySequence = new Function(`${helper}; return keySequence;`)();
	assert.deepEqual(keySequence('buy milk{Enter}'), [{ text: 'buy milk' }, { key: 'Enter' }]);
	assert.deepEqual(keySequence('{ctrl+a}{{x}}'), [{ key: 'Control+a' }, { text: '{x}' }]);
	assert.throws(() => keySequence('a}b'), /A lone \} in the keys/);
	assert.throws(() => keySequence('a{b'), /An unclosed \{ in the keys/);
});
