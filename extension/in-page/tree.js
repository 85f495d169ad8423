/*
 * In-page script: the composed tree, across open and closed shadow roots:
 * parents, containment, the focused element. See text.js for how the files fit together.
 */
(parts => {
	'use strict';

	if (parts.tree !== undefined)
		return;

	/** The composed parent: parent element, or the host of a shadow root. */
	function composedParent(node) {
		if (node.parentElement)
			return node.parentElement;
		const root = node.getRootNode();
		return root instanceof ShadowRoot ? root.host : null;
	}

	/**
	 * The parent in the flat tree, the one the page is laid out and
	 * painted by: a slotted node's slot, else its composed parent.
	 */
	function flatParent(node) {
		return node.assignedSlot ?? composedParent(node);
	}

	/*
	 * The elements that can host a shadow root (the DOM standard's
	 * attachShadow, which declarative shadow roots follow too): custom
	 * elements and these. Others are not asked, which saves a browser call
	 * per link, button, list item or image of a big page.
	 */
	const SHADOW_HOSTS = new Set([
		'article', 'aside', 'blockquote', 'body', 'div', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
		'header', 'main', 'nav', 'p', 'section', 'span',
	]);

	/** The shadow root of an element, open or closed, or null. */
	function shadowRootOf(element) {
		if (element.shadowRoot)
			return element.shadowRoot;
		if (!SHADOW_HOSTS.has(element.localName) && !element.localName.includes('-'))
			return null;
		try {
			if (globalThis.chrome?.dom?.openOrClosedShadowRoot)
				return chrome.dom.openOrClosedShadowRoot(element) ?? null;
		} catch {
			/* not a shadow host */
		}
		return null;
	}

	/** Whether node is element or inside it, across shadow boundaries. */
	function composedContains(element, node) {
		for (let n = node; n; n = n.parentNode ?? (n instanceof ShadowRoot ? n.host : null)) {
			if (n === element)
				return true;
		}
		return false;
	}

	/** The element that has focus, inside shadow roots too. */
	function deepActiveElement() {
		let active = document.activeElement;
		while (active && active.shadowRoot && active.shadowRoot.activeElement)
			active = active.shadowRoot.activeElement;
		return active;
	}

	parts.tree = { composedParent, flatParent, shadowRootOf, composedContains, deepActiveElement };
})(globalThis.__browserBridgePageParts ??= {});
