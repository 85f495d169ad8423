/**
 * Replay: runs a recipe's steps in a tab with no model. Each step's
 * locators are found in the live page's state, and the step runs through
 * the dispatcher as an MCP call would: the caller's scopes, the person's
 * pause, TAB_BUSY for a tab a task holds; the tab is held for the replay
 * and fenced to the recipe's allowed_domains capped by the person's list,
 * as a task's. A step whose element is not there, or whose expected
 * outcome does not follow, stops the replay with an error that names the
 * step, what it looked for and what the page offers instead.
 * @module recipes/replay
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { getTab } from '../browser/tabs.js';
import { loadSettings, readDomains } from '../agents/settings.js';
import { domainAllowed, domainRefusal, taskDomains } from '../agents/domains.js';
import { sleep } from '../sleep.js';
import { describeTarget, nearest, resolveTarget } from './locator.js';
import { REF_KEYS, RECORDED_TOOLS } from './record.js';
import { fillPlaceholders } from './schema.js';

/** How long a step's element may take to appear, and its outcome to follow. */
export const STEP_WAIT_MS = 5000;
/** How often the page's state is read again meanwhile, and its URL (a cheaper read). */
const POLL_MS = 150;
const URL_POLL_MS = 50;

/** A step's locator keys, and the argument each gives its element's ref in. */
const TARGET_ARGS = Object.fromEntries(Object.entries(REF_KEYS).map(([arg, key]) => [key, arg]));

/**
 * A recipe's parameters bound to values: the caller's, else the defaults.
 * @param {{parameters: {name: string, default?: string, secret?: boolean, required?: boolean}[]}} recipe
 * @param {Record<string, unknown>|undefined} given
 * @returns {Record<string, string>} the value of each parameter, by name
 * @throws {BridgeError} INVALID_ARGUMENT for an unknown name, a value that is no string, a required one missing
 */
export function bindParameters(recipe, given = {}) {
	const known = new Map(recipe.parameters.map(parameter => [parameter.name, parameter]));
	const unknown = Object.keys(given).filter(name => !known.has(name));
	if (unknown.length > 0)
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `The recipe has no parameter ${unknown.join(', ')}; ` +
		    `its parameters are ${[...known.keys()].join(', ') || 'none'}.`);
	const values = {};
	const missing = [];
	for (const parameter of recipe.parameters) {
		const value = given[parameter.name] ?? parameter.default;
		if (value === undefined)
			missing.push(parameter.secret ? `${parameter.name} (a secret, never stored)` : parameter.name);
		else if (typeof value !== 'string')
			throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `Parameter ${parameter.name} must be a string.`);
		else
			values[parameter.name] = value;
	}
	if (missing.length > 0)
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `The recipe needs ${missing.length === 1 ? 'the parameter' : 'the parameters'} ` +
		    `${missing.join(', ')}: pass ${missing.length === 1 ? 'it' : 'them'} in parameters.`);
	return values;
}

/**
 * Whether two URLs are the same page: the same origin and path (the query
 * and fragment may carry the parameters' values).
 * @param {string} a
 * @param {string} b
 * @returns {boolean}
 */
export function samePage(a, b) {
	try {
		const x = new URL(a);
		const y = new URL(b);
		return x.origin === y.origin && x.pathname === y.pathname;
	} catch {
		return a === b;
	}
}

/**
 * A step in words, for progress and errors: its tool and its element.
 * @param {object} step
 * @returns {string}
 */
export function describeStep(step) {
	const target = step.target ?? step.from_target;
	return target !== undefined ? `${step.tool} ${describeTarget(target)}` : step.tool;
}

/**
 * The page's elements offered instead of a missing one, in words.
 * @param {import('./locator.js').Target} target
 * @param {object[]} elements
 * @returns {string}
 */
function offered(target, elements) {
	const near = nearest(target, elements);
	return near.length === 0 ? 'The page offers no elements.' : `The page offers instead: ${near.map(describeTarget).join(', ')}.`;
}

/**
 * The locators a step finds in the page: its own (target, from_target,
 * to_target) and fill_form's fields'.
 * @param {object} step
 * @returns {{key: string, target: import('./locator.js').Target}[]}
 */
