/**
 * A recipe as a Playwright test (TypeScript) that a developer can run in CI
 * against a test browser: `npx playwright test`. Each step's target
 * becomes a `getByRole` locator with the exact accessible name and `.nth()`;
 * a target's context (the list item, table row or fieldset an unnamed
 * control sits in, as the state shows it) becomes the surrounding locator,
 * filtered by that text; parameters are read from the environment
 * (RECIPE_<NAME>), falling back to their defaults; secret ones have none and
 * the test fails, saying which variable to set. Each step's expectation
 * becomes `expect(page).toHaveURL()` (origin and path, as replay compares)
 * or `expect(locator).toBeVisible()`.
 * The mapping is documented in docs/recipes.md. Pure: no chrome.*.
 * @module recipes/playwright
 */

import { validateRecipe } from './schema.js';

/**
 * The containers whose text is an unnamed control's context: the same list
 * the in-page script reads the context from (CONTEXT_CONTAINERS in
 * extension/in-page/labels.js).
 */
export const CONTEXT_CONTAINERS = 'li, tr, [role="listitem"], [role="row"], fieldset';
/** Names the state cuts at this length end with an ellipsis; they are matched by their start. */
const NAME_MAX = 80;

/**
 * The ARIA roles Playwright knows a state role by, where they differ: the
 * state calls every text field a textbox (ARIA: searchbox for type=search,
 * spinbutton for type=number), a textarea a textarea and a select a select.
 */
const ARIA_ROLES = {
	textbox: ['textbox', 'searchbox', 'spinbutton'],
	textarea: ['textbox'],
	select: ['combobox', 'listbox'],
};
/**
 * State roles that are no ARIA role: the in-page script names what it
 * found interactive without one (a contenteditable region, an input of a
 * type without a role, an element with a click handler or a pointer
 * cursor, a draggable one). Playwright finds a named one by its label
 * (fields) or its text, an unnamed one by its CSS.
 */
const CSS_ROLES = {
	editable: { css: '[contenteditable]:not([contenteditable="false"])', byLabel: true },
	input: { css: 'input', byLabel: true },
	clickable: { css: '[onclick]', byLabel: false },
	draggable: { css: '[draggable="true"]', byLabel: false },
};
/** Tools that only read the page: nothing to do in a test. */
const READING_TOOLS = new Set(['get_browser_state', 'get_page_content', 'get_console_logs', 'get_dom_extra_elements',
	'list_network_requests', 'get_network_request', 'take_screenshot', 'save_pdf', 'host_status']);
/** wait_for's states as Playwright's assertions. */
const WAIT_STATES = { visible: 'toBeVisible()', hidden: 'toBeHidden()', attached: 'toBeAttached()', detached: 'toHaveCount(0)' };

/**
 * A JavaScript string literal of a text.
 * @param {string} text
 * @returns {string}
 */
