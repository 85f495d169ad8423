/**
 * The dispatcher: owns the registry of browser actions (one module per
 * group under src/actions/), finds the tab each call acts on, runs actions
 * on one tab one at a time (different tabs in parallel), and adds the page
 * state to results when asked (include_state).
 * @module dispatcher
 */

import { BridgeError, ErrorCode } from './errors.js';
import { KeyedQueue } from './tab-queue.js';
import { ActiveTabGone, resolveTab, getTab } from './browser/tabs.js';
import { captureState } from './page-state/capture.js';
import { formatState, structuredState } from './page-state/format.js';
import { DialogOpened } from './browser/debugger.js';
import { describeDialog, dialogAdvice, dialogResult } from './actions/dialogs.js';
import { urlPolicy, urlRefusal } from './url-policy.js';

/**
 * What an action's run() receives.
 * @typedef {object} ActionContext
 * @property {AbortSignal} signal
 * @property {number} deadline Date.now() value by which to answer
 * @property {(progress: number, total?: number, message?: string) => void} progress
 * @property {Owner} [owner] who issued the action (absent: an MCP client through the host)
 * @property {string} [client] that MCP client's name, when it gave one (what it claims: shown, never trusted)
 * @property {import('./browser/network-log.js').Actor} [actor] who asks, for what only they may read:
 *   the owner, or the MCP client as the host identifies it (CallContext.caller); absent when neither is known
 * @property {string} [caller] the MCP caller as the host identifies it (CallContext.caller)
 * @property {boolean} [ownerKey] the call came with the owner key (CallContext.ownerKey): it may read what every caller may
 * @property {string[]} [scopes] the scopes of the OAuth client's key it came with (CallContext.scopes; absent: all)
 * @property {boolean} [pageText] a caller inside the extension (the agents) also wants the page's text with a state it reads
 *   (get_browser_state, include_state), in the same pass: the result's pageText (see captureState)
 * @property {chrome.tabs.Tab} [tab] the tab, for actions that act on one
 * @property {(tabId: number) => void} [refuseIfHeld] a browser-wide action that changes a tab it names (manage_tabs close)
 *   asks first: throws TAB_BUSY when a task other than the caller holds that tab
 * @property {(tabId: number) => void} [opened] a call that opens a tab (navigate_to new_tab, manage_tabs open) tells it
 *   the tab, the moment it exists
 * @property {boolean} [tabWasActive] the call named no tab (no tab_id, no ref): tab is the one that was active
 * @property {import('./page-state/refs.js').RefEntry} [element] the element named by params.ref
 * @property {(ref: string) => import('./page-state/refs.js').RefEntry} [resolveRef] finds another element of the tab
 * @property {Services} services
 */

/**
 * Shared parts actions use.
 * @typedef {object} Services
 * @property {import('./page-state/refs.js').RefTable} refs
 * @property {import('./browser/debugger.js').DebuggerPool} debuggers
 * @property {import('./browser/network.js').NetworkTracker} network
 * @property {import('./browser/network-log.js').NetworkLog} [networkLog] the requests of the tabs the callers acted in
 * @property {{get: (key: string) => Promise<object>}} [storage] chrome.storage.local (the options page's switches)
 * @property {string} version the extension's version
 * @property {(text: string) => void} log
 * @property {object} [welcome] the host's welcome (evaluate_script: whether the host config allows it)
 * @property {{call: (method: string, params: object) => Promise<object>}} [host] asks the host (check_upload)
 * @property {import('./control.js').PersonControl} [control] the person's pause switch and the log of recent actions
 */

