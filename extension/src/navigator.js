/**
 * The navigator: owns the registry of browser actions (one module per
 * group under src/actions/), finds the tab each call acts on, runs actions
 * on one tab one at a time (different tabs in parallel), and adds the page
 * state to results when asked (include_state).
 * @module navigator
 */

import { BridgeError, ErrorCode } from './errors.js';
import { KeyedQueue } from './tab-queue.js';
import { resolveTab, getTab } from './browser/tabs.js';
import { captureState } from './page-state/capture.js';
import { formatState, structuredState } from './page-state/format.js';

/**
 * What an action's run() receives.
 * @typedef {object} ActionContext
 * @property {AbortSignal} signal
 * @property {number} deadline Date.now() value by which to answer
 * @property {(progress: number, total?: number, message?: string) => void} progress
 * @property {chrome.tabs.Tab} [tab] the tab, for actions that act on one
 * @property {import('./page-state/refs.js').RefEntry} [element] the element named by params.ref
 * @property {Services} services
 */

/**
 * Shared parts actions use.
 * @typedef {object} Services
 * @property {import('./page-state/refs.js').RefTable} refs
 * @property {import('./browser/debugger.js').DebuggerPool} debuggers
 * @property {import('./browser/network.js').NetworkTracker} network
 * @property {string} version the extension's version
 * @property {(text: string) => void} log
 * @property {object} [welcome] the host's welcome (evaluate_script: whether the host config allows it)
 */

/**
 * An action definition.
 * @typedef {object} ActionDefinition
 * @property {'tab'|'browser'} [scope] 'tab' (default): acts on params.tab_id, the ref's tab or the active tab; 'browser': no tab resolved, queued with other browser-wide calls
 * @property {boolean} [refRequired] params.ref must name an element
 * @property {boolean} [stateable] honours include_state
 * @property {(params: object, context: ActionContext) => Promise<object>} run
 */

/** Tools of the catalogue that this extension version does not implement yet. */
export const NOT_YET = ['handle_dialog',
	'run_task'];

/** The registry and its dispatcher. */
export class Navigator {
	/** @param {Services} services */
	constructor(services) {
		this.services = services;
		/** @type {Map<string, ActionDefinition>} */
		this.registry = new Map();
		this.queue = new KeyedQueue();
	}

	/**
	 * Adds a group of actions.
	 * @param {Record<string, ActionDefinition>} actions
	 */
	register(actions) {
		for (const [method, definition] of Object.entries(actions)) {
			if (this.registry.has(method))
				throw new Error(`action ${method} registered twice`);
			this.registry.set(method, definition);
		}
	}

	/** @returns {string[]} the registered methods */
	get methods() {
		return [...this.registry.keys()];
	}

	/**
	 * Finds the element a ref names, checking it belongs to the given tab.
	 * @param {string} ref
	 * @param {number|undefined} tabId
	 * @returns {import('./page-state/refs.js').RefEntry}
	 * @throws {BridgeError} ELEMENT_NOT_FOUND or STALE_REF
	 */
	resolveRef(ref, tabId) {
		const found = this.services.refs.resolve(ref);
		if (found.status === 'stale')
			throw new BridgeError(ErrorCode.STALE_REF,
			    `Element ${found.ref} is no longer on the page: ${found.reason}. Call get_browser_state to get fresh refs.`);
		if (found.status === 'unknown')
			throw new BridgeError(ErrorCode.ELEMENT_NOT_FOUND,
			    found.ref === null ?
			    `"${ref}" is not a ref: refs look like e12 and come from get_browser_state.` :
			    `No element has ref ${found.ref}: refs come from get_browser_state; call it and use a ref it lists.`);
		if (tabId !== undefined && tabId !== null && found.entry.tabId !== tabId)
			throw new BridgeError(ErrorCode.ELEMENT_NOT_FOUND,
			    `Ref ${found.entry.ref} is an element of tab ${found.entry.tabId}, not of tab ${tabId}. ` +
			    `Pass tab_id ${found.entry.tabId}, or call get_browser_state for tab ${tabId}.`);
		return found.entry;
	}

	/**
	 * Runs a method: the Dispatch of rpc.js.
	 * @param {string} method
	 * @param {object} params
	 * @param {import('./rpc.js').CallContext} call
	 * @returns {Promise<object>}
	 */
	async dispatch(method, params, call) {
		const definition = this.registry.get(method);
		if (definition === undefined) {
			if (NOT_YET.includes(method))
				throw new BridgeError(ErrorCode.UNKNOWN_METHOD,
				    `${method} is not implemented in this extension version (${this.services.version}). ` +
				    `Update the Browser Bridge extension; meanwhile use ${this.methods.filter(m => m !== 'read_resource').join(', ')}.`);
			throw new BridgeError(ErrorCode.UNKNOWN_METHOD,
			    `The extension has no method "${method}". Update the host and the extension to the same release.`);
		}
		/** @type {ActionContext} */
		const context = {
			signal: call.signal,
			deadline: call.deadline,
			progress: call.progress,
			services: this.services,
		};
		let key = 'browser';
		if ((definition.scope ?? 'tab') === 'tab') {
			let tabId = params.tab_id;
			if (typeof params.ref === 'string') {
				context.element = this.resolveRef(params.ref, tabId);
				tabId = context.element.tabId;
			} else if (definition.refRequired) {
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `${method} needs ref: an element ref from get_browser_state.`);
			}
			context.tab = tabId !== undefined ? await getTab(tabId) : await resolveTab(params);
			key = context.tab.id;
		}
		const result = await this.queue.run(key, async () => {
			if (context.tab !== undefined)
				context.tab = await getTab(context.tab.id);
			const value = await definition.run(params, context);
			if (definition.stateable && params.include_state === true && context.tab !== undefined)
				await this.appendState(value, context);
			return value;
		}, call.signal);
		return result;
	}

	/**
	 * Adds the tab's page state to an action's result.
	 * @param {{content: object[], structuredContent?: object}} result
	 * @param {ActionContext} context
	 */
	async appendState(result, context) {
		let tab;
		try {
			tab = await getTab(context.tab.id);
		} catch {
			return;	/* the action closed the tab */
		}
		const state = await captureState(tab, this.services.refs);
		result.content.push({ type: 'text', text: formatState(state) });
		result.structuredContent = { ...(result.structuredContent ?? {}), state: structuredState(state) };
	}
}
