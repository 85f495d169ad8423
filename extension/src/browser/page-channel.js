/**
 * The page channel: the one way the service worker runs code in a tab's
 * pages (chrome.scripting). It injects the in-page script, and the
 * libraries a call needs, once per document; calls the in-page script's
 * methods or a self-contained function; bounds every call with a timeout;
 * and turns scripting failures into protocol errors. A document that went
 * away answers nothing; a frame whose document changed meanwhile is asked
 * once more; a ref whose element or document is gone is STALE_REF.
 * @module browser/page-channel
 */

import { BridgeError, ErrorCode } from '../errors.js';

/**
 * Code the channel injects: its files, in the order they run, and the
 * global they define once they have all run (how the channel tells a
 * document that has them from one that needs them).
 * @typedef {{files: string[], global: string}} PageScript
 */

/**
 * The in-page script (the files of in-page/, each building on those before
 * it; install.js, last, defines the API): lists elements and acts on them.
 */
export const IN_PAGE_SCRIPT = Object.freeze({
	files: Object.freeze([
		'text', 'tree', 'refs', 'click-tracker', 'visibility', 'names', 'labels', 'frames',
		'mutations', 'pointer', 'typing', 'scrolling', 'snapshot', 'install',
	].map(name => `in-page/${name}.js`)),
	global: '__browserBridgePage',
});
/** Mozilla's Readability, for get_page_content's main content. */
export const READABILITY = Object.freeze({ files: Object.freeze(['vendor/Readability.js']), global: 'Readability' });
/** Turndown, for get_page_content's Markdown. */
export const TURNDOWN = Object.freeze({ files: Object.freeze(['vendor/turndown.js']), global: 'TurndownService' });

/** How long a page has to answer one call, unless the caller says more. */
export const PAGE_ANSWER_MS = 10000;

/**
 * Page function: calls a method of the in-page script and answers its
 * result as JSON text ({json}; undefined stays undefined), or answers
 * {notInstalled: true} when the document does not have it yet. Text,
 * because chrome.scripting carries a result of many small objects (a big
 * page's state) far more slowly than one string: 1,200 elements took 22 ms
 * longer as objects.
 * @param {string} global
 * @param {string} method
 * @param {unknown[]} args
 * @returns {unknown}
 */
function callMethod(global, method, args) {
	const api = globalThis[global];
	if (api === undefined)
		return { notInstalled: true };
	const encode = value => (value === undefined ? undefined : { json: JSON.stringify(value) });
	const result = api[method](...args);
	return result instanceof Promise ? result.then(encode) : encode(result);
}

/**
 * The answers of an in-page method call, with each result read back from
 * its JSON text.
 * @param {chrome.scripting.InjectionResult[]} results
 * @returns {Array<{frameId: number, documentId: string, result: any}>}
 */
function decoded(results) {
	return answers(results).map(r => ({ ...r, result: typeof r.result?.json === 'string' ? JSON.parse(r.result.json) : r.result }));
}

/**
 * Page function: the globals in the list this document lacks.
 * @param {string[]} globals
 * @returns {string[]}
 */
function missingGlobals(globals) {
	return globals.filter(name => globalThis[name] === undefined);
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
	return new BridgeError(ErrorCode.INTERNAL, `Could not run the page script in tab ${tab.id}: ${text}. Retry; if the page is still loading, wait first.`);
}

/**
 * Settles like promise, or fails with TIMEOUT after ms.
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {{id: number}} tab
 * @returns {Promise<T>}
 */