function stepTargets(step) {
	const own = Object.keys(TARGET_ARGS).filter(key => step[key] !== undefined).map(key => ({ key, target: step[key] }));
	const fields = step.tool === 'fill_form' && Array.isArray(step.args?.fields) ?
	    step.args.fields.map((field, i) => ({ key: `field ${i}`, target: field.target })) : [];
	return [...own, ...fields];
}

/** Runs recipes. */
export class RecipeRunner {
	/**
	 * @param {object} deps
	 * @param {import('../dispatcher.js').Dispatcher} deps.dispatcher
	 * @param {import('../agents/task-manager.js').TaskManager} deps.tasks how a task enters its tab (held, fenced, at its start URL)
	 * @param {import('../agents/fence.js').Fence} deps.fence
	 * @param {{get: Function}} deps.storage chrome.storage.local (the person's allowed domains)
	 * @param {{tabs: {create: Function}}} deps.browser
	 * @param {ReturnType<import('./page.js').tabReader>} deps.page
	 * @param {string} deps.optionsUrl
	 * @param {import('./heal.js').StepHealer} [deps.healer] asks the navigator for a step whose element is gone (heal)
	 * @param {number} [deps.stepWaitMs]
	 */
	constructor(deps) {
		this.deps = deps;
		this.stepWaitMs = deps.stepWaitMs ?? STEP_WAIT_MS;
		this.replays = 0;
	}