/**
 * An action definition.
 * @typedef {object} ActionDefinition
 * @property {'tab'|'browser'} [scope] 'tab' (default): acts on params.tab_id, the ref's tab or the active tab; 'browser': no tab resolved, queued with other browser-wide calls
 * @property {boolean} [refRequired] params.ref must name an element
 * @property {(params: object) => string|undefined} [innerRef] a ref inside params that names the tab to act in
 * @property {boolean} [stateable] honours include_state
 * @property {boolean} [unqueued] runs at once, not behind the tab's queue (handle_dialog: the queued action waits on the dialog)
 * @property {(params: object) => boolean} [actsElsewhere] the call acts in a tab it opens (navigate_to new_tab): no tab is
 *   resolved, so it waits behind no tab's queue and no task's hold on the tab in front; it runs at once
 * @property {(params: object, context: ActionContext) => Promise<object>} run
 */

/**
 * Who holds a tab: a task of the agents, named in TAB_BUSY errors.
 * @typedef {object} Owner
 * @property {string} label e.g. task t3 ("Order a mug")
 */

/**
 * A catalogue tool the extension answers, as the agents hand it to a model.
 * @typedef {object} CatalogueAction
 * @property {string} name
 * @property {string} description
 * @property {object} input_schema
 * @property {boolean} read_only the catalogue's readOnlyHint
 */

/**
 * How the dispatcher treats a tab action, set in its catalogue entry
 * ("traits" in catalogue/*.json; host/tools.c refuses unknown ones). Absent
 * means false; so does a method with no catalogue entry.
 * @typedef {object} Traits
 * @property {boolean} [watches_dialogs] may open a dialog: the tab's dialogs are watched (debugger attached, Page events on) before it runs
 * @property {boolean} [leaves_page] takes the tab away from its page, so it may start on any page
 * @property {boolean} [runs_under_dialog] works while a dialog blocks the page
 */

/** The action registry, and the dispatch of each call to its action. */
export class Dispatcher {
	/** @param {Services} services */
	constructor(services) {
		this.services = services;
		/** @type {Map<string, ActionDefinition>} */
		this.registry = new Map();
		this.queue = new KeyedQueue();
		/** @type {Map<number, Owner>} tabs held by an owner */
		this.holds = new Map();
		/** @type {import('./recipes/record.js').Recordings|undefined} the recordings under way, told of each call that changes a page */
		this.recordings = undefined;
	}

	/**
	 * The catalogue's tools that a registered action answers, from the
	 * host's welcome (empty before it).
	 * @returns {CatalogueAction[]}
	 */
	catalogueActions() {
		return (this.services.welcome?.catalogue ?? [])
		    .filter(tool => typeof tool.method === 'string' && this.registry.has(tool.method))
		    .map(tool => ({
			name: tool.name,
			description: tool.description,
			input_schema: tool.inputSchema,
			read_only: tool.annotations?.readOnlyHint === true,
			...(tool.scope !== undefined ? { scope: tool.scope } : {}),
		    }));
	}

	/**
	 * The catalogue's entry of the tool a method answers, from the host's
	 * welcome; undefined before it and for methods that are not tools.
	 * @param {string} method
	 * @returns {object|undefined}
	 */
	catalogueEntry(method) {
		return (this.services.welcome?.catalogue ?? []).find(entry => entry.method === method);
	}

	/**
	 * Whether the catalogue marks a method read-only (readOnlyHint).
	 * @param {string} method
	 * @returns {boolean}
	 */
	readOnly(method) {
		return this.catalogueEntry(method)?.annotations?.readOnlyHint === true;
	}

	/**
	 * Whether the catalogue gives a method a trait.
	 * @param {string} method
	 * @param {keyof Traits} trait
	 * @returns {boolean}
	 */
	hasTrait(method, trait) {
		return this.catalogueEntry(method)?.traits?.[trait] === true;
	}

	/**
	 * Holds a tab for an owner: until released, actions that change the
	 * tab's page run only for that owner; others get TAB_BUSY at once,
	 * and read-only actions from anyone still run between the owner's.
	 * @param {number} tabId
	 * @param {Owner} owner
	 * @returns {() => void} releases the hold (again: no effect)
	 * @throws {BridgeError} TAB_BUSY when another owner holds the tab
	 */
	hold(tabId, owner) {
		const holder = this.holds.get(tabId);
		if (holder !== undefined && holder !== owner)
			throw this.busy(tabId, holder);
		this.holds.set(tabId, owner);
		/* The owner's tab counts as acted in by it (network-log.js). */
		this.services.networkLog?.act(tabId, owner);
		return () => {
			if (this.holds.get(tabId) === owner)
				this.holds.delete(tabId);
		};
	}

