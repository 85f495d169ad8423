/**
 * Runs the page agent (page/agent.js) in a tab's frames with
 * chrome.scripting, and turns scripting failures into protocol errors.
 * @module browser/frames
 */

import { BridgeError, ErrorCode } from '../errors.js';

const AGENT_FILE = 'page/agent.js';

/**
 * Calls a page agent method; runs in the page, so it must be self-contained.
 * @param {string} method
 * @param {unknown[]} args
 * @returns {unknown}
 */
function callAgent(method, args) {
	const agent = globalThis.__browserBridgeAgent;
	if (agent === undefined)
		return { noAgent: true };
	return agent[method](...args);
}

/**
 * Whether a scripting error means the document or frame is gone.
 * @param {string} text
 * @returns {boolean}
 */
export function isGoneError(text) {
	return /No (document|frame) with id|Frame with ID \d+ was removed|was removed|document .* (not|no longer)|Frame .* not found/i.test(text);
}

/**
 * Turns a chrome.scripting error into a BridgeError.
 * @param {unknown} error
 * @param {chrome.tabs.Tab|{id: number, url?: string}} tab
 * @returns {BridgeError}
 */
export function scriptingError(error, tab) {
	const text = error instanceof Error ? error.message : String(error);
	if (/No tab with id/i.test(text))
		return new BridgeError(ErrorCode.TAB_NOT_FOUND,
		    `Tab ${tab.id} does not exist (it may have been closed). Call manage_tabs with action "list" to see the open tabs.`);
	if (/Cannot access|cannot be scripted|extensions gallery|chrome:\/\/|Missing host permission/i.test(text))
		return new BridgeError(ErrorCode.NOT_INTERACTABLE,
		    `The browser does not let extensions read or control ${tab.url || 'this page'} (browser pages, the web store and other extensions are off limits). ` +
		    'Navigate the tab to a web page with navigate_to, or use another tab.');
	if (/Frame with ID 0 is showing error page|error page/i.test(text))
		return new BridgeError(ErrorCode.NAVIGATION_FAILED,
		    `Tab ${tab.id} shows an error page (${tab.url || 'the page did not load'}). Navigate it to a working URL with navigate_to.`);
	return new BridgeError(ErrorCode.INTERNAL, `Could not run the page agent in tab ${tab.id}: ${text}. Retry; if the page is still loading, wait first.`);
}

/**
 * Runs an agent method in frames of a tab, injecting the agent first.
 * @param {{id: number, url?: string}} tab
 * @param {{allFrames?: boolean, frameIds?: number[], documentIds?: string[]}} where
 * @param {string} method
 * @param {unknown[]} [args]
 * @returns {Promise<Array<{frameId: number, documentId: string, result: any}>>}
 */
export async function runAgent(tab, where, method, args = []) {
	const target = { tabId: tab.id, ...where };
	try {
		await chrome.scripting.executeScript({ target, files: [AGENT_FILE] });
		const results = await chrome.scripting.executeScript({
			target, func: callAgent, args: [method, args],
		});
		return results.map(r => ({ frameId: r.frameId, documentId: r.documentId, result: r.result }));
	} catch (error) {
		if (where.documentIds !== undefined && isGoneError(String(error?.message ?? error)))
			return [];
		throw scriptingError(error, tab);
	}
}

/**
 * Runs an agent method in one document; resolves to its result, or to
 * {gone: true} if the document no longer exists.
 * @param {{id: number, url?: string}} tab
 * @param {string} documentId
 * @param {string} method
 * @param {unknown[]} [args]
 * @returns {Promise<any>}
 */
export async function runInDocument(tab, documentId, method, args = []) {
	const results = await runAgent(tab, { documentIds: [documentId] }, method, args);
	if (results.length === 0)
		return { gone: true };
	const result = results[0].result;
	if (result === null || result === undefined)
		return { gone: true };
	return result;
}
