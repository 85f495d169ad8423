/**
 * Feeds a ResourceNotifier from Chrome's tab and navigation events.
 * @module browser/resource-watch
 */

/**
 * Whether a tab is the active tab of its window.
 * @param {number} tabId
 * @returns {Promise<boolean>}
 */
async function isActive(tabId) {
	try {
		return Boolean((await chrome.tabs.get(tabId)).active);
	} catch {
		return false;
	}
}

/**
 * Adds the listeners.
 * @param {import('../resource-events.js').ResourceNotifier} notifier
 */
export function watchResources(notifier) {
	chrome.tabs.onCreated.addListener(() => notifier.tabsChanged());
	chrome.tabs.onRemoved.addListener(() => notifier.tabsChanged());
	chrome.tabs.onActivated.addListener(() => {
		notifier.tabsChanged();
		notifier.pageChanged();
	});
	chrome.tabs.onUpdated.addListener((tabId, change) => {
		if (change.url !== undefined || change.title !== undefined)
			notifier.tabsChanged();
	});
	const mainFrame = details => {
		if (details.frameId !== 0)
			return;
		isActive(details.tabId).then(active => {
			if (active)
				notifier.pageChanged();
		});
	};
	chrome.webNavigation.onCommitted.addListener(mainFrame);
	chrome.webNavigation.onCompleted.addListener(mainFrame);
	chrome.webNavigation.onHistoryStateUpdated.addListener(mainFrame);
}