	/**
	 * Refuses to act on or read a tab whose page is not a web page the
	 * tools may use (url-policy.js).
	 * @param {chrome.tabs.Tab} tab
	 * @throws {BridgeError} URL_NOT_ALLOWED
	 */
	checkPageAllowed(tab) {
		const refusal = urlRefusal(tab.url || tab.pendingUrl || '', urlPolicy(this.services.welcome));
		if (refusal !== null)
			throw new BridgeError(ErrorCode.URL_NOT_ALLOWED,
			    `Tab ${tab.id} cannot be used: ${refusal} Navigate it to a web page with navigate_to, or use another tab.`);
	}

	/**
	 * Forgets a closed tab's hold.
	 * @param {number} tabId
	 */
	forgetTab(tabId) {
		this.holds.delete(tabId);
	}

	/**
	 * Refuses a change to a tab that an owner other than the caller holds.
	 * @param {number} tabId
	 * @param {Owner|undefined} caller the task that asks (undefined: an MCP client)
	 * @throws {BridgeError} TAB_BUSY naming the holder
	 */
	refuseIfHeld(tabId, caller) {
		const holder = this.holds.get(tabId);
		if (holder !== undefined && holder !== caller)
			throw this.busy(tabId, holder);
	}

	/**
	 * The error for an action on a tab someone else holds.
	 * @param {number} tabId
	 * @param {Owner} holder
	 * @returns {BridgeError}
	 */
	busy(tabId, holder) {
		return new BridgeError(ErrorCode.TAB_BUSY,
		    `Tab ${tabId} is being driven by ${holder.label}. Wait for it (get_task), stop it (stop_task), ` +
		    'or use another tab; reading the tab (get_browser_state, get_page_content, take_screenshot) works meanwhile.');
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
	 * Runs a method: the Dispatch of rpc.js, and how the agents act. A
	 * call without an owner comes from an MCP client through the host.
	 * @param {string} method
	 * @param {object} params
	 * @param {import('./rpc.js').CallContext & {owner?: Owner}} call
	 * @returns {Promise<object>}
	 * @throws {BridgeError} TAB_BUSY when the tab is held by another owner and the method is not read-only;
	 *   PAUSED_BY_USER when the person paused agent control and the method is not read-only
	 */
	async dispatch(method, params, call) {
		const definition = this.registry.get(method);
		if (definition === undefined)
			throw new BridgeError(ErrorCode.UNKNOWN_METHOD,
			    `The extension has no method "${method}". Update the host and the extension to the same release.`);
		const control = this.services.control;
		if (control === undefined)
			return this.runRecorded(method, definition, params, call);
		await control.ready;
		const end = control.begin({ who: call.owner?.label ?? call.client ?? 'MCP client', tool: method, tab: this.tabNamed(params) });
		const where = {};
		try {
			const readOnly = this.readOnly(method);
			control.check(method, readOnly);
			const result = await this.runRecorded(method, definition, params, call, where);
			end('ok', where.tab);
			/* A task's tab is in its own group; a client's is marked while it acts. */
			if (!readOnly && call.owner === undefined && where.tab !== undefined)
				void control.markTab(where.tab, call.client ?? 'MCP client');
			return result;
		} catch (error) {
			end(error?.code ?? ErrorCode.INTERNAL, where.tab);
			throw error;
		}
	}

	/**
	 * Runs a known method (run); a call that changes a page, of a task or
	 * a caller that records (recipes/record.js), is recorded once it worked.
	 * @param {string} method
	 * @param {ActionDefinition} definition
	 * @param {object} params
	 * @param {import('./rpc.js').CallContext & {owner?: Owner}} call
	 * @param {{tab?: number}} [where] gets the id of the tab it acts in
	 * @returns {Promise<object>}
	 */
	async runRecorded(method, definition, params, call, where = {}) {
		const keep = this.recordings === undefined || this.readOnly(method) ? undefined :
		    await this.recordings.watch(method, params, call);
		const result = await this.run(method, definition, params, call, where);
		await keep?.(result).catch(error => this.services.log?.(`recording: ${method} not kept (${error?.message ?? error})`));
		return result;
	}

	/**
	 * The call's tab read again when its turn in the queue comes; nothing
	 * has run yet, so an active tab that closed meanwhile is ActiveTabGone
	 * (run tries again for the tab active now).
	 * @param {ActionContext} context
	 * @returns {Promise<chrome.tabs.Tab>}
	 */
	async tabAtItsTurn(context) {
		try {
			return await getTab(context.tab.id);
		} catch (error) {
			if (context.tabWasActive)
				throw new ActiveTabGone(context.tab.id);
			throw error;
		}
	}

	/**
	 * The tab a call names (tab_id, or its ref's tab) before anything is
	 * resolved, for the record of recent actions; undefined when it names none.
	 * @param {object} params
	 * @returns {number|undefined}
	 */
	tabNamed(params) {
		if (Number.isInteger(params.tab_id))
			return params.tab_id;
		if (typeof params.ref !== 'string')
			return undefined;
		const found = this.services.refs.resolve(params.ref);
		return found.status === 'ok' ? found.entry.tabId : undefined;
	}

	/**
	 * Runs a known method (runOnce); once more, for the tab active now,
	 * when the active tab it resolved closed before the action began
	 * (ActiveTabGone).
	 * @param {string} method
	 * @param {ActionDefinition} definition
	 * @param {object} params
	 * @param {import('./rpc.js').CallContext & {owner?: Owner}} call
	 * @param {{tab?: number}} [where] gets the id of the tab it acts in
	 * @returns {Promise<object>}
	 */
	async run(method, definition, params, call, where = {}) {
		try {
			return await this.runOnce(method, definition, params, call, where);
		} catch (error) {
			if (!(error instanceof ActiveTabGone))
				throw error;
			return this.runOnce(method, definition, params, call, where);
		}
	}

	/**
	 * Runs a known method once: resolves its tab and element, then runs it
	 * in the tab's queue.
	 * @param {string} method
	 * @param {ActionDefinition} definition
	 * @param {object} params
	 * @param {import('./rpc.js').CallContext & {owner?: Owner, opened?: (tabId: number) => void}} call opened: told
	 *   the tab the call opens (navigate_to new_tab, manage_tabs open), the moment it exists (a task holds it then)
	 * @param {{tab?: number}} where
	 * @returns {Promise<object>}
	 */
	async runOnce(method, definition, params, call, where) {
		/** @type {ActionContext} */
		const context = {
			signal: call.signal,
			deadline: call.deadline,
			progress: call.progress,
			owner: call.owner,
			client: call.client,
			actor: call.owner ?? call.caller,
			caller: call.caller,
			ownerKey: call.ownerKey === true,
			scopes: call.scopes,
			pageText: call.pageText === true,
			refuseIfHeld: tabId => this.refuseIfHeld(tabId, call.owner),
			services: this.services,
		};
		let key = 'browser';
		const elsewhere = definition.actsElsewhere?.(params) === true;
		context.opened = tabId => {
			if (elsewhere)
				where.tab = tabId;
			call.opened?.(tabId);
		};
		if (!elsewhere && (definition.scope ?? 'tab') === 'tab') {
			let tabId = params.tab_id;
			if (typeof params.ref === 'string') {
				context.element = this.resolveRef(params.ref, tabId);
				tabId = context.element.tabId;
			} else if (definition.refRequired) {
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `${method} needs ref: an element ref from get_browser_state.`);
			}
			/* An action with refs inside its params (fill_form) acts in their tab. */
			const innerRef = definition.innerRef?.(params);
			if (tabId === undefined && typeof innerRef === 'string')
				tabId = this.resolveRef(innerRef, undefined).tabId;
			context.tabWasActive = tabId === undefined;
			context.tab = tabId !== undefined ? await getTab(tabId) : await resolveTab(params);
			context.resolveRef = ref => this.resolveRef(ref, context.tab.id);
			where.tab = context.tab.id;
			key = context.tab.id;
			if (!this.readOnly(method))
				this.refuseIfHeld(key, call.owner);
		}
		/* A call that waits behind others reads its tab again when its turn comes; one that does not has it fresh. */
		const waits = definition.unqueued !== true && this.queue.size(key) > 0;
		const task = async () => {
			if (context.tab !== undefined) {
				if (waits)
					context.tab = await this.tabAtItsTurn(context);
				if (!this.hasTrait(method, 'leaves_page'))
					this.checkPageAllowed(context.tab);
				/* Acting in a tab (not reading it) lets the actor read its requests, recorded from now on. */
				if (!this.readOnly(method))
					this.services.networkLog?.act(context.tab.id, context.actor);
			}
			if (context.tab === undefined || this.hasTrait(method, 'runs_under_dialog'))
				return definition.run(params, context);
			const value = await this.runWatchingDialogs(method, definition, params, context);
			if (definition.stateable && params.include_state === true && value.structuredContent?.dialog === undefined)
				await this.appendState(value, context);
			return value;
		};
		if (definition.unqueued || elsewhere)
			return task();
		return this.queue.run(key, task, call.signal);
	}

