/**
 * The fence around the tasks' tabs, kept by the browser rather than the
 * prompt. While a task runs with allowed domains, declarativeNetRequest
 * session rules block every top-level document and frame outside them in
 * the task's tabs (the tab it runs in and every tab opened from one of
 * them), before the request leaves, redirects included. A tab is born
 * before the extension hears of it, so while any fenced task runs, every
 * tab the extension does not know yet is fenced too (to the domains all
 * fenced tasks share) until it is known not to come from a task; a first
 * navigation of such a tab that the fence blocked is then sent again.
 *
 * The extension's session rules are the fence's alone: they are cleared at
 * start-up, so a service worker restart (which ends every task) leaves no
 * stale rule behind.
 * @module agents/fence
 */

import { hostWithin } from './domains.js';

/** What the fence stops: documents, top-level and in frames. */
const FRAME_TYPES = Object.freeze(['main_frame', 'sub_frame']);

/** The error a navigation the fence blocked ends with (webNavigation.onErrorOccurred). */
export const BLOCKED_ERROR = 'net::ERR_BLOCKED_BY_CLIENT';

/**
 * The domains every list allows: those of any list that lie within all.
 * @param {string[][]} lists
 * @returns {string[]}
 */
export function commonDomains(lists) {
	const all = [...new Set(lists.flat())];
	return all.filter(domain => lists.every(list => hostWithin(domain, list)));
}

/**
 * A domain as the rules need it: its ASCII (punycode) form.
 * @param {string} domain normalised (settings.readDomains)
 * @returns {string}
 * @throws {TypeError} when it is no host name
 */
function ruleDomain(domain) {
	return new URL(`http://${domain}/`).hostname;
}

/**
 * The session rules for the tasks' tabs: per fenced task, block its tabs'
 * documents and allow its domains at a higher priority; for tabs nobody
 * knows yet, the same with the domains all fenced tasks share.
 * @param {{domains: string[], tabs: Set<number>}[]} fences every running task's (domains empty: unfenced)
 * @param {Set<number>} known tabs known not to be newborn
 * @returns {object[]} declarativeNetRequest rules
 */
export function fenceRules(fences, known) {
	const rules = [];
	const fenced = fences.filter(fence => fence.domains.length > 0);
	if (fenced.length === 0)
		return rules;
	const add = (priority, type, condition) => rules.push({
		id: rules.length + 1, priority, action: { type }, condition: { resourceTypes: [...FRAME_TYPES], ...condition },
	});
	for (const fence of fenced) {
		const tabIds = [...fence.tabs];
		if (tabIds.length === 0)
			continue;
		add(1, 'block', { tabIds });
		add(2, 'allow', { tabIds, requestDomains: fence.domains.map(ruleDomain) });
	}
	const excludedTabIds = [...new Set([-1, ...known, ...fences.flatMap(fence => [...fence.tabs])])];
	add(1, 'block', { excludedTabIds });
	const common = commonDomains(fenced.map(fence => fence.domains));
	if (common.length > 0)
		add(2, 'allow', { excludedTabIds, requestDomains: common.map(ruleDomain) });
	return rules;
}

/**
 * One running task's part of the fence.
 * @typedef {object} TaskFence
 * @property {string[]} domains empty: the task is not fenced, its tabs are only kept track of
 * @property {Set<number>} tabs the tab it runs in and the open tabs it opened
 * @property {Map<number, string>} opened every tab it opened, with its URL
 * @property {{url: string, tab_id: number, frame_id: number}[]} blocked navigations the fence stopped, not reported yet
 */

/** The fence of all running tasks, and the tabs they own. */
export class Fence {
	/**
	 * @param {object} deps
	 * @param {{getSessionRules: Function, updateSessionRules: Function}} deps.rules chrome.declarativeNetRequest
	 * @param {{query: Function, update: Function, get: Function}} deps.tabs chrome.tabs
	 * @param {{get: Function}} deps.windows chrome.windows
	 * @param {(text: string) => void} [deps.log]
	 */
	constructor(deps) {
		this.deps = deps;
		/** @type {Map<string, TaskFence>} by task id */
		this.fences = new Map();
		/** Tabs known not to be newborn: the fence leaves them to their task's rules, or alone. */
		this.known = new Set();
		/** Newborn tabs kept fenced until a task's open action or their opener says whose they are. */
		this.unplaced = new Set();
		/** Tabs let out of the newborn fence, whose first navigation it may have blocked. */
		this.released = new Set();
		/** The first page the newborn fence blocked in an unplaced tab, loaded again if the tab is let out. */
		this.blockedAtBirth = new Map();
		/** Task actions that open a tab (manage_tabs open, navigate_to new_tab) in flight. */
		this.opening = 0;
		this.syncing = Promise.resolve();
		/** The rules the last update wrote (JSON), or null when unknown: the first update always writes. */
		this.written = null;
		/** Told of each tab that becomes a task's (onAdopt). */
		this.adopted = () => {};
		this.ready = this.deps.tabs.query({})
		    .then(tabs => tabs.forEach(tab => this.known.add(tab.id)))
		    .then(() => this.sync());
	}

