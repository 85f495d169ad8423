/**
 * Recording: the page calls that worked, kept in order while a run_task
 * task runs or between a client's start_recording and stop_recording,
 * and made into a recipe (docs/recipes.md): every ref replaced by a
 * locator (locator.js), each step's expected outcome, the values typed or
 * chosen as parameters, and what went into a secret field never kept.
 * @module recipes/record
 */

import { targetOf } from './locator.js';
import { RECIPE_LIMITS, RECIPE_SCHEMA, RECIPE_SCHEMA_VERSION } from './schema.js';

/** Most steps and parameters a recipe has (schema.js); a recording keeps the first steps only. */
export const MAX_STEPS = RECIPE_LIMITS.maxSteps;
export const MAX_PARAMETERS = RECIPE_LIMITS.maxParameters;

/** Longest recipe name. */
const NAME_CHARS = 80;

/** Longest parameter name (docs/recipes.md: ^[a-z][a-z0-9_]{0,39}$). */
const PARAMETER_CHARS = 40;

/**
 * The tools a recording keeps: those that act in the page of one tab.
 * Reads are not steps; tab juggling, files, scripts, printing and the
 * network tools are left out (docs/recipes.md, "What is recorded").
 */
export const RECORDED_TOOLS = new Set(['navigate_to', 'navigate_history', 'click_element', 'type_value', 'fill_form',
	'select_option', 'hover_element', 'drag_and_drop', 'press_keys', 'scroll_page', 'handle_dialog']);

/** Arguments that name an element, and the key of a step's locator that replaces each. */
export const REF_KEYS = Object.freeze({ ref: 'target', from_ref: 'from_target', to_ref: 'to_target' });

/** Arguments a recipe never keeps: the tab is the replay's own. */
const DROPPED_ARGS = ['tab_id', 'include_state', 'new_tab'];

/** The key of a recording when the call names no caller. */
export const NO_CALLER = 'owner';

/**
 * One call as recorded, before it is made into a recipe step.
 * @typedef {object} RecordedCall
 * @property {string} tool
 * @property {object} args its arguments, refs and the tab left out
 * @property {Record<string, import('./locator.js').Target>} targets by REF_KEYS' locator key
 * @property {(import('./locator.js').Target|null)[]} [fieldTargets] fill_form's fields' locators, in order
 * @property {Set<string>} secrets the locator keys ('target', or 'field N') whose element holds a secret
 * @property {string} before the tab's URL before the call
 * @property {string} after the tab's URL after it
 * @property {Set<string>|null} present role and name of each element on the page before the call (null: not read)
 */

/**
 * Role and name as one key.
 * @param {{role: string, name?: string}} element
 * @returns {string}
 */
function presenceKey(element) {
	return `${element.role}\n${element.name ?? ''}`;
}

/**
 * The refs a call's arguments name, by their locator key.
 * @param {object} params
 * @returns {[string, string][]} [locator key, ref] pairs
 */
function namedRefs(params) {
	return Object.entries(REF_KEYS).filter(([key]) => typeof params[key] === 'string').map(([key, target]) => [target, params[key]]);
}

/** The calls of one recording, in order. */
export class Recorder {
	/**
	 * @param {object} deps
	 * @param {(tabId: number) => Promise<{url: string, elements: object[]}>} deps.capture the tab's whole-page state
	 * @param {(tabId: number) => Promise<string>} deps.tabUrl the tab's URL now
	 * @param {(params: object) => Promise<number|undefined>} deps.tabOf the tab a call acts in (its ref's, tab_id, the active tab)
	 */
	constructor(deps) {
		this.deps = deps;
		/** @type {RecordedCall[]} */
		this.calls = [];
		/** The tab of the first call: calls in other tabs are not kept. */
		this.tabId = undefined;
		/** How many calls were left out past MAX_STEPS. */
		this.dropped = 0;
	}

