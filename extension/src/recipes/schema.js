/**
 * The recipe format, schema version 1 (docs/recipes.md): what a recipe
 * handed in (import, run_recipe with a recipe body, a stored one read back)
 * must look like before anything replays it. Checks types, required
 * fields, the limits (size, steps, parameters, name pattern), that every
 * {{placeholder}} names a declared parameter, that secret parameters carry
 * no default, that no step holds an element ref or a tab id (locators
 * only), and that start_url lies inside allowed_domains. Pure: no chrome.*.
 * @module recipes/schema
 */

import { hostWithin } from '../agents/domains.js';

/** The value of a recipe's `schema` field. */
export const RECIPE_SCHEMA = 'browser-bridge/recipe';
/** The schema version this file checks. */
export const RECIPE_SCHEMA_VERSION = 1;

/** Limits on a recipe handed in. */
export const RECIPE_LIMITS = Object.freeze({
	maxBytes: 256 * 1024,
	maxSteps: 200,
	maxParameters: 32,
	maxDomains: 32,
	maxErrors: 50,
});

/** A parameter's name. */
export const PARAMETER_NAME = /^[a-z][a-z0-9_]{0,39}$/;
/** A recipe's id. */
const RECIPE_ID = /^rcp_[A-Za-z0-9_-]{4,64}$/;
/** A tool's name. */
const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** A domain as allowed_domains holds it: lower case, no scheme, port or path. */
const DOMAIN = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** An ISO-8601 date and time, as Date.prototype.toISOString writes it (offsets allowed). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
/** Any {{...}} in a string; the inside must be a declared parameter's name. */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/** Tools a step may not call: tasks and recipes do not nest, and a recipe does not drive the agents. */
const STEP_TOOLS_REFUSED = new Set(['run_task', 'get_task', 'stop_task', 'list_tasks', 'answer_task',
	'run_recipe', 'list_recipes', 'get_recipe', 'delete_recipe', 'start_recording', 'stop_recording']);
/** A step's locators: the element it acts on, or what drag_and_drop drags and where (fill_form's are its fields' target). */
const STEP_TARGETS = ['target', 'from_target', 'to_target'];
/** Argument keys a step may not hold anywhere: refs die with the page, tab ids with the session. */
const ARGS_KEYS_REFUSED = new Set(['ref', 'from_ref', 'to_ref', 'tab_id']);

/** Each object's allowed keys, and which of them are required. */
const SHAPES = {
	recipe: {
		required: ['schema', 'schema_version', 'id', 'version', 'name', 'created', 'owner', 'source', 'start_url',
			'allowed_domains', 'parameters', 'steps'],
		optional: [],
	},
	source: { required: ['kind'], optional: ['task_id'] },
	parameter: { required: ['name'], optional: ['default', 'secret', 'required'] },
	step: { required: ['tool', 'args'], optional: ['target', 'from_target', 'to_target', 'expect'] },
	target: { required: ['role', 'name'], optional: ['context', 'nth'] },
	expect: { required: [], optional: ['url', 'appears'] },
};

/** String lengths. */
const MAX_TEXT = 200;
const MAX_NAME = 1000;
const MAX_URL = 2048;
const MAX_NTH = 999;

/**
 * The placeholder names a string holds, in order ({{email}} gives "email");
 * anything between double braces counts, valid name or not.
 * @param {string} text
 * @returns {string[]}
 */
export function placeholderNames(text) {
	return [...text.matchAll(PLACEHOLDER)].map(match => match[1]);
}

/**
 * A value with every {{name}} in its strings (nested arrays and objects
 * included) replaced by values[name]; names without a value stay as they
 * are (validateRecipe has made sure each names a declared parameter).
 * @param {unknown} value
 * @param {Record<string, string>} values
 * @returns {unknown}
 */
export function fillPlaceholders(value, values) {
	if (typeof value === 'string')
		return value.replace(PLACEHOLDER, (whole, name) => Object.hasOwn(values, name) ? values[name] : whole);
	if (Array.isArray(value))
		return value.map(item => fillPlaceholders(item, values));
	if (isObject(value))
		return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fillPlaceholders(item, values)]));
	return value;
}

/**
 * Whether a value is a plain JSON object (not null, not an array).
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isObject(value) {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Collects a recipe's errors, each prefixed with the path of the field it is about. */
class Problems {
	constructor() {
		/** @type {string[]} */
		this.errors = [];
		/** Errors past the list's limit, only counted. */
		this.dropped = 0;
		/** Paths of required fields found missing: nothing more is said about them or inside them. */
		this.missing = new Set();
	}

