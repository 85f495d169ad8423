/*
 * The console relay, a content script in the extension's isolated world:
 * passes what page/console-capture.js (in the page's world) reports to the
 * service worker, which keeps a bounded buffer per tab (get_console_logs).
 *
 * The two talk through an element that is never in the document: the
 * relay makes it and, at document_start (before any page script runs),
 * shows it to the capture for one synchronous event. Afterwards entries
 * are events on that element only, which page scripts cannot reach: a
 * page can log what it likes through its console, but cannot forge an
 * entry's level, source or line, nor read the channel.
 */
(() => {
	if (globalThis.__browserBridgeConsoleRelay)
		return;
	globalThis.__browserBridgeConsoleRelay = true;
	const HANDSHAKE = '__browserBridgeConsoleChannel';
	const READY = '__browserBridgeConsoleReady';
	const ENTRY = '__browserBridgeConsole';
	const channel = document.createElement('browser-bridge-console');

	channel.addEventListener(ENTRY, event => {
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

	/*
	 * Shows the channel to the capture: attached (to the root element, or
	 * as the root while there is none) for one synchronous event, which
	 * the capture takes by cancelling it. Whichever content script runs
	 * second completes the handshake, before any page script runs.
	 */
	let taken = false;
	function showChannel() {
		if (taken)
			return;
		(document.documentElement ?? document).append(channel);
		taken = !channel.dispatchEvent(new CustomEvent(HANDSHAKE, { bubbles: true, cancelable: true }));
		channel.remove();
		if (taken)
			document.removeEventListener(READY, showChannel);
	}
	document.addEventListener(READY, showChannel);
	showChannel();
})();
