/**
 * Tabs: finding the tab an action is for, and describing tabs.
 * @module browser/tabs
 */

import { BridgeError, ErrorCode } from '../errors.js';

/**
 * The tab with this id.
 * @param {number} tabId
 * @returns {Promise<chrome.tabs.Tab>}
 * @throws {BridgeError} TAB_NOT_FOUND
 */
export async function getTab(tabId) {
	try {
		return await chrome.tabs.get(tabId);
	} catch {
		throw new BridgeError(ErrorCode.TAB_NOT_FOUND,
		    `Tab ${tabId} does not exist (it may have been closed). Call manage_tabs with action "list" to see the open tabs.`);
	}
}

/**
 * The active tab closed between a call naming no tab and the action's
 * first step: nothing was done, so the dispatcher runs the call again for
 * the tab active now (once; a second time it stands as TAB_NOT_FOUND).
 */
export class ActiveTabGone extends BridgeError {
	/** @param {number} tabId the tab that closed */
	constructor(tabId) {
		super(ErrorCode.TAB_NOT_FOUND, `The active tab (${tabId}) closed as the call came. ` +
		    'Call manage_tabs with action "list" to see the open tabs, then pass tab_id.');
		this.name = 'ActiveTabGone';
	}
}

/**
 * The active tab of the focused window (or of any window).
 * @returns {Promise<chrome.tabs.Tab>}
 * @throws {BridgeError} TAB_NOT_FOUND when there is none
 */
export async function activeTab() {
	const queries = [{ active: true, lastFocusedWindow: true }, { active: true, currentWindow: true }, { active: true }];
	for (const query of queries) {
		let tabs = [];
		try {
			tabs = await chrome.tabs.query(query);
		} catch {
			continue;
		}
		const normal = tabs.filter(t => t.id !== undefined && t.id !== chrome.tabs.TAB_ID_NONE);
		if (normal.length > 0)
			return normal[0];
	}
	throw new BridgeError(ErrorCode.TAB_NOT_FOUND,
	    'There is no active tab (no browser window is open). Open one with manage_tabs action "open" or navigate_to with new_tab: true.');
}

/**
 * Opens a tab at a URL and makes it active, for an actor whose tool opened
 * it: its requests are recorded from its first load (network-log.js).
 * @param {string} url
 * @param {import('./network-log.js').NetworkLog|undefined} networkLog
 * @param {import('./network-log.js').Actor|undefined} actor
 * @returns {Promise<chrome.tabs.Tab>}
 */
export async function openTab(url, networkLog, actor) {
	const opening = networkLog?.opening(actor);
	try {
		const tab = await chrome.tabs.create({ url, active: true });
		opening?.opened(tab.id);
		return tab;
	} finally {
		opening?.done();
	}
}

/**
 * Starts loading a URL in a tab (navigate_to); the load is watched apart
 * (browser/navigation.js).
 * @param {number} tabId
 * @param {string} url
 * @returns {Promise<void>}
 */
export async function loadInTab(tabId, url) {
	await chrome.tabs.update(tabId, { url });
}

/**
 * Goes back or forward in a tab's history, or reloads it (navigate_history).
 * @param {number} tabId
 * @param {'back'|'forward'|'reload'} action
 * @returns {Promise<void>}
 * @throws {Error} Chrome's, e.g. "Cannot find a next page in history"
 */
export async function moveInHistory(tabId, action) {
	if (action === 'back')
		await chrome.tabs.goBack(tabId);
	else if (action === 'forward')
		await chrome.tabs.goForward(tabId);
	else
		await chrome.tabs.reload(tabId);
}

/**
 * Closes a tab; closing the last one opens a blank tab first, so the
 * browser stays open.
 * @param {number} tabId
 * @returns {Promise<void>}
 */
export async function closeTab(tabId) {
	const all = await chrome.tabs.query({});
	if (all.length <= 1)
		await chrome.tabs.create({ url: 'about:blank', active: true });
	await chrome.tabs.remove(tabId);
}

/**
 * Makes a tab the active one and focuses its window (where a window can
 * take focus: headless ones cannot).
 * @param {chrome.tabs.Tab} tab
 * @returns {Promise<void>}
 */
export async function focusTab(tab) {
	await chrome.tabs.update(tab.id, { active: true });
	try {
		await chrome.windows.update(tab.windowId, { focused: true });
	} catch {
		/* headless or a window that cannot take focus */
	}
}

/**
 * The tab an action acts on: tab_id if given, else the active tab.
 * @param {{tab_id?: number}} params
 * @returns {Promise<chrome.tabs.Tab>}
 */
export async function resolveTab(params) {
	if (params.tab_id !== undefined && params.tab_id !== null)
		return getTab(params.tab_id);
	return activeTab();
}

/**
 * A tab for results: id, title, url, active, window.
 * @param {chrome.tabs.Tab} tab
 * @returns {{id: number, title: string, url: string, active: boolean, window_id: number}}
 */
export function describeTab(tab) {
	return {
		id: tab.id,
		title: tab.title ?? '',
		url: tab.url || tab.pendingUrl || '',
		active: Boolean(tab.active),
		window_id: tab.windowId,
	};
}

/**
 * Every open tab, in window and index order.
 * @returns {Promise<ReturnType<typeof describeTab>[]>}
 */
export async function listTabs() {
	const tabs = await chrome.tabs.query({});
	tabs.sort((a, b) => a.windowId - b.windowId || a.index - b.index);
	return tabs.filter(t => t.id !== undefined && t.id !== chrome.tabs.TAB_ID_NONE).map(describeTab);
}