	/**
	 * Whether a path is, or lies inside, a field already reported missing.
	 * @param {string} path
	 */
	underMissing(path) {
		return [...this.missing].some(missing => path === missing || path.startsWith(`${missing}.`) || path.startsWith(`${missing}[`));
	}

	/**
	 * Notes an error at a path, unless the field is missing and said so (once
	 * the list is full, further ones are counted in its last line).
	 * @param {string} path
	 * @param {string} message
	 */
	add(path, message) {
		if (this.underMissing(path))
			return;
		if (this.errors.length < RECIPE_LIMITS.maxErrors)
			this.errors.push(`${path === '' ? 'recipe' : path}: ${message}`);
		else
			this.dropped++;
	}

	/**
	 * Checks an object's keys against its shape: each required key present, no unknown ones.
	 * Says whether the value is an object at all.
	 * @param {string} path
	 * @param {unknown} value
	 * @param {{required: string[], optional: string[]}} shape
	 * @returns {boolean}
	 */
	shape(path, value, shape) {
		if (!isObject(value)) {
			this.add(path, 'must be an object');
			return false;
		}
		for (const key of shape.required)
			if (!Object.hasOwn(value, key)) {
				this.add(path, `${key} is required`);
				this.missing.add(path === '' ? key : `${path}.${key}`);
			}
		for (const key of Object.keys(value))
			if (!shape.required.includes(key) && !shape.optional.includes(key))
				this.add(path, `unknown field ${JSON.stringify(key)} (schema version ${RECIPE_SCHEMA_VERSION} has ${[...shape.required, ...shape.optional].join(', ')})`);
		return true;
	}

	/**
	 * Checks a string's type and length (from min to max characters); says whether it is a string.
	 * @param {string} path
	 * @param {unknown} value
	 * @param {number} min
	 * @param {number} max
	 * @returns {boolean}
	 */
	text(path, value, min, max) {
		if (typeof value !== 'string') {
			this.add(path, 'must be a string');
			return false;
		}
		if (value.length < min)
			this.add(path, min === 1 ? 'must not be empty' : `must be at least ${min} characters`);
		else if (value.length > max)
			this.add(path, `must be at most ${max} characters (has ${value.length})`);
		return true;
	}

	/**
	 * Checks an integer in a range.
	 * @param {string} path
	 * @param {unknown} value
	 * @param {number} min
	 * @param {number} max
	 */
	integer(path, value, min, max) {
		if (!Number.isInteger(value) || value < min || value > max)
			this.add(path, `must be an integer from ${min} to ${max}`);
	}

	/**
	 * Checks an optional boolean.
	 * @param {string} path
	 * @param {unknown} value
	 */
	flag(path, value) {
		if (value !== undefined && typeof value !== 'boolean')
			this.add(path, 'must be true or false');
	}
}

/**
 * Checks source: how the recipe was made.
 * @param {Problems} problems
 * @param {unknown} source
 */
function checkSource(problems, source) {
	if (!problems.shape('source', source, SHAPES.source))
		return;
	if (source.kind !== 'task' && source.kind !== 'recording')
		problems.add('source.kind', 'must be "task" or "recording"');
	if (source.task_id !== undefined)
		problems.text('source.task_id', source.task_id, 1, MAX_TEXT);
	else if (source.kind === 'task')
		problems.add('source', 'task_id is required when kind is "task"');
}

/**
 * Checks allowed_domains and that start_url is a web page inside them (or about:blank).
 * @param {Problems} problems
 * @param {unknown} startUrl
 * @param {unknown} domains
 */
function checkPlace(problems, startUrl, domains) {
	const valid = [];
	if (!Array.isArray(domains))
		problems.add('allowed_domains', 'must be an array of domains');
	else if (domains.length === 0 || domains.length > RECIPE_LIMITS.maxDomains)
		problems.add('allowed_domains', `must hold from 1 to ${RECIPE_LIMITS.maxDomains} domains (replay is fenced to them)`);
	else
		domains.forEach((domain, index) => {
			if (typeof domain !== 'string' || !DOMAIN.test(domain))
				problems.add(`allowed_domains[${index}]`, 'must be a domain name in lower case, without scheme, port or path (example.com)');
			else
				valid.push(domain);
		});
	if (!problems.text('start_url', startUrl, 1, MAX_URL))
		return;
	let url;
	try {
		url = new URL(startUrl);
	} catch {
		problems.add('start_url', 'must be an absolute URL');
		return;
	}
	if (url.href === 'about:blank')
		return;
	if (url.protocol !== 'http:' && url.protocol !== 'https:')
		problems.add('start_url', 'must be an http or https URL, or about:blank');
	else if (valid.length > 0 && !hostWithin(url.hostname.toLowerCase().replace(/\.$/, ''), valid))
		problems.add('start_url', `${url.hostname} is outside allowed_domains (${valid.join(', ')})`);
}

