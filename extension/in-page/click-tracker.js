/*
 * In-page script: questions to the click-listener tracker
 * (page/click-listeners.js), which runs in the page's own world and knows
 * which elements the page gave click listeners. See text.js for how the files fit together.
 */
(parts => {
	'use strict';

	if (parts.clickTracker !== undefined)
		return;

	/* The questions the click-listener tracker (page/click-listeners.js) answers. */
	const CLICK_QUERY = '__browser_bridge_has_click__';
	const HOVER_QUERY = '__browser_bridge_has_hover__';

	/**
	 * Asks the click-listener tracker, which runs in the page's own world,
	 * a question about a target: true when it cancels the question.
	 */
	function askTracker(query, target, composed) {
		try {
			return !target.dispatchEvent(new CustomEvent(query,
			    { bubbles: false, cancelable: true, composed }));
		} catch {
			return false;
		}
	}

	/** Whether the click-listener tracker runs in this document. */
	function trackerRuns() {
		return askTracker(CLICK_QUERY, window, false);
	}

	/**
	 * Asks about an element. The question is composed (the tracker's window
	 * listener sees the element in composedPath()) when every shadow root
	 * above the element is open; otherwise it stays in the element's own
	 * shadow root, where the tracker listens too.
	 */
	function askAbout(query, element) {
		let composed = true;
		for (let root = element.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) {
			if (root.mode !== 'open') {
				composed = false;
				break;
			}
		}
		return askTracker(query, element, composed);
	}

	/**
	 * Whether the page gave the element itself a click, mousedown, mouseup,
	 * pointerdown, pointerup or drop listener, or an onclick-like handler
	 * property.
	 */
	function hasClickListener(element) {
		return askAbout(CLICK_QUERY, element);
	}

	/**
	 * Whether the page gave the element itself a mouseenter, mouseover,
	 * pointerenter or pointerover listener, or such a handler property:
	 * something (a menu, a tooltip) appears when the pointer enters it.
	 */
	function hasHoverListener(element) {
		return askAbout(HOVER_QUERY, element);
	}

	parts.clickTracker = { trackerRuns, hasClickListener, hasHoverListener };
})(globalThis.__browserBridgePageParts ??= {});
