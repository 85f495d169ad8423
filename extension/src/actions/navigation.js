/**
 * Navigation actions: navigate_to and navigate_history.
 * @module actions/navigation
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { NavigationWatcher, pagePreparer, readyStateReader } from '../browser/navigation.js';
import { DebuggerUnavailable } from '../browser/debugger.js';
import { ActiveTabGone, getTab, loadInTab, moveInHistory, openTab } from '../browser/tabs.js';
import { settleLoadedPage, stillNote } from '../browser/outcome.js';
import { checkUrlAllowed, urlPolicy } from '../url-policy.js';

/** Leave this much of the host's timeout for the answer to travel. */
const ANSWER_MARGIN_MS = 200;

/**
 * Checks a URL for navigate_to and manage_tabs: absolute, not javascript:,
 * and a page the tools may open (url-policy.js).
 * @param {string} text
 * @param {import('../url-policy.js').UrlPolicy} policy
 * @returns {URL}
 * @throws {BridgeError} INVALID_ARGUMENT or URL_NOT_ALLOWED
 */
export function checkUrl(text, policy) {
	let url;
	try {
		url = new URL(text);
	} catch {
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
		    `"${text}" is not an absolute URL: include the scheme, as in https://example.com/.`);
	}
	if (url.protocol === 'javascript:')
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
		    'javascript: URLs run code instead of loading a page; navigate to an http(s) URL.');
	checkUrlAllowed(url.href, policy);
	return url;
}

/**
 * Words for an HTTP status worth mentioning.
 * @param {number|undefined} status
 * @returns {string}
 */
export function httpStatusNote(status) {
	if (status === undefined || (status >= 200 && status < 400))
		return '';
	if (status === 404)
		return ' The server answered 404 Not Found: check the URL.';
	if (status === 401 || status === 403)
		return ` The server answered ${status}: the page needs a login or is forbidden.`;
	if (status >= 500)
		return ` The server answered ${status} (a server error): retry later.`;
	return ` The server answered HTTP ${status}.`;
}

/**
 * The result after a navigation.
 * @param {number} tabId
 * @param {string} urlBefore
 * @param {string} verb what was done, for the text
 * @param {import('../dispatcher.js').Services} services
 * @param {{newTab?: boolean, waited?: string, still?: string[]}} extra still: what had not settled after the load (settleLoadedPage)
 */
async function navigationResult(tabId, urlBefore, verb, services, extra = {}) {
	let tab;
	try {
		tab = await getTab(tabId);
	} catch {
		throw new BridgeError(ErrorCode.TAB_NOT_FOUND, `Tab ${tabId} closed during the navigation.`);
	}
	const url = tab.url || tab.pendingUrl || '';
	/* Only HTTP has a status: a file: page reports -1, which means nothing. */
	const status = /^https?:/.test(url) ? services.network.statusFor(tabId, url) : undefined;
	const structured = {
		tab_id: tabId, url, title: tab.title ?? '', url_changed: url !== urlBefore,
	};
	if (status !== undefined)
		structured.status = status;
	if (extra.newTab)
		structured.new_tab = true;
	if (extra.waited)
		structured.waited_for = extra.waited;
	if (extra.still?.length > 0)
		structured.still = extra.still;
	const title = tab.title && tab.title !== url ? ` "${tab.title}"` : '';
	const settle = extra.still?.length > 0 ? ` ${stillNote(extra.still)}` : '';
	const text = `${verb} tab ${tabId}: ${url}${title}.${httpStatusNote(status)}${settle}`;
	return { content: [{ type: 'text', text }], structuredContent: structured };
}

/**
 * Goes one entry back (-1) or forward (1) in a tab's full history, through
 * the debugger.
 * @param {import('../browser/debugger.js').DebuggerPool} debuggers
 * @param {number} tabId
 * @param {number} step
 * @throws {BridgeError} NAVIGATION_FAILED when there is no such entry
 */
async function historyStep(debuggers, tabId, step) {
	const none = new BridgeError(ErrorCode.NAVIGATION_FAILED,
	    `Tab ${tabId} has no ${step < 0 ? 'previous' : 'next'} page in its history. Use navigate_to to open a URL instead.`);
	let history;
	try {
		history = await debuggers.send(tabId, 'Page.getNavigationHistory');
	} catch (error) {
		if (error instanceof DebuggerUnavailable)
			throw none;
		throw error;
	}
	const entry = history.entries[history.currentIndex + step];
	if (entry === undefined)
		throw none;
	await debuggers.send(tabId, 'Page.navigateToHistoryEntry', { entryId: entry.id });
}

