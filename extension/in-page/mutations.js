/*
 * In-page script: counting DOM mutations during an action (did it change
 * the page?), in the document and in every shadow root in it. See text.js
 * for how the files fit together.
 */
(parts => {
	'use strict';

	if (parts.mutations !== undefined)
		return;

	const { shadowRootOf } = parts.tree;

	/** The last token watchStart gave out. */
	let watchers = 0;
	/** token -> {observer, state: {count}} */
	const observers = new Map();

	/** Starts counting DOM mutations; returns a token for watchStop. */
	function watchStart() {
		const token = ++watchers;
		const state = { count: 0 };
		const observer = new MutationObserver(records => {
			state.count += records.length;
		});
		const options = { subtree: true, childList: true, attributes: true, characterData: true };
		observer.observe(document, options);
		const walk = root => {
			for (const element of root.querySelectorAll('*')) {
				const shadow = shadowRootOf(element);
				if (shadow !== null) {
					observer.observe(shadow, options);
					walk(shadow);
				}
			}
		};
		walk(document);
		observers.set(token, { observer, state });
		return token;
	}

	/** Stops a watch; returns the mutations seen, or -1 for an unknown token. */
	function watchStop(token) {
		const entry = observers.get(token);
		if (entry === undefined)
			return -1;
		entry.state.count += entry.observer.takeRecords().length;
		entry.observer.disconnect();
		observers.delete(token);
		return entry.state.count;
	}

	parts.mutations = { watchStart, watchStop };
})(globalThis.__browserBridgePageParts ??= {});
