// Unit tests: the recipe format's check (src/recipes/schema.js), which every
// recipe handed in passes before anything replays it.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { fillPlaceholders, placeholderNames, RECIPE_LIMITS, validateRecipe } from '../src/recipes/schema.js';

/** A valid recipe: the format's own example (docs/recipes.md). */
function example() {
	return {
		schema: 'browser-bridge/recipe',
		schema_version: 1,
		id: 'rcp_3f9a1c2b',
		version: 1,
		name: 'sign in',
		created: '2026-11-28T06:30:00.000Z',
		owner: 'owner',
		source: { kind: 'task', task_id: 'task-7' },
		start_url: 'https://example.com/login',
		allowed_domains: ['example.com'],
		parameters: [
			{ name: 'email', default: 'a@b.c', secret: false },
			{ name: 'password', secret: true, required: true },
		],
		steps: [
			{ tool: 'navigate_to', args: { url: 'https://example.com/login' }, expect: { url: 'https://example.com/login' } },
			{ tool: 'type_value', target: { role: 'textbox', name: 'Email', context: '', nth: 0 }, args: { text: '{{email}}' }, expect: {} },
			{ tool: 'type_value', target: { role: 'textbox', name: 'Password', nth: 0 }, args: { text: '{{password}}', submit: false } },
			{ tool: 'click_element', target: { role: 'button', name: 'Sign in', nth: 0 }, args: {},
				expect: { url: 'https://example.com/home', appears: { role: 'heading', name: 'Welcome' } } },
		],
	};
}

/**
 * The errors of the example changed by edit (which changes it in place).
 * @param {(recipe: any) => void} edit
 */
function errorsAfter(edit) {
	const recipe = example();
	edit(recipe);
	const result = validateRecipe(recipe);
	assert.equal(result.ok, false, 'the changed recipe is refused');
	return result.errors;
}

test('the format\'s example is valid, as an object and as JSON text', () => {
	assert.deepEqual(validateRecipe(example()), { ok: true, errors: [], recipe: example() });
	const text = validateRecipe(JSON.stringify(example()));
	assert.equal(text.ok, true, text.errors.join('\n'));
	assert.deepEqual(text.recipe, example());
	const recording = example();
	recording.source = { kind: 'recording' };
	recording.allowed_domains = ['127.0.0.1'];
	recording.start_url = 'http://127.0.0.1:8080/shop.html';
	assert.equal(validateRecipe(recording).ok, true, 'a recording needs no task id; an IP address is a domain');
});

test('not JSON, not an object, or missing every field: refused with what is wrong', () => {
	assert.match(validateRecipe('{"schema":').errors[0], /^recipe: is not JSON/);
	assert.deepEqual(validateRecipe([]).errors, ['recipe: must be an object']);
	const errors = validateRecipe({}).errors;
	for (const key of ['schema', 'schema_version', 'id', 'version', 'name', 'created', 'owner', 'source', 'start_url', 'allowed_domains', 'parameters', 'steps'])
		assert.ok(errors.includes(`recipe: ${key} is required`), key);
});

test('the schema name and version are checked, and unknown fields are refused', () => {
	assert.deepEqual(errorsAfter(r => { r.schema = 'other'; }), ['schema: must be "browser-bridge/recipe"']);
	assert.match(errorsAfter(r => { r.schema_version = 2; })[0], /^schema_version: must be 1/);
	assert.match(errorsAfter(r => { r.colour = 'red'; })[0], /^recipe: unknown field "colour"/);
	assert.match(errorsAfter(r => { r.steps[1].target.css = '#email'; })[0], /^steps\[1\]\.target: unknown field "css"/);
	assert.match(errorsAfter(r => { r.steps[0].note = 'x'; })[0], /^steps\[0\]: unknown field "note"/);
});

