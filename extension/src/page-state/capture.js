/**
 * Captures a tab's page state: runs the page agent's snapshot in every
 * frame, then builds the state (builder.js) and its text and structured
 * forms (format.js).
 * @module page-state/capture
 */

import { callInPage } from '../browser/page-channel.js';
import { listTabs } from '../browser/tabs.js';
import { buildState } from './builder.js';
import { formatState, structuredState } from './format.js';

/**
 * A report for pages the agent cannot run in (about:blank and the like).
 * @param {chrome.tabs.Tab} tab
 * @returns {import('./builder.js').FrameReport}
 */
function emptyReport(tab) {
	return {
		url: tab.url || tab.pendingUrl || 'about:blank', title: tab.title ?? '',
		viewport: { width: tab.width ?? 0, height: tab.height ?? 0 },
		scroll: { x: 0, y: 0, width: tab.width ?? 0, height: tab.height ?? 0 },
		items: [],
	};
}

/**
 * Captures the state of a tab.
 * @param {chrome.tabs.Tab} tab
 * @param {import('./refs.js').RefTable} refs
 * @param {{fullPage?: boolean, text?: boolean}} [options] text: read the page's
 *   visible text in the same pass (pageText: the text, or null when the page
 *   gave none and get_page_content must read it)
 * @returns {Promise<ReturnType<typeof buildState> & {pageText?: string|null}>}
 */
export async function captureState(tab, refs, { fullPage = false, text = false } = {}) {
	const frames = new Map();
	const url = tab.url || tab.pendingUrl || '';
	const blank = url === '' || /^about:(blank|srcdoc)/.test(url);
	/*
	 * The pages are asked for their walk first, so that the browser sends
	 * it on before it answers the other two; the tab list and the frame
	 * tree are read while the pages walk their DOM.
	 */
	const walked = blank ? null : callInPage(tab, { allFrames: true }, 'snapshot', text ? [{ text: true }] : []);
	const listing = listTabs().catch(() => []);
	if (walked === null) {
		frames.set(0, { documentId: `blank-${tab.id}`, report: emptyReport(tab) });
	} else {
		const frameTree = Promise.resolve(chrome.webNavigation.getAllFrames({ tabId: tab.id }))
		    .then(tree => tree ?? [], () => []);	/* without it only the top frame can be placed */
		const results = await walked;
		const tree = await frameTree;
		const parents = new Map(tree.map(f => [f.frameId, f.parentFrameId]));
		for (const r of results) {
			if (r.result && Array.isArray(r.result.items))
				frames.set(r.frameId, { documentId: r.documentId, parentFrameId: parents.get(r.frameId), report: r.result });
		}
		if (!frames.has(0))
			frames.set(0, { documentId: `blank-${tab.id}`, report: emptyReport(tab) });
		const live = new Set([...frames.values()].map(f => f.documentId));
		for (const f of tree)
			if (f.documentId)
				live.add(f.documentId);
		refs.expireDocumentsExcept(tab.id, live, 'the page changed (it navigated or the frame reloaded) since that state was read');
	}
	const state = buildState({ tab, frames, refs, fullPage, tabs: await listing });
	if (text)
		state.pageText = typeof frames.get(0).report.text === 'string' ? frames.get(0).report.text : null;
	return state;
}

/**
 * A tool result for a state: the text for the model and structuredContent.
 * @param {ReturnType<typeof buildState>} state
 * @returns {{content: Array<{type: 'text', text: string}>, structuredContent: object}}
 */
export function stateResult(state) {
	return {
		content: [{ type: 'text', text: formatState(state) }],
		structuredContent: structuredState(state),
	};
}
