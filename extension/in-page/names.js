/*
 * In-page script: accessible names, computed the way the W3C's accname
 * (1.2) and Chromium compute them, as far as an agent needs: aria-labelledby
 * (with hidden targets), aria-label, the host language's labels and text
 * alternatives (label, alt, svg title, legend-free title), and the name
 * from content walked through the composed tree (shadow roots, slots),
 * leaving out what is hidden or aria-hidden and reading embedded controls'
 * values and CSS generated text. The walk stops once it has more text than
 * a name can hold. tests/e2e/names.test.mjs compares the result with
 * Chromium's accessibility tree on every fixture page. See text.js for how
 * the files fit together.
 */
(parts => {
	'use strict';

	if (parts.names !== undefined)
		return;

	const { shadowRootOf } = parts.tree;

	/** Elements that never add text to a name. */
	const NO_TEXT = /^(SCRIPT|STYLE|TEMPLATE|NOSCRIPT|HEAD|TITLE|META|LINK)$/;
	/** Roles whose element gives its value, not its text, inside another's name (accname 2C). */
	const VALUE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'slider', 'spinbutton', 'scrollbar', 'progressbar']);
	/** Displays that set an element's text apart from its neighbours' (a space in the name). */
	const BLOCK_DISPLAY = /^(block|flex|grid|flow-root|list-item|table|table-\w+)\b/;
	/** Input types whose value is the text inside another's name. */
	const VALUE_INPUTS = /^(text|email|password|search|tel|url|number|)$/;

	/** The element an id names, in the element's own tree first (shadow roots), then its document. */
	function byId(element, id) {
		const root = element.getRootNode();
		return (root.getElementById ? root.getElementById(id) : null) ?? element.ownerDocument.getElementById(id);
	}

	/** The children of a node in the composed tree: a host's shadow tree, a slot's assigned nodes. */
	function flatChildren(node) {
		if (node.nodeType === Node.ELEMENT_NODE) {
			if (node.tagName === 'SLOT') {
				const assigned = node.assignedNodes({ flatten: true });
				return assigned.length > 0 ? assigned : node.childNodes;
			}
			const shadow = shadowRootOf(node);
			if (shadow !== null)
				return shadow.childNodes;
		}
		return node.childNodes;
	}

	/** The text CSS generates before or after an element (content: "…"), '' for none or an image. */
	function generatedText(element, pseudo) {
		const content = getComputedStyle(element, pseudo).content;
		if (content === 'none' || content === 'normal' || content === '' || !content.startsWith('"'))
			return '';
		try {
			return JSON.parse(content);
		} catch {
			return content.slice(1, -1);
		}
	}

	/** The value an embedded control gives another element's name (accname 2C), or null if it is no such control. */
	function embeddedValue(element) {
		const tag = element.tagName;
		const role = (element.getAttribute('role') || '').trim().split(/\s+/)[0];
		if (tag === 'INPUT' && VALUE_INPUTS.test(element.type) && (role === '' || VALUE_ROLES.has(role)))
			return element.value;
		if (tag === 'INPUT' && element.type === 'range')
			return element.getAttribute('aria-valuetext') ?? element.value;
		if (tag === 'TEXTAREA')
			return element.value;
		if (tag === 'SELECT')
			return [...element.selectedOptions].map(o => o.label || o.text).join(' ');
		if (!VALUE_ROLES.has(role))
			return null;
		if (role === 'textbox' || role === 'searchbox')
			return element.textContent;
		if (role === 'combobox' || role === 'listbox') {
			const chosen = element.querySelector('[role="option"][aria-selected="true"]');
			return chosen !== null ? chosen.textContent : role === 'combobox' ? element.textContent : '';
		}
		return element.getAttribute('aria-valuetext') ?? element.getAttribute('aria-valuenow') ?? '';
	}

	/** The host language's own text alternative of an element (alt, svg title), or null. */
	function nativeAlternative(element) {
		const tag = element.tagName;
		if (tag === 'IMG' || tag === 'AREA' || (tag === 'INPUT' && element.type === 'image'))
			return element.getAttribute('alt');
		if (element.localName === 'svg') {
			const title = element.querySelector(':scope > title');
			return title === null ? null : title.textContent;
		}
		return null;
	}

	/**
	 * Adds the text of node's children, in the composed tree, to out (an
	 * array of strings with a running length), leaving out skip (the
	 * element being named, inside its own label) and hidden elements
	 * unless inHidden (a hidden element aria-labelledby names).
	 */
	function addContent(node, out, max, skip, inHidden) {
		for (const child of flatChildren(node)) {
			if (out.length > max)
				return;
			if (child.nodeType === Node.TEXT_NODE) {
				out.push(child.data);
				continue;
			}
			if (child.nodeType !== Node.ELEMENT_NODE || child === skip || NO_TEXT.test(child.tagName))
				continue;
			addElement(child, out, max, skip, inHidden);
		}
	}

	/** Adds one element's part of a name from content to out (see addContent). */
	function addElement(element, out, max, skip, inHidden) {
		if (element.getAttribute('aria-hidden') === 'true' && !inHidden)
			return;
		const style = getComputedStyle(element);
		if (!inHidden && (style.display === 'none' || style.visibility === 'hidden' || style.visibility === 'collapse'))
			return;
		const block = BLOCK_DISPLAY.test(style.display);
		if (block)
			out.push(' ');
		const value = embeddedValue(element);
		const label = element.getAttribute('aria-label');
		if (value !== null) {
			out.push(' ', value, ' ');
		} else if (label !== null && label.trim() !== '') {
			out.push(' ', label, ' ');
		} else {
			const native = nativeAlternative(element);
			if (native !== null && native.trim() !== '') {
				out.push(native);
			} else if (element.tagName === 'BR') {
				out.push(' ');
			} else {
				const before = out.mark();
				out.push(generatedText(element, '::before'));
				addContent(element, out, max, skip, inHidden);
				out.push(generatedText(element, '::after'));
				if (out.since(before).trim() === '' && element.title)
					out.push(element.title);
			}
		}
		if (block)
			out.push(' ');
	}

	/** A list of strings that keeps its total length (the name's text so far). */
	function textList() {
		const list = [];
		let length = 0;
		return {
			push(...texts) {
				for (const text of texts) {
					list.push(text);
					length += text.length;
				}
			},
			get length() {
				return length;
			},
			/* A point in the list, for since(). */
			mark: () => list.length,
			/* The text added since a mark. */
			since: mark => list.slice(mark).join(''),
			join: () => list.join(''),
		};
	}

	/**
	 * The name an element's content gives it (accname 2F): its text, its
	 * descendants' alternatives and embedded values, CSS generated text;
	 * leaving out skip. Read until it is longer than max.
	 */
	function contentName(element, max, skip = null, inHidden = false) {
		const out = textList();
		out.push(generatedText(element, '::before'));
		addContent(element, out, max, skip, inHidden);
		out.push(generatedText(element, '::after'));
		return out.join();
	}

	/** Whether an element is hidden: not rendered (display: none here or above) or invisible. */
	function isHidden(element) {
		return element.getClientRects().length === 0 || getComputedStyle(element).visibility !== 'visible';
	}

	/**
	 * The text of the elements named by an id list (aria-labelledby):
	 * each one's embedded value (another control's), or its aria-label, or
	 * its content, hidden or not.
	 */
	function labelledByText(element, ids, max) {
		const texts = [];
		for (const id of ids.split(/\s+/)) {
			const target = id === '' ? null : byId(element, id);
			if (target === null)
				continue;
			const label = target.getAttribute('aria-label');
			const value = target === element ? null : embeddedValue(target);
			if (value !== null)
				texts.push(value);
			else if (label !== null && label.trim() !== '')
				texts.push(label);
			else
				texts.push(nativeAlternative(target) ?? contentName(target, max, null, isHidden(target)));
		}
		return texts.join(' ');
	}

	/** The text of an element's labels (label elements), '' when it has none. */
	function labelsText(element, max) {
		if (!element.labels || element.labels.length === 0)
			return '';
		return [...element.labels].map(label => contentName(label, max, element)).join(' ');
	}

	parts.names = { contentName, labelledByText, labelsText, nativeAlternative };
})(globalThis.__browserBridgePageParts ??= {});