function quote(text) {
	return JSON.stringify(text).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * A string's source in the test: a literal, or a template literal that
 * reads params.<name> where the string holds {{name}}.
 * @param {string} text
 * @returns {string}
 */
export function stringSource(text) {
	if (!/\{\{[a-z][a-z0-9_]*\}\}/.test(text))
		return quote(text);
	const whole = /^\{\{([a-z][a-z0-9_]*)\}\}$/.exec(text);
	if (whole !== null)
		return `params.${whole[1]}`;
	const escaped = part => quote(part).slice(1, -1).replace(/`/g, '\\`').replace(/\$\{/g, '\\${');
	return `\`${text.split(/(\{\{[a-z][a-z0-9_]*\}\})/).map((part, index) =>
	    index % 2 === 1 ? `\${params.${part.slice(2, -2)}}` : escaped(part)).join('')}\``;
}

/**
 * A regular expression's source as a string literal, matching text that starts with prefix.
 * @param {string} prefix
 * @returns {string}
 */
function startsWithSource(prefix) {
	return `new RegExp(${quote(`^${prefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`)})`;
}

/**
 * getByRole's arguments after the role: the exact name, or its start where
 * the state cut it, or none for an unnamed element (its context and nth
 * tell it apart).
 * @param {string} name
 * @returns {string}
 */
function nameOption(name) {
	if (name === '')
		return '';
	return name.length >= NAME_MAX && name.endsWith('…') ?
	    `, { name: ${startsWithSource(name.slice(0, -1))} }` : `, { name: ${quote(name)}, exact: true }`;
}

/**
 * The Playwright locator of a recipe target: getByRole with the exact name
 * (or the CSS of a role ARIA does not have), inside the containers whose
 * text holds the target's context when it has one, then .nth(n).
 * @param {{role: string, name: string, context?: string, nth?: number}} target
 * @returns {string} an expression over `page`
 */
export function locatorSource(target) {
	const context = (target.context ?? '').replace(/…$/, '');
	const scope = context === '' ? 'page' : `page.locator(${quote(CONTEXT_CONTAINERS)}).filter({ hasText: ${quote(context)} })`;
	let found;
	const css = CSS_ROLES[target.role];
	if (css === undefined) {
		const options = nameOption(target.name);
		found = (ARIA_ROLES[target.role] ?? [target.role]).map(role => `${scope}.getByRole(${quote(role)}${options})`)
		    .reduce((all, one) => `${all}.or(${one})`);
	} else if (target.name === '') {
		found = `${scope}.locator(${quote(css.css)})`;
	} else {
		found = css.byLabel ? `${scope}.locator(${quote(css.css)}).and(page.getByLabel(${quote(target.name)}, { exact: true }))` :
		    `${scope}.getByText(${quote(target.name)}, { exact: true })`;
	}
	return `${found}.nth(${target.nth ?? 0})`;
}

/**
 * Options of a Playwright call from the pairs whose value is set: `{ a: 1 }`, or '' when none is.
 * @param {Array<[string, unknown]>} pairs
 * @returns {string}
 */
function optionsSource(pairs) {
	const set = pairs.filter(([, value]) => value !== undefined);
	return set.length === 0 ? '' : `{ ${set.map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join(', ')} }`;
}

/**
 * A value's source: strings through stringSource (placeholders), arrays and
 * objects element by element, the rest as JSON.
 * @param {unknown} value
 * @returns {string}
 */
function valueSource(value) {
	if (typeof value === 'string')
		return stringSource(value);
	if (Array.isArray(value))
		return `[${value.map(valueSource).join(', ')}]`;
	if (value !== null && typeof value === 'object')
		return `{ ${Object.entries(value).map(([key, item]) => `${quote(key)}: ${valueSource(item)}`).join(', ')} }`;
	return JSON.stringify(value);
}

/**
 * What a step's target is, for the comment above it: `textbox "Email"`.
 * @param {{role: string, name: string, context?: string}} target
 */
function targetWords(target) {
	return `${target.role}${target.name === '' ? '' : ` ${quote(target.name)}`}${target.context ? ` in ${quote(target.context)}` : ''}`;
}

/**
 * The statement that makes a step fail with a reason: for steps a test cannot do.
 * @param {number} number the step's number, from 1
 * @param {string} why
 */
function failing(number, why) {
	return [`throw new Error(${quote(`Step ${number}: ${why}`)});`];
}

/**
 * A URL expectation's source: wait_for takes a substring or a /regex/.
 * @param {string} url
 */
function urlPatternSource(url) {
	const regex = /^\/(.*)\/([a-z]*)$/s.exec(url);
	return regex !== null ? `new RegExp(${quote(regex[1])}, ${quote(regex[2])})` :
	    `new RegExp(${quote(url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))})`;
}

/**
 * The statements of one step's action, without its expectation.
 * @param {object} step
 * @param {number} number the step's number, from 1
 * @returns {string[]} statements
 */
function actionLines(step, number) {
	const args = step.args;
	const at = step.target === undefined ? null : locatorSource(step.target);
	switch (step.tool) {
	case 'navigate_to':
		return [`await page.goto(${stringSource(args.url)}${args.wait_until === undefined ? '' :
		    `, { waitUntil: ${quote(args.wait_until === 'none' ? 'commit' : args.wait_until)} }`});`];
	case 'navigate_history':
		return [`await page.${{ back: 'goBack', forward: 'goForward', reload: 'reload' }[args.action] ?? 'reload'}();`];
	case 'click_element': {
		const options = optionsSource([['button', args.button], ['clickCount', args.click_count], ['modifiers', args.modifiers]]);
		if (at !== null)
			return [`await ${at}.click(${options});`];
		if (args.coordinates !== undefined)
			return [`await page.mouse.click(${args.coordinates.x}, ${args.coordinates.y}${options === '' ? '' : `, ${options}`});`];
		return failing(number, 'click_element has neither a target nor coordinates');
	}
	case 'hover_element':
		if (at !== null)
			return [`await ${at}.hover();`];
		if (args.coordinates !== undefined)
			return [`await page.mouse.move(${args.coordinates.x}, ${args.coordinates.y});`];
		return failing(number, 'hover_element has neither a target nor coordinates');
	case 'type_value':
		return [`await typeValue(page, ${at ?? 'null'}, ${stringSource(args.text ?? '')}, ${optionsSource([['append', args.append], ['submit', args.submit], ['perKey', args.per_key]]) || '{}'});`];
	case 'press_keys':
		return [...(at === null ? [] : [`await ${at}.focus();`]), `await sendKeys(page, null, ${stringSource(args.keys ?? '')});`];
	case 'drag_and_drop':
		return step.from_target === undefined || step.to_target === undefined ? failing(number, 'drag_and_drop needs from_target and to_target') :
		    [`await ${locatorSource(step.from_target)}.dragTo(${locatorSource(step.to_target)});`];
	case 'fill_form':
		return (args.fields ?? []).map(field => `await fillField(${locatorSource(field.target)}, ${valueSource(field.value)});`);
	case 'select_option':
		return at === null ? failing(number, 'select_option has no target') : [`await ${at}.selectOption(${valueSource(args.values ?? [])});`];
	case 'upload_file':
		return at === null ? failing(number, 'upload_file has no target') : [`await ${at}.setInputFiles(${valueSource(args.paths ?? [])});`];
	case 'scroll_page':
		return scrollLines(args, at);
	case 'wait_for':
		return waitLines(args, at);
	case 'set_viewport':
		return args.width !== undefined && args.height !== undefined ?
		    [`await page.setViewportSize({ width: ${args.width}, height: ${args.height} });`] : ['// set_viewport without a size: the test keeps its viewport'];
	case 'evaluate_script':
		return [`await page.evaluate(([source, args]) => { const value = (0, eval)(source); return typeof value === 'function' ? value(...args) : value; }, ` +
		    `[${stringSource(args.expression ?? '')}, ${valueSource(args.args ?? [])}] as [string, unknown[]]);`];
	case 'handle_dialog':
		return ['// The dialog is answered by the handler set before the step that opened it.'];
	default:
		if (READING_TOOLS.has(step.tool))
			return [`// ${step.tool} only reads the page: nothing to do here.`];
		return failing(number, `${step.tool} has no Playwright form in this export (docs/recipes.md, Export)`);
	}
}

/**
 * scroll_page's statements: a target scrolls into view (to_element) or is
 * the container that scrolls; otherwise the window scrolls.
 * @param {object} args
 * @param {string|null} at the target's locator
 */
function scrollLines(args, at) {
	if (args.direction === 'to_element')
		return at === null ? ['// scroll_page to_element without a target: nothing to scroll to'] : [`await ${at}.scrollIntoViewIfNeeded();`];
	const [call, box, height, end] = at === null ?
	    ['page.evaluate(() => ', 'window', 'window.innerHeight', 'document.documentElement.scrollHeight'] :
	    [`${at}.evaluate(element => `, 'element', 'element.clientHeight', 'element.scrollHeight'];
	const move = args.direction === 'to_top' ? `${box}.scrollTo(0, 0)` : args.direction === 'to_bottom' ? `${box}.scrollTo(0, ${end})` :
	    `${box}.scrollBy(0, ${args.direction === 'up' ? '-' : ''}${args.pixels ?? height})`;
	return [`await ${call}${move});`];
}

/**
 * wait_for's statements: what it waits for, as expect() with its timeout.
 * @param {object} args
 * @param {string|null} at the target's locator
 */
function waitLines(args, at) {
	const timeout = args.timeout_ms === undefined ? '' : `{ timeout: ${args.timeout_ms} }`;
	const state = (WAIT_STATES[args.state] ?? WAIT_STATES.visible).replace('()', `(${timeout})`);
	const lines = [];
	if (args.delay_ms !== undefined)
		lines.push(`await page.waitForTimeout(${args.delay_ms});`);
	if (args.text !== undefined)
		lines.push(`await expect(page.getByText(${stringSource(args.text)}).first()).toBeVisible(${timeout});`);
	if (args.text_gone !== undefined)
		lines.push(`await expect(page.getByText(${stringSource(args.text_gone)})).toHaveCount(0${timeout === '' ? '' : `, ${timeout}`});`);
	if (args.url !== undefined)
		lines.push(`await expect(page).toHaveURL(${urlPatternSource(args.url)}${timeout === '' ? '' : `, ${timeout}`});`);
	if (args.selector !== undefined)
		lines.push(`await expect(page.locator(${stringSource(args.selector)}).first()).${state};`);
	if (at !== null)
		lines.push(`await expect(${at}).${state};`);
	if (args.network_idle === true)
		lines.push('await page.waitForLoadState(\'networkidle\');');
	return lines.length === 0 ? ['// wait_for with nothing to wait for'] : lines;
}

/**
 * The statements of a step's expected outcome.
 * @param {{url?: string, appears?: object}|undefined} expect
 * @returns {string[]}
 */
function expectLines(expect) {
	const lines = [];
	if (expect?.url !== undefined)
		lines.push(`await expect(page).toHaveURL(samePage(${stringSource(expect.url)}));`);
	if (expect?.appears !== undefined)
		lines.push(`await expect(${locatorSource(expect.appears)}).toBeVisible();`);
	return lines;
}

/**
 * The statement that answers the dialog a handle_dialog step answers; it is
 * set before the step that opens the dialog (Playwright dismisses dialogs
 * nobody handles).
 * @param {object} args handle_dialog's
 */
function dialogHandlerLine(args) {
	const answer = args.action === 'dismiss' ? 'dialog.dismiss()' :
	    `dialog.accept(${args.prompt_text === undefined ? '' : stringSource(args.prompt_text)})`;
	return `page.once('dialog', dialog => ${answer});`;
}

/** The helpers a test that types needs: Browser Bridge's key language in Playwright. */
const KEY_HELPERS = `
/** Modifier names Browser Bridge's key language accepts, as Playwright's. */
const MODIFIERS: Record<string, string> = { alt: 'Alt', option: 'Alt', control: 'Control', ctrl: 'Control',
	meta: 'Meta', cmd: 'Meta', command: 'Meta', super: 'Meta', win: 'Meta', shift: 'Shift' };

/** Splits Browser Bridge's key language: text, {Key} and {Control+A} presses; {{ and }} type a brace. */
function keySequence(text: string): Array<{ text: string } | { key: string }> {
	const parts: Array<{ text: string } | { key: string }> = [];
	let plain = '';
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if ((c === '{' || c === '}') && text[i + 1] === c) {
			plain += c;
			i++;
		} else if (c === '{') {
			const end = text.indexOf('}', i);
			if (end < 0)
				throw new Error(\`An unclosed { in the keys \${JSON.stringify(text)}: type a brace as {{\`);
			if (plain !== '')
				parts.push({ text: plain });
			plain = '';
			parts.push({ key: text.slice(i + 1, end).split('+').map(k => MODIFIERS[k.toLowerCase()] ?? k).join('+') });
			i = end;
		} else if (c === '}') {
			throw new Error(\`A lone } in the keys \${JSON.stringify(text)}: type a brace as }}\`);
		} else {
			plain += c;
		}
	}
	if (plain !== '')
		parts.push({ text: plain });
	return parts;
}

/** Types text and presses keys in a field, or where the focus is when field is null. */
async function sendKeys(page: Page, field: Locator | null, text: string): Promise<void> {
	for (const part of keySequence(text)) {
		if ('key' in part)
			await (field === null ? page.keyboard.press(part.key) : field.press(part.key));
		else
			await (field === null ? page.keyboard.type(part.text) : field.pressSequentially(part.text));
	}
}

/** Types into a field as type_value does: replaces its text (or appends to it), then presses Enter if asked. */
async function typeValue(page: Page, field: Locator | null, text: string,
    options: { append?: boolean, submit?: boolean, perKey?: boolean }): Promise<void> {
	const parts = keySequence(text);
	if (field !== null && !options.append && !options.perKey && parts.every(part => 'text' in part)) {
		await field.fill(parts.map(part => 'text' in part ? part.text : '').join(''));
	} else {
		if (field !== null && !options.append)
			await field.fill('');
		else if (field !== null)
			await field.press('ControlOrMeta+End');
		await sendKeys(page, field, text);
	}
	if (options.submit)
		await (field === null ? page.keyboard.press('Enter') : field.press('Enter'));
}
`;

/** The helper fill_form's fields need. */
const FILL_HELPER = `
/** Sets a field as fill_form does: a checkbox or radio is ticked or not, a select chooses, any other field takes the text. */
async function fillField(field: Locator, value: string | boolean): Promise<void> {
	if (typeof value === 'boolean')
		await field.setChecked(value);
	else if (await field.evaluate(element => element.tagName === 'SELECT'))
		await field.selectOption(value);
	else
		await field.fill(value);
}
`;

/** The helper expectations of a URL need: replay's comparison (recipes/replay.js, samePage). */
const PAGE_HELPER = `
/** Whether the page is the one a step expected: the same origin and path (the query may carry the parameters' values). */
function samePage(expected: string): (url: URL) => boolean {
	const want = new URL(expected);
	return url => url.origin === want.origin && url.pathname === want.pathname;
}
`;

/** The helper that reads a required parameter. */
const ENV_HELPER = `
/** A parameter's value from the environment; the test fails, naming the variable, when it is unset. */
function requiredEnv(name: string, why: string): string {
	const value = process.env[name];
	if (value === undefined || value === '')
		throw new Error(\`Set \${name} in the environment: \${why}.\`);
	return value;
}
`;

/**
 * The environment variable a parameter is read from.
 * @param {string} name
 */
export function parameterVariable(name) {
	return `RECIPE_${name.toUpperCase()}`;
}

/**
 * The test's params object: each parameter from its environment variable,
 * else its default; secrets and parameters without a default are required.
 * @param {Array<{name: string, default?: string, secret?: boolean}>} parameters
 */
function paramsLines(parameters) {
	if (parameters.length === 0)
		return [];
	return ['const params = {', ...parameters.map(parameter => {
		const variable = parameterVariable(parameter.name);
		const value = parameter.default !== undefined ? `process.env.${variable} ?? ${quote(parameter.default)}` :
		    `requiredEnv(${quote(variable)}, ${quote(parameter.secret === true ?
			`the recipe's parameter ${parameter.name} is a secret, which recipes never store` :
			`the recipe's parameter ${parameter.name} has no default`)})`;
		return `\t${parameter.name}: ${value},`;
	}), '};'];
}

/**
 * A recipe as a Playwright test file (TypeScript), one test that opens the
 * start URL (as replay does; not twice when the first step navigates
 * there) and does each step, then checks what the step expected.
 * @param {unknown} recipe a recipe of schema version 1
 * @returns {string} the .spec.ts file's text
 * @throws {Error} when the recipe is not valid (the message lists why)
 */
export function recipeToPlaywright(recipe) {
	const checked = validateRecipe(recipe);
	if (!checked.ok)
		throw new Error(`The recipe cannot be exported: ${checked.errors.join('; ')}`);
	const { steps, parameters } = checked.recipe;
	const body = [...paramsLines(parameters)];
	if (steps[0].tool !== 'navigate_to' || steps[0].args.url !== checked.recipe.start_url)
		body.push(`await page.goto(${quote(checked.recipe.start_url)});`);
	steps.forEach((step, index) => {
		const number = index + 1;
		const about = step.target ?? step.from_target;
		body.push('', `// Step ${number}: ${step.tool}${about === undefined ? '' : ` ${targetWords(about)}`}`);
		if (steps[index + 1]?.tool === 'handle_dialog')
			body.push(dialogHandlerLine(steps[index + 1].args));
		else if (step.tool === 'handle_dialog' && index === 0)
			body.push(dialogHandlerLine(step.args));
		body.push(...actionLines(step, number), ...expectLines(step.expect));
	});
	const source = body.join('\n');
	const types = /\b(typeValue|sendKeys)\(/.test(source);
	const fills = /\bfillField\(/.test(source);
	const pages = /\bsamePage\(/.test(source);
	const secrets = parameters.filter(parameter => parameter.default === undefined);
	const header = [
		`// Playwright test of the Browser Bridge recipe ${quote(checked.recipe.name)}`,
		`// (${checked.recipe.id}, version ${checked.recipe.version}, schema ${checked.recipe.schema} ${checked.recipe.schema_version}).`,
		'// Run it with `npx playwright test`; docs/recipes.md says how each step maps to Playwright.',
		...(parameters.length === 0 ? [] : ['// Parameters come from the environment:',
			...parameters.map(parameter => `//   ${parameterVariable(parameter.name)}${parameter.default !== undefined ? ` (default ${quote(parameter.default)})` :
			    parameter.secret === true ? ' (secret: required, never stored)' : ' (required)'}`)]),
	];
	return [
		...header,
		`import { test, expect${types ? ', type Locator, type Page' : fills ? ', type Locator' : ''} } from '@playwright/test';`,
		...(secrets.length > 0 ? [ENV_HELPER.trimEnd()] : []),
		...(types ? [KEY_HELPERS.trimEnd()] : []),
		...(fills ? [FILL_HELPER.trimEnd()] : []),
		...(pages ? [PAGE_HELPER.trimEnd()] : []),
		'',
		`test(${quote(checked.recipe.name)}, async ({ page }) => {`,
		...body.map(line => line === '' ? '' : `\t${line}`),
		'});',
		'',
	].join('\n');
}