	/**
	 * Reads what a call will act on, before it runs; the function it
	 * returns keeps the call once it has worked.
	 * @param {string} tool
	 * @param {object} params
	 * @returns {Promise<((result: object) => Promise<void>)|undefined>} undefined: the call is not recorded
	 */
	async before(tool, params) {
		if (!RECORDED_TOOLS.has(tool))
			return undefined;
		const tabId = await this.deps.tabOf(params);
		if (tabId === undefined || (this.tabId !== undefined && tabId !== this.tabId))
			return undefined;
		const refs = namedRefs(params);
		const fieldRefs = tool === 'fill_form' && Array.isArray(params.fields) ? params.fields.map(field => field?.ref) : [];
		const needsState = refs.length > 0 || fieldRefs.length > 0;
		const state = needsState ? await this.deps.capture(tabId) : { url: await this.deps.tabUrl(tabId), elements: null };
		const find = ref => state.elements?.find(element => element.ref === ref);
		const secrets = new Set();
		const targets = {};
		for (const [key, ref] of refs) {
			const element = find(ref);
			if (element === undefined)
				return undefined;	/* not on the page's state: the call fails, or acts where no locator can follow */
			targets[key] = targetOf(element, state.elements);
			if (element.secret === true)
				secrets.add(key);
		}
		const fieldTargets = fieldRefs.map((ref, i) => {
			const element = find(ref);
			if (element?.secret === true)
				secrets.add(`field ${i}`);
			return element === undefined ? null : targetOf(element, state.elements);
		});
		if (fieldTargets.includes(null))
			return undefined;
		const args = { ...params };
		for (const key of [...Object.keys(REF_KEYS), ...DROPPED_ARGS])
			delete args[key];
		const present = state.elements === null ? null : new Set(state.elements.map(presenceKey));
		return async result => {
			/* press_keys without a ref pressed its keys into a focused secret field: the tool says so. */
			if (result?.structuredContent?.secret === true && refs.length === 0)
				secrets.add('target');
			/* The tool found a secret field the state did not mark (a ref from an older state). */
			for (const ref of result?.structuredContent?.secret_refs ?? []) {
				for (const [key, named] of refs)
					if (named === ref)
						secrets.add(key);
				fieldRefs.forEach((named, i) => named === ref && secrets.add(`field ${i}`));
			}
			if (this.calls.length >= MAX_STEPS) {
				this.dropped++;
				return;
			}
			this.tabId ??= tabId;
			const after = await this.deps.tabUrl(tabId).catch(() => state.url);
			this.calls.push({ tool, args, targets, ...(tool === 'fill_form' ? { fieldTargets } : {}), secrets, before: state.url,
			    after, present });
		};
	}
}

/**
 * A parameter name made from an element's name: lower case, letters,
 * digits and underscores, beginning with a letter.
 * @param {string} hint
 * @returns {string}
 */
function parameterName(hint) {
	const slug = String(hint).toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
	const name = /^[a-z]/.test(slug) ? slug : `value${slug === '' ? '' : `_${slug}`}`;
	return name.slice(0, PARAMETER_CHARS - 3).replace(/_+$/, '');
}

/**
 * The parameters of a recipe being made: each value typed or chosen
 * becomes one, named after its field, with the value as its default; a
 * secret becomes a required parameter without one.
 */
class Parameters {
	constructor() {
		/** @type {{name: string, default?: string, secret: boolean, required?: boolean}[]} */
		this.list = [];
	}

	/**
	 * A placeholder for a value: {{name}}; past MAX_PARAMETERS a value
	 * that is no secret stays as it was typed.
	 * @param {string} hint the field's name, context or the tool
	 * @param {string} value
	 * @param {boolean} secret
	 * @returns {string}
	 */
	placeholder(hint, value, secret) {
		if (!secret && this.list.length >= MAX_PARAMETERS)
			return value;
		const base = parameterName(hint);
		let name = base;
		for (let n = 2; this.list.some(parameter => parameter.name === name); n++)
			name = `${base}_${n}`;
		this.list.push(secret ? { name, secret: true, required: true } : { name, default: value, secret: false });
		return `{{${name}}}`;
	}
}

/**
 * A recorded call's arguments with each value typed or chosen replaced
 * by a parameter's placeholder.
 * @param {RecordedCall} call
 * @param {Parameters} parameters
 * @returns {object}
 */
function parameterizedArgs(call, parameters) {
	const args = structuredClone(call.args);
	const hint = call.targets.target?.name || call.targets.target?.context || call.tool;
	const secret = call.secrets.has('target');
	if (call.tool === 'type_value' && typeof args.text === 'string')
		args.text = parameters.placeholder(hint, args.text, secret);
	else if (call.tool === 'press_keys' && secret && typeof args.keys === 'string')
		args.keys = parameters.placeholder(hint, args.keys, true);
	else if (call.tool === 'select_option' && Array.isArray(args.values))
		args.values = args.values.map(value => parameters.placeholder(hint, String(value), secret));
	else if (call.tool === 'handle_dialog' && typeof args.prompt_text === 'string')
		args.prompt_text = parameters.placeholder('prompt_text', args.prompt_text, false);
	else if (call.tool === 'fill_form' && Array.isArray(args.fields)) {
		args.fields = args.fields.map((field, i) => {
			const target = call.fieldTargets[i];
			const value = typeof field.value === 'string' ?
			    parameters.placeholder(target.name || target.context || 'field', field.value, call.secrets.has(`field ${i}`)) : field.value;
			return { target, value };
		});
	}
	return args;
}

/**
 * The host names of the web pages a recording visited.
 * @param {string[]} urls
 * @returns {string[]}
 */