/**
 * Checks the parameters; returns the declared names.
 * @param {Problems} problems
 * @param {unknown} parameters
 * @returns {Set<string>}
 */
function checkParameters(problems, parameters) {
	const names = new Set();
	if (!Array.isArray(parameters)) {
		problems.add('parameters', 'must be an array');
		return names;
	}
	if (parameters.length > RECIPE_LIMITS.maxParameters)
		problems.add('parameters', `must hold at most ${RECIPE_LIMITS.maxParameters} parameters (has ${parameters.length})`);
	parameters.forEach((parameter, index) => {
		const path = `parameters[${index}]`;
		if (!problems.shape(path, parameter, SHAPES.parameter))
			return;
		if (typeof parameter.name !== 'string' || !PARAMETER_NAME.test(parameter.name))
			problems.add(`${path}.name`, `must match ${PARAMETER_NAME.source} (lower case letters, digits, _; at most 40)`);
		else if (names.has(parameter.name))
			problems.add(`${path}.name`, `${parameter.name} is declared twice`);
		else
			names.add(parameter.name);
		problems.flag(`${path}.secret`, parameter.secret);
		problems.flag(`${path}.required`, parameter.required);
		if (parameter.default !== undefined)
			problems.text(`${path}.default`, parameter.default, 0, MAX_NAME);
		if (parameter.secret === true && parameter.default !== undefined)
			problems.add(path, 'a secret parameter has no default: secrets are never stored in a recipe');
		else if (parameter.default === undefined && parameter.required === false)
			problems.add(path, 'a parameter without a default is required (required: false needs a default)');
	});
	return names;
}

/**
 * Checks a locator: role and accessible name as the state shows them,
 * the context the state gives an unnamed control, and which of several equal
 * matches (0-based).
 * @param {Problems} problems
 * @param {string} path
 * @param {unknown} target
 */
function checkTarget(problems, path, target) {
	if (!problems.shape(path, target, SHAPES.target))
		return;
	problems.text(`${path}.role`, target.role, 1, 64);
	problems.text(`${path}.name`, target.name, 0, MAX_NAME);
	if (target.context !== undefined)
		problems.text(`${path}.context`, target.context, 0, MAX_NAME);
	if (target.nth !== undefined)
		problems.integer(`${path}.nth`, target.nth, 0, MAX_NTH);
}

/**
 * Checks every string inside a value for placeholders of undeclared
 * parameters, and objects for refused keys (refs, tab ids).
 * @param {Problems} problems
 * @param {string} path
 * @param {unknown} value
 * @param {Set<string>} declared
 */
function checkArgValue(problems, path, value, declared) {
	if (typeof value === 'string') {
		for (const name of placeholderNames(value))
			if (!declared.has(name))
				problems.add(path, `{{${name}}} names no declared parameter${declared.size > 0 ? ` (declared: ${[...declared].join(', ')})` : ''}`);
	} else if (Array.isArray(value)) {
		value.forEach((item, index) => checkArgValue(problems, `${path}[${index}]`, item, declared));
	} else if (isObject(value)) {
		for (const [key, item] of Object.entries(value)) {
			if (ARGS_KEYS_REFUSED.has(key))
				problems.add(`${path}.${key}`, key === 'tab_id' ?
				    'a recipe holds no tab id: replay runs in the tab it is given' :
				    'a recipe holds no element refs (they change with every page); give the step a target locator');
			else
				checkArgValue(problems, `${path}.${key}`, item, declared);
		}
	}
}

/**
 * Checks one step.
 * @param {Problems} problems
 * @param {string} path
 * @param {unknown} step
 * @param {Set<string>} declared
 */