function withTimeout(promise, ms, tab) {
	let timer;
	const expired = new Promise((resolve, reject) => {
		timer = setTimeout(() => reject(new BridgeError(ErrorCode.TIMEOUT,
		    `The page in tab ${tab.id} did not answer within ${ms} ms: it may be busy running a script, or stopped. ` +
		    'Retry; if it keeps happening, reload the page with navigate_to.')), ms);
	});
	return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/**
 * One chrome.scripting.executeScript call, bounded by a timeout. A gone
 * document answers nothing ([]); a frame target whose document changed
 * is tried once more.
 * @param {{id: number, url?: string}} tab
 * @param {{allFrames?: boolean, frameIds?: number[], documentIds?: string[]}} where
 * @param {{func?: Function, args?: unknown[], files?: string[]}} injection
 * @param {number} timeoutMs
 * @returns {Promise<chrome.scripting.InjectionResult[]>}
 */
async function execute(tab, where, injection, timeoutMs) {
	const target = { tabId: tab.id, ...where };
	for (let attempt = 1; ; attempt++) {
		try {
			return await withTimeout(chrome.scripting.executeScript({ target, ...injection }), timeoutMs, tab);
		} catch (error) {
			if (error instanceof BridgeError)
				throw error;
			if (!isGoneError(String(error?.message ?? error)))
				throw scriptingError(error, tab);
			if (where.documentIds !== undefined || attempt === 2)
				return [];
		}
	}
}

/**
 * The answers of frames, as the channel's callers see them.
 * @param {chrome.scripting.InjectionResult[]} results
 * @returns {Array<{frameId: number, documentId: string, result: any}>}
 */
function answers(results) {
	return results.map(r => ({ frameId: r.frameId, documentId: r.documentId, result: r.result }));
}

/**
 * The target that names again the frames of some answers: by document
 * when the caller named documents, else by frame (so that a frame whose
 * document changed meanwhile is reached in its new document).
 * @param {{documentIds?: string[]}} where
 * @param {chrome.scripting.InjectionResult[]} results
 * @returns {{documentIds: string[]}|{frameIds: number[]}}
 */
function sameFrames(where, results) {
	return where.documentIds !== undefined ?
	    { documentIds: results.map(r => r.documentId) } : { frameIds: results.map(r => r.frameId) };
}

/**
 * Injects into the documents at `where` the scripts they lack, each
 * document once.
 * @param {{id: number, url?: string}} tab
 * @param {object} where
 * @param {PageScript[]} scripts
 * @param {number} timeoutMs
 */
async function install(tab, where, scripts, timeoutMs) {
	if (scripts.length === 0)
		return;
	const probes = await execute(tab, where, { func: missingGlobals, args: [scripts.map(s => s.global)] }, timeoutMs);
	/* Frames that lack the same scripts get them in one call. */
	const framesLacking = new Map();
	for (const probe of probes) {
		if (!Array.isArray(probe.result) || probe.result.length === 0)
			continue;
		const key = probe.result.join(' ');
		if (!framesLacking.has(key))
			framesLacking.set(key, []);
		framesLacking.get(key).push(probe);
	}
	for (const [key, lacking] of framesLacking) {
		const names = key.split(' ');
		const files = scripts.filter(s => names.includes(s.global)).flatMap(s => s.files);
		await execute(tab, sameFrames(where, lacking), { files }, timeoutMs);
	}
}

/**
 * Calls an in-page script method in frames of a tab, injecting the
 * script into the documents that do not have it yet.
 * @param {{id: number, url?: string}} tab
 * @param {{allFrames?: boolean, frameIds?: number[], documentIds?: string[]}} where
 * @param {string} method
 * @param {unknown[]} [args]
 * @param {{timeoutMs?: number}} [options]
 * @returns {Promise<Array<{frameId: number, documentId: string, result: any}>>} one per frame that answered
 */
export async function callInPage(tab, where, method, args = [], { timeoutMs = PAGE_ANSWER_MS } = {}) {
	const call = { func: callMethod, args: [IN_PAGE_SCRIPT.global, method, args] };
	const first = await execute(tab, where, call, timeoutMs);
	const lacking = first.filter(r => r.result?.notInstalled === true);
	if (lacking.length === 0)
		return decoded(first);
	const again = sameFrames(where, lacking);
	await execute(tab, again, { files: IN_PAGE_SCRIPT.files }, timeoutMs);
	const second = new Map((await execute(tab, again, call, timeoutMs)).map(r => [r.frameId, r]));
	return decoded(first.map(r => (r.result?.notInstalled === true ? second.get(r.frameId) : r)).filter(r => r !== undefined));
}

/**
 * Injects the in-page script into every frame of a tab's page without
 * asking first (its files install once per document, so a document that
 * has it is not changed), as soon as the frame takes it rather than when
 * its document is idle (the files only define functions). Navigation
 * waits call it once the new document has committed, so that the script
 * is there, injected while the page loaded, for the first call after the
 * navigation. Never fails: a frame it did not reach
 * gets the script, or the error, on its first call.
 * @param {{id: number}} tab
 * @param {number} timeoutMs
 * @returns {Promise<void>}
 */
export async function prepareFrames(tab, timeoutMs) {
	try {
		await execute(tab, { allFrames: true }, { files: IN_PAGE_SCRIPT.files, injectImmediately: true }, timeoutMs);
	} catch {
		/* a page no script may run in, or one still navigating */
	}
}

/**
 * Runs a self-contained function in frames of a tab, after injecting the
 * scripts it needs into the documents that lack them.
 * @param {{id: number, url?: string}} tab
 * @param {{allFrames?: boolean, frameIds?: number[], documentIds?: string[]}} where
 * @param {Function} func runs in the page: it sees none of this module
 * @param {unknown[]} [args]
 * @param {{needs?: PageScript[], timeoutMs?: number}} [options] needs: default the in-page script
 * @returns {Promise<Array<{frameId: number, documentId: string, result: any}>>} one per frame that answered
 */
export async function runInPage(tab, where, func, args = [], { needs = [IN_PAGE_SCRIPT], timeoutMs = PAGE_ANSWER_MS } = {}) {
	await install(tab, where, needs, timeoutMs);
	return answers(await execute(tab, where, { func, args }, timeoutMs));
}

/**
 * Calls an in-page script method in one document; resolves to its result,
 * or to {gone: true} if the document no longer exists.
 * @param {{id: number, url?: string}} tab
 * @param {string} documentId
 * @param {string} method
 * @param {unknown[]} [args]
 * @returns {Promise<any>}
 */
export async function callInDocument(tab, documentId, method, args = []) {
	const [answer] = await callInPage(tab, { documentIds: [documentId] }, method, args);
	const result = answer?.result;
	return result === null || result === undefined ? { gone: true } : result;
}

/**
 * The answer about a ref's element, or STALE_REF (and the ref expired)
 * when its document or the element is gone.
 * @param {import('../dispatcher.js').ActionContext} context
 * @param {any} result the page's answer, {gone: true} or {stale: true}
 * @returns {any}
 */
function elementAnswer({ element, services }, result) {
	if (!result.gone && !result.stale)
		return result;
	const reason = result.gone ? 'the page changed (it navigated or the frame reloaded) since that state was read' :
	    'it was removed from the page';
	services.refs.expire(element.ref, reason);
	throw new BridgeError(ErrorCode.STALE_REF,
	    `Element ${element.ref} is no longer on the page: ${reason}. Call get_browser_state to get fresh refs.`);
}

/**
 * Calls an in-page script method on the element a ref names (its localId
 * comes first); a gone element or document makes the ref stale.
 * @param {import('../dispatcher.js').ActionContext} context
 * @param {string} method
 * @param {unknown[]} [args] after the element's localId
 * @returns {Promise<any>}
 */
export async function callOnElement(context, method, args = []) {
	const { tab, element } = context;
	return elementAnswer(context, await callInDocument(tab, element.documentId, method, [element.localId, ...args]));
}

/**
 * Runs a self-contained function in the document of the element a ref
 * names. The function gets the element's localId first, looks the element
 * up with globalThis.__browserBridgePage.element(localId) and answers
 * {stale: true} when it is gone; a gone document makes the ref stale too.
 * @param {import('../dispatcher.js').ActionContext} context
 * @param {Function} func (localId, ...args) => JSON
 * @param {unknown[]} [args]
 * @param {{needs?: PageScript[], timeoutMs?: number}} [options] as runInPage
 * @returns {Promise<any>}
 */
export async function runOnElement(context, func, args = [], options = {}) {
	const { tab, element } = context;
	const [answer] = await runInPage(tab, { documentIds: [element.documentId] }, func, [element.localId, ...args], options);
	return elementAnswer(context, answer?.result ?? { gone: true });
}
