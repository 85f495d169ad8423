/*
 * In-page script: pointer actions. Checks an element can take a click and
 * says where (the debugger then clicks there), or clicks it with DOM events
 * when the debugger cannot be used. See text.js for how the files fit together.
 */
(parts => {
	'use strict';

	if (parts.pointer !== undefined)
		return;

	const { fail } = parts.text;
	const { elementById } = parts.refs;
	const { info, stateOf, coverLabel } = parts.labels;
	const { isInert, isShown, whyHidden, hitTest, shownRect, bringIntoView, box } = parts.visibility;

	/** Checks an element can take a click; returns the point or an error. */
	function prepareClick(id, options = {}) {
		const element = elementById(id);
		if (element === null)
			return { stale: true };
		const about = info(element);
		if (!isShown(element) || element.getBoundingClientRect().width < 1 ||
		    element.getBoundingClientRect().height < 1)
			return { ...fail('NOT_INTERACTABLE', `it is hidden: ${whyHidden(element)}`), info: about };
		if (element.matches(':disabled') || element.getAttribute('aria-disabled') === 'true')
			return { ...fail('NOT_INTERACTABLE', 'it is disabled'), info: about };
		if (isInert(element))
			return { ...fail('NOT_INTERACTABLE', 'it is inert (inside an [inert] element or behind a modal dialog)'), info: about };
		const scrolled = options.scroll === false ? false : bringIntoView(element);
		const rect = element.getBoundingClientRect();
		const hit = hitTest(element, shownRect(element));
		if (!hit.inView)
			return { ...fail('NOT_INTERACTABLE', 'it cannot be scrolled into view'), info: about };
		if (hit.coveredBy !== undefined)
			return { ...fail('NOT_INTERACTABLE', `it is covered by ${coverLabel(hit.coveredBy, element)}`), info: about };
		return {
			x: hit.x, y: hit.y, scrolled, info: about, rect: box(rect), state: stateOf(element),
			visible: document.visibilityState === 'visible',
		};
	}

	/** Synthetic click, for when the debugger cannot be used. */
	function syntheticClick(id, options = {}) {
		const element = elementById(id);
		if (element === null)
			return { stale: true };
		const rect = element.getBoundingClientRect();
		const init = {
			bubbles: true, cancelable: true, composed: true, view: window,
			clientX: rect.left + rect.width / 2, clientY: rect.top + rect.height / 2,
			button: options.button === 'right' ? 2 : options.button === 'middle' ? 1 : 0,
			ctrlKey: options.modifiers?.includes('Control'), shiftKey: options.modifiers?.includes('Shift'),
			altKey: options.modifiers?.includes('Alt'), metaKey: options.modifiers?.includes('Meta'),
		};
		const count = options.clickCount ?? 1;
		for (let i = 1; i <= count; i++) {
			element.dispatchEvent(new PointerEvent('pointerdown', init));
			element.dispatchEvent(new MouseEvent('mousedown', { ...init, detail: i }));
			if (typeof element.focus === 'function')
				element.focus();
			element.dispatchEvent(new PointerEvent('pointerup', init));
			element.dispatchEvent(new MouseEvent('mouseup', { ...init, detail: i }));
			if (init.button === 0)
				element.click();
			else if (init.button === 2)
				element.dispatchEvent(new MouseEvent('contextmenu', init));
		}
		if (count === 2)
			element.dispatchEvent(new MouseEvent('dblclick', { ...init, detail: 2 }));
		return { ok: true };
	}

	parts.pointer = { prepareClick, syntheticClick };
})(globalThis.__browserBridgePageParts ??= {});
