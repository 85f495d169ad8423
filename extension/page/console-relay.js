/*
 * The console relay, a content script in the extension's isolated world:
 * passes what page/console-capture.js (in the page's world) reports to the
 * service worker, which keeps a bounded buffer per tab (get_console_logs).
 */
(() => {
	if (globalThis.__browserBridgeConsoleRelay)
		return;
	globalThis.__browserBridgeConsoleRelay = true;
	document.addEventListener('__browserBridgeConsole', event => {
		if (typeof event.detail !== 'string')
			return;
		let entry;
		try {
			entry = JSON.parse(event.detail);
		} catch {
			return;
		}
		chrome.runtime.sendMessage({ type: 'console', entry }).catch(() => {});
	});
})();
