/*
 * In-page script: questions to the click-listener tracker
 * (page/click-listeners.js), which runs in the page's own world and knows
 * which elements the page gave click listeners. See text.js for how the files fit together.
 */
(parts => {
	'use strict';

	if (parts.clickTracker !== undefined)
		return;

	/* The question the click-listener tracker (page/click-listeners.js) answers. */
	const CLICK_QUERY_EVENT = '__browser_bridge_has_click__';

	/**
	 * Asks the click-listener tracker, which runs in the page's own world,
	 * about a target: true when it cancels the question.
	 */
	function askTracker(target, composed) {
		try {
			return !target.dispatchEvent(new CustomEvent(CLICK_QUERY_EVENT,
			    { bubbles: false, cancelable: true, composed }));
		} catch {
			return false;
		}
	}

	/** Whether the click-listener tracker runs in this document. */
	function trackerRuns() {
		return askTracker(window, false);
	}

	/**
	 * Whether the page gave the element itself a click, mousedown, mouseup,
	 * pointerdown or pointerup listener, or an onclick-like handler property.
	 * The question is composed (the tracker's window listener sees the
	 * element in composedPath()) when every shadow root above the element is
	 * open; otherwise it stays in the element's own shadow root, where the
	 * tracker listens too.
	 */
	function hasClickListener(element) {
		let composed = true;
		for (let root = element.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) {
			if (root.mode !== 'open') {
				composed = false;
				break;
			}
		}
		return askTracker(element, composed);
	}

	parts.clickTracker = { trackerRuns, hasClickListener };
})(globalThis.__browserBridgePageParts ??= {});