function checkStep(problems, path, step, declared) {
	if (!problems.shape(path, step, SHAPES.step))
		return;
	if (typeof step.tool !== 'string' || !TOOL_NAME.test(step.tool))
		problems.add(`${path}.tool`, 'must be a tool name (navigate_to, click_element, ...)');
	else if (STEP_TOOLS_REFUSED.has(step.tool))
		problems.add(`${path}.tool`, `${step.tool} cannot be a recipe step: tasks and recipes do not nest`);
	if (!isObject(step.args))
		problems.add(`${path}.args`, 'must be an object');
	else
		checkArgValue(problems, `${path}.args`, step.args, declared);
	for (const key of STEP_TARGETS)
		if (step[key] !== undefined)
			checkTarget(problems, `${path}.${key}`, step[key]);
	if (step.tool === 'fill_form' && Array.isArray(step.args?.fields))
		step.args.fields.forEach((field, index) => {
			if (isObject(field) && field.target !== undefined)
				checkTarget(problems, `${path}.args.fields[${index}].target`, field.target);
			else
				problems.add(`${path}.args.fields[${index}]`, 'needs a target locator');
		});
	if (step.expect === undefined || !problems.shape(`${path}.expect`, step.expect, SHAPES.expect))
		return;
	if (step.expect.url !== undefined && problems.text(`${path}.expect.url`, step.expect.url, 1, MAX_URL))
		checkArgValue(problems, `${path}.expect.url`, step.expect.url, declared);
	if (step.expect.appears !== undefined)
		checkTarget(problems, `${path}.expect.appears`, step.expect.appears);
}

/**
 * The recipe as a value and its size in UTF-8 bytes of JSON, or why not.
 * @param {unknown} json a recipe, or its JSON text
 * @returns {{value?: unknown, bytes?: number, error?: string}}
 */
function readRecipe(json) {
	if (typeof json === 'string') {
		const bytes = new TextEncoder().encode(json).length;
		if (bytes > RECIPE_LIMITS.maxBytes)
			return { bytes };
		try {
			return { value: JSON.parse(json), bytes };
		} catch (error) {
			return { error: `is not JSON: ${error.message}` };
		}
	}
	try {
		return { value: json, bytes: new TextEncoder().encode(JSON.stringify(json) ?? '').length };
	} catch (error) {
		return { error: `cannot be written as JSON: ${error.message}` };
	}
}

/**
 * Checks a recipe against schema version 1 and the limits.
 * @param {unknown} json a recipe object, or its JSON text
 * @returns {{ok: boolean, errors: string[], recipe?: object}} recipe: the parsed value, when ok
 */
export function validateRecipe(json) {
	const problems = new Problems();
	const { value, bytes, error } = readRecipe(json);
	if (error !== undefined)
		return { ok: false, errors: [`recipe: ${error}`] };
	if (bytes > RECIPE_LIMITS.maxBytes)
		return { ok: false, errors: [`recipe: is ${bytes} bytes of JSON; at most ${RECIPE_LIMITS.maxBytes} (256 KiB) are accepted`] };
	if (!problems.shape('', value, SHAPES.recipe))
		return { ok: false, errors: problems.errors };
	const recipe = /** @type {Record<string, any>} */ (value);
	if (recipe.schema !== RECIPE_SCHEMA)
		problems.add('schema', `must be "${RECIPE_SCHEMA}"`);
	if (recipe.schema_version !== RECIPE_SCHEMA_VERSION)
		problems.add('schema_version', `must be ${RECIPE_SCHEMA_VERSION} (this extension reads schema version ${RECIPE_SCHEMA_VERSION} only)`);
	if (typeof recipe.id !== 'string' || !RECIPE_ID.test(recipe.id))
		problems.add('id', `must match ${RECIPE_ID.source}`);
	problems.integer('version', recipe.version, 1, 1_000_000);
	problems.text('name', recipe.name, 1, MAX_TEXT);
	if (problems.text('created', recipe.created, 1, 64) && (!ISO_TIME.test(recipe.created) || Number.isNaN(Date.parse(recipe.created))))
		problems.add('created', 'must be an ISO-8601 date and time (2026-01-31T12:00:00.000Z)');
	problems.text('owner', recipe.owner, 1, MAX_TEXT);
	checkSource(problems, recipe.source);
	checkPlace(problems, recipe.start_url, recipe.allowed_domains);
	const declared = checkParameters(problems, recipe.parameters);
	if (!Array.isArray(recipe.steps))
		problems.add('steps', 'must be an array');
	else if (recipe.steps.length === 0 || recipe.steps.length > RECIPE_LIMITS.maxSteps)
		problems.add('steps', `must hold from 1 to ${RECIPE_LIMITS.maxSteps} steps (has ${recipe.steps.length})`);
	else
		recipe.steps.forEach((step, index) => checkStep(problems, `steps[${index}]`, step, declared));
	if (problems.dropped > 0)
		problems.errors.push(`recipe: and ${problems.dropped} more errors`);
	return problems.errors.length === 0 ? { ok: true, errors: [], recipe } : { ok: false, errors: problems.errors };
}