test('the top-level fields have their types', () => {
	assert.deepEqual(errorsAfter(r => { r.id = '42'; }), ['id: must match ^rcp_[A-Za-z0-9_-]{4,64}$']);
	assert.deepEqual(errorsAfter(r => { r.version = 0; }), ['version: must be an integer from 1 to 1000000']);
	assert.deepEqual(errorsAfter(r => { r.name = ''; }), ['name: must not be empty']);
	assert.match(errorsAfter(r => { r.created = 'yesterday'; })[0], /^created: must be an ISO-8601 date/);
	assert.match(errorsAfter(r => { r.created = '2026-13-45T99:00:00Z'; })[0], /^created: must be an ISO-8601 date/);
	assert.deepEqual(errorsAfter(r => { r.owner = 7; }), ['owner: must be a string']);
	assert.deepEqual(errorsAfter(r => { r.source = { kind: 'dream' }; }), ['source.kind: must be "task" or "recording"']);
	assert.deepEqual(errorsAfter(r => { r.source = { kind: 'task' }; }), ['source: task_id is required when kind is "task"']);
});

test('start_url is a web page inside allowed_domains, which are plain lower-case domains', () => {
	assert.deepEqual(errorsAfter(r => { r.start_url = 'https://evil.test/'; }), ['start_url: evil.test is outside allowed_domains (example.com)']);
	assert.equal(validateRecipe({ ...example(), start_url: 'https://shop.example.com/' }).ok, true, 'a subdomain is inside');
	assert.deepEqual(errorsAfter(r => { r.start_url = 'file:///etc/passwd'; }), ['start_url: must be an http or https URL, or about:blank']);
	assert.equal(validateRecipe({ ...example(), start_url: 'about:blank' }).ok, true, 'a recording may start on a blank tab');
	assert.deepEqual(errorsAfter(r => { r.start_url = 'login'; }), ['start_url: must be an absolute URL']);
	assert.match(errorsAfter(r => { r.allowed_domains = []; })[0], /^allowed_domains: must hold from 1 to 32 domains/);
	assert.match(errorsAfter(r => { r.allowed_domains = ['https://example.com/']; })[0], /^allowed_domains\[0\]: must be a domain name in lower case/);
	assert.match(errorsAfter(r => { r.allowed_domains = ['Example.com']; })[0], /^allowed_domains\[0\]/);
});

test('parameters: names by the pattern, once each; secrets have no default; no default means required', () => {
	assert.match(errorsAfter(r => { r.parameters[0].name = 'Email'; })[0], /^parameters\[0\]\.name: must match/);
	assert.match(errorsAfter(r => { r.parameters[0].name = `a${'b'.repeat(40)}`; })[0], /^parameters\[0\]\.name: must match/);
	assert.equal(validateRecipe({ ...example(), parameters: [...example().parameters, { name: `a${'b'.repeat(39)}`, default: '' }] }).ok, true,
	    'a 40-character name and an empty default are fine');
	assert.deepEqual(errorsAfter(r => { r.parameters[1].name = 'email'; }),
	    ['parameters[1].name: email is declared twice', 'steps[2].args.text: {{password}} names no declared parameter (declared: email)']);
	assert.deepEqual(errorsAfter(r => { r.parameters[1].default = 'hunter2'; }),
	    ['parameters[1]: a secret parameter has no default: secrets are never stored in a recipe']);
	assert.deepEqual(errorsAfter(r => { r.parameters[0] = { name: 'email', required: false }; }),
	    ['parameters[0]: a parameter without a default is required (required: false needs a default)']);
	assert.deepEqual(errorsAfter(r => { r.parameters[0].secret = 'no'; }), ['parameters[0].secret: must be true or false']);
	assert.deepEqual(errorsAfter(r => { r.parameters[0].default = 5; }), ['parameters[0].default: must be a string']);
});