/**
 * Starts loading a URL in the tab navigate_to is for.
 * @param {chrome.tabs.Tab} tab the tab the dispatcher resolved
 * @param {boolean} tabWasActive the call named no tab (ActionContext.tabWasActive)
 * @param {string} url
 * @returns {Promise<void>}
 * @throws {ActiveTabGone} when the call named no tab and the active one
 *   closed before its load began (the person closed it, or it was closing
 *   as the call came): the dispatcher runs the call again
 */
export async function startLoading(tab, tabWasActive, url) {
	try {
		await loadInTab(tab.id, url);
	} catch (error) {
		if (tabWasActive && /No tab with id/i.test(String(error?.message ?? error)))
			throw new ActiveTabGone(tab.id);
		throw error;
	}
}

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const navigationActions = {
	navigate_to: {
		stateable: false,
		actsElsewhere: params => params.new_tab === true,
		async run(params, { tab, tabWasActive, opened, signal, deadline, progress, actor, services }) {
			const url = checkUrl(params.url, urlPolicy(services.welcome));
			const waitUntil = params.wait_until ?? 'load';
			const timeoutMs = params.timeout_ms ?? 30000;
			const until = Math.min(deadline - ANSWER_MARGIN_MS, Date.now() + timeoutMs);
			const newTab = params.new_tab === true;
			const watcher = new NavigationWatcher(newTab ? null : tab.id);
			const startedAt = Date.now();
			try {
				const urlBefore = newTab ? '' : tab.url ?? '';
				let tabId;
				if (newTab) {
					tabId = (await openTab(url.href, services.networkLog, actor)).id;
					watcher.bind(tabId);
					opened?.(tabId);
				} else {
					tabId = tab.id;
					await startLoading(tab, tabWasActive === true, url.href);
				}
				progress(1, 3, `Loading ${url.href}`);
				if (waitUntil === 'none' || timeoutMs === 0)
					return navigationResult(tabId, urlBefore, 'Started loading in', services, { newTab, waited: 'none' });
				const loaded = await watcher.waitFor(waitUntil === 'domcontentloaded' ? 'domcontentloaded' : 'load', {
					signal, deadline: until, readyState: readyStateReader(tabId), prepare: pagePreparer(tabId), what: url.href,
				});
				progress(2, 3, 'Loaded');
				if (waitUntil === 'networkidle')
					await services.network.waitIdle(tabId, { signal, deadline: until });
				/* Who asked for DOMContentLoaded does not want to wait for the page's requests. */
				const still = await settleLoadedPage(tabId, {
					network: waitUntil === 'domcontentloaded' ? undefined : services.network,
					since: startedAt, documentId: loaded.documentId, signal, deadline: until,
				});
				progress(3, 3, 'Done');
				return navigationResult(tabId, urlBefore, 'Loaded in', services, { newTab, waited: waitUntil, still });
			} catch (error) {
				if (error instanceof BridgeError || signal.aborted)
					throw error;
				throw new BridgeError(ErrorCode.NAVIGATION_FAILED,
				    `Could not navigate to ${url.href}: ${error?.message ?? error}. Check the URL and retry.`);
			} finally {
				watcher.dispose();
			}
		},
	},

	navigate_history: {
		async run(params, { tab, signal, deadline, services }) {
			const watcher = new NavigationWatcher(tab.id);
			const urlBefore = tab.url ?? '';
			const startedAt = Date.now();
			try {
				try {
					await moveInHistory(tab.id, params.action);
				} catch (error) {
					const text = String(error?.message ?? error);
					if (!/Cannot find a next page in history/i.test(text))
						throw new BridgeError(ErrorCode.NAVIGATION_FAILED, `Could not go ${params.action} in tab ${tab.id}: ${text}.`);
					/*
					 * Chrome's back and forward skip entries added without a
					 * user gesture, such as our own navigate_to calls; the
					 * DevTools history has them all.
					 */
					await historyStep(services.debuggers, tab.id, params.action === 'back' ? -1 : 1);
				}
				const loaded = await watcher.waitFor('load', {
					signal, deadline: deadline - ANSWER_MARGIN_MS,
					readyState: readyStateReader(tab.id), prepare: pagePreparer(tab.id),
					what: `the ${params.action} navigation`,
				});
				const still = await settleLoadedPage(tab.id, {
					network: services.network, since: startedAt, documentId: loaded.documentId,
					signal, deadline: deadline - ANSWER_MARGIN_MS,
				});
				const verb = params.action === 'reload' ? 'Reloaded' :
				    params.action === 'back' ? 'Went back in' : 'Went forward in';
				return navigationResult(tab.id, urlBefore, verb, services, { still });
			} finally {
				watcher.dispose();
			}
		},
	},
};
