/**
 * Page state actions: get_browser_state, get_dom_extra_elements, and the
 * browser:// resources.
 * @module actions/state
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { activeTab, listTabs } from '../browser/tabs.js';
import { captureState, stateResult } from '../page-state/capture.js';
import { extraElements } from '../page-state/builder.js';
import { formatExtra, formatState, structuredState } from '../page-state/format.js';

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const stateActions = {
	get_browser_state: {
		async run(params, { tab, services, pageText }) {
			const state = await captureState(tab, services.refs, { fullPage: params.full_page === true, text: pageText });
			return pageText ? { ...stateResult(state), pageText: state.pageText } : stateResult(state);
		},
	},

	get_dom_extra_elements: {
		async run(params, { tab, services }) {
			const state = await captureState(tab, services.refs, { fullPage: false });
			const page = extraElements(state.all, {
				page: params.page ?? 1,
				page_size: params.page_size ?? 100,
				type: params.type ?? 'all',
			});
			return {
				content: [{ type: 'text', text: formatExtra(page, state) }],
				structuredContent: {
					tab: state.tab,
					page: page.page, pages: page.pages, total: page.total,
					page_size: page.page_size, type: page.type,
					elements: page.elements.map(e => {
						const copy = { ...e };
						delete copy.depth;
						return copy;
					}),
				},
			};
		},
	},

	read_resource: {
		scope: 'browser',
		async run(params, { services }) {
			const uri = params.uri;
			if (uri === 'browser://tabs') {
				const tabs = await listTabs();
				return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(tabs) }] };
			}
			if (uri === 'browser://current/state' || uri === 'browser://dom/state') {
				const tab = await activeTab();
				const state = await captureState(tab, services.refs, { fullPage: uri === 'browser://dom/state' });
				if (uri === 'browser://current/state')
					return { contents: [{ uri, mimeType: 'text/plain', text: formatState(state) }] };
				return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(structuredState(state)) }] };
			}
			throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
			    `The extension has no resource ${JSON.stringify(uri)}; it serves browser://tabs, browser://current/state and browser://dom/state.`);
		},
	},
};
