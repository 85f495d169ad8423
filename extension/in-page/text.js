/*
 * In-page script: text for results and messages. Collapses and cuts text,
 * and describes an element in a few words (tag#id.class "text").
 *
 * The in-page script is a set of classic scripts (executeScript({files})
 * runs no modules) that the page channel (src/browser/page-channel.js)
 * injects in order into a document's isolated world. Each file adds one
 * part to the shared globalThis.__browserBridgePageParts, using the parts
 * of the files before it; install.js, the last, builds the API. A part is
 * defined once per document, so injecting the files again keeps its state.
 */
(parts => {
	'use strict';

	if (parts.text !== undefined)
		return;

	/** Longest accessible name or placeholder in a state. */
	const NAME_MAX = 80;
	/** Longest value in a state. */
	const VALUE_MAX = 100;

	/** Collapses whitespace and cuts text to max characters. */
	function clean(text, max) {
		const s = String(text ?? '').replace(/\s+/g, ' ').trim();
		return s.length > max ? `${s.slice(0, max - 1)}…` : s;
	}

	/** A short description of an element for messages: tag#id.class "text". */
	function describe(element, withText = true) {
		if (element === null || element === undefined)
			return 'nothing';
		let s = element.tagName.toLowerCase();
		if (element.id)
			s += `#${element.id}`;
		const classes = typeof element.className === 'string' ?
		    element.className.trim().split(/\s+/).filter(Boolean).slice(0, 2) : [];
		for (const c of classes)
			s += `.${c}`;
		const text = withText ? clean(element.innerText ?? element.textContent, 40) : '';
		return text ? `<${s}> "${text}"` : `<${s}>`;
	}

	/** An action error: a protocol code and a message. */
	function fail(code, message) {
		return { error: { code, message } };
	}

	parts.text = { NAME_MAX, VALUE_MAX, clean, describe, fail };
})(globalThis.__browserBridgePageParts ??= {});
