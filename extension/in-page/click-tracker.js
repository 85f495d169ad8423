/*
 * In-page script: questions to the click-listener tracker
 * (page/click-listeners.js), which runs in the page's own world and knows
 * which elements the page gave click listeners, and what roles and states
 * custom elements set through ElementInternals. See text.js for how the files fit together.
 */
(parts => {
	'use strict';

	if (parts.clickTracker !== undefined)
		return;

	/* The questions the click-listener tracker (page/click-listeners.js) answers. */
	const CLICK_QUERY = '__browser_bridge_has_click__';
	const HOVER_QUERY = '__browser_bridge_has_hover__';
	/* The request for a whole document's list, and the two answers the tracker gives per element. */
	const LIST_QUERY = '__browser_bridge_list_listeners__';
	const LISTED_CLICK = '__browser_bridge_listed_click__';
	const LISTED_HOVER = '__browser_bridge_listed_hover__';
	/* The question about one element's ElementInternals, and the answer (the list gives it too). */
	const INTERNALS_QUERY = '__browser_bridge_internals__';
	const LISTED_INTERNALS = '__browser_bridge_listed_internals__';

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

	/** Whether a closed shadow root is above the element (where a listener outside cannot see it). */
	function insideClosedTree(element) {
		for (let root = element.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) {
			if (root.mode !== 'open')
				return true;
		}
		return false;
	}

	/**
	 * Asks about an element. The question is composed (the tracker's window
	 * listener sees the element in composedPath()) when every shadow root
	 * above the element is open; otherwise it stays in the element's own
	 * shadow root, where the tracker listens too.
	 */
	function askAbout(query, element) {
		return askTracker(query, element, !insideClosedTree(element));
	}

	/**
	 * Asks the tracker once for every element of the document, outside
	 * closed shadow trees, that has click-like or pointer-entry listeners,
	 * and for what custom elements' ElementInternals set: {click: Set,
	 * hover: Set, internals: Map(element -> semantics)}, or null when the
	 * tracker cannot list (one from before listing existed): then ask
	 * element by element. One question for the document instead of one per
	 * element: on a page of 3,000 elements, the state is read in about half
	 * the time.
	 */
	function listListeners() {
		const listed = { click: new Set(), hover: new Set(), internals: new Map() };
		const targetOf = event => event.composedPath()[0] ?? event.target;
		const collect = set => event => set.add(targetOf(event));
		const onClick = collect(listed.click);
		const onHover = collect(listed.hover);
		const onInternals = event => listed.internals.set(targetOf(event), event.detail);
		window.addEventListener(LISTED_CLICK, onClick, true);
		window.addEventListener(LISTED_HOVER, onHover, true);
		window.addEventListener(LISTED_INTERNALS, onInternals, true);
		try {
			return askTracker(LIST_QUERY, window, false) ? listed : null;
		} finally {
			window.removeEventListener(LISTED_CLICK, onClick, true);
			window.removeEventListener(LISTED_HOVER, onHover, true);
			window.removeEventListener(LISTED_INTERNALS, onInternals, true);
		}
	}

	/** The answer for an element: from the document's list when there is one and it covers the element, else asked. */
	function answerFor(query, kind, element, listed) {
		if (listed !== null && !insideClosedTree(element))
			return listed[kind].has(element);
		return askAbout(query, element);
	}

	/**
	 * Whether the page gave the element itself a click, mousedown, mouseup,
	 * pointerdown, pointerup or drop listener, or an onclick-like handler
	 * property. listed: listListeners()'s answer, or null to ask.
	 */
	function hasClickListener(element, listed = null) {
		return answerFor(CLICK_QUERY, 'click', element, listed);
	}

	/**
	 * Whether the page gave the element itself a mouseenter, mouseover,
	 * pointerenter or pointerover listener, or such a handler property:
	 * something (a menu, a tooltip) appears when the pointer enters it.
	 */
	function hasHoverListener(element, listed = null) {
		return answerFor(HOVER_QUERY, 'hover', element, listed);
	}

	/**
	 * The role and ARIA states a custom element set through its
	 * ElementInternals, which only the page's own world can read: {role,
	 * ariaLabel, ariaChecked, ariaSelected, ariaPressed, ariaExpanded,
	 * ariaDisabled, ariaValueNow, ariaValueText} with those that are set,
	 * or null (not a custom element, no internals, or no tracker).
	 * listed: listListeners()'s answer, or null to ask the tracker about
	 * this element alone (it answers on the element, which a listener on
	 * the element hears even inside a closed shadow tree).
	 */
	function internalsOf(element, listed = null) {
		if (!element.localName.includes('-'))
			return null;	/* only autonomous custom elements can attach internals */
		if (listed !== null && !insideClosedTree(element))
			return listed.internals.get(element) ?? null;
		let semantics = null;
		const take = event => {
			semantics = event.detail ?? null;
		};
		element.addEventListener(LISTED_INTERNALS, take);
		try {
			element.dispatchEvent(new CustomEvent(INTERNALS_QUERY, { bubbles: false, composed: !insideClosedTree(element) }));
		} catch {
			/* no answer */
		} finally {
			element.removeEventListener(LISTED_INTERNALS, take);
		}
		return semantics;
	}

	parts.clickTracker = { trackerRuns, listListeners, hasClickListener, hasHoverListener, internalsOf };
})(globalThis.__browserBridgePageParts ??= {});