	/** Whether some running task is fenced (the newborn rule is on). */
	get active() {
		return [...this.fences.values()].some(fence => fence.domains.length > 0);
	}

	/**
	 * Writes the rules for the fence as it stands, replacing the previous
	 * ones in one update, unless they are those it last wrote (an unfenced
	 * task's start and end change nothing); updates run one after another.
	 * @returns {Promise<void>} rejects when the browser refused the rules
	 */
	sync() {
		const write = async () => {
			const rules = fenceRules([...this.fences.values()], this.known);
			const text = JSON.stringify(rules);
			if (text === this.written)
				return;
			/* Until the update is through, what the browser holds is not known. */
			this.written = null;
			const old = await this.deps.rules.getSessionRules();
			await this.deps.rules.updateSessionRules({ removeRuleIds: old.map(rule => rule.id), addRules: rules });
			this.written = text;
		};
		this.syncing = this.syncing.then(write, write);
		return this.syncing;
	}

	/** Syncs from an event listener: a failure is logged, there is nobody to tell. */
	syncLater() {
		this.sync().catch(error => this.deps.log?.(`the fence's rules were not updated: ${error?.message ?? error}`));
	}

	/**
	 * Puts a task's tab inside the fence before the task acts.
	 * @param {string} taskId
	 * @param {number} tabId
	 * @param {string[]} domains empty: not fenced, only its tabs are kept track of
	 * @returns {Promise<void>} rejects (and fences nothing) when the browser refused the rules
	 */
	async enclose(taskId, tabId, domains) {
		await this.ready;
		this.fences.set(taskId, { domains, tabs: new Set([tabId]), opened: new Map(), blocked: [] });
		try {
			await this.sync();
		} catch (error) {
			this.fences.delete(taskId);
			await this.sync().catch(() => {});
			throw error;
		}
	}

	/**
	 * Takes a task's fence down; its tabs become the person's.
	 * @param {string} taskId
	 * @returns {Promise<{tab_id: number, url: string, open: boolean}[]>} the tabs it opened
	 */
	async end(taskId) {
		const fence = this.fences.get(taskId);
		if (fence === undefined)
			return [];
		this.fences.delete(taskId);
		fence.tabs.forEach(tab => this.known.add(tab));
		await this.sync().catch(error => this.deps.log?.(`task ${taskId}: its fence was not taken down: ${error?.message ?? error}`));
		return [...fence.opened].map(([tab, url]) => ({ tab_id: tab, url, open: fence.tabs.has(tab) }));
	}

	/**
	 * The task whose tab this is.
	 * @param {number} tabId
	 * @returns {string|undefined}
	 */
	ownerOf(tabId) {
		for (const [taskId, fence] of this.fences)
			if (fence.tabs.has(tabId))
				return taskId;
		return undefined;
	}

	/**
	 * Tells listener of each tab that becomes a task's from now on (the
	 * task manager holds it for the task).
	 * @param {(taskId: string, tabId: number) => void} listener
	 */
	onAdopt(listener) {
		this.adopted = listener;
	}

	/**
	 * Makes a tab the task's: same fence, listed in its result, and the
	 * onAdopt listener told.
	 * @param {string} taskId
	 * @param {number} tabId
	 * @param {string} url
	 */
	adopt(taskId, tabId, url) {
		const fence = this.fences.get(taskId);
		if (fence === undefined)
			return;
		/* A tab born blank learns its URL from its opener's navigation. */
		if (fence.opened.has(tabId) && fence.opened.get(tabId) === '')
			fence.opened.set(tabId, url);
		if (fence.tabs.has(tabId))
			return;
		fence.tabs.add(tabId);
		fence.opened.set(tabId, url);
		this.unplaced.delete(tabId);
		this.known.delete(tabId);
		this.syncLater();
		this.adopted(taskId, tabId);
	}