test('every placeholder names a declared parameter, in args at any depth and in expect.url', () => {
	assert.deepEqual(errorsAfter(r => { r.steps[1].args.text = '{{mail}}'; }),
	    ['steps[1].args.text: {{mail}} names no declared parameter (declared: email, password)']);
	assert.deepEqual(errorsAfter(r => { r.steps[1].args.text = 'Dear {{ email }}'; }),
	    ['steps[1].args.text: {{ email }} names no declared parameter (declared: email, password)']);
	assert.deepEqual(errorsAfter(r => { r.steps.push({ tool: 'select_option', target: { role: 'combobox', name: 'Size' }, args: { values: ['{{size}}'] } }); }),
	    ['steps[4].args.values[0]: {{size}} names no declared parameter (declared: email, password)']);
	assert.deepEqual(errorsAfter(r => { r.steps[3].expect.url = 'https://example.com/u/{{user}}'; }),
	    ['steps[3].expect.url: {{user}} names no declared parameter (declared: email, password)']);
	assert.deepEqual(errorsAfter(r => { r.parameters = []; r.steps[2].args.text = 'x'; }),
	    ['steps[1].args.text: {{email}} names no declared parameter']);
});

test('steps hold locators, never refs or tab ids, and call no task or recipe tool', () => {
	assert.match(errorsAfter(r => { r.steps[3].args.ref = 12; })[0], /^steps\[3\]\.args\.ref: a recipe holds no element refs/);
	assert.match(errorsAfter(r => { r.steps.push({ tool: 'drag_and_drop', args: { from_ref: 1, to_ref: 2 } }); }).join('\n'),
	    /steps\[4\]\.args\.from_ref: .*\n.*steps\[4\]\.args\.to_ref: /);
	assert.deepEqual(errorsAfter(r => { r.steps.push({ tool: 'fill_form', args: { fields: [{ ref: 3, value: 'x' }] } }); }), [
		'steps[4].args.fields[0].ref: a recipe holds no element refs (they change with every page); give the step a target locator',
		'steps[4].args.fields[0]: needs a target locator',
	]);
	assert.match(errorsAfter(r => { r.steps[0].args.tab_id = 4; })[0], /^steps\[0\]\.args\.tab_id: a recipe holds no tab id/);
	assert.match(errorsAfter(r => { r.steps[0].tool = 'run_task'; })[0], /^steps\[0\]\.tool: run_task cannot be a recipe step/);
	assert.match(errorsAfter(r => { r.steps[0].tool = 'run_recipe'; })[0], /^steps\[0\]\.tool: run_recipe cannot be a recipe step/);
	assert.match(errorsAfter(r => { r.steps[0].tool = 'Click!'; })[0], /^steps\[0\]\.tool: must be a tool name/);
	assert.deepEqual(errorsAfter(r => { delete r.steps[0].args; }), ['steps[0]: args is required']);
});

test('drag_and_drop\'s two locators and fill_form\'s fields\' are checked as targets', () => {
	const moves = example();
	moves.steps.push({ tool: 'drag_and_drop', from_target: { role: 'draggable', name: 'Card', nth: 0 }, to_target: { role: 'listitem', name: 'Done', nth: 0 }, args: {} },
	    { tool: 'fill_form', args: { fields: [{ target: { role: 'textbox', name: 'Email', nth: 0 }, value: '{{email}}' },
		{ target: { role: 'checkbox', name: 'Terms', nth: 0 }, value: true }] } });
	assert.deepEqual(validateRecipe(moves).errors, []);
	assert.deepEqual(errorsAfter(r => { r.steps.push({ tool: 'drag_and_drop', from_target: { role: '', name: 'Card' }, args: {} }); }),
	    ['steps[4].from_target.role: must not be empty']);
	assert.deepEqual(errorsAfter(r => { r.steps.push({ tool: 'fill_form', args: { fields: [{ target: { role: 'textbox', name: 'Email', nth: -2 }, value: 'x' }] } }); }),
	    ['steps[4].args.fields[0].target.nth: must be an integer from 0 to 999']);
});