function visitedDomains(urls) {
	const hosts = new Set();
	for (const url of urls) {
		try {
			const parsed = new URL(url);
			if (parsed.protocol === 'http:' || parsed.protocol === 'https:')
				hosts.add(parsed.hostname.toLowerCase());
		} catch {
			/* not a URL: no domain */
		}
	}
	return [...hosts];
}

/**
 * A new recipe id: rcp_ and 96 random bits, base64url.
 * @returns {string}
 */
export function newRecipeId() {
	const bytes = crypto.getRandomValues(new Uint8Array(12));
	return `rcp_${btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

/**
 * Makes a recording into a recipe. A first call that navigates becomes
 * the start URL (unless it is the only one); each step expects the URL it reached when it changed
 * the page's address (navigate_to always), and, when it did not, the
 * element the next step acts on if that was not on the page before it.
 * @param {RecordedCall[]} calls
 * @param {object} about
 * @param {string} about.name masked already (no secret in it)
 * @param {string} about.owner
 * @param {{kind: 'task'|'recording', task_id?: string}} about.source
 * @param {string[]} [about.allowedDomains] the domains the recording was fenced to (empty: those it visited)
 * @param {string} [about.id] an id (a new one when absent)
 * @param {number} [about.version]
 * @returns {object|null} the recipe; null when nothing was recorded
 */
export function buildRecipe(calls, { name, owner, source, allowedDomains = [], id = newRecipeId(), version = 1 }) {
	if (calls.length === 0)
		return null;
	let rest = calls;
	let startUrl = calls[0].before;
	if (calls[0].tool === 'navigate_to' && typeof calls[0].args.url === 'string' && calls.length > 1) {
		startUrl = calls[0].args.url;
		rest = calls.slice(1);
	}
	const parameters = new Parameters();
	const steps = rest.map((call, i) => {
		const step = { tool: call.tool };
		for (const [key, target] of Object.entries(call.targets))
			step[key] = target;
		step.args = parameterizedArgs(call, parameters);
		step.expect = {};
		if (call.tool === 'navigate_to' || call.after !== call.before)
			step.expect.url = call.after;
		else {
			const next = rest[i + 1]?.targets.target;
			if (next !== undefined && call.present !== null && !call.present.has(presenceKey(next)))
				step.expect.appears = { role: next.role, name: next.name };
		}
		return step;
	});
	const flat = String(name).replace(/\s+/g, ' ').trim();
	return {
		schema: RECIPE_SCHEMA,
		schema_version: RECIPE_SCHEMA_VERSION,
		id, version,
		name: flat.length > NAME_CHARS ? `${flat.slice(0, NAME_CHARS - 1)}…` : flat,
		created: new Date().toISOString(),
		owner,
		source,
		start_url: startUrl,
		allowed_domains: allowedDomains.length > 0 ? [...allowedDomains] :
		    visitedDomains([startUrl, ...rest.flatMap(call => [call.before, call.after])]),
		parameters: parameters.list,
		steps,
	};
}

/**
 * The recordings under way: one per task (keyed by its owner object) and
 * one per MCP caller (keyed by the host's caller). The dispatcher asks
 * watch() about every call that changes a page.
 */
export class Recordings {
	/** @param {ConstructorParameters<typeof Recorder>[0]} deps */
	constructor(deps) {
		this.deps = deps;
		/** @type {Map<object|string, Recorder>} */
		this.active = new Map();
	}

	/**
	 * The key of the recording a call belongs to: its task, or its caller.
	 * @param {{owner?: object, caller?: string}} call
	 * @returns {object|string}
	 */
	static keyOf(call) {
		return call.owner ?? call.caller ?? NO_CALLER;
	}

	/**
	 * Starts a recording (again: starts it afresh).
	 * @param {object|string} key
	 * @returns {Recorder}
	 */
	start(key) {
		const recorder = new Recorder(this.deps);
		this.active.set(key, recorder);
		return recorder;
	}

	/**
	 * Ends a recording.
	 * @param {object|string} key
	 * @returns {Recorder|undefined} what it recorded; undefined when none was under way
	 */
	stop(key) {
		const recorder = this.active.get(key);
		this.active.delete(key);
		return recorder;
	}

	/**
	 * The dispatcher's hook: for a call of a recording under way, reads
	 * what it will act on; a call that fails to be read is not recorded
	 * but runs all the same.
	 * @param {string} method
	 * @param {object} params
	 * @param {{owner?: object, caller?: string}} call
	 * @returns {Promise<((result: object) => Promise<void>)|undefined>}
	 */
	async watch(method, params, call) {
		const recorder = this.active.get(Recordings.keyOf(call));
		if (recorder === undefined)
			return undefined;
		return recorder.before(method, params).catch(() => undefined);
	}
}