	/**
	 * Lets a newborn tab out of the newborn fence: it is nobody's task's.
	 * @param {number} tabId
	 */
	release(tabId) {
		this.unplaced.delete(tabId);
		this.known.add(tabId);
		const url = this.blockedAtBirth.get(tabId);
		this.blockedAtBirth.delete(tabId);
		if (url !== undefined)
			this.sync().then(() => this.deps.tabs.update(tabId, { url })).catch(() => {});
		else if (this.active) {
			this.released.add(tabId);
			this.syncLater();
		}
	}

	/**
	 * A tab was created (tabs.onCreated): a tab opened from a task's tab
	 * is the task's; one opened while a task's open action runs waits for
	 * its result; one in a popup window waits for its opener
	 * (webNavigation.onCreatedNavigationTarget); any other is the person's.
	 * @param {{id: number, openerTabId?: number, windowId: number, pendingUrl?: string, url?: string}} tab
	 * @returns {Promise<void>}
	 */
	async tabCreated(tab) {
		if (this.ownerOf(tab.id) !== undefined)
			return;
		const owner = tab.openerTabId !== undefined ? this.ownerOf(tab.openerTabId) : undefined;
		if (owner !== undefined) {
			this.adopt(owner, tab.id, tab.pendingUrl || tab.url || '');
			return;
		}
		if (!this.active) {
			this.known.add(tab.id);
			return;
		}
		this.unplaced.add(tab.id);
		if (this.opening > 0)
			return;
		const window = await this.deps.windows.get(tab.windowId).catch(() => null);
		if (window?.type !== 'popup' && this.unplaced.has(tab.id))
			this.release(tab.id);
	}

	/**
	 * A page opened a tab or window (webNavigation.onCreatedNavigationTarget).
	 * @param {{sourceTabId: number, tabId: number, url: string}} details
	 */
	navigationTarget(details) {
		const owner = this.ownerOf(details.sourceTabId);
		if (owner !== undefined)
			this.adopt(owner, details.tabId, details.url);
		else if (this.unplaced.has(details.tabId))
			this.release(details.tabId);
	}

	/**
	 * A task action that opens a tab starts: new tabs wait for its result.
	 * @param {string} taskId
	 * @returns {(tabId: number|undefined, url: string) => void} call with the tab it opened when it ends
	 */
	expectOpen(taskId) {
		this.opening++;
		return (tabId, url) => {
			this.opening--;
			if (tabId !== undefined && this.ownerOf(tabId) === undefined)
				this.adopt(taskId, tabId, url);
			if (this.opening === 0)
				[...this.unplaced].forEach(tab => this.release(tab));
		};
	}

	/**
	 * A navigation failed (webNavigation.onErrorOccurred): one the fence
	 * blocked in a task's tab is kept for the task to report; the first
	 * navigation of a tab just let out of the newborn fence is sent again.
	 * @param {{tabId: number, frameId: number, url: string, error: string}} details
	 */
	async navigationFailed(details) {
		if (details.error !== BLOCKED_ERROR)
			return;
		const owner = this.ownerOf(details.tabId);
		if (owner !== undefined) {
			this.fences.get(owner).blocked.push({ url: details.url, tab_id: details.tabId, frame_id: details.frameId });
			return;
		}
		if (details.frameId !== 0)
			return;
		if (this.unplaced.has(details.tabId)) {
			this.blockedAtBirth.set(details.tabId, details.url);
			return;
		}
		if (!this.released.delete(details.tabId))
			return;
		await this.syncing.catch(() => {});
		await this.deps.tabs.update(details.tabId, { url: details.url }).catch(() => {});
	}

	/**
	 * A tab was closed.
	 * @param {number} tabId
	 */
	tabRemoved(tabId) {
		this.known.delete(tabId);
		this.unplaced.delete(tabId);
		this.released.delete(tabId);
		this.blockedAtBirth.delete(tabId);
		const owner = this.ownerOf(tabId);
		if (owner !== undefined) {
			this.fences.get(owner).tabs.delete(tabId);
			this.syncLater();
		}
	}

	/**
	 * The navigations the fence stopped in a task's tabs since the last call.
	 * @param {string} taskId
	 * @returns {{url: string, tab_id: number, frame_id: number}[]}
	 */
	blocked(taskId) {
		const fence = this.fences.get(taskId);
		if (fence === undefined)
			return [];
		return fence.blocked.splice(0);
	}
}