test('targets and expectations: role, name, context, nth in range', () => {
	assert.deepEqual(errorsAfter(r => { r.steps[1].target.role = ''; }), ['steps[1].target.role: must not be empty']);
	assert.deepEqual(errorsAfter(r => { delete r.steps[1].target.name; }), ['steps[1].target: name is required']);
	assert.deepEqual(errorsAfter(r => { r.steps[1].target.nth = -1; }), ['steps[1].target.nth: must be an integer from 0 to 999']);
	assert.deepEqual(errorsAfter(r => { r.steps[1].target.nth = 1.5; }), ['steps[1].target.nth: must be an integer from 0 to 999']);
	assert.deepEqual(errorsAfter(r => { r.steps[3].expect.appears = { role: 'heading' }; }), ['steps[3].expect.appears: name is required']);
	assert.deepEqual(errorsAfter(r => { r.steps[3].expect.url = ''; }), ['steps[3].expect.url: must not be empty']);
	assert.match(errorsAfter(r => { r.steps[3].expect.title = 'Home'; })[0], /^steps\[3\]\.expect: unknown field "title"/);
	const unnamed = example();
	unnamed.steps[1].target = { role: 'checkbox', name: '', context: 'Buy milk', nth: 0 };
	assert.equal(validateRecipe(unnamed).ok, true, 'an unnamed control with its context');
});

test('limits: 256 KiB of JSON, 200 steps, 32 parameters', () => {
	const step = { tool: 'scroll_page', args: { direction: 'down' } };
	assert.equal(validateRecipe({ ...example(), steps: Array(RECIPE_LIMITS.maxSteps).fill(step) }).ok, true, '200 steps');
	assert.match(errorsAfter(r => { r.steps = Array(201).fill(step); })[0], /^steps: must hold from 1 to 200 steps \(has 201\)/);
	assert.match(errorsAfter(r => { r.steps = []; })[0], /^steps: must hold from 1 to 200 steps \(has 0\)/);
	const many = Array.from({ length: 33 }, (_, i) => ({ name: `p${i}`, default: '' }));
	assert.match(errorsAfter(r => { r.parameters = many; })[0], /^parameters: must hold at most 32 parameters \(has 33\)/);
	assert.equal(validateRecipe({ ...example(), parameters: [...example().parameters, ...many.slice(0, 30)] }).ok, true, '32 parameters');
	const big = example();
	big.name = 'x';
	big.steps[0].args.url = `https://example.com/${'a'.repeat(256 * 1024)}`;
	assert.match(validateRecipe(big).errors[0], /^recipe: is \d+ bytes of JSON; at most 262144/);
	assert.match(validateRecipe(JSON.stringify(big)).errors[0], /^recipe: is \d+ bytes of JSON; at most 262144/);
	const manyErrors = validateRecipe({ ...example(), steps: Array(120).fill({ tool: '', args: {} }) });
	assert.equal(manyErrors.errors.length, RECIPE_LIMITS.maxErrors + 1, 'the list is bounded');
	assert.equal(manyErrors.errors.at(-1), 'recipe: and 70 more errors');
});

test('placeholders: the names a string holds, and filling them at any depth', () => {
	assert.deepEqual(placeholderNames('{{a}} and {{b_2}} and {{ c }}'), ['a', 'b_2', ' c ']);
	assert.deepEqual(fillPlaceholders({ text: 'Hi {{name}}, {{name}}!', values: ['{{size}}', 3], keep: '{{other}}', n: 1, on: true },
	    { name: 'Ada', size: 'L' }), { text: 'Hi Ada, Ada!', values: ['L', 3], keep: '{{other}}', n: 1, on: true });
	assert.equal(fillPlaceholders('{{x}}', { x: '$& {{y}}' }), '$& {{y}}', 'values are inserted literally, not re-filled');
});
