/**
 * What recording and replay read of a tab: its whole-page state (every
 * element, not only those near the viewport, so a locator's nth does not
 * depend on the scroll position), its URL, and the tab a call acts in.
 * @module recipes/page
 */

import { getTab, resolveTab } from '../browser/tabs.js';
import { captureState } from '../page-state/capture.js';

/**
 * The tab reader over the browser.
 * @param {import('../page-state/refs.js').RefTable} refs
 * @returns {{capture: (tabId: number) => Promise<{url: string, elements: object[]}>,
 *   tabUrl: (tabId: number) => Promise<string>, tabOf: (params: object) => Promise<number|undefined>}}
 */
export function tabReader(refs) {
	return {
		async capture(tabId) {
			const state = await captureState(await getTab(tabId), refs, { fullPage: true });
			return { url: state.tab.url, elements: state.elements };
		},
		async tabUrl(tabId) {
			const tab = await getTab(tabId);
			return tab.url || tab.pendingUrl || '';
		},
		async tabOf(params) {
			if (params.new_tab === true)
				return undefined;	/* the tab it opens is not known yet */
			const ref = params.ref ?? params.from_ref ?? (Array.isArray(params.fields) ? params.fields[0]?.ref : undefined);
			if (typeof ref === 'string') {
				const found = refs.resolve(ref);
				return found.status === 'ok' ? found.entry.tabId : undefined;
			}
			return Number.isInteger(params.tab_id) ? params.tab_id : (await resolveTab(params)).id;
		},
	};
}