	/**
	 * Runs a tab action; a dialog that opens meanwhile ends it with a reply
	 * that reports the dialog (the action's own work is aborted and its
	 * end ignored), and one open at its end is added to its reply.
	 * @param {string} method
	 * @param {ActionDefinition} definition
	 * @param {object} params
	 * @param {ActionContext} context
	 * @returns {Promise<object>}
	 */
	async runWatchingDialogs(method, definition, params, context) {
		const debuggers = this.services.debuggers;
		const tabId = context.tab.id;
		const open = debuggers.dialogs.get(tabId);
		if (open !== undefined)
			throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
			    `Tab ${tabId} is blocked by ${describeDialog(open)}, so ${method} cannot run. ${dialogAdvice(open)}`);
		if (this.hasTrait(method, 'watches_dialogs'))
			await debuggers.watchDialogs(tabId).catch(() => {});
		const controller = new AbortController();
		const outer = context.signal;
		const forward = () => controller.abort(outer.reason);
		if (outer.aborted)
			forward();
		else
			outer.addEventListener('abort', forward, { once: true });
		let stop = () => {};
		const opened = new Promise(resolve => {
			stop = debuggers.onDialog(tabId, dialog => resolve({ dialog }));
		});
		const action = definition.run(params, { ...context, signal: controller.signal });
		action.catch(() => {});
		try {
			const first = await Promise.race([action.then(value => ({ value })), opened]);
			if (first.dialog !== undefined) {
				controller.abort(new DialogOpened(first.dialog));
				return dialogResult(method, first.dialog);
			}
			const value = first.value;
			const after = debuggers.dialogs.get(tabId);
			if (after !== undefined && value?.content !== undefined) {
				value.content.push({ type: 'text', text: `Then the page opened ${describeDialog(after)}. ${dialogAdvice(after)}` });
				value.structuredContent = { ...(value.structuredContent ?? {}), dialog: after };
			}
			return value;
		} catch (error) {
			if (error instanceof DialogOpened) {
				controller.abort(error);
				return dialogResult(method, error.dialog);
			}
			throw error;
		} finally {
			stop();
			outer.removeEventListener('abort', forward);
		}
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
		const state = await captureState(tab, this.services.refs, { text: context.pageText });
		result.content.push({ type: 'text', text: formatState(state) });
		result.structuredContent = { ...(result.structuredContent ?? {}), state: structuredState(state) };
		if (context.pageText)
			result.pageText = state.pageText;
	}
}