	/**
	 * Checks, before anything runs, that the caller's key may run each step.
	 * @param {object} recipe
	 * @param {string[]|undefined} scopes the key's (absent: every scope)
	 * @throws {BridgeError} INVALID_ARGUMENT naming the first step it may not run
	 */
	checkSteps(recipe, scopes) {
		if (scopes !== undefined && !scopes.includes('pages:read'))
			throw new BridgeError(ErrorCode.INVALID_ARGUMENT, 'This client\'s key lacks the scope pages:read, which a replay ' +
			    'needs to find each step\'s element, so the recipe did not run.');
		recipe.steps.forEach((step, i) => {
			const scope = this.deps.dispatcher.catalogueEntry(step.tool)?.scope;
			if (!RECORDED_TOOLS.has(step.tool) || scope === undefined)
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `Step ${i + 1} uses ${step.tool}, which a recipe cannot run.`);
			if (scopes !== undefined && !scopes.includes(scope))
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `Step ${i + 1} uses ${step.tool}, which needs the scope ${scope} ` +
				    'that this client\'s key lacks, so the recipe did not run.');
		});
	}

	/**
	 * Replays a recipe; with heal, a step whose element is gone asks the
	 * navigator for it (one model call) and the replay goes on.
	 * @param {object} recipe
	 * @param {{parameters?: object, tabId?: number, heal?: boolean, entered?: (tabId: number) => void}} options entered:
	 *   told the replay's tab once it is held, fenced and at the start URL, before the first step
	 * @param {import('../dispatcher.js').ActionContext} context the run_recipe call's
	 * @returns {Promise<{tabId: number, url: string, steps: object[], healed: {index: number, key: string,
	 *   target: import('./locator.js').Target}[]}>} healed: the steps given a new locator
	 * @throws {BridgeError} naming the step that failed
	 */
	async run(recipe, { parameters, tabId, heal = false, entered: onEntered }, context) {
		const values = bindParameters(recipe, parameters);
		this.checkSteps(recipe, context.scopes);
		const settings = await loadSettings(this.deps.storage);
		const allowed = taskDomains(settings.allowed_domains, readDomains(recipe.allowed_domains ?? []), this.deps.optionsUrl);
		const startUrl = fillPlaceholders(recipe.start_url, values);
		if (!domainAllowed(startUrl, allowed))
			throw new BridgeError(ErrorCode.INVALID_ARGUMENT, domainRefusal(startUrl, allowed));
		const id = `replay-${++this.replays}-${Date.now()}`;
		const owner = { kind: 'recipe', id, label: `the replay of recipe ${recipe.id} ("${recipe.name}")` };
		const entered = await this.enter(id, tabId, startUrl, allowed, owner);
		const call = { signal: context.signal, deadline: context.deadline, progress: () => {}, owner, client: context.client,
			caller: context.caller, ownerKey: context.ownerKey, scopes: context.scopes };
		onEntered?.(entered.tabId);
		const done = [];
		const healing = heal ? { recipe, call, allowed, healed: [] } : null;
		try {
			let state = null;
			for (let i = 0; i < recipe.steps.length; i++) {
				const step = recipe.steps[i];
				context.progress(i + 1, recipe.steps.length, `Step ${i + 1} of ${recipe.steps.length}: ${describeStep(step)}`);
				const params = await this.stepParams(step, i, fillPlaceholders(step.args ?? {}, values), entered.tabId, state, allowed,
				    context.signal, healing);
				await this.deps.dispatcher.dispatch(step.tool, params, call);
				this.checkFence(id, step, i, allowed);
				state = await this.expect({ ...step, expect: fillPlaceholders(step.expect ?? {}, values) }, i, entered.tabId, context.signal);
				done.push({ step: i + 1, tool: step.tool, outcome: 'ok' });
			}
			return { tabId: entered.tabId, url: await this.deps.page.tabUrl(entered.tabId), steps: done, healed: healing?.healed ?? [] };
		} finally {
			entered.release();
			await this.deps.fence.end(id).catch(() => {});
		}
	}

	/**
	 * Takes the replay's tab as a task takes its own (TaskManager.enterTab,
	 * openAtStartUrl): held for the replay, fenced, at the start URL.
	 * @param {string} id
	 * @param {number|undefined} tabId the caller's tab (absent: a new one)
	 * @param {string} startUrl
	 * @param {string[]} allowed
	 * @param {import('../dispatcher.js').Owner} owner
	 * @returns {Promise<{tabId: number, release: () => void}>}
	 */
	async enter(id, tabId, startUrl, allowed, owner) {
		const tasks = this.deps.tasks;
		const timed = (phase, work) => work();
		if (tabId !== undefined) {
			const tab = await getTab(tabId);
			this.deps.dispatcher.refuseIfHeld(tab.id, owner);
			return tasks.enterTab(id, tab.id, { startUrl, blank: false, allowedDomains: allowed, owner, timed });
		}
		if (allowed.length === 0 && !this.deps.fence.active)
			return tasks.openAtStartUrl(id, startUrl, owner);
		const blank = await this.deps.browser.tabs.create({ url: 'about:blank', active: true });
		return tasks.enterTab(id, blank.id, { startUrl, blank: true, allowedDomains: allowed, owner, timed });
	}

	/**
	 * A step's call arguments: its own, with the refs its locators find
	 * in the page now (waiting up to stepWaitMs for them) and the tab.
	 * @param {object} step
	 * @param {number} index
	 * @param {object} args the step's arguments, parameters filled in
	 * @param {number} tabId
	 * @param {{url: string, elements: object[]}|null} state the page as the last step's check read it, if it did
	 * @param {string[]} allowed
	 * @param {AbortSignal} signal
	 * @param {{recipe: object, call: object, allowed: string[], healed: object[]}|null} healing with heal: what the
	 *   healer needs, and the steps it gave a new locator
	 * @returns {Promise<object>}
	 */
	async stepParams(step, index, args, tabId, state, allowed, signal, healing) {
		const params = { ...args, tab_id: tabId };
		if (step.tool === 'navigate_to' && !domainAllowed(params.url, allowed))
			throw new BridgeError(ErrorCode.URL_NOT_ALLOWED, `Step ${index + 1} (navigate_to) stopped: ${domainRefusal(params.url, allowed)}`);
		const targets = stepTargets(step);
		if (targets.length === 0)
			return params;
		const deadline = Date.now() + this.stepWaitMs;
		for (;;) {
			state ??= await this.deps.page.capture(tabId);
			const found = targets.map(({ key, target }) => ({ key, target, element: resolveTarget(target, state.elements) }));
			const missing = found.find(entry => entry.element === undefined);
			if (missing === undefined) {
				for (const { key, element } of found) {
					if (key.startsWith('field '))
						params.fields[Number(key.slice(6))] = { ref: element.ref, value: params.fields[Number(key.slice(6))].value };
					else
						params[TARGET_ARGS[key]] = element.ref;
				}
				return params;
			}
			if (Date.now() >= deadline) {
				const error = new BridgeError(ErrorCode.ELEMENT_NOT_FOUND,
				    `Step ${index + 1} (${describeStep(step)}) stopped the replay: no ${describeTarget(missing.target)} is on ${state.url}. ` +
				    offered(missing.target, state.elements));
				if (healing === null || targets.length !== 1 || missing.key.startsWith('field '))
					throw error;
				return this.healStep(step, index, params, tabId, healing, error);
			}
			await sleep(POLL_MS, signal);
			state = null;
		}
	}

	/**
	 * A step's call arguments with the element the navigator picks for it
	 * (StepHealer), its new locator kept for the healed recipe.
	 * @param {object} step
	 * @param {number} index
	 * @param {object} params the step's arguments so far
	 * @param {number} tabId
	 * @param {{recipe: object, call: object, allowed: string[], healed: object[]}} healing
	 * @param {BridgeError} notFound the error without healing
	 * @returns {Promise<object>}
	 * @throws {BridgeError} notFound, saying why healing failed
	 */
	async healStep(step, index, params, tabId, healing, notFound) {
		let healed;
		try {
			if (this.deps.healer === undefined)
				throw new Error('this extension cannot heal');
			healed = await this.deps.healer.heal(healing.recipe, step, index, tabId, healing.call, healing.allowed);
		} catch (error) {
			healing.call.signal?.throwIfAborted();
			throw new BridgeError(notFound.code, `${notFound.message} Healing failed: ${error?.message ?? error}`);
		}
		healing.healed.push({ index, key: healed.key, target: healed.target });
		return { ...params, [TARGET_ARGS[healed.key]]: healed.ref };
	}

	/**
	 * Stops the replay when the browser's fence stopped a page of its tab.
	 * @param {string} id
	 * @param {object} step
	 * @param {number} index
	 * @param {string[]} allowed
	 * @throws {BridgeError} URL_NOT_ALLOWED
	 */
	checkFence(id, step, index, allowed) {
		const blocked = this.deps.fence.blocked(id);
		if (blocked.length > 0)
			throw new BridgeError(ErrorCode.URL_NOT_ALLOWED,
			    `Step ${index + 1} (${describeStep(step)}) stopped the replay: the browser blocked a page: ${domainRefusal(blocked[0].url, allowed)}`);
	}

	/**
	 * Waits up to stepWaitMs for a step's expected outcome: the page it
	 * reached, the element that appeared.
	 * @param {object} step
	 * @param {number} index
	 * @param {number} tabId
	 * @param {AbortSignal} signal
	 * @returns {Promise<{url: string, elements: object[]}|null>} the page as read for the check (null: not read)
	 * @throws {BridgeError} NAVIGATION_FAILED (another page) or ELEMENT_NOT_FOUND (nothing appeared), naming the step
	 */
	async expect(step, index, tabId, signal) {
		const expect = step.expect ?? {};
		if (expect.url === undefined && expect.appears === undefined)
			return null;
		const deadline = Date.now() + this.stepWaitMs;
		for (;;) {
			const url = await this.deps.page.tabUrl(tabId);
			const there = expect.url === undefined || samePage(url, expect.url);
			const state = there && expect.appears !== undefined ? await this.deps.page.capture(tabId) : null;
			const appeared = state === null || state.elements.some(element => element.role === expect.appears.role &&
			    (element.name ?? '') === expect.appears.name);
			if (there && appeared)
				return state;
			if (Date.now() >= deadline) {
				if (!there)
					throw new BridgeError(ErrorCode.NAVIGATION_FAILED,
					    `Step ${index + 1} (${describeStep(step)}) stopped the replay: it should have reached ${expect.url}, ` +
					    `but the tab shows ${url}.`);
				throw new BridgeError(ErrorCode.ELEMENT_NOT_FOUND,
				    `Step ${index + 1} (${describeStep(step)}) stopped the replay: ${describeTarget(expect.appears)} should have appeared ` +
				    `on ${url}, and did not. ${offered(expect.appears, state.elements)}`);
			}
			await sleep(state === null ? URL_POLL_MS : POLL_MS, signal);
		}
	}
}
