/**
 * Tab actions: manage_tabs (list, open, close, switch).
 * @module actions/tabs
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { activeTab, closeTab, focusTab, getTab, listTabs, openTab } from '../browser/tabs.js';
import { NavigationWatcher, pagePreparer, readyStateReader } from '../browser/navigation.js';
import { settleLoadedPage, stillNote } from '../browser/outcome.js';
import { checkUrl } from './navigation.js';
import { urlPolicy } from '../url-policy.js';
import { quote, truncate } from '../page-state/format.js';

/**
 * The tab list as text, one line per tab; the active tab is marked with *.
 * @param {Array<{id: number, title: string, url: string, active: boolean}>} tabs
 * @returns {string}
 */
export function formatTabs(tabs) {
	if (tabs.length === 0)
		return 'No tabs are open.';
	return tabs.map(t => `${t.id}${t.active ? '*' : ''} ${quote(truncate(t.title, 60))} ${t.url}`).join('\n');
}

/**
 * The result: a sentence, then the tabs.
 * @param {string} sentence
 * @param {object} extra structured fields
 */
async function tabsResult(sentence, extra = {}) {
	const tabs = await listTabs();
	return {
		content: [{ type: 'text', text: `${sentence}\nTabs (* = active):\n${formatTabs(tabs)}` }],
		structuredContent: { ...extra, tabs },
	};
}

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const tabActions = {
	manage_tabs: {
		scope: 'browser',
		async run(params, { signal, deadline, actor, services, refuseIfHeld, opened }) {
			switch (params.action) {
			case 'list':
				return tabsResult(`${(await listTabs()).length} tab(s) open.`);
			case 'open': {
				const url = params.url === undefined ? 'about:blank' : checkUrl(params.url, urlPolicy(services.welcome)).href;
				const watcher = new NavigationWatcher(null);
				const startedAt = Date.now();
				try {
					const tab = await openTab(url, services.networkLog, actor);
					watcher.bind(tab.id);
					opened?.(tab.id);
					let still = [];
					if (url !== 'about:blank') {
						const loaded = await watcher.waitFor('load', {
							signal, deadline: deadline - 200, readyState: readyStateReader(tab.id),
							prepare: pagePreparer(tab.id), what: url,
						});
						still = await settleLoadedPage(tab.id, {
							network: services.network, since: startedAt, documentId: loaded.documentId, signal, deadline: deadline - 200,
						});
					}
					const settle = still.length > 0 ? ` ${stillNote(still)}` : '';
					return tabsResult(`Opened tab ${tab.id} (${url}) and made it active.${settle}`,
					    { tab_id: tab.id, ...(still.length > 0 ? { still } : {}) });
				} finally {
					watcher.dispose();
				}
			}
			case 'close': {
				const tab = params.tab_id === undefined ? await activeTab() : await getTab(params.tab_id);
				/* A running task's tab is closed only by the person (its close button) or the task itself. */
				refuseIfHeld(tab.id);
				await closeTab(tab.id);
				services.refs.expireTab(tab.id, `its tab (${tab.id}) was closed`);
				return tabsResult(`Closed tab ${tab.id}.`, { tab_id: tab.id });
			}
			case 'switch': {
				if (params.tab_id === undefined)
					throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
					    'manage_tabs "switch" needs tab_id: call manage_tabs with action "list" to see the ids.');
				const tab = await getTab(params.tab_id);
				await focusTab(tab);
				return tabsResult(`Switched to tab ${tab.id}.`, { tab_id: tab.id });
			}
			default:
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
				    `manage_tabs action must be list, open, close or switch, not ${JSON.stringify(params.action)}.`);
			}
		},
	},
};
